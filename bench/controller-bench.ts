// Controller benchmark: N Foos (kubernetes/sample-controller's workload) reconciled by the Foo
// controller bundle running as its own process against a BenchTarget (the fake apiserver, or a real
// cluster). Reports convergence time, API requests per Foo, writes in a steady-state window, and the
// controller's RSS and heap. Request counts come from the controller's own rest_client_requests_total
// (any target); the fake's request log adds the per-resource breakdown (events apart from objects).
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { BenchTarget } from './bench-targets';

const ROOT = path.join(__dirname, '..');
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);
const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface ControllerResult {
  readonly target: string;
  readonly foos: number;
  readonly convergeSeconds: number;
  /** HTTP requests per Foo by method, from the controller's metrics. */
  readonly requestsPerFoo: Record<string, number>;
  /** Requests per Foo by verb and resource (fake apiserver only). */
  readonly requestsPerFooByResource?: Record<string, number>;
  /** Writes of Foos and Deployments per Foo (fake only: what the upstream target counts), else all writes incl. events. */
  readonly writesPerFoo: number;
  /** Event creates/patches per Foo (the `Synced` event; fake only). */
  readonly eventWritesPerFoo?: number;
  readonly steadyStateWindowSeconds: number;
  readonly steadyStateWrites: number;
  readonly controllerRssMiB: number;
  readonly controllerPeakRssMiB: number;
  readonly controllerHeapMiB?: number;
}

/**
 * Builds the controller's single-file bundle (what its Dockerfile ships) from its main, which runs sharded, with the
 * contract its flags need, when given `--sharding-ring` (controllers/foo/main.ts `fooBinary`).
 */
export async function bundleFooController(outfile: string): Promise<void> {
  const entry = path.join(ROOT, 'controllers/foo/main.ts');
  const esbuild = await import('esbuild');
  // The same options as controllers/foo's `npm run bundle`.
  await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: 'node20',
    minify: true,
    keepNames: true,
    sourcemap: true,
    outfile,
    logLevel: 'error',
  });
}

export interface ControllerBenchOptions {
  readonly bundle: string;
  readonly steadySeconds: number;
  readonly timeoutSeconds: number;
  /** Write a V8 heap snapshot of the controller at the end of the steady-state window into this folder. */
  readonly heapSnapshotDir?: string;
  /** Write a V8 CPU profile of the controller (written when it exits) into this folder. */
  readonly cpuProfileDir?: string;
}

export async function runControllerBench(
  target: BenchTarget,
  n: number,
  opts: ControllerBenchOptions,
): Promise<ControllerResult> {
  const metricsPort = 18080 + Math.floor(Math.random() * 1000);
  const metrics = () => scrape(metricsPort);
  let controller: ChildProcess | undefined;
  try {
    const profiling = [
      ...(opts.heapSnapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${opts.heapSnapshotDir}`] : []),
      ...(opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`] : []),
    ];
    controller = spawn(
      process.execPath,
      [
        ...profiling,
        opts.bundle,
        `--metrics-bind-address=127.0.0.1:${metricsPort}`,
        '--health-probe-bind-address=0',
        '--concurrency=2',
      ],
      {
        env: { ...process.env, KUBECONFIG: target.kubeconfig, WATCH_NAMESPACE: target.namespace, LOG_LEVEL: 'error' },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    await target.createFoos(n);
    const start = Date.now();
    const deadline = start + opts.timeoutSeconds * 1000;
    for (let done = 0; done < n; done = await target.step(n)) {
      if (Date.now() > deadline) throw new Error(`only ${done}/${n} Foos converged before the timeout`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const convergeSeconds = (Date.now() - start) / 1000;
    // Events are recorded after the status write that marks convergence: let that tail settle first.
    const atConvergence = await settled(metrics);
    const logged = target.requests?.length;

    await new Promise((r) => setTimeout(r, opts.steadySeconds * 1000));
    const afterWindow = await metrics();
    const steadyStateWrites = writesOf(afterWindow.requests) - writesOf(atConvergence.requests);

    const mem = memoryOf(controller.pid!);
    if (opts.heapSnapshotDir) await heapSnapshot(controller, opts.heapSnapshotDir);
    const perFoo = (counts: Record<string, number>) =>
      Object.fromEntries(
        Object.entries(counts)
          .sort()
          .map(([k, v]) => [k, round(v / n)]),
      );
    const byResource =
      target.requests && logged !== undefined ? countByResource(target.requests.slice(0, logged)) : undefined;
    const eventWrites =
      byResource && sumWhere(byResource, (k) => k.endsWith(' events') && WRITE_VERBS.has(k.split(' ')[0]));
    const objectWrites =
      byResource && sumWhere(byResource, (k) => !k.endsWith(' events') && WRITE_VERBS.has(k.split(' ')[0]));
    return {
      target: target.label,
      foos: n,
      convergeSeconds: round(convergeSeconds),
      requestsPerFoo: perFoo(atConvergence.requests),
      requestsPerFooByResource: byResource && perFoo(byResource),
      writesPerFoo: round((objectWrites ?? writesOf(atConvergence.requests)) / n),
      eventWritesPerFoo: eventWrites === undefined ? undefined : round(eventWrites / n),
      steadyStateWindowSeconds: opts.steadySeconds,
      steadyStateWrites,
      controllerRssMiB: mem.rss,
      controllerPeakRssMiB: mem.peak,
      controllerHeapMiB: afterWindow.heapMiB,
    };
  } finally {
    if (controller && controller.exitCode === null) {
      const exited = new Promise((resolve) => controller!.once('exit', resolve));
      controller.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 35_000))]);
    }
    await target.close();
  }
}

