// `npm run bench`: synth and controller benchmarks; prints tables and writes results.json and
// chart.svg to bench/results/<timestamp>/. The CRD corpus part: MB/s of real-world CRDs through fromFile + synth.
//
// Controller part, side by side (when KUBEBUILDER_ASSETS names the real binaries): our Foo controller
// and kubernetes/sample-controller on a fresh real kube-apiserver per run, alternating, N = 1,000,
// 5,000 and 10,000 (see side-by-side.ts). With KUBECONFIG instead: our controller alone on that
// cluster (Foos in a fresh namespace; --no-simulate-availability where kubelets run the pods).
//
// Options: --quick (small sizes, 1 run, short steady-state window), --runs=N, --sizes=1000,5000,
// --runs-per-size=10000:1 (fewer runs for some N), --steady-seconds=S, --steady-runs=K (only the
// first K runs of each N and controller get the steady-state window), --only=synth|controller|crd-corpus|cli-synth,
// --impl=go|ours (one side only, for profiling), --cpu-profile / --heap-snapshot (of our controller,
// into the results folder), --ours-args=--concurrency=16 (extra flags for our controller, for experiments;
// the official figures use its defaults), --ours-node-flags='--max-semi-space-size=4' (Node flags instead of
// its Dockerfile's; experiments only), --idle-runs=K (each controller started K times with no Foo: its fixed
// cost, subtracted for the per-Foo bytes; default --runs), --timeout-seconds=S (per run until convergence;
// default 900). BENCH_KEEP_AUDIT=<folder> keeps each controller run's audit log (the apiserver's timeline of
// its requests) in that folder. --nice=N: the niceness of the whole bench (default -10, see NICE below; 0 for none).
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { clusterTarget } from './bench-targets';
import { CliSynthResult, runCliSynthBench } from './cli-synth-bench';
import { bundleFooController, ControllerResult, runControllerBench } from './controller-bench';
import { CrdCorpusResult, runCrdCorpusBench } from './crd-corpus-bench';
import {
  ControllerRun,
  FixedCost,
  IdleRun,
  Implementation,
  IMPLEMENTATIONS,
  runIdleSeries,
  runSideBySide,
  SizeSummary,
  summarize,
  summarizeIdle,
} from './side-by-side';
import { Panel, renderSvg } from './svg-chart';
import { DemoAppsResult, runDemoAppsBench, runSynthBench, SynthResult } from './synth-bench';

const argv = process.argv.slice(2);
const flag = (name: string) => argv.includes(`--${name}`);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

const quick = flag('quick');
const only = option('only');
const runs = Number(option('runs') ?? (quick ? 1 : 3));
const SYNTH_SIZES: Array<[number, number]> = quick
  ? [
      [10, 100],
      [40, 400],
    ]
  : [
      [10, 100],
      [50, 500],
      [100, 1000],
      [200, 2000],
    ];
const FOO_COUNTS = option('sizes')?.split(',').map(Number) ?? (quick ? [200] : [1000, 5000, 10000]);
const steadySeconds = Number(option('steady-seconds') ?? (quick ? 15 : 120));
const implementations = (option('impl')?.split(',') ?? ['go', 'ours']) as Implementation[];
const runsPerSize = new Map(
  (option('runs-per-size')?.split(',') ?? []).map((pair) => pair.split(':').map(Number) as [number, number]),
);
const steadyRuns = option('steady-runs') === undefined ? undefined : Number(option('steady-runs'));
const oursArgs = option('ours-args')?.split(' ').filter(Boolean);
const oursNodeFlags = option('ours-node-flags')?.split(' ').filter(Boolean);
const idleRuns = Number(option('idle-runs') ?? (quick ? 1 : runs));
const timeoutSeconds = Number(option('timeout-seconds') ?? 900);
/**
 * The niceness the whole bench runs at (`--nice=N`; `--nice=0` for none): the bench re-executes itself
 * under `nice -n N`, so every process it starts (kube-apiserver, etcd, both controllers, the driver, synth
 * processes) inherits it, the same for Go and ours. On a machine shared with other work, Linux shares
 * the CPU by thread: at load 10-30 a single-threaded Node process got ~1/10 of a core while the
 * multi-threaded apiserver and Go controller got more. At -10 (niceness and, with autogroup scheduling, its
 * session's group: see atBenchPriority) the bench outweighs default-priority work ~9:1; what is left is
 * recorded: the priority each process had, and the load average per run.
 */
