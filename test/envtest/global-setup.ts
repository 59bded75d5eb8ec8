/**
 * jest globalSetup: a folder where each shared control plane (shared-planes.ts) records its own folder, so that
 * global-teardown.ts can stop the planes that jest's worker processes leave running.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function globalSetup(): void {
  // set before jest starts its workers, which inherit it
  process.env.ENVTEST_SHARED_PLANES_DIR = mkdtempSync(join(tmpdir(), 'envtest-shared-planes-'));
}
