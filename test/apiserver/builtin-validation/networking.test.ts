import { errorsOf } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { wildcardSubdomainErrors } from '../../../lib/apiserver/builtin-validation/services-names';

/** NetworkPolicy, Ingress and IngressClass checks without an apiserver: the versions between the measured ones. */

const lines = (object: object, version: KubernetesVersion) =>
  errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
const policyWith = (peer: object) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'NetworkPolicy',
  metadata: { name: 'n' },
  spec: { podSelector: {}, ingress: [{ from: [peer] }] },
});
const ingressTo = (serviceName: string) => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'i' },
  spec: { defaultBackend: { service: { name: serviceName, port: { number: 80 } } } },
});

test('a bad ipBlock CIDR: `not a valid CIDR` before 1.30', () => {
  const bad = policyWith({ ipBlock: { cidr: '10.0.0.0/33' } });
  expect(lines(bad, '1.29')).toEqual([
    'spec.ingress[0].from[0].ipBlock.cidr: Invalid value: "10.0.0.0/33": not a valid CIDR',
  ]);
  expect(lines(bad, '1.30')[0]).toContain('must be a valid CIDR value');
});

test('an ipBlock with bits beyond its prefix: refused from 1.36 (StrictIPCIDRValidation)', () => {
  const loose = policyWith({ ipBlock: { cidr: '10.0.0.1/8' } });
  expect(lines(loose, '1.35')).toEqual([]);
  expect(lines(loose, '1.37')).toHaveLength(1);
});

test('a backend Service named 1abc: a DNS-1035 label up to 1.34, an RFC 1123 label from 1.35', () => {
  expect(lines(ingressTo('1abc'), '1.34')).toHaveLength(1);
  expect(lines(ingressTo('1abc'), '1.35')).toEqual([]);
  expect(lines(ingressTo('Bad'), '1.35')[0]).toContain('a lowercase RFC 1123 label');
});

test('wildcard hosts: `*.` then a subdomain', () => {
  expect(wildcardSubdomainErrors('*.example.com')).toEqual([]);
  expect(wildcardSubdomainErrors('a.*.example.com')).toHaveLength(1);
  expect(wildcardSubdomainErrors('*')).toHaveLength(1);
});