const NICE = Number(option('nice') ?? -10);

interface SideBySideResults {
  readonly mode: 'side-by-side';
  readonly implementations: Partial<Record<Implementation, string>>;
  /** Extra flags our controller ran with (experiments only; absent = its defaults). */
  readonly oursArgs?: readonly string[];
  /** Node flags our controller ran with instead of its Dockerfile's (experiments only). */
  readonly oursNodeFlags?: readonly string[];
  readonly apiserver: string;
  readonly steadyStateWindowSeconds: number;
  readonly steadyStateRuns: number | 'all';
  readonly runsPerSize: Record<number, number>;
  /** Each controller started with no Foo: the process's fixed cost (see side-by-side.ts `runIdle`). */
  readonly fixedCost: Partial<Record<Implementation, FixedCost>>;
  readonly idleRuns: IdleRun[];
  readonly summary: SizeSummary[];
  readonly runs: ControllerRun[];
}

/**
 * Re-runs this process in a session of its own (`setsid`) under `nice -n NICE`, unless it is that re-run;
 * returns false in the parent. With autogroup scheduling (Linux's default for desktop and many VM kernels:
 * /proc/sys/kernel/sched_autogroup_enabled), the CPU is first shared between sessions and niceness only
 * counts within one; so the re-run also gives its own session's group the same niceness
 * (/proc/self/autogroup, which needs root to lower it).
 */
function atBenchPriority(): boolean {
  if (process.env.BENCH_RENICED) {
    try {
      if (NICE !== 0) fs.writeFileSync('/proc/self/autogroup', String(NICE));
    } catch {
      // No autogroup scheduling, or not root: recorded below as it is.
    }
    return true;
  }
  if (NICE === 0 && os.getPriority() === 0) return true;
  const r = spawnSync(
    'setsid',
    [
      '--wait',
      'nice',
      '-n',
      String(NICE - os.getPriority()),
      process.execPath,
      ...process.execArgv,
      ...process.argv.slice(1),
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_RENICED: '1' },
    },
  );
  process.exitCode = r.status ?? 1;
  return false;
}

/** The bench's scheduling priority as it is: its niceness, and its session group's (autogroup) if the kernel has them. */
function benchPriority(): { requested: number; bench: number; autogroup?: string } {
  let autogroup: string | undefined;
  try {
    autogroup = fs.readFileSync('/proc/self/autogroup', 'utf8').trim();
  } catch {
    autogroup = undefined;
  }
  return { requested: NICE, bench: os.getPriority(), autogroup };
}

