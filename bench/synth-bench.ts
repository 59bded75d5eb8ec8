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
}

/** Runs `node <args>` in ROOT with the peak-RSS reporter preloaded. */
export function timeNode(args: readonly string[], env: NodeJS.ProcessEnv = {}): TimedRun {
  const start = process.hrtime.bigint();
  const run = spawnSync(process.execPath, ['--require', path.join(__dirname, '_report-rss.cjs'), ...args], { cwd: ROOT, env: { ...process.env, ...env }, encoding: 'utf8' });
  const wallSeconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} failed (${run.status}):\n${run.stderr}`);
  const kb = Number(/BENCH_MAX_RSS_KB=(\d+)/.exec(run.stderr)?.[1] ?? NaN);
  return { wallSeconds: round(wallSeconds), peakRssMiB: round(kb / 1024) };
}

export function runSynthBench(crds: number, examples: number, runs: number): SynthResult {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'synth-bench-'));
  const ours: TimedRun[] = [];
  const baseline: TimedRun[] = [];
  try {
    for (let i = 0; i < runs; i++) {
      ours.push(timeNode(['--import', 'tsx', 'bench/synth-app.ts', 'ours', String(crds), String(examples), path.join(out, 'ours')]));
      baseline.push(timeNode(['--import', 'tsx', 'bench/synth-app.ts', 'baseline', String(crds), String(examples), path.join(out, 'baseline')]));
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
  const o = median(ours);
  const b = median(baseline);
  return { crds, examples, ours: o, baseline: b, wallRatio: round(o.wallSeconds / b.wallSeconds), rssRatio: round(o.peakRssMiB / b.peakRssMiB) };
}

export function median(runs: readonly TimedRun[]): TimedRun {
  const mid = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wallSeconds: mid(runs.map(r => r.wallSeconds)), peakRssMiB: mid(runs.map(r => r.peakRssMiB)) };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
