import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { foo, FooNamespace } from './harness';
import { describeRealApiServer } from '../../envtest';
import { fooCrd, until } from '../../runtime/support';

const ROOT = join(__dirname, '../../..');

describeRealApiServer(
  'controllers/foo/main.ts as a process',
  (plane) => {
    let child: ChildProcess | undefined;
    let env: FooNamespace | undefined;
    let dir: string;

    afterEach(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('runs with npx tsx against a kubeconfig, converges a Foo and exits 0 on SIGTERM', async () => {
      const e = (env = await FooNamespace.create(plane()));
      dir = mkdtempSync(join(tmpdir(), 'foo-e2e-'));
      const kubeconfig = join(dir, 'kubeconfig');
      plane().writeKubeconfig(kubeconfig);
      let output = '';
      child = spawn(
        process.execPath,
        [
          join(ROOT, 'node_modules/tsx/dist/cli.mjs'),
          join(ROOT, 'controllers/foo/main.ts'),
          '--metrics-bind-address=0',
          '--health-probe-bind-address=127.0.0.1:0',
          '--leader-elect',
          `--leader-election-namespace=${e.ns}`,
        ],
        {
          env: { ...process.env, KUBECONFIG: kubeconfig, WATCH_NAMESPACE: e.ns, LOG_LEVEL: 'info' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      child.stdout!.on('data', (d) => {
        output += d;
      });
      child.stderr!.on('data', (d) => {
        output += d;
      });
      const exited = new Promise<number | null>((resolve) => child!.on('exit', (code) => resolve(code)));

      await e.put(foo('e2e'));
      await until('deployment from the binary', () => e.getDeployment('e2e'), 30_000, 100);
      await until('status', async () => (await e.getFoo('e2e'))?.status?.availableReplicas === 1, 30_000, 100);
      expect((await e.get('coordination.k8s.io/v1', 'Lease', 'foo-controller-leader')).spec.holderIdentity).toMatch(
        /^.+_[0-9a-f-]{36}$/,
      );

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toMatch(/"msg":"signal received, shutting down"/);
      expect(output).toMatch(/"msg":"manager stopped"/);
      // the lease was released on clean shutdown
      expect((await e.get('coordination.k8s.io/v1', 'Lease', 'foo-controller-leader')).spec.holderIdentity).toBe('');
      for (const line of output.trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    }, 90_000);
  },
  { shared: true, crds: [fooCrd()], controllerManager: true },
);
