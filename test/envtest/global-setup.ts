/**
 * jest globalSetup, run once before jest starts its workers (which inherit the environment it sets):
 * - a folder where each shared control plane (shared-planes.ts) records its own folder, so that
 *   global-teardown.ts can stop the planes that jest's worker processes leave running;
 * - the binaries of every oracle version, found once (`KUBEBUILDER_ASSETS_1_28`, …): asked per test file, install.sh
 *   checked the checksums of 200 MB of binaries every time (46 s of CPU in sha256sum over one run).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assetsFor, ORACLE_VERSIONS } from './index';

export default function globalSetup(): void {
  process.env.ENVTEST_SHARED_PLANES_DIR = mkdtempSync(join(tmpdir(), 'envtest-shared-planes-'));
  for (const version of ORACLE_VERSIONS) {
    const variable = `KUBEBUILDER_ASSETS_${version.replace('.', '_')}`;
    const assets = assetsFor(version);
    if (!process.env[variable] && 'dir' in assets) process.env[variable] = assets.dir;
  }
}
