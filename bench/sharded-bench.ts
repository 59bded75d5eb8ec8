// `npm run bench:sharded`: the Foo controller sharded across M members (processes of its bundle, each run as its
// image runs it, `--sharding-ring=foo`) on a fresh real kube-apiserver per run, the Foos created beforehand (as
// side-by-side.ts). Per run: time until every Foo converged (from the members' start), each member's peak RSS and
// CPU seconds (/proc), all members' requests as the apiserver audited them (ring Lease renewals included), the end
// state checked object by object, and the load average.
//
//   npx tsx bench/sharded-bench.ts --sizes=10000,50000 --members=0,1,2,4   (0 = unsharded, the baseline) [--timeout-seconds=1800] [--out=bench/latest/sharded-results.json]
//     [--assignments=labels,hash,server]   (each sharded run once per assignment, `--sharding-assignment`; default labels)
//     [--kubernetes=1.36 --feature-gates=ShardedListAndWatch=true]   (the apiserver's version and gates; default
//                                          KUBEBUILDER_ASSETS's; `server` needs 1.36 with the gate, else it falls back to hash)
//     [--key=uid|namespace]   (what the ring assigns by, `--sharding-key`; default uid)
//     [--namespaces=1000]     (the Foos spread over this many namespaces, for every run of the sitting; default 1:
//                              all in `default`, where `--key=namespace` gives one member everything)
//     [--ranges=namespaces]   (assignment `server` keyed by namespace: hash ranges cut by the namespaces,
//                              `--sharding-ranges`; default even slices)
//     [--node-flags='--no-opt --lite-mode']   (Node flags instead of the image's, for every process of the sitting;
//                              recorded in each run: a probe of what they change, not the image's figures)
//     [--node-env=MALLOC_ARENA_MAX=1,…]      (variables added to the image's ENV, recorded likewise)
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { bundleFooController } from './controller-bench';
import { createFoos, FooWorld } from './foo-world';
import { PlainKube } from './plain-kube';
import { procStats, ProcStats, samplePrivatePeaks } from './proc-stats';
import {
  BenchControlPlaneOptions,
  countRequests,
  kubernetesAssetsDir,
  readAudit,
  startBenchControlPlane,
  WRITE_VERBS,
} from './real-control-plane';
import { imageRuntime } from './side-by-side';
import { SHARD_ASSIGNMENTS, ShardAssignment, ShardRanges } from '../lib/apimachinery/controller-contract';
import type { ShardKey } from '../runtime/sharding';

