// Controller benchmark: N Foos (kubernetes/sample-controller's workload) reconciled by the Foo
// controller bundle running as its own process, against the in-process fake apiserver (the driver
// plays kubelet: it marks each Deployment available) or, with KUBECONFIG set, against a real cluster
// (there kube-controller-manager and kubelets do that). Reports convergence time, API requests per
// Foo by verb, writes in a steady-state window, and the controller's RSS and heap.
import { ChildProcess, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { startFakeApiServer } from '../test/fake-apiserver';

const ROOT = path.join(__dirname, '..');
const FOO_API = 'samplecontroller.k8s.io/v1alpha1';

export interface ControllerResult {
  readonly foos: number;
  readonly convergeSeconds: number;
  readonly requestsPerFoo: Record<string, number>;
  /** Writes of Foos and Deployments (what the upstream target counts). */
  readonly writesPerFoo: number;
  /** Event creates/patches (the `Synced` event), reported apart. */
  readonly eventWritesPerFoo: number;
  readonly steadyStateWindowSeconds: number;
  readonly steadyStateWrites: number;
  readonly controllerRssMiB: number;
  readonly controllerPeakRssMiB: number;
  readonly controllerHeapMiB?: number;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete']);

/** Builds the controller's single-file bundle (what its Dockerfile ships). */
export async function bundleFooController(outfile: string): Promise<void> {
  const esbuild = await import('esbuild');
  // The same options as controllers/foo's `npm run bundle`.
  await esbuild.build({ entryPoints: [path.join(ROOT, 'controllers/foo/main.ts')], bundle: true, platform: 'node', target: 'node20', minify: true, keepNames: true, sourcemap: true, outfile, logLevel: 'error' });
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

export async function runControllerBench(n: number, opts: ControllerBenchOptions): Promise<ControllerResult> {
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const server = await startFakeApiServer({ crds: [crd], bookmarkIntervalMs: 5000, watchCacheWindow: Math.max(1000, n * 4) });
  const kubeconfig = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-')), 'kubeconfig');
  server.writeKubeconfig(kubeconfig);
  const metricsPort = 18080 + Math.floor(Math.random() * 1000);
  let controller: ChildProcess | undefined;
  try {
    const profiling = [
      ...(opts.heapSnapshotDir ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${opts.heapSnapshotDir}`] : []),
      ...(opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`] : []),
    ];
    controller = spawn(process.execPath, [...profiling, opts.bundle, `--metrics-bind-address=127.0.0.1:${metricsPort}`, '--health-probe-bind-address=0', '--concurrency=2'], {
      env: { ...process.env, KUBECONFIG: kubeconfig, LOG_LEVEL: 'error' },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    for (let i = 0; i < n; i++) {
      server.put({ apiVersion: FOO_API, kind: 'Foo', metadata: { name: `foo-${i}`, namespace: 'default' }, spec: { deploymentName: `foo-${i}`, replicas: 1 } });
    }
    const start = Date.now();
    await converge(server, n, start + opts.timeoutSeconds * 1000);
    const convergeSeconds = (Date.now() - start) / 1000;
    // Events are recorded after the status write that marks convergence: let that tail settle first.
    const converged = await settled(server);

    await new Promise(r => setTimeout(r, opts.steadySeconds * 1000));
    const steadyState = server.requests.slice(converged).filter(r => WRITE_VERBS.has(r.verb));
    const steadyStateWrites = steadyState.length;
    if (steadyStateWrites) console.error(`steady-state writes: ${JSON.stringify(steadyState.map(r => `${r.verb} ${r.resource}/${r.name}`))}`);

    const byVerb: Record<string, number> = {};
    for (const r of server.requests.slice(0, converged)) {
      const key = `${r.verb} ${r.resource}${r.subresource ? `/${r.subresource}` : ''}`;
      byVerb[key] = (byVerb[key] ?? 0) + 1;
    }
    const requestsPerFoo = Object.fromEntries(Object.entries(byVerb).sort().map(([k, v]) => [k, round(v / n)]));
    const allWrites = server.requests.slice(0, converged).filter(r => WRITE_VERBS.has(r.verb));
    const eventWrites = allWrites.filter(r => r.resource === 'events').length;
    const writes = allWrites.length - eventWrites;
    const mem = memoryOf(controller.pid!);
    if (opts.heapSnapshotDir) await heapSnapshot(controller, opts.heapSnapshotDir);
    return {
      foos: n,
      convergeSeconds: round(convergeSeconds),
      requestsPerFoo,
      writesPerFoo: round(writes / n),
      eventWritesPerFoo: round(eventWrites / n),
      steadyStateWindowSeconds: opts.steadySeconds,
      steadyStateWrites,
      controllerRssMiB: mem.rss,
      controllerPeakRssMiB: mem.peak,
      controllerHeapMiB: await heapOf(metricsPort),
    };
  } finally {
    if (controller && controller.exitCode === null) {
      const exited = new Promise(resolve => controller!.once('exit', resolve));
      controller.kill('SIGTERM');
      await Promise.race([exited, new Promise(r => setTimeout(r, 35_000))]);
    }
    await server.close();
  }
}

/** Waits until the controller has made no request for 2 s; returns the request count then. */
async function settled(server: Awaited<ReturnType<typeof startFakeApiServer>>): Promise<number> {
  for (let seen = -1; ;) {
    const now = server.requests.length;
    if (now === seen) return now;
    seen = now;
    await new Promise(r => setTimeout(r, 2000));
  }
}

/** Plays kubelet + deployment controller: every new Deployment becomes available; returns when every Foo shows it. */
async function converge(server: Awaited<ReturnType<typeof startFakeApiServer>>, n: number, deadline: number): Promise<void> {
  const marked = new Set<string>();
  let seen = 0;
  for (;;) {
    const requests = server.requests;
    for (; seen < requests.length; seen++) {
      const r = requests[seen];
      if (r.resource !== 'deployments' || !r.name || !WRITE_VERBS.has(r.verb) || r.code >= 300) continue;
      const d = server.get('apps/v1', 'Deployment', r.namespace, r.name);
      if (!d || marked.has(`${r.namespace}/${r.name}`)) continue;
      const replicas = d.spec?.replicas ?? 1;
      server.put({ ...d, status: { observedGeneration: d.metadata.generation, replicas, readyReplicas: replicas, availableReplicas: replicas, updatedReplicas: replicas } });
      marked.add(`${r.namespace}/${r.name}`);
    }
    let done = 0;
    for (let i = 0; i < n; i++) {
      if (server.get(FOO_API, 'Foo', 'default', `foo-${i}`)?.status?.availableReplicas === 1) done++;
    }
    if (done === n) return;
    if (Date.now() > deadline) throw new Error(`only ${done}/${n} Foos converged before the timeout`);
    await new Promise(r => setTimeout(r, 100));
  }
}

async function heapSnapshot(child: ChildProcess, dir: string): Promise<void> {
  const before = new Set(fs.readdirSync(dir));
  child.kill('SIGUSR2');
  for (let i = 0; i < 120; i++) {
    await new Promise(r => setTimeout(r, 500));
    const written = fs.readdirSync(dir).filter(f => !before.has(f) && f.endsWith('.heapsnapshot'));
    // The file is complete once its size stops changing.
    if (written.length && fs.statSync(path.join(dir, written[0])).size > 0) {
      const size = fs.statSync(path.join(dir, written[0])).size;
      await new Promise(r => setTimeout(r, 1000));
      if (fs.statSync(path.join(dir, written[0])).size === size) return;
    }
  }
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: round(kb('VmRSS') / 1024), peak: round(kb('VmHWM') / 1024) };
}

async function heapOf(port: number): Promise<number | undefined> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    const used = /^nodejs_heap_size_used_bytes\s+([0-9.e+]+)/m.exec(text);
    return used ? round(Number(used[1]) / 1024 / 1024) : undefined;
  } catch {
    return undefined;
  }
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}
