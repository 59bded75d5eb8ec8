// `npm run bench`: synth and controller benchmarks; prints tables and writes results.json and
// chart.svg to bench/results/<timestamp>/. Options: --quick (small sizes), --runs=N, --heap-snapshot
// (a V8 heap snapshot of the controller at the largest N, in the results folder). The controller
// benchmark runs against the in-process fake apiserver, or against the cluster of KUBECONFIG when it
// is set (Foos in a fresh namespace; the driver marks Deployments available unless
// --no-simulate-availability, for clusters whose kubelets run the pods).
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { clusterTarget, fakeTarget } from './bench-targets';
import { bundleFooController, ControllerResult, runControllerBench } from './controller-bench';
import { renderSvg } from './svg-chart';
import { median, runSynthBench, SynthResult, timeNode, TimedRun } from './synth-bench';

const quick = process.argv.includes('--quick');
const heapSnapshot = process.argv.includes('--heap-snapshot');
const onCluster = Boolean(process.env.KUBECONFIG);
const simulateAvailability = !process.argv.includes('--no-simulate-availability');
const runs = Number(/--runs=(\d+)/.exec(process.argv.join(' '))?.[1] ?? (quick ? 1 : 3));
const SYNTH_SIZES: Array<[number, number]> = quick ? [[10, 100], [40, 400]] : [[10, 100], [50, 500], [100, 1000], [200, 2000]];
const FOO_COUNTS = quick ? [100] : [100, 1000, 5000];

async function main() {
  const synth: SynthResult[] = [];
  for (const [n, m] of SYNTH_SIZES) {
    const r = runSynthBench(n, m, runs);
    synth.push(r);
    console.error(`synth N=${n} M=${m}: ours ${r.ours.wallSeconds}s / baseline ${r.baseline.wallSeconds}s = ${r.wallRatio}x`);
  }
  const apps: TimedRun[] = [];
  const appsOut = fs.mkdtempSync(path.join(os.tmpdir(), 'apps-bench-'));
  for (let i = 0; i < runs; i++) apps.push(timeNode(['--import', 'tsx', 'apps/main.ts'], { CDK8S_OUTDIR: path.join(appsOut, 'dist'), CDK8S_OPERATOR_QUIET: '1' }));
  fs.rmSync(appsOut, { recursive: true, force: true });
  const demoApps = median(apps);

  const dir = path.join(__dirname, 'results', new Date().toISOString().replace(/[:.]/g, '-'));
  fs.mkdirSync(dir, { recursive: true });
  const bundle = path.join(os.tmpdir(), `foo-controller-${process.pid}.js`);
  await bundleFooController(bundle);
  const controller: ControllerResult[] = [];
  for (const n of FOO_COUNTS) {
    const last = n === FOO_COUNTS[FOO_COUNTS.length - 1];
    const target = onCluster ? await clusterTarget({ simulateAvailability }) : await fakeTarget(n);
    const r = await runControllerBench(target, n, { bundle, steadySeconds: quick ? 10 : 40, timeoutSeconds: 600, heapSnapshotDir: heapSnapshot && last ? dir : undefined });
    controller.push(r);
    console.error(`controller N=${n}: converged in ${r.convergeSeconds}s, ${r.writesPerFoo} writes/Foo, ${r.steadyStateWrites} steady-state writes`);
  }

  const results = { date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, quick, runs, synth, demoApps, controller };
  fs.writeFileSync(path.join(dir, 'results.json'), JSON.stringify(results, null, 2) + '\n');
  fs.writeFileSync(path.join(dir, 'chart.svg'), renderSvg([
    { title: 'Synth wall time (process start included)', xLabel: 'example CRs (CRDs = examples / 10)', yLabel: 'seconds', series: [
      { name: 'cdk8s-operator (validated)', points: synth.map(s => [s.examples, s.ours.wallSeconds] as const) },
      { name: 'plain ApiObject baseline', points: synth.map(s => [s.examples, s.baseline.wallSeconds] as const) },
    ] },
    { title: 'Synth peak RSS', xLabel: 'example CRs', yLabel: 'MiB', series: [
      { name: 'cdk8s-operator', points: synth.map(s => [s.examples, s.ours.peakRssMiB] as const) },
      { name: 'baseline', points: synth.map(s => [s.examples, s.baseline.peakRssMiB] as const) },
    ] },
    { title: 'Foo convergence time', xLabel: 'Foos', yLabel: 'seconds', series: [{ name: 'Foo controller', points: controller.map(c => [c.foos, c.convergeSeconds] as const) }] },
    { title: 'Foo controller memory', xLabel: 'Foos', yLabel: 'MiB', series: [
      { name: 'peak RSS', points: controller.map(c => [c.foos, c.controllerPeakRssMiB] as const) },
      { name: 'heap used', points: controller.map(c => [c.foos, c.controllerHeapMiB ?? 0] as const) },
    ] },
  ]));

  console.log('\nSynth (median of %d; wall time includes process start)', runs);
  console.table(synth.map(s => ({ CRDs: s.crds, examples: s.examples, 'ours s': s.ours.wallSeconds, 'baseline s': s.baseline.wallSeconds, 'time ratio': s.wallRatio, 'ours MiB': s.ours.peakRssMiB, 'baseline MiB': s.baseline.peakRssMiB, 'RSS ratio': s.rssRatio })));
  console.log(`Demo apps (apps/main.ts: SampleDB + Foo): ${demoApps.wallSeconds}s, ${demoApps.peakRssMiB} MiB peak RSS`);
  console.log(`\nController (Foo workload, ${controller[0]?.target ?? 'no target'})`);
  console.table(controller.map(c => ({ Foos: c.foos, 'converge s': c.convergeSeconds, 'writes/Foo': c.writesPerFoo, 'event writes/Foo': c.eventWritesPerFoo ?? '-', 'steady writes': c.steadyStateWrites, 'RSS MiB': c.controllerRssMiB, 'peak RSS MiB': c.controllerPeakRssMiB, 'heap MiB': c.controllerHeapMiB ?? '-', 'requests/Foo': JSON.stringify(c.requestsPerFooByResource ?? c.requestsPerFoo) })));
  console.log(`\nresults: ${path.relative(process.cwd(), dir)}/results.json and chart.svg`);
}

void main().catch(e => { console.error(e); process.exit(1); });
