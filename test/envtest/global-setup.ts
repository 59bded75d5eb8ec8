/**
 * jest globalSetup, run once before jest starts its workers (which inherit the environment it sets):
 * - a folder where each shared control plane (shared-planes.ts) records its own folder, so that
 *   global-teardown.ts can stop the planes that jest's worker processes leave running;
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

export default async function globalSetup(): Promise<void> {
  process.env.ENVTEST_SHARED_PLANES_DIR = mkdtempSync(join(tmpdir(), 'envtest-shared-planes-'));
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