interface Scrape {
  /** rest_client_requests_total by HTTP method. */
  readonly requests: Record<string, number>;
  readonly heapMiB?: number;
}

async function scrape(port: number): Promise<Scrape> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const requests: Record<string, number> = {};
  for (const m of text.matchAll(/^rest_client_requests_total\{([^}]*)\}\s+([0-9.e+]+)$/gm)) {
    const method = /method="([A-Z]+)"/.exec(m[1])?.[1] ?? '?';
    requests[method] = (requests[method] ?? 0) + Number(m[2]);
  }
  const heap = /^nodejs_heap_size_used_bytes\s+([0-9.e+]+)/m.exec(text);
  return { requests, heapMiB: heap ? round(Number(heap[1]) / 1024 / 1024) : undefined };
}

function writesOf(byMethod: Record<string, number>): number {
  return sumWhere(byMethod, (m) => WRITE_METHODS.has(m));
}

function sumWhere(counts: Record<string, number>, keep: (key: string) => boolean): number {
  return Object.entries(counts)
    .filter(([k]) => keep(k))
    .reduce((sum, [, v]) => sum + v, 0);
}

function countByResource(
  requests: ReadonlyArray<{ verb: string; resource: string; subresource?: string }>,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of requests) {
    const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** Waits until the controller has made no request for 2 s (by its own metrics). */
async function settled(metrics: () => Promise<Scrape>): Promise<Scrape> {
  const total = (s: Scrape) => sumWhere(s.requests, () => true);
  for (let previous = await metrics(); ;) {
    await new Promise((r) => setTimeout(r, 2000));
    const now = await metrics();
    if (total(now) === total(previous)) return now;
    previous = now;
  }
}

async function heapSnapshot(child: ChildProcess, dir: string): Promise<void> {
  const before = new Set(fs.readdirSync(dir));
  child.kill('SIGUSR2');
  for (let i = 0; i < 120; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const written = fs.readdirSync(dir).filter((f) => !before.has(f) && f.endsWith('.heapsnapshot'));
    // The file is complete once its size stops changing.
    if (written.length && fs.statSync(path.join(dir, written[0])).size > 0) {
      const size = fs.statSync(path.join(dir, written[0])).size;
      await new Promise((r) => setTimeout(r, 1000));
      if (fs.statSync(path.join(dir, written[0])).size === size) return;
    }
  }
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: round(kb('VmRSS') / 1024), peak: round(kb('VmHWM') / 1024) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
