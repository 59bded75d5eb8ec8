// `npx cdk8s synth` timed as a user runs it: whole processes from a clean shell environment (PATH and HOME
// only), alternating with a plain cdk8s app of the same size (the same manifests as plain ApiObjects, through
// the same CLI), medians of `runs` (at least 10); and the app alone from its bundle with and without the V8
// code cache (tools/run-app), alternating. Wall seconds, user + system CPU seconds and peak RSS of each
// process tree from /usr/bin/time; the 1-minute load average before every run.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';

const ROOT = path.join(__dirname, '..');

export interface ProcessRun {
  readonly wallSeconds: number;
  readonly cpuSeconds: number;
  readonly userSeconds: number;
  readonly peakRssMiB: number;
  readonly loadavg: number;
}

export interface Series {
  readonly command: string;
  readonly runs: readonly ProcessRun[];
  readonly median: Omit<ProcessRun, 'loadavg'>;
}

export interface CliSynthResult {
  readonly objects: number;
  /** `npx cdk8s synth` of the demo apps (cdk8s.yaml: the bundled app). */
  readonly cdk8sSynth: Series;
  /** `npx cdk8s synth` of a plain cdk8s app writing the same objects as ApiObjects. */
  readonly plainSynth: Series;
  /** Pair by pair: ours / plain. */
  readonly wallRatioMedian: number;
  /** The app from its bundle with the V8 code cache (as cdk8s.yaml runs it)... */
  readonly appWithCodeCache: Series;
  /** ...and without it (RUN_APP_CODE_CACHE=0). */
  readonly appWithoutCodeCache: Series;
  readonly loadavg: { readonly min: number; readonly max: number };
}

/** A clean shell's environment: what a user's login shell would pass, nothing from this process. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? os.homedir(), ...extra };
}

/** One whole-process run under /usr/bin/time (wall, user, system, max RSS of the process tree). */
function timed(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): ProcessRun {
  const loadavg = Math.round(os.loadavg()[0] * 100) / 100;
  const r = spawnSync('/usr/bin/time', ['-f', 'BENCH_TIME %e %U %S %M', command, ...args], {
    cwd,
    env,
    encoding: 'utf8',
  });
  const m = /BENCH_TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  if (r.status !== 0 || !m) throw new Error(`${command} ${args.join(' ')} failed (${r.status}):\n${r.stderr}`);
  const [wall, user, sys, kb] = m.slice(1).map(Number);
  return { wallSeconds: wall, cpuSeconds: round(user + sys), userSeconds: user, peakRssMiB: round(kb / 1024), loadavg };
}

function series(command: string, runs: ProcessRun[]): Series {
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : round((s[s.length / 2 - 1] + s[s.length / 2]) / 2);
  };
  return {
    command,
    runs,
    median: {
      wallSeconds: med(runs.map((r) => r.wallSeconds)),
      cpuSeconds: med(runs.map((r) => r.cpuSeconds)),
      userSeconds: med(runs.map((r) => r.userSeconds)),
      peakRssMiB: med(runs.map((r) => r.peakRssMiB)),
    },
  };
}

/** A plain cdk8s app (cdk8s.yaml + app.js) writing `objects` as ApiObjects; inside the repository so `cdk8s` resolves. */
function writePlainApp(objects: readonly object[]): string {
  const dir = fs.mkdtempSync(path.join(ROOT, 'node_modules', '.cache', 'plain-app-'));
  fs.writeFileSync(path.join(dir, 'objects.json'), JSON.stringify(objects));
  fs.writeFileSync(
    path.join(dir, 'app.js'),
    [
      "const { App, Chart, ApiObject } = require('cdk8s');",
      "const objects = require('./objects.json');",
      'const app = new App();',
      "const chart = new Chart(app, 'plain');",
      'objects.forEach((o, i) => new ApiObject(chart, `o${i}`, o));',
      'app.synth();',
    ].join('\n'),
  );
  fs.writeFileSync(path.join(dir, 'cdk8s.yaml'), 'language: typescript\napp: node app.js\noutput: dist\n');
  return dir;
}

export function runCliSynthBench(runs: number): CliSynthResult {
  if (runs < 10) throw new Error(`cli-synth: at least 10 runs per command, got ${runs}`);
  const npx = 'npx';
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-synth-'));
  const quiet = { CDK8S_OPERATOR_QUIET: '1' };
  try {
    // What the demo apps write: the plain app writes the same objects.
    const first = spawnSync(npx, ['cdk8s', 'synth', '--output', path.join(out, 'ours')], {
      cwd: ROOT,
      env: cleanEnv(quiet),
      encoding: 'utf8',
    });
    if (first.status !== 0) throw new Error(`npx cdk8s synth failed:\n${first.stderr}`);
    const objects = fs
      .readdirSync(path.join(out, 'ours'))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .flatMap((f) =>
        yaml
          .parseAllDocuments(fs.readFileSync(path.join(out, 'ours', f), 'utf8'))
          .map((d) => d.toJS())
          .filter(Boolean),
      );
    const plain = writePlainApp(objects);
    try {
      spawnSync(npx, ['cdk8s', 'synth'], { cwd: plain, env: cleanEnv(), encoding: 'utf8' }); // warm-up, as the first above
      const ours: ProcessRun[] = [];
      const base: ProcessRun[] = [];
      for (let i = 0; i < runs; i++) {
        const pair = [
          () => ours.push(timed(npx, ['cdk8s', 'synth', '--output', path.join(out, 'ours')], ROOT, cleanEnv(quiet))),
          () => base.push(timed(npx, ['cdk8s', 'synth'], plain, cleanEnv())),
        ];
        for (const run of i % 2 ? pair.reverse() : pair) run();
      }
      const cached: ProcessRun[] = [];
      const uncached: ProcessRun[] = [];
      const app = ['tools/run-app/run-app.cjs', 'apps/main.ts'];
      const appEnv = (cache: boolean) =>
        cleanEnv({ ...quiet, CDK8S_OUTDIR: path.join(out, 'app'), ...(cache ? {} : { RUN_APP_CODE_CACHE: '0' }) });
      timed(process.execPath, app, ROOT, appEnv(true)); // writes the cache if the bundle changed
      for (let i = 0; i < runs; i++) {
        const pair = [
          () => cached.push(timed(process.execPath, app, ROOT, appEnv(true))),
          () => uncached.push(timed(process.execPath, app, ROOT, appEnv(false))),
        ];
        for (const run of i % 2 ? pair.reverse() : pair) run();
      }
      const ratios = ours.map((o, i) => o.wallSeconds / base[i].wallSeconds).sort((a, b) => a - b);
      const all = [...ours, ...base, ...cached, ...uncached].map((r) => r.loadavg);
      return {
        objects: objects.length,
        cdk8sSynth: series('npx cdk8s synth (demo apps, cdk8s.yaml)', ours),
        plainSynth: series('npx cdk8s synth (plain cdk8s app, the same objects as ApiObjects)', base),
        wallRatioMedian: round(
          ratios.length % 2
            ? ratios[(ratios.length - 1) / 2]
            : (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2,
        ),
        appWithCodeCache: series('node tools/run-app/run-app.cjs apps/main.ts', cached),
        appWithoutCodeCache: series('RUN_APP_CODE_CACHE=0 node tools/run-app/run-app.cjs apps/main.ts', uncached),
        loadavg: { min: Math.min(...all), max: Math.max(...all) },
      };
    } finally {
      fs.rmSync(plain, { recursive: true, force: true });
    }
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
