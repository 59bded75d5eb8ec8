/**
 * jest globalTeardown: stops the shared control planes (shared-planes.ts) still running, by their folder (every
 * etcd and kube-apiserver of a plane has it on its command line), and removes their folders and the etcd templates
 * global-setup.ts made (not a folder the environment named), then the run's temporary folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export default function globalTeardown(): void {
  const templates = process.env.ENVTEST_TEMPLATES_MADE;
  if (templates) rmSync(templates, { recursive: true, force: true });
  const dir = process.env.ENVTEST_SHARED_PLANES_DIR;
  if (dir && existsSync(dir)) {
    for (const file of readdirSync(dir)) {
      const planeDir = readFileSync(join(dir, file), 'utf8').trim();
      if (!planeDir) continue;
      spawnSync('pkill', ['-KILL', '-f', planeDir]);
      rmSync(planeDir, { recursive: true, force: true });
    }
    rmSync(dir, { recursive: true, force: true });
  }
  const runTmp = process.env.JEST_RUN_TMPDIR;
  if (runTmp) rmSync(runTmp, { recursive: true, force: true });
}
