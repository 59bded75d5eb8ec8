// Synth benchmark: wall time (process start included) and peak RSS of our synth with full validation
// against the same objects as plain cdk8s ApiObjects; the median of `runs` runs each, interleaved.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.join(__dirname, '..');

export interface TimedRun {
  readonly wallSeconds: number;
  readonly peakRssMiB: number;
}

export interface SynthResult {
  readonly crds: number;
  readonly examples: number;
  readonly ours: TimedRun;
  readonly baseline: TimedRun;
  readonly wallRatio: number;
  readonly rssRatio: number;
  /** Runs of each (alternating ours / baseline). */
  readonly runs: number;
  /** The machine's 1-minute load average over the runs (sampled before each pair and after the last). */
  readonly loadavg: { readonly min: number; readonly max: number };
}

/** Runs `node <args>` in ROOT with the peak-RSS reporter preloaded. */
export function timeNode(args: readonly string[], env: NodeJS.ProcessEnv = {}): TimedRun {
  return timeCommand(process.execPath, args, env);
}

/**
 * Runs `command <args>` in ROOT; every Node process it starts has the peak-RSS reporter preloaded
 * (NODE_OPTIONS), and the peak is the largest of them (e.g. `npx` → the cdk8s CLI → the app).
 */
export function timeCommand(command: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): TimedRun {
  const reporter = `--require ${path.join(__dirname, '_report-rss.cjs')}`;
  const nodeOptions = [process.env.NODE_OPTIONS, reporter].filter(Boolean).join(' ');
  const start = process.hrtime.bigint();
  const run = spawnSync(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${run.status}):\n${run.stderr}`);
  const kb = Math.max(...[...run.stderr.matchAll(/BENCH_MAX_RSS_KB=(\d+)/g)].map((m) => Number(m[1])));
  return { wallSeconds: round(wallSeconds), peakRssMiB: round(kb / 1024) };
}

/** Where the time of `npx cdk8s synth` of the demo apps goes (wall seconds, medians). */
export interface DemoAppsResult {
  /** `npx cdk8s synth`, as a user runs it (cdk8s.yaml: the bundled app). */
  readonly cli: TimedRun;
  /** `npx cdk8s --version`: npx and loading the cdk8s CLI, no app. */
  readonly cliStartup: TimedRun;
  /** The app through tools/run-app (bundle up to date), without the CLI. */
  readonly bundledApp: TimedRun;
  /** The app through tsx, without the CLI (what cdk8s.yaml ran before). */
  readonly tsxApp: TimedRun;
  /** `node -e ''`: a Node process and nothing else. */
  readonly nodeStartup: TimedRun;
}

export function runDemoAppsBench(runs: number): DemoAppsResult {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'apps-bench-'));
  const env = { CDK8S_OUTDIR: path.join(out, 'dist'), CDK8S_OPERATOR_QUIET: '1' };
  const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
  const series: Record<keyof DemoAppsResult, TimedRun[]> = {
    cli: [],
    cliStartup: [],
    bundledApp: [],
    tsxApp: [],
    nodeStartup: [],
  };
  try {
    // The first run (re)builds the bundle if an input changed: not timed.
    timeNode(['tools/run-app/run-app.cjs', 'apps/main.ts'], env);
    for (let i = 0; i < runs; i++) {
      series.cli.push(
        timeCommand(npx, ['cdk8s', 'synth', '--output', path.join(out, 'cli')], { CDK8S_OPERATOR_QUIET: '1' }),
      );
      series.cliStartup.push(timeCommand(npx, ['cdk8s', '--version']));
      series.bundledApp.push(timeNode(['tools/run-app/run-app.cjs', 'apps/main.ts'], env));
      series.tsxApp.push(timeNode(['--import', 'tsx', 'apps/main.ts'], env));
      series.nodeStartup.push(timeNode(['-e', '']));
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  return {
    cli: median(series.cli),
    cliStartup: median(series.cliStartup),
    bundledApp: median(series.bundledApp),
    tsxApp: median(series.tsxApp),
    nodeStartup: median(series.nodeStartup),
  };
}

export function runSynthBench(crds: number, examples: number, runs: number): SynthResult {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-bench-'));
  const ours: TimedRun[] = [];
  const baseline: TimedRun[] = [];
  const loads: number[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      loads.push(os.loadavg()[0]);
      ours.push(
        timeNode([
          '--import',
          'tsx',
          'bench/synth-app.ts',
          'ours',
          String(crds),
          String(examples),
          path.join(out, 'ours'),
        ]),
      );
      baseline.push(
        timeNode([
          '--import',
          'tsx',
          'bench/synth-app.ts',
          'baseline',
          String(crds),
          String(examples),
          path.join(out, 'baseline'),
        ]),
      );
    }
    loads.push(os.loadavg()[0]);
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  const o = median(ours);
  const b = median(baseline);
  return {
    crds,
    examples,
    ours: o,
    baseline: b,
    wallRatio: round(o.wallSeconds / b.wallSeconds),
    rssRatio: round(o.peakRssMiB / b.peakRssMiB),
    runs,
    loadavg: { min: round(Math.min(...loads)), max: round(Math.max(...loads)) },
  };
}

export function median(runs: readonly TimedRun[]): TimedRun {
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wallSeconds: mid(runs.map((r) => r.wallSeconds)), peakRssMiB: mid(runs.map((r) => r.peakRssMiB)) };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
