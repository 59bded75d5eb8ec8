/**
 * jest globalSetup, run once before jest starts its workers (which inherit the environment it sets): a folder where
 * each shared control plane (shared-planes.ts) records its own folder, so that global-teardown.ts can stop the planes
 * that jest's worker processes leave running. The binaries of each oracle version come from the environment
 * (`KUBEBUILDER_ASSETS`, `KUBEBUILDER_ASSETS_1_28`, `_1_36`: envtest/index.ts `assetsFor`); .ci/run sets them.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function globalSetup(): Promise<void> {
  process.env.ENVTEST_SHARED_PLANES_DIR = mkdtempSync(join(tmpdir(), 'envtest-shared-planes-'));
}
