import { Chart, Testing } from 'cdk8s';
import { Operator } from '../../lib';
import { defineContract, resourceRef } from '../../runtime';
import { FakeCrd } from './crd-double';

// The chart derives everything from the contract object the controller is wired from
// (`defineContract` of the runtime): RBAC per watched namespace, WATCH_NAMESPACE, the NetworkPolicy.
const WIDGET = resourceRef({ apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets' });
const CONTRACT = defineContract({
  watches: [WIDGET],
  owns: [resourceRef({ apiVersion: 'apps/v1', kind: 'Deployment' })],
  status: true,
  events: true,
  watchNamespaces: ['team-a', 'team-b'],
});

function synth(extra: Record<string, unknown> = {}) {
  const chart = new Chart(Testing.app(), 'test');
  const crd = new FakeCrd(chart, 'widget', { group: 'example.com', kind: 'Widget', plural: 'widgets' });
  new Operator(chart, 'widget-operator', { crds: [crd], image: 'ghcr.io/acme/widget:0.1.0', contract: CONTRACT, ...extra });
  return Testing.synth(chart);
}

describe('Operator from a contract declared in the controller\'s code', () => {
  test('contract.watchNamespaces drives the Roles, WATCH_NAMESPACE and no ClusterRole', () => {
    const out = synth();
    const roles = out.filter(o => o.kind === 'Role');
    expect(roles.map(o => o.metadata.namespace)).toStrictEqual(['team-a', 'team-b']);
    expect(roles[0].rules).toContainEqual({ apiGroups: ['example.com'], resources: ['widgets/status'], verbs: ['get', 'update', 'patch'] });
    expect(roles[0].rules).toContainEqual({ apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'] });
    expect(out.map(o => o.kind)).not.toContain('ClusterRole');
    const env = out.find(o => o.kind === 'Deployment').spec.template.spec.containers[0].env;
    expect(env.find((e: { name: string }) => e.name === 'WATCH_NAMESPACE').value).toBe('team-a,team-b');
    expect(out.map(o => o.kind)).toContain('NetworkPolicy');
  });

  test('watchNamespaces in both places must agree', () => {
    expect(() => synth({ watchNamespaces: ['team-a', 'team-b'] })).not.toThrow();
    expect(() => synth({ watchNamespaces: ['team-c'] })).toThrow(
      '[test/widget-operator] watchNamespaces: ["team-c"] differs from contract.watchNamespaces ["team-a","team-b"]; set one of them');
  });
});