const ROOT = path.join(__dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

export interface ShardedRun {
  readonly foos: number;
  /** 0 = the unsharded controller (one process, no ring). */
  readonly members: number;
  /** How members got their share (runtime `ManagerShardingOptions.assignment`; results without it: 'hash'). */
  readonly assignment?: ShardAssignment;
  /** The kube-apiserver (`gitVersion`) and its feature gates, when not the default's (results without it: v1.32.13). */
  readonly apiserver?: string;
  /** What the ring assigned by (`--sharding-key`; results without it: 'uid'). */
  readonly key?: ShardKey;
  /** How many namespaces the Foos were spread over (results without it: 1, `default`). */
  readonly namespaces?: number;
  /** How assignment `server` cut the hash space (`--sharding-ranges`; results without it: 'even'). */
  readonly ranges?: ShardRanges;
  /** Requests of the members that asked the apiserver for a shard selector (assignment `server`: it served them). */
  readonly shardSelectorRequests?: number;
  /** The commit the members were built from (`git rev-parse --short HEAD`, `+dirty` with uncommitted changes). */
  readonly revision?: string;
  /** The Node flags every process ran with, where `--node-flags` replaced the image's. */
  readonly nodeFlags?: readonly string[];
  /** Variables `--node-env` added to the image's ENV. */
  readonly nodeEnv?: Readonly<Record<string, string>>;
  readonly convergeSeconds: number;
  readonly endStateProblems: readonly string[];
  /**
   * Each member at convergence (peak RSS = VmHWM, CPU = user + system seconds since its start; peak private = the
   * largest RssAnon sampled every 200 ms, absent in results from before it was measured).
   */
  readonly perMember: readonly (ProcStats & { readonly peakPrivateMiB?: number })[];
  readonly maxPeakRssMiB: number;
  readonly maxPeakPrivateMiB?: number;
  readonly totalCpuSeconds: number;
  readonly requests: Record<string, number>;
  readonly requestsPerFoo: number;
  readonly writesPerFoo: number;
  readonly loadavg: { readonly start: readonly number[]; readonly end: readonly number[] };
}

interface RunOptions {
  readonly bundle: string;
  readonly timeoutSeconds: number;
  readonly assignment: ShardAssignment;
  readonly key: ShardKey;
  readonly namespaces: number;
  readonly ranges: ShardRanges;
  readonly controlPlane: BenchControlPlaneOptions;
  readonly nodeFlags?: readonly string[];
  readonly nodeEnv?: Readonly<Record<string, string>>;
}

async function runSharded(n: number, members: number, options: RunOptions): Promise<ShardedRun> {
  const { bundle, timeoutSeconds, assignment, key, namespaces, ranges, nodeFlags, nodeEnv } = options;
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const loadStart = os.loadavg().map(round);
  const plane = await startBenchControlPlane([crd], options.controlPlane);
  const client = new PlainKube({ url: plane.plane.url, token: plane.plane.admin.token, ca: plane.plane.ca });
  const children: ChildProcess[] = [];
  let world: FooWorld | undefined;
  try {
    await createFoos(client, n, namespaces);
    world = new FooWorld(client, n, namespaces);
    await world.start();
    const image = imageRuntime();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...image.env,
      ...nodeEnv,
      KUBECONFIG: plane.controllerKubeconfig,
    };
    delete env.WATCH_NAMESPACE;
    delete env.NODE_OPTIONS;
    const started = Date.now();
    // members = 0: the unsharded controller (one process, no ring), the baseline.
    for (let i = 0; i < Math.max(1, members); i++) {
      const args = [
        ...(nodeFlags ?? image.nodeFlags),
        bundle,
        ...memberArgs(members > 0 ? { assignment, key, ranges, replicas: members } : undefined),
      ];
      children.push(spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }));
    }
    const privatePeaks = samplePrivatePeaks(children.map((c) => c.pid!));
    const exited = children.map(
      (c, i) =>
        new Promise<never>((_, reject) =>
          c.once('exit', (code, signal) => reject(new Error(`member ${i} exited (${code ?? signal})`))),
        ),
    );
    const { convergedAtMs } = await Promise.race([world.waitConverged(started + timeoutSeconds * 1000), ...exited]);
    const peakPrivate = privatePeaks.stop();
    const perMember = children.map((c, i) => ({ ...procStats(c.pid!), peakPrivateMiB: peakPrivate[i] }));
    const endStateProblems = await world.verify();
    for (const c of children) await stop(c);
    const audited = readAudit(plane.auditLog).filter((r) => r.receivedMs <= convergedAtMs);
    const version = await plane.plane.request('GET', '/version');
    const gates = options.controlPlane.apiServerFlags?.find((f) => f.startsWith('--feature-gates='));
    return {
      foos: n,
      members,
      ...(members > 0 ? { assignment, key, ...(ranges === 'even' ? {} : { ranges }) } : {}),
      namespaces,
      apiserver: `${version.body.gitVersion}${gates ? ` (${gates.slice('--feature-gates='.length)})` : ''}`,
      ...(members > 0 ? { shardSelectorRequests: audited.filter((r) => r.shardSelector).length } : {}),
      revision: revision(),
      ...(nodeFlags ? { nodeFlags } : {}),
      ...(nodeEnv ? { nodeEnv } : {}),
      convergeSeconds: round((convergedAtMs - started) / 1000),
      endStateProblems: endStateProblems.slice(0, 20),
      perMember,
      maxPeakRssMiB: Math.max(...perMember.map((m) => m.peakRssMiB)),
      maxPeakPrivateMiB: Math.max(...peakPrivate),
      totalCpuSeconds: round(perMember.reduce((s, m) => s + m.cpuSeconds, 0)),
      requests: countRequests(audited),
      requestsPerFoo: round(audited.length / n),
      writesPerFoo: round(audited.filter((r) => WRITE_VERBS.has(r.verb)).length / n),
      loadavg: { start: loadStart, end: os.loadavg().map(round) },
    };
  } finally {
    for (const c of children) await stop(c);
    await world?.stop();
    client.close();
    await plane.close();
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 35_000);
  await exited;
  clearTimeout(timer);
}

/**
 * The members' bundle (in the temporary folder): controllers/foo's `npm run bundle` options, from the entry whose
 * contract allows sharding (it runs unsharded without `--sharding-ring`).
 */
export async function buildMemberBundle(): Promise<string> {
  const bundle = path.join(os.tmpdir(), `foo-controller-sharded-${process.pid}.js`);
  await bundleFooController(bundle);
  return bundle;
}

/** The members' command line after the bundle: servers off, and the ring's flags when sharded. */
export function memberArgs(sharding?: {
  readonly assignment: ShardAssignment;
  readonly key: ShardKey;
  readonly ranges?: ShardRanges;
  /** The members started together (`--sharding-replicas`, as the chart passes its replicas). */
  readonly replicas?: number;
}): readonly string[] {
  return [
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    ...(sharding
      ? [
          '--sharding-ring=foo',
          `--sharding-assignment=${sharding.assignment}`,
          `--sharding-key=${sharding.key}`,
          ...(sharding.ranges === 'namespaces' ? ['--sharding-ranges=namespaces'] : []),
          ...(sharding.replicas ? [`--sharding-replicas=${sharding.replicas}`] : []),
          '--leader-election-namespace=default',
        ]
      : []),
  ];
}

