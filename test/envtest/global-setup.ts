/**
 * jest globalSetup, run once before jest starts its workers (which inherit the environment it sets): a temporary folder
 * of the run's own (`TMPDIR`, which `os.tmpdir()` reads), removed by global-teardown.ts with whatever the tests left
 * there (cdk8s's `Testing.app()` makes an output folder per app and never removes it: `test/apps`, `test/operator` and
 * `test/app` alone left 197 folders in /tmp, and a machine that ran the suite for a day held 21,000 entries there); a
 * folder where
 * each shared control plane (shared-planes.ts) records its own folder, so that global-teardown.ts can stop the planes
 * that jest's worker processes leave running, and a folder of etcd templates (runtime/envtest/etcd-template.ts) that
 * every control plane of the run starts from (`ENVTEST_TEMPLATE_DIR=` for none). The binaries of each oracle version
 * come from the environment (`KUBEBUILDER_ASSETS`, `KUBEBUILDER_ASSETS_1_28`, `_1_36`: envtest/index.ts `assetsFor`);
 * .ci/run sets them.
 */
import { chmodSync, existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default async function globalSetup(): Promise<void> {
  // as /tmp: open to the tests' other users (PostgreSQL runs as `postgres`), sticky
  const runTmp = mkdtempSync(join(tmpdir(), 'jest-run-'));
  chmodSync(runTmp, 0o1777);
  process.env.TMPDIR = process.env.JEST_RUN_TMPDIR = runTmp;
  process.env.ENVTEST_SHARED_PLANES_DIR = mkdtempSync(join(tmpdir(), 'envtest-shared-planes-'));
  // beside the planes' own etcd data (tmpfs when the machine has one): a template is copied at every start
  if (process.env.ENVTEST_TEMPLATE_DIR === undefined) {
    const templates = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'envtest-templates-'));
    process.env.ENVTEST_TEMPLATE_DIR = process.env.ENVTEST_TEMPLATES_MADE = templates;
  }
}
