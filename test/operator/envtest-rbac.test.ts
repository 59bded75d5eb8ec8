import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import * as YAML from 'yaml';
import { CustomResourceDefinition, Operator, OperatorApp, OperatorProps, OutputLayout } from '../../lib';
import { describeRealApiServer } from '../envtest';
import { SAMPLE_CONTROLLER_FIXTURES } from '../fixtures/recorded/paths';

// The "done when" check on a real kube-apiserver (test/envtest). It applies the output with the exact commands of APPLY.md into a cluster whose operator
// namespace enforces Pod Security "restricted" (any warning fails the test), then asks the
// apiserver's RBAC authorizer, as the operator's ServiceAccount, what it may do.
const FIXTURES = SAMPLE_CONTROLLER_FIXTURES;

const CONTRACT = {
  owns: [{ apiVersion: 'apps/v1', kind: 'Deployment' }],
  status: true,
  finalizers: true,
  events: true,
  leaderElection: true,
};

function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; kubeconfig?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) =>
    execFile(
      cmd,
      args,
      {
        cwd: opts.cwd,
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, ...(opts.kubeconfig ? { KUBECONFIG: opts.kubeconfig } : {}) },
      },
      (err, stdout, stderr) =>
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    ),
  );
}

function synth(dir: string, operator: Partial<OperatorProps> & { name: string }): string {
  const app = new OperatorApp({ outdir: path.join(dir, 'dist'), layout: OutputLayout.APPLY_ORDER });
  const chart = new Chart(app, operator.name);
  const crd = CustomResourceDefinition.fromFile(chart, 'crd', path.join(FIXTURES, 'crd.yaml'));
  new Operator(chart, operator.name, {
    crds: [crd],
    image: 'ghcr.io/acme/foo:0.1.0',
    replicas: 2,
    contract: { watches: [crd], ...CONTRACT },
    ...operator,
  });
  const example = YAML.parse(fs.readFileSync(path.join(FIXTURES, 'example-foo.yaml'), 'utf8'));
  new ApiObject(
    new Chart(app, 'examples', { namespace: operator.watchNamespaces?.[0] ?? `${operator.name}-system` }),
    'example',
    example,
  );
  app.synth();
  return path.join(dir, 'dist');
}

async function applyAsDocumented(dir: string, kubeconfig: string) {
  const guide = fs.readFileSync(path.join(dir, 'dist', 'APPLY.md'), 'utf8');
  const lines = /```sh\n([\s\S]*?)```/.exec(guide)![1].trim().split('\n');
  for (const line of lines) {
    const r = await run('kubectl', line.split(' ').slice(1), { cwd: dir, kubeconfig });
    expect({ line, code: r.code, stderr: r.stderr }).toStrictEqual({ line, code: 0, stderr: '' }); // no warnings either
  }
}

async function canI(kubeconfig: string, sa: string, args: string): Promise<string> {
  const r = await run('kubectl', ['auth', 'can-i', ...args.split(' '), `--as=${sa}`], { kubeconfig });
  return r.stdout.trim();
}

// Applied with the exact commands of APPLY.md to a real kube-apiserver (RBAC, PodSecurity admission).
describeRealApiServer(
  'Operator RBAC on the apiserver',
  (plane) => {
    jest.setTimeout(300_000);
    let dir: string;
    const env = { kubeconfig: '' };
    beforeAll(async () => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'envtest-rbac-'));
      env.kubeconfig = path.join(dir, 'kubeconfig');
      plane().writeKubeconfig(env.kubeconfig);
    });
    afterAll(async () => {
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('namespaced watch scope: apply works, the ServiceAccount may do exactly the contract in team-a', async () => {
      const root = path.join(dir, 'ns');
      fs.mkdirSync(root);
      synth(root, { name: 'foo-operator', watchNamespaces: ['team-a'], createWatchNamespaces: true });
      await applyAsDocumented(root, env.kubeconfig);
      const sa = 'system:serviceaccount:foo-operator-system:foo-operator';
      const yes = [
        'get foos.samplecontroller.k8s.io -n team-a',
        'list foos.samplecontroller.k8s.io -n team-a',
        'watch foos.samplecontroller.k8s.io -n team-a',
        'update foos.samplecontroller.k8s.io --subresource=status -n team-a',
        'patch foos.samplecontroller.k8s.io --subresource=status -n team-a',
        'update foos.samplecontroller.k8s.io --subresource=finalizers -n team-a',
        'update foos.samplecontroller.k8s.io -n team-a',
        'create deployments.apps -n team-a',
        'delete deployments.apps -n team-a',
        'watch deployments.apps -n team-a',
        'create events.events.k8s.io -n team-a',
        'create events -n team-a',
        'get leases.coordination.k8s.io -n foo-operator-system',
        'create leases.coordination.k8s.io -n foo-operator-system',
        'update leases.coordination.k8s.io -n foo-operator-system',
      ];
      const no = [
        'list secrets -n team-a',
        'list secrets -n foo-operator-system',
        'delete customresourcedefinitions.apiextensions.k8s.io',
        'get foos.samplecontroller.k8s.io -n default',
        'create deployments.apps -n default',
        'list foos.samplecontroller.k8s.io -A',
        'delete foos.samplecontroller.k8s.io -n team-a',
        'create foos.samplecontroller.k8s.io -n team-a',
        'delete leases.coordination.k8s.io -n foo-operator-system',
        'list namespaces',
        'create pods -n team-a',
        'escalate clusterroles.rbac.authorization.k8s.io',
        'impersonate serviceaccounts -n team-a',
      ];
      for (const q of yes) expect([q, await canI(env.kubeconfig, sa, q)]).toStrictEqual([q, 'yes']);
      for (const q of no) expect([q, await canI(env.kubeconfig, sa, q)]).toStrictEqual([q, 'no']);
    });

    test('cluster-wide: apply works and the RBAC on the cluster has no wildcard', async () => {
      const root = path.join(dir, 'cluster');
      fs.mkdirSync(root);
      synth(root, { name: 'bar-operator' });
      await applyAsDocumented(root, env.kubeconfig);
      const sa = 'system:serviceaccount:bar-operator-system:bar-operator';
      expect(await canI(env.kubeconfig, sa, 'list foos.samplecontroller.k8s.io -A')).toBe('yes');
      expect(await canI(env.kubeconfig, sa, 'list secrets -A')).toBe('no');
      expect(await canI(env.kubeconfig, sa, 'delete customresourcedefinitions.apiextensions.k8s.io')).toBe('no');
      const roles = await run(
        'kubectl',
        [
          'get',
          'clusterrole/bar-operator-manager',
          'role/bar-operator-leader-election',
          '-n',
          'bar-operator-system',
          '-o',
          'json',
        ],
        { kubeconfig: env.kubeconfig },
      );
      expect(roles.code).toBe(0);
      expect(roles.stdout).not.toContain('"*"');
    });
  },
  { shared: true },
);
