/**
 * How long `ControlPlane.start()` takes (the start of every real-apiserver test file) and the CPU-seconds its processes
 * use from start to stop, with and without kube-controller-manager, fresh and from an etcd template (`templateDir`:
 * the run's first two starts make it, untimed), and optionally against an older checkout of the code
 * (`--before=<dir>`, e.g. from `git archive <commit> runtime lib vendor package.json tsconfig.json | tar -x -C <dir>`
 * with node_modules linked), in the same window so the machine's load is shared. Usage:
 * `npx tsx bench/envtest-start.ts [--runs=5] [--before=<dir> --before-label=<commit>] [--out=bench/latest/envtest-start.json]`; needs
 * KUBEBUILDER_ASSETS. Configurations run alternately; reports median and range, and the 1-minute load average.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { ControlPlane, ControlPlaneOptions } from '../runtime/envtest';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const runs = Number(arg('runs') ?? 5);
const out = arg('out');
const before = arg('before');

type Start = (opts: ControlPlaneOptions) => Promise<{ stop(): Promise<void> }>;
const after: Start = (opts) => ControlPlane.start(opts);
delete process.env.ENVTEST_TEMPLATE_DIR; // the fresh configurations bootstrap their own etcd
const templateDir = mkdtempSync('/dev/shm/envtest-start-templates-');
const configs: Record<string, { start: Start; opts: ControlPlaneOptions }> = {
  'no controller manager': { start: after, opts: { controllerManager: false } },
  'no controller manager, from a template': { start: after, opts: { controllerManager: false, templateDir } },
  'default (CLUSTER_CONTROLLERS)': { start: after, opts: {} },
  'default, from a template': { start: after, opts: { templateDir } },
  'controllerManager: true': { start: after, opts: { controllerManager: true } },
};

/** CPU-seconds of this process's children that have exited and been waited for (a stopped plane's processes). */
function childrenCpuS(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) / 100; // cutime, cstime in clock ticks (USER_HZ is 100 on Linux)
}
if (before) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const old = require(join(resolve(before), 'runtime/envtest')).ControlPlane as { start: Start };
  configs['before: default (no controller manager)'] = { start: (o) => old.start(o), opts: {} };
  configs['before: controllerManager: true'] = { start: (o) => old.start(o), opts: { controllerManager: true } };
  // the older code with a template of its own (an older one may save less in it, e.g. not the keys)
  configs['before: default, from a template'] = {
    start: (o) => old.start(o),
    opts: { templateDir: mkdtempSync('/dev/shm/envtest-start-templates-before-') },
  };
}

async function main() {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  const loads: number[] = [];
  // untimed: the first start of a configuration notes it, the second makes its template
  for (const { start, opts } of Object.values(configs).filter((c) => c.opts.templateDir)) {
    for (let i = 0; i < 2; i++) await (await start(opts)).stop();
  }
  for (let i = 0; i < runs; i++) {
    for (const [name, { start, opts }] of Object.entries(configs)) {
      loads.push(loadavg()[0]);
      const cpu0 = childrenCpuS();
      const t0 = performance.now();
      const plane = await start(opts);
      times[name].push(performance.now() - t0);
      await plane.stop();
      cpu[name].push(childrenCpuS() - cpu0);
    }
  }
  for (const { opts } of Object.values(configs)) {
    if (opts.templateDir) rmSync(opts.templateDir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = {
    date: new Date().toISOString(),
    kubeApiServer: process.env.KUBEBUILDER_ASSETS,
    before: before ? (arg('before-label') ?? before) : undefined,
    runs,
    load1: { min: Math.min(...loads), max: Math.max(...loads) },
    startMs: Object.fromEntries(
      Object.entries(times).map(([k, xs]) => [
        k,
        { median: Math.round(median(xs)), min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)) },
      ]),
    ),
    // etcd, kube-apiserver and kube-controller-manager from start to stop (the stop itself included)
    cpuS: Object.fromEntries(
      Object.entries(cpu).map(([k, xs]) => [
        k,
        { median: +median(xs).toFixed(2), min: +Math.min(...xs).toFixed(2), max: +Math.max(...xs).toFixed(2) },
      ]),
    ),
  };
  console.log(JSON.stringify(result, null, 2));
  if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
