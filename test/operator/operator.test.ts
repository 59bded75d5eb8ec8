import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { FakeCrd } from './crd-double';
import { OperatorApp, Operator, OutputLayout, RbacRisk } from '../../lib';
import { RESTRICTED_NAMESPACE_LABELS } from '../../lib/operator/operator';

const CONTRACT = {
  owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
  status: true,
  finalizers: true,
  events: true,
  leaderElection: true,
};

function operatorChart(extra: Record<string, unknown> = {}, app: App = Testing.app()) {
  const chart = new Chart(app, 'test');
  const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
  const op = new Operator(chart, 'foo-operator', {
    crds: [foo],
    image: 'ghcr.io/acme/foo:0.1.0',
    contract: { watches: [foo], ...CONTRACT },
    ...extra,
  });
  return { chart, op };
}
const kinds = (objs: any[]) => objs.map((o) => o.kind);

describe('Operator', () => {
  test('composes namespace, RBAC, Deployment, metrics Service and NetworkPolicy', () => {
    const { chart, op } = operatorChart();
    const out = Testing.synth(chart);
    expect(kinds(out)).toStrictEqual([
      'Namespace',
      'ServiceAccount',
      'ClusterRole',
      'ClusterRoleBinding',
      'Role',
      'RoleBinding',
      'Deployment',
      'Service',
      'NetworkPolicy',
    ]);
    expect(out[0].metadata).toStrictEqual({ name: 'foo-operator-system', labels: RESTRICTED_NAMESPACE_LABELS });
    expect(op.namespace).toBe('foo-operator-system');
    for (const o of out.slice(1)) {
      if (!o.kind.startsWith('Cluster')) expect(o.metadata.namespace).toBe('foo-operator-system');
    }
  });

  test('selectors come from the operator name: renaming or moving the construct keeps them (a Deployment selector is immutable)', () => {
    const selectors = (scopeId: string, id: string) => {
      const chart = new Chart(Testing.app(), scopeId);
      const foo = new FakeCrd(chart, 'foo', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
      new Operator(chart, id, {
        name: 'foo-operator',
        replicas: 2,
        crds: [foo],
        image: 'ghcr.io/acme/foo:0.1.0',
        contract: { watches: [foo], ...CONTRACT },
      });
      const out = Testing.synth(chart);
      const of = (kind: string) => out.find((o) => o.kind === kind);
      // the pods carry the selector (and cdk8s-plus' address label, which nothing selects on)
      expect(of('Deployment').spec.template.metadata.labels).toMatchObject(of('Deployment').spec.selector.matchLabels);
      return {
        deployment: of('Deployment').spec.selector,
        service: of('Service').spec.selector,
        pdb: of('PodDisruptionBudget').spec.selector,
        networkPolicy: of('NetworkPolicy').spec.podSelector,
      };
    };
    const before = selectors('test', 'foo-operator');
    const selector = {
      'app.kubernetes.io/name': 'foo-operator',
      'app.kubernetes.io/instance': 'foo-operator',
      'app.kubernetes.io/component': 'controller',
    };
    expect(before).toStrictEqual({
      deployment: { matchLabels: selector },
      service: selector,
      pdb: { matchLabels: selector },
      networkPolicy: { matchLabels: selector },
    });
    expect(selectors('test', 'FooOperatorRenamed')).toStrictEqual(before);
    expect(selectors('another-chart', 'foo-operator')).toStrictEqual(before);
  });

  test('snapshot of the default output (review aid; targeted assertions are above and below)', () => {
    const { chart } = operatorChart({ replicas: 2 });
    expect(Testing.synth(chart)).toMatchSnapshot();
  });

  test('one watchNamespaces setting drives the Roles and WATCH_NAMESPACE', () => {
    const { chart } = operatorChart({ watchNamespaces: ['team-a', 'team-b'] });
    const out = Testing.synth(chart);
    expect(out.filter((o) => o.kind === 'Role').map((o) => o.metadata.namespace)).toStrictEqual([
      'team-a',
      'team-b',
      'foo-operator-system',
    ]);
    const env = out.find((o) => o.kind === 'Deployment').spec.template.spec.containers[0].env;
    expect(env.find((e: any) => e.name === 'WATCH_NAMESPACE').value).toBe('team-a,team-b');
    expect(kinds(out)).not.toContain('ClusterRole');
  });

  test('a Namespace per watched namespace by default, never for the built-in ones; createWatchNamespaces: false opts out', () => {
    const namespaces = (extra: Record<string, unknown>) =>
      Testing.synth(operatorChart(extra).chart)
        .filter((o) => o.kind === 'Namespace')
        .map((o) => o.metadata.name);
    expect(namespaces({ watchNamespaces: ['team-a', 'default', 'kube-system'] })).toStrictEqual([
      'foo-operator-system',
      'team-a',
    ]);
    expect(namespaces({ watchNamespaces: ['team-a'], createWatchNamespaces: false })).toStrictEqual([
      'foo-operator-system',
    ]);
    expect(namespaces({})).toStrictEqual(['foo-operator-system']);
  });

  test('monitoring adds a ServiceMonitor and a PrometheusRule', () => {
    const { chart } = operatorChart({ monitoring: { labels: { release: 'prom' } } });
    const out = Testing.synth(chart);
    expect(kinds(out).slice(-2)).toStrictEqual(['ServiceMonitor', 'PrometheusRule']);
  });

  test('fails for two replicas without leader election in the contract', () => {
    const chart = new Chart(Testing.app(), 'test');
    const foo = new FakeCrd(chart, 'foo', { group: 'x.io', kind: 'Foo', plural: 'foos' });
    new Operator(chart, 'op', { crds: [foo], image: 'x:1', replicas: 3, contract: { watches: [foo] } });
    expect(() => Testing.synth(chart)).toThrow(
      /\[test\/op\/Controller\] replicas: 3 replicas need leader election \(contract\.leaderElection: true\)/,
    );
  });

  test('fails for the latest tag, with the construct path', () => {
    const chart = new Chart(Testing.app(), 'test');
    const foo = new FakeCrd(chart, 'foo', { group: 'x.io', kind: 'Foo', plural: 'foos' });
    new Operator(chart, 'op', { crds: [foo], image: 'x:latest', contract: { watches: [foo] } });
    expect(() => Testing.synth(chart)).toThrow(/\[test\/op\/Controller\] image: must not use the 'latest' tag/);
  });

  test('an Operator does not switch on app-wide checks: a plain cdk8s App validates nothing beyond the constructs', () => {
    const { chart } = operatorChart({
      additionalRules: [{ apiGroups: [''], resources: ['*'], verbs: ['get'], reason: 'debugging' }],
    });
    new ApiObject(new Chart(chart.node.root, 'other'), 'p', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { hostPID: true, containers: [] },
    });
    expect(() => Testing.synth(chart)).not.toThrow();
  });
});