/**
 * The commit of the runtime and bench: `git rev-parse --short HEAD`, `+dirty` with uncommitted changes there. The
 * results in bench/latest are not code: a sitting's second run, after its first was appended, is not dirty.
 */
export function revision(): string {
  const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  return (
    git(['rev-parse', '--short', 'HEAD']) +
    (git(['status', '--porcelain', '--untracked-files=no', '--', 'runtime', 'bench', ':!bench/latest']) ? '+dirty' : '')
  );
}

/** `A=1,B=2` → `{ A: '1', B: '2' }`. */
function parseEnv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(pair);
    if (!match) throw new Error(`--node-env: NAME=VALUE pairs separated by commas, got ${JSON.stringify(pair)}`);
    env[match[1]] = match[2];
  }
  return env;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

async function main(): Promise<void> {
  const sizes = (option('sizes') ?? '10000').split(',').map(Number);
  const memberCounts = (option('members') ?? '0,1,2,4').split(',').map(Number);
  const timeoutSeconds = Number(option('timeout-seconds') ?? '1800');
  const assignments = (option('assignments') ?? 'labels').split(',') as ShardAssignment[];
  const bad = assignments.filter((a) => !SHARD_ASSIGNMENTS.includes(a));
  if (bad.length) throw new Error(`--assignments: each must be one of ${SHARD_ASSIGNMENTS.join(', ')}, got ${bad}`);
  const key = (option('key') ?? 'uid') as ShardKey;
  if (key !== 'uid' && key !== 'namespace') throw new Error(`--key: uid or namespace, got ${key}`);
  const namespaces = Number(option('namespaces') ?? '1');
  if (!Number.isInteger(namespaces) || namespaces < 1) {
    throw new Error(`--namespaces: a whole number of at least 1, got ${option('namespaces')}`);
  }
  const ranges = (option('ranges') ?? 'even') as ShardRanges;
  if (ranges !== 'even' && ranges !== 'namespaces') throw new Error(`--ranges: even or namespaces, got ${ranges}`);
  const kubernetes = option('kubernetes');
  const gates = option('feature-gates');
  const controlPlane: BenchControlPlaneOptions = {
    assetsDir: kubernetes ? kubernetesAssetsDir(kubernetes) : undefined,
    apiServerFlags: gates ? [`--feature-gates=${gates}`] : [],
  };
  const nodeFlags = option('node-flags')?.split(/\s+/).filter(Boolean);
  const envOption = option('node-env');
  const nodeEnv = envOption === undefined ? undefined : parseEnv(envOption);
  const out = option('out') ?? path.join(ROOT, 'bench/latest/sharded-results.json');
  const bundle = await buildMemberBundle();
  const runs: ShardedRun[] =
    fs.existsSync(out) && argv.includes('--append') ? JSON.parse(fs.readFileSync(out, 'utf8')).runs : [];
  for (const n of sizes) {
    // Each member count once per assignment (the unsharded controller once: it has none).
    for (const [m, assignment] of memberCounts.flatMap((count) =>
      count === 0 ? [[count, 'labels'] as const] : assignments.map((a) => [count, a] as const),
    )) {
      const run = await runSharded(n, m, {
        bundle,
        timeoutSeconds,
        assignment,
        key,
        namespaces,
        ranges,
        controlPlane,
        nodeFlags,
        nodeEnv,
      });
      runs.push(run);
      console.log(
        JSON.stringify({
          foos: n,
          members: m,
          assignment: run.assignment,
          key: run.key,
          ranges: run.ranges,
          namespaces,
          shardSelectorRequests: run.shardSelectorRequests,
          convergeSeconds: run.convergeSeconds,
          maxPeakRssMiB: run.maxPeakRssMiB,
          perMemberPeak: run.perMember.map((p) => p.peakRssMiB),
          perMemberPeakPrivate: run.perMember.map((p) => p.peakPrivateMiB),
          perMemberCpu: run.perMember.map((p) => p.cpuSeconds),
          requestsPerFoo: run.requestsPerFoo,
          writesPerFoo: run.writesPerFoo,
          problems: run.endStateProblems.length,
          loadavg: run.loadavg,
        }),
      );
      fs.writeFileSync(
        out,
        JSON.stringify(
          {
            machine: { cpus: os.cpus().length, node: process.version },
            // The machine is shared: the bench and the members it starts run at this niceness (`nice -n 5 …`).
            niceness: os.getPriority(),
            command: `npx tsx bench/sharded-bench.ts ${argv.join(' ')}`,
            runs,
          },
          null,
          2,
        ) + '\n',
      );
    }
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
