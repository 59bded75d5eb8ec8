/**
 * The node cluster a chaos long form runs on (`npm run chaos`, partition-heal.ts run alone): the one in `clusterDir`
 * (or NODE_CLUSTER_DIR), used and left up, else a fresh one brought up as test/node/run.ts does and taken down by
 * `down()`. The operators are installed (dist/ as APPLY.md says) when they are not, and the demo's example SampleDBs
 * of dist/4-custom-resources.yaml are deleted: on a 2-core machine their pods would only add load to the timings.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join, resolve } from 'path';
import { harnessScript, NodeHarness } from '../harness';

export interface LongFormCluster {
  readonly dir: string;
  readonly h: NodeHarness;
  /** Takes a cluster this call brought up down again (a reused one stays up). */
  down(): void;
}

export async function longFormCluster(prefix: string, clusterDir?: string): Promise<LongFormCluster> {
  const reuse = clusterDir ?? process.env.NODE_CLUSTER_DIR;
  const dir = reuse ? resolve(reuse) : mkdtempSync(join(tmpdir(), prefix));
  const h = new NodeHarness(dir);
  const down = () => {
    if (reuse) return;
    spawnSync(harnessScript('cluster.sh'), ['down', dir], { env: process.env, encoding: 'utf8' });
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (!reuse) {
      h.sh(harnessScript('build-images.sh'), [], { env: process.env });
      h.cluster('up');
    }
    if (!h.exists('deployment', 'sampledb-operator', '-n', 'sampledb-operator-system')) {
      process.stdout.write(`${await h.ensureDistApplied()}\n`);
    }
    h.sh('kubectl', [
      'delete',
      'sampledb',
      '-n',
      'default',
      'my-db',
      'scratch-db',
      '--ignore-not-found',
      '--wait=false',
    ]);
  } catch (err) {
    down();
    throw err;
  }
  return { dir, h, down };
}