async function main() {
  if (!atBenchPriority()) return;
  // What the bench actually runs at (an unprivileged user cannot lower it: nice warns and runs at 0).
  const priority = benchPriority();
  if (priority.bench !== NICE) {
    console.error(`bench: running at niceness ${priority.bench}, not ${NICE} (nice needs root to lower it)`);
  }
  const loadavgStart = os.loadavg();
  const dir = path.join(__dirname, 'results', new Date().toISOString().replace(/[:.]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });

  const synth: SynthResult[] = [];
  let demoApps: DemoAppsResult | undefined;
  let cliSynth: CliSynthResult | undefined;
  if (only === undefined || only === 'cli-synth') {
    cliSynth = runCliSynthBench(Math.max(runs, 10));
    console.error(
      `npx cdk8s synth: ${cliSynth.cdk8sSynth.median.wallSeconds}s vs plain cdk8s app ${cliSynth.plainSynth.median.wallSeconds}s (ratio ${cliSynth.wallRatioMedian}); app CPU with/without code cache ${cliSynth.appWithCodeCache.median.cpuSeconds}/${cliSynth.appWithoutCodeCache.median.cpuSeconds} s; load ${cliSynth.loadavg.min}-${cliSynth.loadavg.max}`,
    );
  }
  if (only !== 'controller' && only !== 'crd-corpus' && only !== 'cli-synth') {
    // Whole processes, at least 10 of each, alternating (noise on a shared machine).
    const synthRuns = quick ? runs : Math.max(runs, 10);
    for (const [n, m] of SYNTH_SIZES) {
      const r = runSynthBench(n, m, synthRuns);
      synth.push(r);
      console.error(
        `synth N=${n} M=${m}: ours ${r.ours.wallSeconds}s / baseline ${r.baseline.wallSeconds}s = ${r.wallRatio}x (load ${r.loadavg.min}-${r.loadavg.max})`,
      );
    }
    demoApps = runDemoAppsBench(synthRuns);
  }
  let crdCorpus: CrdCorpusResult | undefined;
  if (only === undefined || only === 'crd-corpus') {
    crdCorpus = runCrdCorpusBench(runs);
    console.error(
      `CRD corpus: ${crdCorpus.whole.megabytes} MB: validation ${crdCorpus.whole.validationMegabytesPerSecond} MB/s, end to end ${crdCorpus.whole.endToEndMegabytesPerSecond} MB/s`,
    );
  }

  let controller: SideBySideResults | ControllerResult[] | undefined;
  if (only !== 'synth' && only !== 'crd-corpus' && only !== 'cli-synth') {
    const bundle = path.join(os.tmpdir(), `foo-controller-${process.pid}.js`);
    await bundleFooController(bundle);
    const assets = process.env.KUBEBUILDER_ASSETS;
    if (process.env.KUBECONFIG) {
      controller = await onCluster(bundle, dir);
    } else if (assets && fs.existsSync(path.join(assets, 'kube-apiserver'))) {
      const partial: ControllerRun[] = [];
      const sideBySide = {
        bundle,
        goBinary: path.join(assets, 'sample-controller'),
        steadySeconds,
        steadyRuns,
        timeoutSeconds,
        profileDir: dir,
        cpuProfile: flag('cpu-profile'),
        heapSnapshot: flag('heap-snapshot'),
        implementations,
        oursArgs,
        oursNodeFlags,
      };
      const idle = await runIdleSeries(idleRuns, sideBySide, (r) => {
        fs.writeFileSync(path.join(dir, 'idle.partial.json'), JSON.stringify(r, null, 2) + '\n', { flag: 'a' });
        console.error(
          `controller ${r.implementation} idle run ${r.run}: watching after ${r.watchingSeconds}s, RSS ${r.atIdle.rssMiB} MiB (peak ${r.atIdle.peakRssMiB}), loadavg ${r.loadavg.end[0]}`,
        );
      });
      const fixedCost = summarizeIdle(idle);
      const all = await runSideBySide(
        FOO_COUNTS,
        (n) => runsPerSize.get(n) ?? runs,
        sideBySide,
        (r) => {
          // Written after every run, so a benchmark stopped early still leaves its figures.
          partial.push(r);
          fs.writeFileSync(path.join(dir, 'runs.partial.json'), JSON.stringify(partial, null, 2) + '\n');
          // The summary so far (end-state diffs included, which need the in-memory end states): a series stopped
          // early still leaves medians and diffs of the sizes it finished.
          fs.writeFileSync(
            path.join(dir, 'summary.partial.json'),
            JSON.stringify({ fixedCost, idleRuns: idle, summary: summarize(partial, fixedCost) }, null, 2) + '\n',
          );
          console.error(
            `controller ${r.implementation} N=${r.foos} run ${r.run}: converged in ${r.convergeSeconds}s, peak RSS ${r.atEnd.peakRssMiB} MiB, ` +
              `${r.atConvergence.cpuSeconds} CPU s (apiserver ${r.apiserverCpuSeconds}, etcd ${r.etcdCpuSeconds}, driver ${r.driverCpuSeconds}), first write at ${r.firstWriteSeconds}s, ${r.requestsPerFoo} requests/Foo, steady state ${r.steadyState.writes} writes ${r.steadyState.watches} watches, ` +
              `end state ${r.endStateProblems.length ? 'WRONG: ' + r.endStateProblems[0] : 'ok'}, loadavg ${r.loadavg.start[0]}-${r.loadavg.end[0]}, niceness ${JSON.stringify(r.priority)}`,
          );
        },
      );
      controller = {
        mode: 'side-by-side',
        implementations: Object.fromEntries(implementations.map((i) => [i, IMPLEMENTATIONS[i]])),
        oursArgs,
        oursNodeFlags,
        apiserver: `kube-apiserver ${path.join(assets, 'kube-apiserver')} (fresh etcd on tmpfs per run)`,
        steadyStateWindowSeconds: steadySeconds,
        steadyStateRuns: steadyRuns ?? 'all',
        runsPerSize: Object.fromEntries(FOO_COUNTS.map((n) => [n, runsPerSize.get(n) ?? runs])),
        fixedCost,
        idleRuns: idle,
        summary: summarize(all, fixedCost),
        runs: all,
      };
    } else {
      console.error(
        'controller benchmark skipped: set KUBEBUILDER_ASSETS (real kube-apiserver and sample-controller) or KUBECONFIG',
      );
    }
  }

  const machine = {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    kernel: os.release(),
  };
  const results = {
    date: new Date().toISOString(),
    machine,
    priority,
    loadavg: { start: loadavgStart, end: os.loadavg() },
    quick,
    runs,
    synth,
    demoApps,
    cliSynth,
    crdCorpus,
    controller,
  };
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'chart.svg'), renderSvg([...synthPanels(synth), ...controllerPanels(controller)]));

  if (synth.length) {
    console.log('\nSynth (median of %d; wall time includes process start)', synth[0].runs);
    console.table(
      synth.map((s) => ({
        CRDs: s.crds,
        examples: s.examples,
        'ours s': s.ours.wallSeconds,
        'baseline s': s.baseline.wallSeconds,
        'time ratio': s.wallRatio,
        'ours MiB': s.ours.peakRssMiB,
        'baseline MiB': s.baseline.peakRssMiB,
        'RSS ratio': s.rssRatio,
      })),
    );
  }
  if (crdCorpus) {
    console.log(`\nReal-world CRDs through fromFile + synth with every check (${crdCorpus.corpus}, median of ${runs})`);
    console.table([
      { set: 'whole corpus', ...crdCorpus.whole },
      ...[crdCorpus.largest, ...crdCorpus.largeFiles].map((f) => ({ set: f.file, ...f })),
    ]);
  }
  if (demoApps) {
    console.log(
      `\nDemo apps (apps/main.ts: SampleDB + Foo), median of ${synth[0]?.runs ?? runs}: where the time of \`npx cdk8s synth\` goes`,
    );
    console.table([
      { step: 'npx cdk8s synth (as a user runs it)', ...demoApps.cli },
      { step: 'npx cdk8s --version (npx + CLI, no app)', ...demoApps.cliStartup },
      { step: 'app, bundled (tools/run-app, what cdk8s.yaml runs)', ...demoApps.bundledApp },
      { step: 'app through tsx', ...demoApps.tsxApp },
      { step: "node -e ''", ...demoApps.nodeStartup },
    ]);
  }
  if (controller && !Array.isArray(controller)) {
    console.log(`\nFoo controllers side by side (median of ${JSON.stringify(controller.runsPerSize)} runs; ours/Go)`);
    console.table(
      controller.summary.map((s) => ({
        Foos: s.foos,
        'Go s': s.go.convergeSeconds,
        'ours s': s.ours.convergeSeconds,
        'time ratio': s.ratios.convergeSeconds,
        'Go MiB': s.go.peakRssMiB,
        'ours MiB': s.ours.peakRssMiB,
        'RSS ratio': s.ratios.peakRssMiB,
        'Go CPU s': s.go.cpuSeconds,
        'ours CPU s': s.ours.cpuSeconds,
        'apiserver CPU s Go/ours': `${s.go.apiserverCpuSeconds}/${s.ours.apiserverCpuSeconds}`,
        'first write s Go/ours': `${s.go.firstWriteSeconds}/${s.ours.firstWriteSeconds}`,
        'Go req/Foo': s.go.requestsPerFoo,
        'ours req/Foo': s.ours.requestsPerFoo,
        'steady writes Go/ours': `${s.go.steadyStateWrites}/${s.ours.steadyStateWrites}`,
        'end states equal': s.endStatesEqual,
        'objects diffed': `${s.endStateDiff.objects} x ${s.endStateDiff.pairs}, ${s.endStateDiff.differingObjects} differ`,
        'KiB/Foo Go/ours': s.perFooKiB ? `${s.perFooKiB.go}/${s.perFooKiB.ours}` : '',
      })),
    );
    console.log(
      `fixed cost (no Foo, peak RSS MiB): Go ${controller.fixedCost.go?.peakRssMiB}, ours ${controller.fixedCost.ours?.peakRssMiB}`,
    );
    for (const s of controller.summary) {
      for (const e of s.endStateDiff.examples) console.log(`end state differs at ${s.foos}: ${e}`);
    }
  } else if (controller) {
    console.table(
      controller.map((c) => ({
        Foos: c.foos,
        'converge s': c.convergeSeconds,
        'writes/Foo': c.writesPerFoo,
        'steady writes': c.steadyStateWrites,
        'peak RSS MiB': c.controllerPeakRssMiB,
        'requests/Foo': JSON.stringify(c.requestsPerFoo),
      })),
    );
  }
  console.log(`\nresults: ${path.relative(process.cwd(), dir)}/results.json and chart.svg`);
}

