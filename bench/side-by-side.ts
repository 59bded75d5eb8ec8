// Side-by-side controller benchmark on a real kube-apiserver: kubernetes/sample-controller (Go,
// client-go) and our Foo controller, each at its own defaults, each run on a fresh control plane,
// alternating, for every N. Per run: time until every Foo converged (from the controller's start,
// the Foos exist beforehand), the controller process's peak RSS and CPU seconds (/proc), its
// requests by verb and resource as the apiserver audited them, and its requests in a steady-state
// window after convergence (writes, and watch requests = watch restarts).
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { createFoos, endStateDifferences, FooWorld } from './foo-world';
import { PlainKube } from './plain-kube';
import { findProcess, procStats, ProcStats } from './proc-stats';
import {
  AuditedRequest,
  countRequests,
  meanLatency,
  readAudit,
  startBenchControlPlane,
  WRITE_VERBS,
} from './real-control-plane';
import { parseDockerfile } from '../cli/image/dockerfile';

const ROOT = path.join(__dirname, '..');

export type Implementation = 'go' | 'ours';

export const IMPLEMENTATIONS: Record<Implementation, string> = {
  go: 'kubernetes/sample-controller v1.32 (client-go, 2 workers, SAMPLE_QPS=1)',
  ours: "controllers/foo (cdk8s-operator runtime, esbuild bundle on Node, run with its Dockerfile's Node flags and ENV)",
};

export interface SideBySideOptions {
  /** Our controller's single-file bundle. */
  readonly bundle: string;
  /** The Go sample-controller binary. */
  readonly goBinary: string;
  readonly steadySeconds: number;
  /** Runs (per N and controller) that get the steady-state window; later runs skip it. @default all */
  readonly steadyRuns?: number;
  readonly timeoutSeconds: number;
  /** Folder for CPU profiles / heap snapshots of our controller (when asked for). */
  readonly profileDir?: string;
  readonly cpuProfile?: boolean;
  readonly heapSnapshot?: boolean;
  /** Extra flags for our controller (experiments, e.g. `--concurrency=8`). @default - none: its defaults */
  readonly oursArgs?: readonly string[];
  /** Node flags for our controller instead of its Dockerfile's (experiments). @default - the Dockerfile's */
  readonly oursNodeFlags?: readonly string[];
  /** Which controllers to run. @default both */
  readonly implementations?: readonly Implementation[];
}

export interface ControllerRun {
  readonly implementation: Implementation;
  readonly foos: number;
  readonly run: number;
  /** From the controller's start until every Foo had converged. */
  readonly convergeSeconds: number;
  /** From the controller's start until every Foo's Deployment existed (as the driver's watch saw it). */
  readonly deploymentsSeconds?: number;
  /** From the controller's start until the apiserver received its last Deployment write. */
  readonly lastDeploymentWriteSeconds?: number;
  /** From the controller's start until the apiserver received its first request, and its first write (start-up cost). */
  readonly firstRequestSeconds?: number;
  readonly firstWriteSeconds?: number;
  /** The end state checked object by object after convergence (empty = all N Foos as upstream's). */
  readonly endStateProblems: readonly string[];
  /** Objects in the normalized end state (Foos and Deployments), compared across runs in the summary. */
  readonly endStateObjects: number;
  readonly atConvergence: ProcStats;
  /** At the end of the steady-state window. */
  readonly atEnd: ProcStats;
  /** CPU seconds kube-apiserver spent from the controller's start until convergence (the shared bottleneck). */
  readonly apiserverCpuSeconds?: number;
  /** etcd's CPU seconds over the same interval. */
  readonly etcdCpuSeconds?: number;
  /**
   * The bench process's own CPU seconds over the same interval: the driver (its watches, the stand-in that
   * marks Deployments available), the same work for both controllers, on the same machine.
   */
  readonly driverCpuSeconds?: number;
  /** Requests until every Foo had converged, by `verb resource`. */
  readonly requests: Record<string, number>;
  /** Requests after convergence until the controller was quiet for 3 s (e.g. trailing events). */
  readonly requestsAfterConvergence: Record<string, number>;
  readonly requestsPerFoo: number;
  readonly writesPerFoo: number;
  /** Mean apiserver-side latency of those requests in ms, by `verb resource` (audit timestamps). */
  readonly apiserverLatencyMs: Record<string, number>;
  readonly steadyState: {
    readonly windowSeconds: number;
    readonly writes: number;
    /** New watch requests in the window: each is a watch (re)start. */
    readonly watches: number;
    readonly requests: Record<string, number>;
  };
  readonly loadavg: { readonly start: readonly number[]; readonly end: readonly number[] };
  /** The niceness of the bench (driver), the controller, kube-apiserver and etcd during the run. */
  readonly priority?: {
    readonly bench: number;
    readonly controller?: number;
    readonly apiserver?: number;
    readonly etcd?: number;
  };
}

