/**
 * Runs the node end-to-end suites on ONE real single-node cluster (the harness K8S_NODE_HARNESS names), in the phases below:
 *
 *   npx tsx test/node/run.ts              # every suite: cluster up (Pod Security "restricted"), suites, down
 *   npx tsx test/node/run.ts sampledb     # only the named suites, still in their phases and lanes
 *   NODE_CLUSTER_DIR=/tmp/k8s-node npx tsx test/node/run.ts sampledb   # reuse a cluster that is up; leave it up
 *   NODE_E2E_SERIAL=1 npx tsx test/node/run.ts   # one suite at a time, in the order of PHASES read lane by lane
 *
 * Only one node cluster can run per machine: developers run this under `flock /tmp/k8s-node.lock`.
 * Closing lines: `<suite> e2e on the real node: N passed, M failed (S s)` per suite, then
 * `node e2e: N passed, M failed (S s)`; the exit code is 1 when any step failed. After a failure the pods' logs,
 * events and the control plane's logs are kept in `$NODE_E2E_ARTIFACTS` (default: a folder in the temp dir, printed).
 */
import { spawn, spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { setPriority, tmpdir } from 'os';
import { join } from 'path';
import { createInterface } from 'readline';
import { DistOutcome, harnessScript, NodeHarness, StepResult } from './harness';

type Suite = (h: NodeHarness) => Promise<void>;

const SUITES: readonly { readonly name: string; readonly load: () => Promise<{ default: Suite }> }[] = [
  { name: 'upgrade', load: () => import('./suites/upgrade') },
  { name: 'sampledb', load: () => import('./suites/sampledb') },
  // SampleDB's automatic actions (docs/sampledb-autopilot.md) under a write load
  { name: 'autopilot', load: () => import('./suites/autopilot') },
  // SampleDB's storage auto-grow and replica auto-scaling, each on a database of its own
  { name: 'autoscaling', load: () => import('./suites/autoscaling') },
  { name: 'policy', load: () => import('./suites/policy') },
  { name: 'monitoring', load: () => import('./suites/monitoring') },
  { name: 'admission', load: () => import('./suites/admission') },
  // every SampleDB left by the suites before it (the demo's examples among them), deleted at once
  { name: 'deletion', load: () => import('./suites/deletion') },
  // the Foo controller as 3 member pods of its sharded chart, the labelling webhook through its Service, kill -9
  { name: 'sharding', load: () => import('./suites/sharding') },
  // a new project from `npm init` to its controller in the cluster, with the packed tarball and the docs only
  { name: 'product', load: () => import('./suites/product') },
  // Restarts kube-apiserver, the kubelet and the node-agent: last.
  { name: 'chaos', load: () => import('./suites/chaos') },
];

/** A lane: suites run one after the other, in one process. */
interface Lane {
  readonly suites: readonly string[];
}

/** CPU-heavy suites run at this niceness in a lane (beside another lane): timing-bound work beside them comes first. */
const NICE: Readonly<Record<string, number>> = { product: 10 };

/**
 * The phases run one after the other; the lanes of a phase run at the same time (each in its own process), so no
 * two suites that disturb the same thing may be in different lanes of one phase:
 * - `upgrade` first: it starts from the released (0.1.0) CRDs, before anything installs the current `dist/`, and it
 *   restarts the apiserver and scales the SampleDB operator to 0.
 * - `admission` scales the SampleDB operator to 0 and rolls it twice (certificate rotation): every SampleDB write
 *   goes through its webhooks, so nothing that writes SampleDBs (sampledb, autopilot, policy) runs beside it.
 *   `product` beside it has its own API group, namespaces and operator; it is CPU-heavy (npm, tsc, esbuild, an image
 *   build), so it runs at nice 10: the webhooks and the apiserver under admission's traffic come first.
 * - `sampledb` (timing-bound write loads) and `policy` share the SampleDB operator (sampledb kills it mid-failover):
 *   one lane (the SampleDB operator's suites are one chain from upgrade to chaos). Beside it `monitoring` (it scales
 *   the demo's Foo controller to 0 for its down alert; reads the SampleDB operator's target and rules in its first
 *   seconds, before sampledb disturbs the operator: policy runs first in that lane, and sampledb's operator kill comes
 *   a minute or more in). The lanes patch different PrometheusRules (autopilot the SampleDB operator's, monitoring
 *   the Foo controller's).
 * - `deletion` then deletes every SampleDB left (the demo's `my-db` and `scratch-db`, the suites' databases), alone
 *   (it deletes them all): nothing after it reads them, and each database pod left running would be probed (an exec
 *   every 5 s) to the end of the run.
 * - `autopilot` after it, beside `autoscaling` (its storage auto-grow and replica auto-scaling steps until
 *   2026-11-30: the chain of SampleDB suites from upgrade to chaos is the node suites' longest path, and the two
 *   share only the operator; every check reads its own database's Events, metrics and claims): its re-tuning steps
 *   assert one switchover per change, in order, from the operator's Events. Beside jest they failed in 2 of 5 runs
 *   of session 16, each on an operator bug that load exposed (a standby's reload still on its way; settings pending before the StatefulSet controller observed the new
 *   template), both fixed; since then it passed beside jest in 5 of 5 rehearsals (302-374 s, 239-267 s quiet), and CI
 *   runs it there: quiet, it added its whole time to CI's. (Two of those rehearsals had a timing-bound jest suite
 *   fail under the load; jest's timeouts now scale on CI, TEST_TIMEOUT_SCALE.)
 * - `chaos` last: it restarts kube-apiserver, the kubelet and the node-agent, and kills the SampleDB operator, so
 *   nothing runs beside it on the cluster. Beside npm test it kept its recovery bound (120 s a fault) in the six
 *   rehearsals of 2026-11-29/30 (79 s the slowest, on a slow hour), which CI now scales by TEST_TIMEOUT_SCALE as
 *   jest's waits; in one its load made a jest takeover exceed Lease + 5 s, whose 5 s of allowance for the host's
 *   speed scale too (hostSlackMs in test/runtime/support.ts).
 * - `sharding` after `monitoring`, in its lane (both scale the demo's Foo controller to 0 and back; sharding has its
 *   own namespaces, ring and webhook, and no SampleDB): its kill -9 takeover is timed against the Lease (15 s) plus
 *   5 s of allowance for the host's speed, times TEST_TIMEOUT_SCALE (CI: 3): 14.6 s alone, 15.8 to 18.2 s beside
 *   admission and jest in CI rehearsals, 18.4 s beside sampledb's failover polling at load 20. The strict bound
 *   (Lease + 5 s on a quiet machine) is `npm run chaos:sharded`'s (bench/latest/sharded-chaos.json). Last, after
 *   chaos, it was CI's tail: the SampleDB chain (upgrade to chaos) is the node suites' longest path.
 */
const PHASES: readonly (readonly Lane[])[] = [
  [{ suites: ['upgrade'] }],
  [{ suites: ['admission'] }, { suites: ['product'] }],
  [{ suites: ['policy', 'sampledb'] }, { suites: ['monitoring', 'sharding'] }],
  [{ suites: ['deletion'] }],
  [{ suites: ['autopilot'] }, { suites: ['autoscaling'] }],
  [{ suites: ['chaos'] }],
];

const seconds = (since: number) => ((Date.now() - since) / 1000).toFixed(0);

/** Runs one suite with its own view of the harness and prints its closing line. */
async function runSuite(h: NodeHarness, name: string): Promise<void> {
  const started = Date.now();
  const view = h.forSuite(name);
  try {
    await (await SUITES.find((s) => s.name === name)!.load()).default(view);
  } catch (err) {
    // A suite that throws outside its steps is one failed step; the suites after it still run.
    await view.step('the suite ran to its end', () => {
      throw err;
    });
  }
  process.stdout.write(
    `${name} e2e on the real node: ${h.passed(name)} passed, ${h.failed(name)} failed (${seconds(started)} s)\n`,
  );
}

const children = new Set<ReturnType<typeof spawn>>();

/**
 * Runs a lane in a process of its own (this script with NODE_E2E_LANE_RESULTS), its output forwarded line by line;
 * then takes its results. A suite the process did not finish (it crashed or was killed) gets a failed step.
 */
async function runLaneProcess(h: NodeHarness, lane: Lane, dist: DistOutcome): Promise<void> {
  const file = join(mkdtempSync(join(tmpdir(), 'node-e2e-lane-')), 'results.jsonl');
  writeFileSync(file, '');
  const child = spawn(process.execPath, [...process.execArgv, __filename, ...lane.suites], {
    env: {
      ...process.env,
      NODE_CLUSTER_DIR: h.dir,
      NODE_E2E_LANE_RESULTS: file,
      NODE_E2E_DIST: JSON.stringify(dist),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  createInterface({ input: child.stdout! }).on('line', (l) => process.stdout.write(`${l}\n`));
  createInterface({ input: child.stderr! }).on('line', (l) => process.stderr.write(`${l}\n`));
  const exit = await new Promise<string>((resolve) => {
    child.on('error', (err) => resolve(err.message));
    child.on('close', (code, signal) => resolve(signal ? `signal ${signal}` : `exit code ${code}`));
  });
  children.delete(child);
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  rmSync(join(file, '..'), { recursive: true, force: true });
  const records = lines.map((l) => JSON.parse(l) as StepResult | { suiteDone: string });
  h.addResults(records.filter((r): r is StepResult => 'step' in r));
  const done = new Set(records.flatMap((r) => ('suiteDone' in r ? [r.suiteDone] : [])));
  for (const name of lane.suites.filter((s) => !done.has(s))) {
    await h.forSuite(name).step('the suite ran to its end', () => {
      throw new Error(`its lane's process ended (${exit}) before the suite did`);
    });
    process.stdout.write(`${name} e2e on the real node: ${h.passed(name)} passed, ${h.failed(name)} failed\n`);
  }
}

/** In a lane's process: the named suites, one after the other, on the cluster the parent brought up. */
async function runLane(names: readonly string[], resultsFile: string): Promise<void> {
  const dir = process.env.NODE_CLUSTER_DIR;
  if (!dir) throw new Error('a lane runs on the cluster of NODE_CLUSTER_DIR');
  const h = new NodeHarness(dir);
  for (const name of names) {
    // this process and what it starts from now on (root may lower it again; elsewhere the lane stays niced)
    try {
      setPriority(NICE[name] ?? 0);
    } catch (err) {
      process.stdout.write(`[${name}] niceness ${NICE[name] ?? 0} not set: ${(err as Error).message}\n`);
    }
    await runSuite(h, name);
    writeFileSync(resultsFile, `${JSON.stringify({ suiteDone: name })}\n`, { flag: 'a' });
  }
  if (h.failed()) process.exitCode = 1;
}

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const all = PHASES.flatMap((p) => p.flatMap((l) => l.suites));
  const unknown = wanted.filter((w) => !SUITES.some((s) => s.name === w));
  if (unknown.length) throw new Error(`unknown suite(s) ${unknown.join(', ')}; have: ${all.join(', ')}`);
  const unplaced = SUITES.filter((s) => all.filter((x) => x === s.name).length !== 1).map((s) => s.name);
  if (unplaced.length) throw new Error(`suite(s) not in exactly one lane of PHASES: ${unplaced.join(', ')}`);
  if (process.env.NODE_E2E_LANE_RESULTS) return runLane(wanted, process.env.NODE_E2E_LANE_RESULTS);

  const serial = process.env.NODE_E2E_SERIAL === '1';
  const phases = PHASES.map((phase) =>
    phase
      .map((l) => ({ ...l, suites: l.suites.filter((s) => !wanted.length || wanted.includes(s)) }))
      .filter((l) => l.suites.length),
  ).filter((phase) => phase.length);
  harnessScript('cluster.sh'); // fails first, saying how, when there is no harness

  const started = Date.now();
  // one folder for the run, known to every lane's process: a failed step saves the pods' logs there at once
  process.env.NODE_E2E_ARTIFACTS ??= join(
    tmpdir(),
    `node-e2e-artifacts-${new Date().toISOString().replace(/[:.]/g, '-')}`,
  );
  const reuse = process.env.NODE_CLUSTER_DIR;
  const dir = reuse ?? mkdtempSync(join(tmpdir(), 'node-e2e-'));
  const h = new NodeHarness(dir);
  h.sh(harnessScript('build-images.sh'), [], { env: process.env });
  const up = spawnSync(harnessScript('cluster.sh'), ['up', dir], {
    env: { ...process.env, PSS_RESTRICTED: '1' },
    encoding: 'utf8',
  });
  if (up.status !== 0) throw new Error(`cluster.sh up failed: ${up.stderr}`);
  process.stdout.write(`cluster ${dir} up (Pod Security restricted by default) in ${seconds(started)} s\n`);
  try {
    for (const phase of phases) {
      if (serial || phase.length === 1) {
        for (const name of phase.flatMap((l) => l.suites)) await runSuite(h, name);
        continue;
      }
      // dist/ installed once, here, before the lanes (the first suite that needs it records it as its step)
      const dist = await h.distOutcome();
      const phaseStarted = Date.now();
      await Promise.all(phase.map((l) => runLaneProcess(h, l, dist)));
      process.stdout.write(
        `node e2e phase ${phase.map((l) => l.suites.join(' → ')).join(' ‖ ')}: ${seconds(phaseStarted)} s\n`,
      );
    }
  } finally {
    if (h.failed()) {
      try {
        h.collectArtifacts(process.env.NODE_E2E_ARTIFACTS);
      } catch (err) {
        process.stdout.write(`artifacts not collected: ${(err as Error).message}\n`);
      }
    }
    if (!reuse) {
      spawnSync(harnessScript('cluster.sh'), ['down', dir], { env: process.env, encoding: 'utf8' });
      rmSync(dir, { recursive: true, force: true });
    }
  }
  process.stdout.write(`node e2e: ${h.passed()} passed, ${h.failed()} failed (${seconds(started)} s)\n`);
  if (h.failed() || !h.passed()) process.exitCode = 1;
}

// A lane's processes go with the runner when it is interrupted.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    for (const child of children) child.kill('SIGTERM');
    process.exit(1);
  });
}

// Exit when the suites are done, whatever a failed step left open (a client's socket, a load loop): CI runs this beside
// npm test and waits for it.
main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