/** Our controller alone on the cluster of KUBECONFIG. */
async function onCluster(bundle: string, dir: string): Promise<ControllerResult[]> {
  const out: ControllerResult[] = [];
  for (const n of FOO_COUNTS) {
    const target = await clusterTarget({ simulateAvailability: !flag('no-simulate-availability') });
    const r = await runControllerBench(target, n, {
      bundle,
      steadySeconds,
      timeoutSeconds: 900,
      heapSnapshotDir: flag('heap-snapshot') ? dir : undefined,
    });
    out.push(r);
    console.error(
      `controller N=${n}: converged in ${r.convergeSeconds}s, ${r.writesPerFoo} writes/Foo, ${r.steadyStateWrites} steady-state writes`,
    );
  }
  return out;
}

function synthPanels(synth: readonly SynthResult[]): Panel[] {
  if (!synth.length) return [];
  return [
    {
      title: 'Synth wall time (process start included)',
      xLabel: 'example CRs (CRDs = examples / 10)',
      yLabel: 'seconds',
      series: [
        { name: 'cdk8s-operator (validated)', points: synth.map((s) => [s.examples, s.ours.wallSeconds] as const) },
        { name: 'plain ApiObject baseline', points: synth.map((s) => [s.examples, s.baseline.wallSeconds] as const) },
      ],
    },
    {
      title: 'Synth peak RSS',
      xLabel: 'example CRs',
      yLabel: 'MiB',
      series: [
        { name: 'cdk8s-operator', points: synth.map((s) => [s.examples, s.ours.peakRssMiB] as const) },
        { name: 'baseline', points: synth.map((s) => [s.examples, s.baseline.peakRssMiB] as const) },
      ],
    },
  ];
}

