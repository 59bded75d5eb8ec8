import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Testing } from 'cdk8s';
import { FakeCrd } from './crd-double';
import { ControllerContract, Operator, OperatorApp } from '../../lib';
import { defineContract, resourceRef } from '../../runtime';

// The chart derives everything from the contract object the controller is wired from
// (`defineContract` of the runtime): RBAC per watched namespace, WATCH_NAMESPACE, the NetworkPolicy.
const WIDGET = resourceRef({ apiVersion: 'example.com/v1', kind: 'Widget', plural: 'widgets' });
const STATEFULSET = resourceRef({ apiVersion: 'apps/v1', kind: 'StatefulSet' });
const CONTRACT = defineContract({
  watches: [WIDGET],
  owns: [resourceRef({ apiVersion: 'apps/v1', kind: 'Deployment' }), STATEFULSET],
  status: true,
  events: true,
  watchNamespaces: ['team-a', 'team-b'],
  connectsTo: [{ podsOf: STATEFULSET, podLabels: { app: 'widget-db' }, ports: [5432, 8008] }],
});

function synth(extra: Record<string, unknown> = {}, contract: ControllerContract = CONTRACT) {
  const chart = new Chart(Testing.app(), 'test');
  const crd = new FakeCrd(chart, 'widget', { group: 'example.com', kind: 'Widget', plural: 'widgets' });
  new Operator(chart, 'widget-operator', { crds: [crd], image: 'ghcr.io/acme/widget:0.1.0', contract, ...extra });
  return Testing.synth(chart);
}

describe("Operator from a contract declared in the controller's code", () => {
  test('contract.watchNamespaces drives the Roles, WATCH_NAMESPACE and no ClusterRole', () => {
    const out = synth();
    const roles = out.filter((o) => o.kind === 'Role');
    expect(roles.map((o) => o.metadata.namespace)).toStrictEqual(['team-a', 'team-b']);
    expect(roles[0].rules).toContainEqual({
      apiGroups: ['example.com'],
      resources: ['widgets/status'],
      verbs: ['get', 'update', 'patch'],
    });
    expect(roles[0].rules).toContainEqual({
      apiGroups: ['apps'],
      resources: ['deployments'],
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    });
    expect(out.map((o) => o.kind)).not.toContain('ClusterRole');
    const env = out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].env;
    expect(env.find((e: { name: string }) => e.name === 'WATCH_NAMESPACE').value).toBe('team-a,team-b');
    expect(out.map((o) => o.kind)).toContain('NetworkPolicy');
  });

  test('watchNamespaces in both places must agree', () => {
    expect(() => synth({ watchNamespaces: ['team-a', 'team-b'] })).not.toThrow();
    expect(() => synth({ watchNamespaces: ['team-c'] })).toThrow(
      '[test/widget-operator] watchNamespaces: ["team-c"] differs from contract.watchNamespaces ["team-a","team-b"]; set one of them',
    );
  });

  test('contract.connectsTo becomes NetworkPolicy egress to those pods and ports, in the watched namespaces only', () => {
    const policy = synth().find((o) => o.kind === 'NetworkPolicy');
    const toPods = policy.spec.egress.filter((r: { to: { podSelector?: unknown }[] }) =>
      r.to.some((p) => p.podSelector && JSON.stringify(p.podSelector).includes('widget-db')),
    );
    expect(toPods).toStrictEqual([
      {
        to: ['team-a', 'team-b'].map((ns) => ({
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
          podSelector: { matchLabels: { app: 'widget-db' } },
        })),
        ports: [
          { port: 5432, protocol: 'TCP' },
          { port: 8008, protocol: 'TCP' },
        ],
      },
    ]);
    // a cluster-wide contract reaches those pods in every namespace
    const { watchNamespaces: _scope, ...clusterWide } = CONTRACT;
    const wide = synth({}, clusterWide).find((o) => o.kind === 'NetworkPolicy');
    expect(wide.spec.egress.map((r: { to: unknown[] }) => r.to)).toContainEqual([
      { namespaceSelector: {}, podSelector: { matchLabels: { app: 'widget-db' } } },
    ]);
    // without connectsTo: only the apiserver and DNS
    const { connectsTo: _peers, ...noPeers } = CONTRACT;
    expect(synth({}, noPeers).find((o) => o.kind === 'NetworkPolicy').spec.egress).toHaveLength(2);
  });

  test('the RBAC report lists the egress the contract asks for', () => {
    const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'egress-report-'));
    try {
      const app = new OperatorApp({ outdir, report: false });
      const chart = new Chart(app, 'test');
      const crd = new FakeCrd(chart, 'widget', { group: 'example.com', kind: 'Widget', plural: 'widgets' });
      new Operator(chart, 'widget-operator', { crds: [crd], image: 'ghcr.io/acme/widget:0.1.0', contract: CONTRACT });
      app.synth();
      const report = fs.readFileSync(path.join(outdir, 'widget-operator.rbac-report.md'), 'utf8');
      expect(report).toContain('## Network egress (NetworkPolicy)');
      expect(report).toContain('| `app=widget-db` | 5432, 8008 | `team-a`, `team-b` |');
    } finally {
      fs.rmSync(outdir, { recursive: true, force: true });
    }
  });

  test('a bad connectsTo fails synth naming each field and bad value', () => {
    // the chart checks what defineContract checks, for contracts written inline
    const contract: ControllerContract = {
      watches: [WIDGET],
      owns: [STATEFULSET],
      connectsTo: [
        { podsOf: { apiVersion: 'apps/v1', kind: 'DaemonSet' }, podLabels: {}, ports: [0] },
        { podsOf: STATEFULSET, podLabels: { app: 'db' }, ports: [] },
      ],
    };
    expect(() => synth({}, contract)).toThrow(
      /connectsTo\[0\]\.podsOf: 'apps\/v1 DaemonSet' must be a kind in contract\.owns[\s\S]*connectsTo\[0\]\.podLabels: must name at least one label[\s\S]*connectsTo\[0\]\.ports\[0\]: must be a port number 1-65535, got 0[\s\S]*connectsTo\[1\]\.ports: must name at least one port, got \[\]/,
    );
  });
});
