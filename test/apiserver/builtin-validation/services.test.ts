import { errorsOf, Issue } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import {
  cidrErrors,
  ipErrors,
  isStrictSubset,
  parseCidrSloppy,
  parseIpSloppy,
} from '../../../lib/apiserver/builtin-validation/networking-ip';
import { portNameErrors } from '../../../lib/apiserver/builtin-validation/ports';
import { defaultedServiceSpec } from '../../../lib/apiserver/builtin-validation/services-defaults';

/** The Service checks without an apiserver: defaults, the helpers, and the versions between the measured ones. */

const service = (spec: object) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec });
const lines = (object: object, version: KubernetesVersion = '1.32') =>
  errorsOf(builtinObjectIssues(object, version)).map((i: Issue) => `${i.path}: ${i.message}`);

describe('Service defaults', () => {
  test('type ClusterIP, sessionAffinity None, protocol TCP, targetPort the port, clusterIPs from clusterIP', () => {
    const d = defaultedServiceSpec({
      clusterIP: '10.0.0.5',
      ports: [
        { port: 80, targetPort: 0 },
        { port: 81, targetPort: '' },
      ],
    });
    expect(d.type).toBe('ClusterIP');
    expect(d.sessionAffinity).toBe('None');
    expect(d.ports.map((p) => [p.protocol, p.targetPort])).toEqual([
      ['TCP', 80],
      ['TCP', 81],
    ]);
    expect(d.clusterIPs).toEqual(['10.0.0.5']);
    expect(d.externalTrafficPolicy).toBeUndefined();
  });

  test('externalTrafficPolicy Cluster for NodePort and LoadBalancer Services only', () => {
    expect(defaultedServiceSpec({ type: 'NodePort' }).externalTrafficPolicy).toBe('Cluster');
    expect(defaultedServiceSpec({ type: 'LoadBalancer' }).externalTrafficPolicy).toBe('Cluster');
    expect(defaultedServiceSpec({ type: 'ExternalName' }).externalTrafficPolicy).toBeUndefined();
  });

  test('a valid Service has no issue on any version', () => {
    const ok = service({ selector: { app: 'a' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] });
    for (const v of ['1.28', '1.30', '1.33', '1.37'] as const) expect(lines(ok, v)).toEqual([]);
  });
});

