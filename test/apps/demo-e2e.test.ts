import { ChildProcess, execFile, execFileSync, spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FakeApiServer, startFakeApiServer, waitFor } from '../fake-apiserver';

const ROOT = path.join(__dirname, '..', '..');
const FOO = 'samplecontroller.k8s.io/v1alpha1';

// The demo end to end, as a user runs it: `npx cdk8s synth` output applied with the documented commands
// to an empty cluster that enforces RBAC, then the Foo controller run out-of-cluster with the RBAC
// identity its chart grants (the ServiceAccount's token), converging the example Foo.
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
(hasOpenssl ? describe : describe.skip)('demo apps on an RBAC-enforcing (fake) apiserver', () => {
  let dir: string;
  let server: FakeApiServer;
  let controller: ChildProcess | undefined;
  // Asynchronous: the fake apiserver answers from this very process.
  const kubectl = (kubeconfig: string, args: string[]) => new Promise<{ status: number; stdout: string; stderr: string }>(resolve =>
    execFile('kubectl', ['--kubeconfig', kubeconfig, ...args], { cwd: dir, encoding: 'utf8' }, (err, stdout, stderr) =>
      resolve({ status: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })));

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-e2e-'));
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'apps/main.ts')], { cwd: ROOT, env: { ...process.env, CDK8S_OUTDIR: path.join(dir, 'dist'), CDK8S_OPERATOR_QUIET: '1' }, stdio: 'pipe' });
    server = await startFakeApiServer({ rbac: true, tls: true });
  });
  afterAll(async () => {
    if (controller && controller.exitCode === null) controller.kill('SIGKILL');
    await server?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the README apply commands succeed without warnings, and the Foo controller converges with its chart\'s identity', async () => {
    const admin = path.join(dir, 'admin.kubeconfig');
    server.writeKubeconfig(admin);
    const guide = fs.readFileSync(path.join(dir, 'dist', 'APPLY.md'), 'utf8');
    for (const line of /```sh\n([\s\S]*?)```/.exec(guide)![1].trim().split('\n')) {
      const r = await kubectl(admin, line.split(' ').slice(1));
      expect({ line, status: r.status, stderr: r.stderr }).toEqual({ line, status: 0, stderr: '' });
    }
    expect(server.get(FOO, 'Foo', 'default', 'example-foo')).toBeDefined();

    const identity = path.join(dir, 'foo-controller.kubeconfig');
    server.writeKubeconfig(identity, { token: server.tokenFor('foo-controller-system', 'foo-controller') });
    const sa = ['auth', 'can-i'];
    expect((await kubectl(identity, [...sa, 'patch', 'foos.samplecontroller.k8s.io', '--subresource=status', '-n', 'default'])).stdout.trim()).toBe('yes');
    expect((await kubectl(identity, [...sa, 'list', 'secrets', '-A'])).stdout.trim()).toBe('no');

    controller = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'controllers/foo/main.ts'),
      '--metrics-bind-address=0', '--health-probe-bind-address=0', '--leader-elect', '--leader-election-namespace=foo-controller-system'], {
      env: { ...process.env, KUBECONFIG: identity, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await waitFor(() => server.get('apps/v1', 'Deployment', 'default', 'example-foo') !== undefined, 30_000);
    const deployment = server.get('apps/v1', 'Deployment', 'default', 'example-foo');
    expect(deployment.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Foo', name: 'example-foo', controller: true, blockOwnerDeletion: true })]);
    // No kubelet: play the Deployment controller, then the Foo's status follows.
    server.put({ ...deployment, status: { observedGeneration: deployment.metadata.generation, replicas: 1, availableReplicas: 1, readyReplicas: 1 } });
    await waitFor(() => server.get(FOO, 'Foo', 'default', 'example-foo')?.status?.availableReplicas === 1, 30_000);
    const asController = server.requests.filter(r => r.user === 'system:serviceaccount:foo-controller-system:foo-controller');
    expect(asController.filter(r => r.verb === 'patch' && r.subresource === 'status').length).toBeGreaterThan(0);
    expect(asController.filter(r => r.code === 403)).toEqual([]);
  }, 120_000);

  test('the SampleDB controller, with its chart\'s identity, creates the example databases\' objects without a denied request', async () => {
    const identity = path.join(dir, 'sampledb-operator.kubeconfig');
    const user = 'system:serviceaccount:sampledb-operator-system:sampledb-operator';
    server.writeKubeconfig(identity, { token: server.tokenFor('sampledb-operator-system', 'sampledb-operator') });
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, 'controllers/sampledb/main.ts'),
      '--metrics-bind-address=0', '--health-probe-bind-address=0', '--leader-elect', '--leader-election-namespace=sampledb-operator-system'], {
      // WATCH_NAMESPACE as the chart's Deployment sets it (its RBAC is a Role in that namespace).
      env: { ...process.env, KUBECONFIG: identity, LOG_LEVEL: 'error', WATCH_NAMESPACE: 'default' },
      stdio: 'ignore',
    });
    try {
      const owned = (kind: string) => server.requests.some(r => r.user === user && r.resource === kind && r.code < 300 && (r.verb === 'create' || r.verb === 'patch'));
      await waitFor(() => ['secrets', 'services', 'statefulsets'].every(owned) && server.get('apps/v1', 'StatefulSet', 'default', 'my-db') !== undefined, 30_000).catch(e => {
        throw new Error(`${e.message}; requests as the operator: ${JSON.stringify(server.requests.filter(r => r.user === user).map(r => `${r.verb} ${r.resource}/${r.name ?? ''} ${r.code}`))}`);
      });
      const sts = server.get('apps/v1', 'StatefulSet', 'default', 'my-db');
      expect(sts?.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'SampleDB', name: 'my-db', controller: true })]);
      expect(server.requests.filter(r => r.user === user && r.code === 403).map(r => `${r.verb} ${r.resource}`)).toEqual([]);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);
});
