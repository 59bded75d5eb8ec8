/**
 * The long form of the chaos suite (`npm run chaos`): a synchronous run with every fault kind
 * `--per-kind` times (default 20), then an asynchronous run for the RPO (`--async-per-kind`,
 * default 5, of the faults that fail over). Each run's report is written as JSON to `--out`
 * (default bench/latest/chaos-sync.json and chaos-async.json); the process fails when a run fails.
 *
 *   npm run chaos -- [--cluster-dir DIR] [--seed N] [--per-kind N] [--async-per-kind N] [--kinds a,b] [--out DIR]
 *
 * With `--cluster-dir` (or NODE_CLUSTER_DIR), a cluster that is up is used and left up (dist/ is applied
 * if it is not); otherwise a fresh cluster is brought up as test/node/run.ts does (Pod Security
 * restricted, the controller images built and dist/ applied as APPLY.md says) and taken down after.
 * The demo's example SampleDBs of dist/4-custom-resources.yaml are deleted first: on a 2-core machine
 * their pods would only add load to the timings. Run it under `flock /tmp/k8s-node.lock`.
 *
 * Then the isolated-primary fault staged explicitly (partition-heal.ts: the primary and its node cut off, the old
 * pod removed without its kubelet, healed after the promotion), `--partition-heal N` times (default 1), written to
 * `chaos-partition-heal.json`; the process fails when a staging fails.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'fs';
import { join, resolve } from 'path';
import { longFormCluster } from './long-form-cluster';
import { deletePartitionHealDb, stagePartitionHeal } from './partition-heal';
import { ChaosReport, deleteChaosDb, runChaos } from './run';
import { FAULT_KINDS, FaultKind } from './schedule';

const ROOT = resolve(__dirname, '../../..');

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

/** The faults that make the operator fail over (the asynchronous run measures what they lose). */
export const FAILOVER_KINDS: readonly FaultKind[] = [
  'primary-delete',
  'postmaster-kill',
  'partition',
  'operator-kill-mid-failover',
];

export async function longForm(clusterDir: string): Promise<ChaosReport[]> {
  const seed = Number(arg('seed', String(Date.now() % 100000)));
  const perKind = Number(arg('per-kind', '20'));
  const asyncPerKind = Number(arg('async-per-kind', '5'));
  const kinds = (arg('kinds')?.split(',') ?? [...FAULT_KINDS]) as FaultKind[];
  const out = resolve(ROOT, arg('out', 'bench/latest')!);
  // --minutes: the synchronous run starts no round it cannot finish in time, leaving ~6 min for the asynchronous one.
  const minutes = arg('minutes') ? Number(arg('minutes')) : undefined;
  const started = Date.now();
  mkdirSync(out, { recursive: true });
  const reports: ChaosReport[] = [];
  const runs: { name: string; synchronous: boolean; perKind: number; kinds: readonly FaultKind[] }[] = [];
  if (perKind > 0) runs.push({ name: 'chaos-sync', synchronous: true, perKind, kinds });
  if (asyncPerKind > 0) {
    runs.push({
      name: 'chaos-async',
      synchronous: false,
      perKind: asyncPerKind,
      kinds: FAILOVER_KINDS.filter((k) => kinds.includes(k)),
    });
  }
  for (const r of runs) {
    const db = r.synchronous ? 'chaos-db' : 'chaos-async';
    process.stdout.write(`== ${r.name}: seed ${seed}, ${r.perKind} of each of ${r.kinds.join(', ')}\n`);
    try {
      const deadline =
        minutes === undefined ? undefined : started + (minutes - (r.synchronous && asyncPerKind > 0 ? 6 : 0)) * 60_000;
      const report = await runChaos({
        clusterDir,
        seed,
        perKind: r.perKind,
        kinds: r.kinds,
        synchronous: r.synchronous,
        db,
        deadline,
      });
      const command = `npm run chaos -- --seed ${seed} --per-kind ${perKind} --async-per-kind ${asyncPerKind}${arg('kinds') ? ` --kinds ${arg('kinds')}` : ''}${minutes ? ` --minutes ${minutes}` : ''}`;
      writeFileSync(join(out, `${r.name}.json`), `${JSON.stringify({ command, ...report }, null, 2)}\n`);
      process.stdout.write(
        `${r.name}: ${report.passed ? 'PASSED' : 'FAILED'}; ${report.faults.length} faults, ${report.acknowledged} acknowledged writes, ${report.lost} lost, ${report.fencingViolations.length} fencing violations, timeline ${report.timeline.chain.join('→')}\n`,
      );
      for (const v of report.verdicts) process.stdout.write(`  ${v}\n`);
      for (const [kind, s] of Object.entries(report.byKind)) process.stdout.write(`  ${kind}: ${JSON.stringify(s)}\n`);
      reports.push(report);
    } finally {
      await deleteChaosDb(clusterDir, db).catch((err) =>
        process.stdout.write(`cleanup of ${db}: ${(err as Error).message}\n`),
      );
    }
  }
  return reports;
}

/** The isolated-primary fault, staged `--partition-heal` times; whether every staging passed. */
async function partitionHeals(clusterDir: string): Promise<boolean> {
  const n = Number(arg('partition-heal', '1'));
  const out = resolve(ROOT, arg('out', 'bench/latest')!);
  const runs: object[] = [];
  for (let i = 0; i < n; i++) {
    const startedAt = new Date().toISOString();
    try {
      const report = await stagePartitionHeal({ clusterDir, synchronous: true, db: 'chaos-heal' });
      runs.push({
        startedAt,
        loadAverage: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number),
        ...report,
      });
      process.stdout.write(
        `partition-heal ${i + 1}/${n}: ${report.passed ? 'PASSED' : 'FAILED'} ${report.verdicts.join('; ')}\n`,
      );
    } finally {
      await deletePartitionHealDb(clusterDir, 'chaos-heal').catch((err) =>
        process.stdout.write(`cleanup of chaos-heal: ${(err as Error).message}\n`),
      );
    }
  }
  if (n > 0) {
    const command = `npm run chaos -- --partition-heal ${n}`;
    writeFileSync(join(out, 'chaos-partition-heal.json'), `${JSON.stringify({ command, runs }, null, 2)}\n`);
  }
  return runs.every((r) => (r as { passed: boolean }).passed) && runs.length === n;
}

async function main(): Promise<void> {
  const { dir, down } = await longFormCluster('chaos-node-', arg('cluster-dir'));
  try {
    const reports = await longForm(dir);
    if (reports.some((r) => !r.passed) || !reports.length) process.exitCode = 1;
    if (!(await partitionHeals(dir))) process.exitCode = 1;
  } finally {
    down();
  }
}

if (require.main === module) {
  main().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exitCode = 1;
  });
}
