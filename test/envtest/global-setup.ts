/**
 * jest globalSetup, run once before jest starts its workers (which inherit the environment it sets): a folder where
 * each shared control plane (shared-planes.ts) records its own folder, so that global-teardown.ts can stop the planes
 * that jest's worker processes leave running, and a folder of etcd templates (runtime/envtest/etcd-template.ts) that
 * every control plane of the run starts from (`ENVTEST_TEMPLATE_DIR=` for none). The binaries of each oracle version
 * come from the environment (`KUBEBUILDER_ASSETS`, `KUBEBUILDER_ASSETS_1_28`, `_1_36`: envtest/index.ts `assetsFor`);
 * .ci/run sets them.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function globalSetup(): Promise<void> {
  process.env.ENVTEST_SHARED_PLANES_DIR = mkdtempSync(join(tmpdir(), 'envtest-shared-planes-'));
  // beside the planes' own etcd data (tmpfs when the machine has one): a template is copied at every start
  if (process.env.ENVTEST_TEMPLATE_DIR === undefined) {
    const templates = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'envtest-templates-'));
    process.env.ENVTEST_TEMPLATE_DIR = process.env.ENVTEST_TEMPLATES_MADE = templates;
  }
}
