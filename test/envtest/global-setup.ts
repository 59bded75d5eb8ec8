/**
 * jest globalSetup, run once before jest starts its workers (which inherit the environment it sets):
 * - the broker of shared control planes (plane-broker.ts), listening on a Unix socket (`ENVTEST_PLANE_BROKER`) in
 *   jest's own process until global-teardown.ts closes it;
 * - the binaries of every oracle version, found once (`KUBEBUILDER_ASSETS_1_28`, …): asked per test file, install.sh
 *   checked the checksums of 200 MB of binaries every time (46 s of CPU in sha256sum over one run). The versions
 *   are checked side by side: one after another they held every test back 9 to 22 s.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assetsFor, installScript, ORACLE_VERSIONS } from './index';
import { PlaneBroker } from './plane-broker';

/** Where global-teardown.ts finds the broker (jest runs both hooks in its own process). */
export const BROKER = Symbol.for('cdk8s-operator.test.plane-broker');

export default async function globalSetup(): Promise<void> {
  const socket = join(mkdtempSync(join(tmpdir(), 'envtest-planes-')), 'broker.sock');
  (globalThis as Record<symbol, unknown>)[BROKER] = await PlaneBroker.listen(socket);
  process.env.ENVTEST_PLANE_BROKER = socket;
  const script = installScript();
  await Promise.all(
    ORACLE_VERSIONS.map(async (version) => {
      const variable = `KUBEBUILDER_ASSETS_${version.replace('.', '_')}`;
      if (process.env[variable]) return;
      // install.sh prints the binaries' folder last; when it fails, assetsFor says why (each suite reports it)
      const out = script
        ? await promisify(execFile)('bash', [script, '--version', version], { encoding: 'utf8' }).catch(() => undefined)
        : undefined;
      const dir = out?.stdout.trim().split('\n').pop();
      const assets = dir ? { dir } : assetsFor(version);
      if ('dir' in assets) process.env[variable] = assets.dir;
    }),
  );
}
