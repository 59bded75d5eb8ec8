/**
 * How long `ControlPlane.start()` takes with and without kube-controller-manager (the start of every real-apiserver
 * test file). Usage: `npx tsx bench/envtest-start.ts [--runs=5] [--out=bench/latest/envtest-start.json]`; needs
 * KUBEBUILDER_ASSETS. Runs each configuration alternately, reports median and range, and the 1-minute load average.
 */
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ControlPlane, ControlPlaneOptions } from '../runtime/envtest';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const runs = Number(arg('runs') ?? 5);
const out = arg('out');

const configs: Record<string, ControlPlaneOptions> = {
  'no controller manager': { controllerManager: false },
  'default': {},
  'all default controllers (true)': { controllerManager: true },
};

async function main() {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(configs).map((k) => [k, []]));
  const loads: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [name, opts] of Object.entries(configs)) {
      loads.push(loadavg()[0]);
      const t0 = performance.now();
      const plane = await ControlPlane.start(opts);
      times[name].push(performance.now() - t0);
      await plane.stop();
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const result = {
    date: new Date().toISOString(),
    kubeApiServer: process.env.KUBEBUILDER_ASSETS,
    runs,
    load1: { min: Math.min(...loads), max: Math.max(...loads) },
    startMs: Object.fromEntries(Object.entries(times).map(([k, xs]) => [k, { median: Math.round(median(xs)), min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)) }])),
  };
  console.log(JSON.stringify(result, null, 2));
  if (out) writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
}
main().catch((e) => { console.error(e); process.exit(1); });