export async function runController(
  impl: Implementation,
  n: number,
  run: number,
  opts: SideBySideOptions,
): Promise<ControllerRun> {
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const loadStart = os.loadavg().map(round);
  const plane = await startBenchControlPlane([crd]);
  let controller: ChildProcess | undefined;
  let world: FooWorld | undefined;
  // The driver's own HTTPS client (plain-kube.ts), as the cluster admin: nothing of the runtime under test.
  const client = new PlainKube({ url: plane.plane.url, token: plane.plane.admin.token, ca: plane.plane.ca });
  try {
    await createFoos(client, n);
    world = new FooWorld(client, n);
    await world.start();

    const apiserver = findProcess('kube-apiserver', `--secure-port=${new URL(plane.plane.url).port}`);
    const apiserverCpu = () => (apiserver ? procStats(apiserver).cpuSeconds : NaN);
    const apiserverCpuAtStart = apiserverCpu();
    const etcd = apiserver ? etcdOf(apiserver) : undefined;
    const etcdCpu = () => (etcd ? procStats(etcd).cpuSeconds : NaN);
    const etcdCpuAtStart = etcdCpu();
    const driverCpuAtStart = process.cpuUsage();
    const started = Date.now();
    controller = spawnController(impl, plane.controllerKubeconfig, opts);
    const stderr = tail(controller);
    const exited = new Promise<never>((_, reject) =>
      controller!.once('exit', (code, signal) =>
        reject(new Error(`${impl} controller exited (${code ?? signal}):\n${stderr()}`)),
      ),
    );
    const { convergedAtMs, deploymentsAtMs } = await Promise.race([
      world.waitConverged(started + opts.timeoutSeconds * 1000),
      exited,
    ]);
    const atConvergence = procStats(controller.pid!);
    // The niceness each measured process ran at (inherited from the bench: run.ts --nice).
    const niceOf = (pid: number | undefined) => {
      try {
        return pid === undefined ? undefined : os.getPriority(pid);
      } catch {
        return undefined;
      }
    };
    const priority = {
      bench: os.getPriority(),
      controller: niceOf(controller.pid),
      apiserver: niceOf(apiserver),
      etcd: niceOf(etcd),
    };
    const apiserverCpuSeconds = round(apiserverCpu() - apiserverCpuAtStart);
    const etcdCpuSeconds = round(etcdCpu() - etcdCpuAtStart);
    const driverCpu = process.cpuUsage(driverCpuAtStart);
    const quietAt = await quiet(plane.auditLog);
    const endStateProblems = await world.verify();
    const endState = await world.endState();

    const windowStart = Date.now();
    const steadySeconds = run <= (opts.steadyRuns ?? Infinity) ? opts.steadySeconds : 0;
    await new Promise((r) => setTimeout(r, steadySeconds * 1000));
    const windowEnd = Date.now();
    const atEnd = procStats(controller.pid!);
    if (impl === 'ours' && opts.heapSnapshot && opts.profileDir) await heapSnapshot(controller, opts.profileDir);
    await stop(controller);

    const audited = readAudit(plane.auditLog);
    const untilConverged = audited.filter((r) => r.receivedMs <= convergedAtMs);
    const settling = audited.filter((r) => r.receivedMs > convergedAtMs && r.receivedMs <= quietAt);
    const inWindow = audited.filter((r) => r.receivedMs >= windowStart && r.receivedMs <= windowEnd);
    const writes = (rs: readonly AuditedRequest[]) => rs.filter((r) => WRITE_VERBS.has(r.verb)).length;
    const result: ControllerRun = {
      implementation: impl,
      foos: n,
      run,
      convergeSeconds: round((convergedAtMs - started) / 1000),
      deploymentsSeconds: deploymentsAtMs === undefined ? undefined : round((deploymentsAtMs - started) / 1000),
      lastDeploymentWriteSeconds: lastDeploymentWrite(untilConverged, started),
      firstRequestSeconds: firstAfter(untilConverged, started),
      firstWriteSeconds: firstAfter(
        untilConverged.filter((r) => WRITE_VERBS.has(r.verb)),
        started,
      ),
      endStateProblems: endStateProblems.slice(0, 20),
      endStateObjects: endState.size,
      atConvergence,
      atEnd,
      apiserverCpuSeconds: Number.isFinite(apiserverCpuSeconds) ? apiserverCpuSeconds : undefined,
      etcdCpuSeconds: Number.isFinite(etcdCpuSeconds) ? etcdCpuSeconds : undefined,
      driverCpuSeconds: round((driverCpu.user + driverCpu.system) / 1e6),
      requests: countRequests(untilConverged),
      requestsAfterConvergence: countRequests(settling),
      requestsPerFoo: round(untilConverged.length / n),
      writesPerFoo: round(writes(untilConverged) / n),
      apiserverLatencyMs: meanLatency(untilConverged),
      steadyState: {
        windowSeconds: steadySeconds ? round((windowEnd - windowStart) / 1000) : 0,
        writes: writes(inWindow),
        watches: inWindow.filter((r) => r.verb === 'watch').length,
        requests: countRequests(inWindow),
      },
      loadavg: { start: loadStart, end: os.loadavg().map(round) },
      priority,
    };
    END_STATES.set(result, endState);
    return result;
  } finally {
    if (controller) await stop(controller);
    await world?.stop();
    client.close();
    await plane.close();
  }
}

