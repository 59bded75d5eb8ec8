import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeRealApiServer, FaultProxy, kubectl, TestNamespace } from '../envtest';
import { until } from '../runtime/support';

const ROOT = path.join(__dirname, '..', '..');
const FOO = 'samplecontroller.k8s.io/v1alpha1';

// The demo end to end, as a user runs it: `npx cdk8s synth` output applied with the documented commands to a
// real kube-apiserver (RBAC, Pod Security admission) with kube-controller-manager, then each controller run
// out-of-cluster with its chart's ServiceAccount identity (a TokenRequest token), through a proxy that only
// records what the controller asked and what the apiserver answered.
describeRealApiServer('demo apps under their charts\' identities', (plane) => {
  let dir: string;
  let admin: string;
  let defaults: TestNamespace;
  const children: ChildProcess[] = [];
  const proxies: FaultProxy[] = [];

  /** Starts a controller binary with a ServiceAccount's identity, through its own recording proxy. */
  async function runController(main: string, namespace: string, account: string, env: Record<string, string> = {}): Promise<FaultProxy> {
    const proxy = await FaultProxy.start(plane());
    proxies.push(proxy);
    const kubeconfig = path.join(dir, `${account}.kubeconfig`);
    proxy.writeKubeconfig(kubeconfig, await plane().serviceAccount(namespace, account));
    children.push(spawn(process.execPath, [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), path.join(ROOT, main),
      '--metrics-bind-address=0', '--health-probe-bind-address=0', '--leader-elect', `--leader-election-namespace=${namespace}`], {
      env: { ...process.env, KUBECONFIG: kubeconfig, LOG_LEVEL: 'error', ...env },
      stdio: ['ignore', 'ignore', 'inherit'],
      detached: true, // its own process group: tsx runs the controller in a child process of its own
    }));
    return proxy;
  }

  const denied = (proxy: FaultProxy) => proxy.requests.filter((r) => r.code === 403).map((r) => `${r.verb} ${r.resource}/${r.name ?? ''}`);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'demo-e2e-'));
    execFileSync(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'apps/main.ts')], { cwd: ROOT, env: { ...process.env, CDK8S_OUTDIR: path.join(dir, 'dist'), CDK8S_OPERATOR_QUIET: '1' }, stdio: 'pipe' });
    admin = path.join(dir, 'admin.kubeconfig');
    plane().writeKubeconfig(admin);
    // the demo's custom resources live in `default`: its pods "run" (Deployments become available)
    defaults = new TestNamespace(plane(), 'default', () => 'Running');
  });
  afterAll(async () => {
    for (const c of children) if (c.exitCode === null) process.kill(-c.pid!, 'SIGKILL');
    for (const p of proxies) await p.close();
    defaults?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the README apply commands succeed without warnings, and the Foo controller converges with its chart\'s identity', async () => {
    const guide = fs.readFileSync(path.join(dir, 'dist', 'APPLY.md'), 'utf8');
    for (const line of /```sh\n([\s\S]*?)```/.exec(guide)![1].trim().split('\n')) {
      const r = await kubectl(admin, line.split(' ').slice(1), { cwd: dir });
      expect({ line, code: r.code, stderr: r.stderr }).toEqual({ line, code: 0, stderr: '' });
    }
    expect(await defaults.get(FOO, 'Foo', 'example-foo')).toBeDefined();

    const identity = await plane().serviceAccount('foo-controller-system', 'foo-controller');
    const canI = path.join(dir, 'can-i.kubeconfig');
    plane().writeKubeconfig(canI, identity);
    expect((await kubectl(canI, ['auth', 'can-i', 'patch', 'foos.samplecontroller.k8s.io', '--subresource=status', '-n', 'default'])).stdout.trim()).toBe('yes');
    expect((await kubectl(canI, ['auth', 'can-i', 'list', 'secrets', '-A'])).stdout.trim()).toBe('no');

    const proxy = await runController('controllers/foo/main.ts', 'foo-controller-system', 'foo-controller');
    const deployment = await until('Deployment example-foo', () => defaults.get('apps/v1', 'Deployment', 'example-foo'), 60_000, 200);
    expect(deployment.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Foo', name: 'example-foo', controller: true, blockOwnerDeletion: true })]);
    // the deployment controller reports the pods the stand-in kubelet runs; the Foo's status follows
    await until('Foo status', async () => (await defaults.get(FOO, 'Foo', 'example-foo'))?.status?.availableReplicas === deployment.spec.replicas, 60_000, 200);
    expect(proxy.requests.filter((r) => r.verb === 'patch' && r.subresource === 'status' && r.code === 200).length).toBeGreaterThan(0);
    expect(denied(proxy)).toEqual([]);
  }, 180_000);

  test('the SampleDB controller, with its chart\'s identity, creates the example databases\' objects without a denied request', async () => {
    // WATCH_NAMESPACE as the chart's Deployment sets it (its RBAC is a Role in that namespace)
    const proxy = await runController('controllers/sampledb/main.ts', 'sampledb-operator-system', 'sampledb-operator', { WATCH_NAMESPACE: 'default' });
    const sts = await until('StatefulSet my-db', () => defaults.get('apps/v1', 'StatefulSet', 'my-db'), 60_000, 200).catch((e) => {
      throw new Error(`${e.message}; requests as the operator: ${JSON.stringify(proxy.requests.map((r) => `${r.verb} ${r.resource}/${r.name ?? ''} ${r.code}`))}`);
    });
    expect(sts.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'SampleDB', name: 'my-db', controller: true })]);
    for (const resource of ['secrets', 'services', 'statefulsets']) {
      expect([resource, proxy.requests.some((r) => r.resource === resource && r.code < 300 && (r.verb === 'create' || r.verb === 'patch'))]).toEqual([resource, true]);
    }
    expect(denied(proxy)).toEqual([]);
  }, 180_000);
}, { controllerManager: true });