describe('Service rules between the measured versions', () => {
  const kubeletPort = service({ type: 'LoadBalancer', ports: [{ port: 10250 }] });
  test('port 10250 of a LoadBalancer: refused up to 1.32, allowed from 1.33 (kubernetes/kubernetes#129174)', () => {
    expect(lines(kubeletPort, '1.32')).toEqual([
      'spec.ports[0]: Invalid value: 10250: may not expose port 10250 externally since it is used by kubelet',
    ]);
    expect(lines(kubeletPort, '1.33')).toEqual([]);
  });

  test('externalTrafficPolicy on a ClusterIP Service: the 1.28 wording, then from 1.29 externalIPs make it external', () => {
    expect(lines(service({ ports: [{ port: 80 }], externalTrafficPolicy: 'Local' }), '1.28')).toEqual([
      "spec.externalTrafficPolicy: Invalid value: \"Local\": may only be set when `type` is 'NodePort' or 'LoadBalancer'",
    ]);
    expect(lines(service({ ports: [{ port: 80 }], externalTrafficPolicy: 'Local' }), '1.29')).toEqual([
      'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ]);
    const withExternalIps = service({
      ports: [{ port: 80 }],
      externalIPs: ['203.0.113.7'],
      externalTrafficPolicy: 'Local',
    });
    expect(lines(withExternalIps, '1.28')).toHaveLength(1);
    expect(lines(withExternalIps, '1.29')).toEqual([]);
  });

  test('trafficDistribution: nothing said before 1.31 (unknown, then dropped), PreferSameZone from 1.34', () => {
    const zone = service({ ports: [{ port: 80 }], trafficDistribution: 'PreferSameZone' });
    expect(lines(zone, '1.30')).toEqual([]);
    expect(lines(zone, '1.31')).toEqual([
      'spec.trafficDistribution: Unsupported value: "PreferSameZone": supported values: "PreferClose"',
    ]);
    expect(lines(zone, '1.33')).toHaveLength(1);
    expect(lines(zone, '1.34')).toEqual([]);
  });

  test('loadBalancerSourceRanges: one error for the list before 1.30, one per range from 1.30', () => {
    const bad = service({ type: 'LoadBalancer', ports: [{ port: 80 }], loadBalancerSourceRanges: ['x', 'y'] });
    expect(lines(bad, '1.29')).toEqual([
      'spec.LoadBalancerSourceRanges: Invalid value: "[x y]": must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 ',
    ]);
    expect(lines(bad, '1.30').map((l) => l.split(':')[0])).toEqual([
      'spec.LoadBalancerSourceRanges[0]',
      'spec.LoadBalancerSourceRanges[1]',
    ]);
  });

  test('a duplicate port prints its key as Go %#v up to 1.33, as JSON from 1.34', () => {
    const dup = service({
      ports: [
        { name: 'a', port: 80 },
        { name: 'b', port: 80 },
      ],
    });
    expect(lines(dup, '1.33')[0]).toContain('Duplicate value: core.ServicePort{Name:"", Protocol:"TCP"');
    expect(lines(dup, '1.34')[0]).toBe(
      'spec.ports[1]: Duplicate value: {"Name":"","Protocol":"TCP","AppProtocol":null,"Port":80,"TargetPort":0,"NodePort":0}',
    );
  });
});

describe('IP and CIDR parsing', () => {
  test('sloppy IPv4 with leading zeros, IPv6 with an IPv4 tail; zones and garbage refused', () => {
    expect(parseIpSloppy('010.0.0.1')).toEqual({ family: 4, bytes: [10, 0, 0, 1] });
    expect(parseIpSloppy('::ffff:1.2.3.4')?.bytes.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect(parseIpSloppy('fe80::1')?.bytes).toEqual([0xfe, 0x80, ...new Array(13).fill(0), 1]);
    expect(parseIpSloppy('fe80::1%eth0')).toBeUndefined();
    expect(parseIpSloppy('1.2.3')).toBeUndefined();
    expect(parseIpSloppy('256.0.0.1')).toBeUndefined();
  });

  test('strict from 1.36: leading zeros, IPv4-mapped addresses, bits beyond the prefix', () => {
    expect(ipErrors('010.0.0.1', '1.35')).toEqual([]);
    expect(ipErrors('010.0.0.1', '1.36')).toEqual(['must not have leading 0s']);
    expect(ipErrors('::ffff:1.2.3.4', '1.36')).toEqual(['must not be an IPv4-mapped IPv6 address']);
    expect(cidrErrors('10.0.0.1/8', '1.35')).toEqual([]);
    expect(cidrErrors('10.0.0.1/8', '1.36')).toEqual(['must not have bits set beyond the prefix length']);
    expect(cidrErrors('10.0.0.0/33', '1.36')).toEqual([
      'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
    ]);
    expect(cidrErrors('10.0.0.0/33', '1.29', 'not a valid CIDR')).toEqual(['not a valid CIDR']);
  });

  test('a strict subset: same family, longer prefix, inside', () => {
    const outer = parseCidrSloppy('10.0.0.0/8')!;
    expect(isStrictSubset(parseCidrSloppy('10.1.0.0/16')!, outer)).toBe(true);
    expect(isStrictSubset(parseCidrSloppy('10.0.0.0/8')!, outer)).toBe(false);
    expect(isStrictSubset(parseCidrSloppy('11.0.0.0/16')!, outer)).toBe(false);
    expect(isStrictSubset(parseCidrSloppy('fd00::/64')!, outer)).toBe(false);
    expect(isStrictSubset(parseCidrSloppy('2001:db8:1::/48')!, parseCidrSloppy('2001:db8::/32')!)).toBe(true);
  });
});

test('IANA port names: each rule its message', () => {
  expect(portNameErrors('http')).toEqual([]);
  expect(portNameErrors('a--b')).toEqual(['must not contain consecutive hyphens']);
  expect(portNameErrors('-ab')).toEqual(['must not begin or end with a hyphen']);
  expect(portNameErrors('8080')).toEqual(['must contain at least one letter (a-z)']);
  expect(portNameErrors('a'.repeat(16))).toEqual(['must be no more than 15 characters']);
});
