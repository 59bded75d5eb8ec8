/**
 * How long `ControlPlane.start()` takes (the start of every real-apiserver test file), with and without
 * kube-controller-manager, and optionally against an older checkout of the code (`--before=<dir>`, e.g. from
 * `git archive <commit> runtime lib vendor package.json tsconfig.json | tar -x -C <dir>` with node_modules linked), in
 * the same window so the machine's load is shared. Usage:
 * `npx tsx bench/envtest-start.ts [--runs=5] [--before=<dir> --before-label=<commit>] [--out=bench/latest/envtest-start.json]`; needs
 * KUBEBUILDER_ASSETS. Configurations run alternately; reports median and range, and the 1-minute load average.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { ControlPlane, ControlPlaneOptions } from '../runtime/envtest';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const runs = Number(arg('runs') ?? 5);
const out = arg('out');
const before = arg('before');

type Start = (opts: ControlPlaneOptions) => Promise<{ stop(): Promise<void> }>;
const after: Start = (opts) => ControlPlane.start(opts);
const configs: Record<string, { start: Start; opts: ControlPlaneOptions }> = {
  'no controller manager': { start: after, opts: { controllerManager: false } },
  'default (CLUSTER_CONTROLLERS)': { start: after, opts: {} },
  'controllerManager: true': { start: after, opts: { controllerManager: true } },
};
if (before) {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const old = require(join(resolve(before), 'runtime/envtest')).ControlPlane as { start: Start };
  configs['before: default (no controller manager)'] = { start: (o) => old.start(o), opts: {} };
  configs['before: controllerManager: true'] = { start: (o) => old.start(o), opts: { controllerManager: true } };
}

async function main() {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  const loads: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [name, { start, opts }] of Object.entries(configs)) {
      loads.push(loadavg()[0]);
      const t0 = performance.now();
      const plane = await start(opts);
      times[name].push(performance.now() - t0);
      await plane.stop();
    }
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
  };
  console.log(JSON.stringify(result, null, 2));
  if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