function controllerPanels(controller: SideBySideResults | ControllerResult[] | undefined): Panel[] {
  if (!controller) return [];
  if (Array.isArray(controller)) {
    return [
      {
        title: 'Foo convergence time',
        xLabel: 'Foos',
        yLabel: 'seconds',
        series: [{ name: 'Foo controller', points: controller.map((c) => [c.foos, c.convergeSeconds] as const) }],
      },
    ];
  }
  const series = (pick: (s: SizeSummary['go']) => number) =>
    (['go', 'ours'] as const)
      .filter((impl) => controller.summary.some((s) => Number.isFinite(pick(s[impl]))))
      .map((impl) => ({
        name: impl === 'go' ? 'Go sample-controller' : 'ours (TypeScript)',
        points: controller.summary.map((s) => [s.foos, pick(s[impl])] as const),
      }));
  return [
    {
      title: 'Foo convergence time (median)',
      xLabel: 'Foos',
      yLabel: 'seconds',
      series: series((m) => m.convergeSeconds),
    },
    { title: 'Controller peak RSS (median)', xLabel: 'Foos', yLabel: 'MiB', series: series((m) => m.peakRssMiB) },
    {
      title: 'Controller CPU until converged (median)',
      xLabel: 'Foos',
      yLabel: 'CPU seconds',
      series: series((m) => m.cpuSeconds),
    },
    {
      title: 'API requests per Foo (apiserver audit)',
      xLabel: 'Foos',
      yLabel: 'requests',
      series: series((m) => m.requestsPerFoo),
    },
  ];
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
