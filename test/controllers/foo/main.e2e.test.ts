import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { FakeApiServer } from '../../fake-apiserver';
import { foo, NS, setAvailableReplicas, startFake } from './harness';
import { until } from '../../runtime/support';

const ROOT = join(__dirname, '../../..');

describe('controllers/foo/main.ts as a process', () => {
  let fake: FakeApiServer;
  let child: ChildProcess | undefined;

  afterEach(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await fake?.close();
  });

  test('runs with npx tsx against a kubeconfig, converges a Foo and exits 0 on SIGTERM', async () => {
    fake = await startFake();
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'foo-e2e-')), 'kubeconfig');
    fake.writeKubeconfig(kubeconfig);
    let output = '';
    child = spawn(process.execPath, [join(ROOT, 'node_modules/tsx/dist/cli.mjs'), join(ROOT, 'controllers/foo/main.ts'),
      '--metrics-bind-address=0', '--health-probe-bind-address=127.0.0.1:0', '--leader-elect', '--leader-election-namespace=default'], {
      env: { ...process.env, KUBECONFIG: kubeconfig, WATCH_NAMESPACE: NS, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (d) => { output += d; });
    child.stderr!.on('data', (d) => { output += d; });
    const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));

    fake.put(foo('e2e'));
    await until('deployment from the binary', () => fake.get('apps/v1', 'Deployment', NS, 'e2e'), 30_000, 100);
    setAvailableReplicas(fake, 'e2e', 1);
    await until('status', () => fake.get('samplecontroller.k8s.io/v1alpha1', 'Foo', NS, 'e2e')?.status?.availableReplicas === 1, 10_000, 100);
    expect(fake.get('coordination.k8s.io/v1', 'Lease', NS, 'foo-controller-leader').spec.holderIdentity).toMatch(/^.+_[0-9a-f-]{36}$/);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toMatch(/"msg":"signal received, shutting down"/);
    expect(output).toMatch(/"msg":"manager stopped"/);
    // the lease was released on clean shutdown
    expect(fake.get('coordination.k8s.io/v1', 'Lease', NS, 'foo-controller-leader').spec.holderIdentity).toBe('');
    for (const line of output.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
  }, 60_000);
});