/** Each run's normalized end state (kept in memory only: the summary diffs Go's and ours object by object). */
const END_STATES = new WeakMap<ControllerRun, ReadonlyMap<string, string>>();

/** A controller started on an empty cluster: what the process costs before it caches anything. */
export interface IdleRun {
  readonly implementation: Implementation;
  readonly run: number;
  /** From the controller's start until its watches of Foos and Deployments were open. */
  readonly watchingSeconds: number;
  /** 5 s after that. */
  readonly atIdle: ProcStats;
  readonly loadavg: { readonly start: readonly number[]; readonly end: readonly number[] };
}

/** The fixed cost of a controller process: started with no Foo, measured 5 s after its watches opened. */
export async function runIdle(impl: Implementation, run: number, opts: SideBySideOptions): Promise<IdleRun> {
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const loadStart = os.loadavg().map(round);
  const plane = await startBenchControlPlane([crd]);
  let controller: ChildProcess | undefined;
  try {
    const started = Date.now();
    controller = spawnController(impl, plane.controllerKubeconfig, opts);
    const deadline = started + opts.timeoutSeconds * 1000;
    const watching = () =>
      new Set(
        readAudit(plane.auditLog)
          .filter((r) => r.verb === 'watch')
          .map((r) => r.resource),
      );
    while (!(watching().has('foos') && watching().has('deployments'))) {
      if (Date.now() > deadline || controller.exitCode !== null) {
        throw new Error(`${impl} controller did not open its watches`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    const watchingSeconds = round((Date.now() - started) / 1000);
    await new Promise((r) => setTimeout(r, 5000));
    return {
      implementation: impl,
      run,
      watchingSeconds,
      atIdle: procStats(controller.pid!),
      loadavg: { start: loadStart, end: os.loadavg().map(round) },
    };
  } finally {
    if (controller) await stop(controller);
    await plane.close();
  }
}

/** The etcd serving `apiserver` (by the port of its --etcd-servers). */
function etcdOf(apiserver: number): number | undefined {
  const args = fs.readFileSync(`/proc/${apiserver}/cmdline`, 'utf8').split('\0');
  const servers = args.find((a) => a.startsWith('--etcd-servers='))?.slice('--etcd-servers='.length);
  return servers ? findProcess('etcd', `--listen-client-urls=${servers.split(',')[0]}`) : undefined;
}

function lastDeploymentWrite(requests: readonly AuditedRequest[], started: number): number | undefined {
  const times = requests
    .filter((r) => r.resource === 'deployments' && WRITE_VERBS.has(r.verb))
    .map((r) => r.receivedMs);
  return times.length ? round((Math.max(...times) - started) / 1000) : undefined;
}

function firstAfter(requests: readonly AuditedRequest[], started: number): number | undefined {
  return requests.length ? round((Math.min(...requests.map((r) => r.receivedMs)) - started) / 1000) : undefined;
}

function spawnController(impl: Implementation, kubeconfig: string, opts: SideBySideOptions): ChildProcess {
  if (impl === 'go') {
    // SAMPLE_QPS lifts client-go's client-side throttle (5 QPS) in this build of sample-controller.
    return spawn(opts.goBinary, ['--kubeconfig', kubeconfig], {
      env: { ...process.env, SAMPLE_QPS: '1' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  }
  const profiling = [
    ...(opts.heapSnapshot && opts.profileDir
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${opts.profileDir}`]
      : []),
    ...(opts.cpuProfile && opts.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.profileDir}`] : []),
  ];
  // Run as the controller's image runs it: the same Node flags and environment.
  const image = imageRuntime();
  const env: NodeJS.ProcessEnv = { ...process.env, ...image.env, KUBECONFIG: kubeconfig };
  delete env.WATCH_NAMESPACE;
  delete env.NODE_OPTIONS;
  // Servers off: several benchmarks may share the machine, and sample-controller serves none either.
  const args = [
    ...(opts.oursNodeFlags ?? image.nodeFlags),
    ...profiling,
    opts.bundle,
    '--metrics-bind-address=0',
    '--health-probe-bind-address=0',
    ...(opts.oursArgs ?? []),
  ];
  return spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Node flags (between `node` and the script) and ENV of controllers/foo/Dockerfile: how the image runs the bundle. */
export function imageRuntime(): {
  readonly nodeFlags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
} {
  const file = path.join(ROOT, 'controllers/foo/Dockerfile');
  const recipe = parseDockerfile(fs.readFileSync(file, 'utf8'), file);
  const command = [...(recipe.entrypoint ?? []), ...(recipe.cmd ?? [])];
  const script = command.findIndex((a, i) => i > 0 && !a.startsWith('-'));
  if (!/node$/.test(command[0] ?? '') || script < 0) {
    throw new Error(
      `${file}: expected an ENTRYPOINT of the form [".../node", flags..., "main.js"], got ${JSON.stringify(command)}`,
    );
  }
  return { nodeFlags: command.slice(1, script), env: recipe.env };
}

/** Keeps the last 10 kB of the child's stderr (for the error message if it dies). */
function tail(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (b: Buffer) => {
    text = (text + b.toString()).slice(-10_000);
  });
  return () => text;
}

/** Waits until the controller made no request for 3 s (the audit log stops growing); at most 20 s. Returns that moment. */
async function quiet(auditLog: string): Promise<number> {
  const size = () => (fs.existsSync(auditLog) ? fs.statSync(auditLog).size : 0);
  const deadline = Date.now() + 20_000;
  let last = size();
  let lastChange = Date.now();
  while (Date.now() - lastChange < 3000 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = size();
    if (now !== last) {
      last = now;
      lastChange = Date.now();
    }
  }
  return lastChange;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 35_000);
  await exited;
  clearTimeout(timer);
}

async function heapSnapshot(child: ChildProcess, dir: string): Promise<void> {
  const before = new Set(fs.readdirSync(dir));
  child.kill('SIGUSR2');
  for (let i = 0; i < 120; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const written = fs.readdirSync(dir).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    if (written.length) {
      const size = fs.statSync(path.join(dir, written[0])).size;
      await new Promise((r) => setTimeout(r, 1000));
      if (size > 0 && fs.statSync(path.join(dir, written[0])).size === size) return;
    }
  }
}

export interface SizeSummary {
  readonly foos: number;
  readonly go: Medians;
  readonly ours: Medians;
  /** ours / go of the medians. */
  readonly ratios: {
    readonly convergeSeconds: number;
    readonly peakRssMiB: number;
    readonly cpuSeconds: number;
    readonly requestsPerFoo: number;
  };
  /**
   * Every run reached the upstream end state (the convergence predicate, object by object), and every
   * run of ours has the same end state as Go's first run, object by object (normalized as the parity test does).
   */
  readonly endStatesEqual: boolean;
  readonly endStateDiff: {
    /** Objects compared per pair of runs (Foos and Deployments). */
    readonly objects: number;
    /** Run pairs compared: each of ours against Go's first, and Go's later runs against its first. */
    readonly pairs: number;
    /** The most objects that differed in one pair. */
    readonly differingObjects: number;
    readonly examples: readonly string[];
  };
  /** Peak RSS above the fixed cost (idle runs), per Foo, in KiB. */
  readonly perFooKiB?: { readonly go: number; readonly ours: number };
}

/** The fixed cost of each controller process (medians of the idle runs). */
export interface FixedCost {
  readonly runs: number;
  readonly peakRssMiB: number;
  readonly rssMiB: number;
}

export function summarizeIdle(idle: readonly IdleRun[]): Partial<Record<Implementation, FixedCost>> {
  const out: Partial<Record<Implementation, FixedCost>> = {};
  for (const impl of ['go', 'ours'] as const) {
    const runs = idle.filter((r) => r.implementation === impl);
    if (runs.length) {
      out[impl] = {
        runs: runs.length,
        peakRssMiB: median(runs.map((r) => r.atIdle.peakRssMiB)),
        rssMiB: median(runs.map((r) => r.atIdle.rssMiB)),
      };
    }
  }
  return out;
}

export interface Medians {
  readonly runs: number;
  readonly convergeSeconds: number;
  readonly peakRssMiB: number;
  /** CPU seconds until convergence. */
  readonly cpuSeconds: number;
  /** kube-apiserver's CPU seconds from the controller's start until convergence. */
  readonly apiserverCpuSeconds: number;
  /** From the controller's start until its first request reached the apiserver (process start-up, bundle load included). */
  readonly firstRequestSeconds: number;
  /** From the controller's start until its first write reached the apiserver. */
  readonly firstWriteSeconds: number;
  /** etcd's CPU seconds until convergence. */
  readonly etcdCpuSeconds: number;
  /** The bench driver's CPU seconds until convergence (the same work for both controllers). */
  readonly driverCpuSeconds: number;
  readonly requestsPerFoo: number;
  readonly writesPerFoo: number;
  readonly steadyStateWrites: number;
  readonly steadyStateWatches: number;
}

function endStateDiff(runs: readonly ControllerRun[]): SizeSummary['endStateDiff'] {
  const go = runs.filter((r) => r.implementation === 'go');
  const reference = go.length ? END_STATES.get(go[0]) : undefined;
  if (!reference) return { objects: 0, pairs: 0, differingObjects: 0, examples: [] };
  let pairs = 0;
  let differing = 0;
  const examples: string[] = [];
  for (const r of runs) {
    const state = END_STATES.get(r);
    if (r === go[0] || !state) continue;
    const diff = endStateDifferences(reference, state);
    pairs++;
    differing = Math.max(differing, diff.length);
    examples.push(...diff.slice(0, 5 - examples.length).map((d) => `${r.implementation} run ${r.run}: ${d}`));
  }
  return { objects: reference.size, pairs, differingObjects: differing, examples };
}

export function summarize(
  runs: readonly ControllerRun[],
  fixed: Partial<Record<Implementation, FixedCost>> = {},
): SizeSummary[] {
  const sizes = [...new Set(runs.map((r) => r.foos))];
  return sizes.map((foos) => {
    const of = (impl: Implementation) => medians(runs.filter((r) => r.foos === foos && r.implementation === impl));
    const go = of('go');
    const ours = of('ours');
    const ratio = (a: number, b: number) => (b ? round(a / b) : NaN);
    const diff = endStateDiff(runs.filter((r) => r.foos === foos));
    const perFoo = (m: Medians, f?: FixedCost) => (f ? round(((m.peakRssMiB - f.peakRssMiB) * 1024) / foos) : NaN);
    return {
      foos,
      go,
      ours,
      ratios: {
        convergeSeconds: ratio(ours.convergeSeconds, go.convergeSeconds),
        peakRssMiB: ratio(ours.peakRssMiB, go.peakRssMiB),
        cpuSeconds: ratio(ours.cpuSeconds, go.cpuSeconds),
        requestsPerFoo: ratio(ours.requestsPerFoo, go.requestsPerFoo),
      },
      endStatesEqual:
        runs.filter((r) => r.foos === foos).every((r) => r.endStateProblems.length === 0) &&
        diff.pairs > 0 &&
        diff.differingObjects === 0,
      endStateDiff: diff,
      perFooKiB: fixed.go && fixed.ours ? { go: perFoo(go, fixed.go), ours: perFoo(ours, fixed.ours) } : undefined,
    };
  });
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? round(s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
}

function medians(runs: readonly ControllerRun[]): Medians {
  const windowed = runs.filter((r) => r.steadyState.windowSeconds > 0);
  const med = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length ? round(s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : NaN;
  };
  return {
    runs: runs.length,
    convergeSeconds: med(runs.map((r) => r.convergeSeconds)),
    peakRssMiB: med(runs.map((r) => r.atEnd.peakRssMiB)),
    cpuSeconds: med(runs.map((r) => r.atConvergence.cpuSeconds)),
    apiserverCpuSeconds: med(runs.map((r) => r.apiserverCpuSeconds ?? NaN).filter(Number.isFinite)),
    firstRequestSeconds: med(runs.map((r) => r.firstRequestSeconds ?? NaN).filter(Number.isFinite)),
    firstWriteSeconds: med(runs.map((r) => r.firstWriteSeconds ?? NaN).filter(Number.isFinite)),
    etcdCpuSeconds: med(runs.map((r) => r.etcdCpuSeconds ?? NaN).filter(Number.isFinite)),
    driverCpuSeconds: med(runs.map((r) => r.driverCpuSeconds ?? NaN).filter(Number.isFinite)),
    requestsPerFoo: med(runs.map((r) => r.requestsPerFoo)),
    writesPerFoo: med(runs.map((r) => r.writesPerFoo)),
    steadyStateWrites: med(windowed.map((r) => r.steadyState.writes)),
    steadyStateWatches: med(windowed.map((r) => r.steadyState.watches)),
  };
}

/** Runs every N, `runs(N)` times each, Go and ours alternating (who goes first alternates too). */
export async function runIdleSeries(
  count: number,
  opts: SideBySideOptions,
  onRun: (r: IdleRun) => void,
): Promise<IdleRun[]> {
  const out: IdleRun[] = [];
  for (let run = 1; run <= count; run++) {
    const order: Implementation[] = run % 2 ? ['go', 'ours'] : ['ours', 'go'];
    for (const impl of order.filter((i) => opts.implementations?.includes(i) ?? true)) {
      const r = await runIdle(impl, run, opts);
      out.push(r);
      onRun(r);
    }
  }
  return out;
}

export async function runSideBySide(
  sizes: readonly number[],
  runs: (n: number) => number,
  opts: SideBySideOptions,
  onRun: (r: ControllerRun) => void,
): Promise<ControllerRun[]> {
  const out: ControllerRun[] = [];
  for (const n of sizes) {
    for (let run = 1; run <= runs(n); run++) {
      const order: Implementation[] = run % 2 ? ['go', 'ours'] : ['ours', 'go'];
      for (const impl of order.filter((i) => opts.implementations?.includes(i) ?? true)) {
        const r = await runController(impl, n, run, opts);
        out.push(r);
        onRun(r);
      }
    }
  }
  return out;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
