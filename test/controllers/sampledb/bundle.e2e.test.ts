import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { build } from 'esbuild';
import { SampleDbNamespace, sampleDb, sampleDbCrdManifest } from './harness';
import { describeRealApiServer } from '../../envtest';
import { until } from '../../runtime/support';

const ROOT = join(__dirname, '../../..');

describeRealApiServer(
  'the single-file bundle (controllers/sampledb, `npm run bundle`) as a process',
  (plane) => {
    let env: SampleDbNamespace | undefined;
    let child: ChildProcess | undefined;
    let dir: string;

    afterEach(async () => {
      if (child && child.exitCode === null) child.kill('SIGKILL');
      env?.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    test('runs with node against a kubeconfig, creates a database, leaks no credential, exits 0 on SIGTERM', async () => {
      dir = mkdtempSync(join(tmpdir(), 'sampledb-bundle-'));
      const bundle = join(dir, 'main.js');
      // the same options as package.json's bundle script
      await build({
        entryPoints: [join(ROOT, 'controllers/sampledb/main.ts')],
        bundle: true,
        platform: 'node',
        target: 'node20',
        outfile: bundle,
        logLevel: 'silent',
      });
      expect(statSync(bundle).size).toBeGreaterThan(0);
      env = await SampleDbNamespace.create(plane());
      const kubeconfig = join(dir, 'kubeconfig');
      plane().writeKubeconfig(kubeconfig);
      let output = '';
      child = spawn(
        process.execPath,
        [
          bundle,
          '--metrics-bind-address=0',
          '--health-probe-bind-address=127.0.0.1:0',
          '--leader-elect',
          '--leader-election-namespace=default',
        ],
        {
          cwd: dir, // nothing from the repository is needed at run time
          env: { PATH: process.env.PATH, KUBECONFIG: kubeconfig, LOG_LEVEL: 'debug' },
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

      const e = env;
      await e.put(sampleDb('bundled'));
      await until('statefulset from the bundle', () => e.get('apps/v1', 'StatefulSet', 'bundled'), 30_000, 100);
      await until('status', async () => (await e.getDb('bundled'))?.status?.phase === 'Creating', 10_000, 100);
      const secret = await e.get('v1', 'Secret', 'bundled-credentials');
      const password = Buffer.from(secret.data.password, 'base64').toString();

      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      expect(output).toMatch(/"msg":"starting sampledb controller"/);
      expect(output).not.toContain(password);
      expect(output).not.toContain(secret.data.password);
    }, 60_000);
  },
  { shared: true, crds: [sampleDbCrdManifest()] },
);
