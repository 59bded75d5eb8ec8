/**
 * CPU of each jest test file within ONE whole run (its workers side by side, as npm test runs them): what a file costs
 * its worker (Node) and every process the worker started (control planes, kubectl, npm, tsc), attributed by /proc
 * sampling. The jest environment (test/timeout-scale-environment.js) logs which worker ran which file when; every
 * second each worker's CPU and its descendants' (utime, stime and the children's it reaped) is read, and the growth
 * since the last sample is charged to the file the worker was running. Processes outside the workers (the check step,
 * a node cluster beside) are counted by command name. Run on a quiet machine.
 *
 *   npx tsx tools/ci-time/cpu-by-file.ts [jest arguments…] > cpu-by-file.json
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const HZ = 100; // getconf CLK_TCK on Linux

interface Proc {
  readonly pid: number;
  readonly ppid: number;
  readonly comm: string;
  /** utime + stime + cutime + cstime, in seconds */
  readonly cpu: number;
}

function readProcs(): Map<number, Proc> {
  const out = new Map<number, Proc>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cpu = (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / HZ;
      out.set(Number(name), { pid: Number(name), ppid: Number(f[1]), comm, cpu });
    } catch {
      // the process ended between readdir and read
    }
  }
  return out;
}

function machineBusy(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) / HZ;
}

interface FileRun {
  readonly file: string;
  readonly pid: number;
  readonly start: number;
  readonly end: number;
}

async function main(): Promise<void> {
  const log = join(mkdtempSync(join(tmpdir(), 'cpu-by-file-')), 'files.jsonl');
  const t0 = Date.now();
  const busy0 = machineBusy();
  // jest itself (not through npx) so that its workers are the children of the process started here; the test
  // task's environment (.projen/tasks.json)
  const child = spawn(process.execPath, [require.resolve('jest/bin/jest'), '--ci', ...process.argv.slice(2)], {
    env: {
      ...process.env,
      NODE_OPTIONS: '--max-semi-space-size=64',
      CDK8S_OPERATOR_QUIET: '1',
      ENVTEST_REQUIRED: process.env.ENVTEST_REQUIRED ?? '1',
      JEST_FILE_LOG: log,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const jestPid = child.pid!;
  // per sample: each jest worker's CPU with its live descendants', and the CPU of everything else by command
  const samples: { t: number; workers: Map<number, number> }[] = [];
  const outsideLast = new Map<number, Proc>();
  const outside = new Map<string, number>();
  const tick = () => {
    const procs = readProcs();
    const children = new Map<number, number[]>();
    for (const p of procs.values()) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
    const subtree = (pid: number): number[] => [pid, ...(children.get(pid) ?? []).flatMap(subtree)];
    const inJest = new Set(subtree(jestPid));
    const workers = new Map<number, number>();
    for (const w of children.get(jestPid) ?? []) {
      workers.set(
        w,
        subtree(w).reduce((n, pid) => n + (procs.get(pid)?.cpu ?? 0), 0),
      );
    }
    for (const p of procs.values()) {
      if (inJest.has(p.pid) || p.pid === process.pid) continue;
      const before = outsideLast.get(p.pid);
      const grown = before ? p.cpu - before.cpu : 0;
      if (grown > 0) outside.set(p.comm, (outside.get(p.comm) ?? 0) + grown);
      outsideLast.set(p.pid, p);
    }
    samples.push({ t: Date.now(), workers });
  };
  const timer = setInterval(tick, 1000);
  const code: number = await new Promise((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearInterval(timer);
  const wallS = (Date.now() - t0) / 1000;
  const busyS = machineBusy() - busy0;

  const runs: FileRun[] = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  rmSync(dirname(log), { recursive: true, force: true });
  const byFile = new Map<string, { cpuS: number; wallS: number }>();
  for (const r of runs) byFile.set(r.file, { cpuS: 0, wallS: (r.end - r.start) / 1000 });
  let unattributed = 0;
  for (let i = 1; i < samples.length; i++) {
    for (const [pid, cpu] of samples[i].workers) {
      const before = samples[i - 1].workers.get(pid);
      if (before === undefined) continue;
      const grown = Math.max(0, cpu - before);
      const t = samples[i].t;
      const run = runs.find((r) => r.pid === pid && r.start <= t && t <= r.end + 1000);
      if (run) byFile.get(run.file)!.cpuS += grown;
      else unattributed += grown;
    }
  }
  const root = process.cwd() + '/';
  const files = [...byFile]
    .map(([file, v]) => ({ file: file.replace(root, ''), cpuS: +v.cpuS.toFixed(1), wallS: +v.wallS.toFixed(1) }))
    .sort((a, b) => b.cpuS - a.cpuS);
  const inFiles = files.reduce((n, f) => n + f.cpuS, 0);
  console.log(
    JSON.stringify(
      {
        exit: code,
        wallS: +wallS.toFixed(0),
        machineCpuS: +busyS.toFixed(0),
        filesCpuS: +inFiles.toFixed(0),
        workersBetweenFilesCpuS: +unattributed.toFixed(0),
        outsideJestCpuS: Object.fromEntries(
          [...outside]
            .filter(([, v]) => v >= 1)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => [k, +v.toFixed(1)]),
        ),
        files,
      },
      null,
      1,
    ),
  );
}

void main();