describe('Operator in an OperatorApp', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'operator-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const quietApp = () => new OperatorApp({ outdir: path.join(dir, 'dist'), report: false, descriptionCheck: false });

  test("a wildcard escape hatch fails synth unless its risk is accepted (the app's policy)", () => {
    const bad = operatorChart(
      { additionalRules: [{ apiGroups: [''], resources: ['*'], verbs: ['get'], reason: 'debugging' }] },
      quietApp(),
    );
    expect(() => Testing.synth(bad.chart)).toThrow(/rules\[0\]\.resources: wildcard/);
    const ok = operatorChart(
      {
        additionalRules: [
          { apiGroups: [''], resources: ['*'], verbs: ['get'], reason: 'debugging', acceptRisks: [RbacRisk.WILDCARD] },
        ],
      },
      quietApp(),
    );
    expect(() => Testing.synth(ok.chart)).not.toThrow();
  });

  test('a user pod that is not "restricted" elsewhere in the app fails synth', () => {
    const { chart } = operatorChart({}, quietApp());
    const app = chart.node.root as OperatorApp;
    const other = new Chart(app, 'other');
    new ApiObject(other, 'p', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'x:1' }] },
    });
    expect(() => app.synth()).toThrow(
      /\[other\/p\] policy: Pod p: spec\.containers\[0\]\.securityContext\.allowPrivilegeEscalation: must be set to false/,
    );
  });

  test('writes the RBAC report next to the manifests, in apply order', () => {
    const outdir = path.join(dir, 'dist');
    const app = new OperatorApp({ outdir, layout: OutputLayout.APPLY_ORDER });
    const chart = new Chart(app, 'foo');
    const foo = new FakeCrd(chart, 'crd', { group: 'samplecontroller.k8s.io', kind: 'Foo', plural: 'foos' });
    new Operator(chart, 'foo-operator', {
      crds: [foo],
      image: 'ghcr.io/acme/foo:0.1.0',
      contract: { watches: [foo], ...CONTRACT },
    });
    app.synth();
    expect(fs.readdirSync(outdir).sort()).toStrictEqual([
      '0-namespaces.yaml',
      '2-cluster-resources.yaml',
      '3-namespaced-resources.yaml',
      'APPLY.md',
      'foo-operator.rbac-report.md',
    ]);
    const report = fs.readFileSync(path.join(outdir, 'foo-operator.rbac-report.md'), 'utf8');
    expect(report).toContain(
      '| samplecontroller.k8s.io | foos/status | all | get, update, patch | writes Foo status |',
    );
    expect(report).toContain('| coordination.k8s.io | leases | all | get, create, update | leader election lease |');
    const cluster = YAML.parseAllDocuments(fs.readFileSync(path.join(outdir, '2-cluster-resources.yaml'), 'utf8')).map(
      (d) => d.toJS(),
    );
    expect(kinds(cluster)).toStrictEqual(['ClusterRole', 'ClusterRoleBinding']);
  });
});
