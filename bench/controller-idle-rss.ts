// Peak RSS (VmHWM) and private memory (RssAnon) of the Foo controller's process before its first object: the
// members' bundle (sharded-bench.ts), run as the image runs it, against a fresh real kube-apiserver with the Foo CRD
// and no Foos, unsharded and as the only member of a ring. What the sharded benchmark's memory model
// (docs/sharding.md) calls a member's fixed cost, measured instead of extrapolated.
//   npx tsx bench/controller-idle-rss.ts [--runs=3] [--settle-seconds=20] [--out=bench/latest/controller-idle-rss.json]
//     [--kubernetes=1.36 --feature-gates=ShardedListAndWatch=true]   (as sharded-bench.ts; the ring's assignment is `server`)
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { procStats, samplePrivatePeaks } from './proc-stats';
import { BenchControlPlaneOptions, kubernetesAssetsDir, startBenchControlPlane } from './real-control-plane';
import { buildMemberBundle, memberArgs, revision } from './sharded-bench';
import { imageRuntime } from './side-by-side';

const ROOT = path.join(__dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

interface Idle {
  readonly peakRssMiB: number;
  readonly peakPrivateMiB: number;
}

/** One process on its own apiserver: started, left `settleSeconds` (its informers synced, its ring joined), read. */
async function idleController(
  bundle: string,
  sharded: boolean,
  settleSeconds: number,
  plane: BenchControlPlaneOptions,
): Promise<Idle> {
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const control = await startBenchControlPlane([crd], plane);
  const image = imageRuntime();
  const env: NodeJS.ProcessEnv = { ...process.env, ...image.env, KUBECONFIG: control.controllerKubeconfig };
  delete env.WATCH_NAMESPACE;
  delete env.NODE_OPTIONS;
  const args = [...image.nodeFlags, bundle, ...memberArgs(sharded ? { assignment: 'server', key: 'uid' } : undefined)];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const peaks = samplePrivatePeaks([child.pid!]);
    await new Promise((r) => setTimeout(r, settleSeconds * 1000));
    if (child.exitCode !== null) throw new Error(`the controller exited (${child.exitCode})`);
    const [peakPrivateMiB] = peaks.stop();
    return { peakRssMiB: procStats(child.pid!).peakRssMiB, peakPrivateMiB };
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    await control.close();
  }
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const runs = Number(option('runs') ?? 3);
  const settleSeconds = Number(option('settle-seconds') ?? 20);
  const kubernetes = option('kubernetes');
  const gates = option('feature-gates');
  const plane: BenchControlPlaneOptions = {
    assetsDir: kubernetes ? kubernetesAssetsDir(kubernetes) : undefined,
    apiServerFlags: gates ? [`--feature-gates=${gates}`] : [],
  };
  const bundle = await buildMemberBundle();
  const measured: Record<'unsharded' | 'member', Idle[]> = { unsharded: [], member: [] };
  for (let i = 0; i < runs; i++) {
    measured.unsharded.push(await idleController(bundle, false, settleSeconds, plane));
    measured.member.push(await idleController(bundle, true, settleSeconds, plane));
  }
  const summary = (xs: readonly Idle[]) => ({
    peakRssMiB: xs.map((x) => x.peakRssMiB),
    medianPeakRssMiB: median(xs.map((x) => x.peakRssMiB)),
    peakPrivateMiB: xs.map((x) => x.peakPrivateMiB),
    medianPeakPrivateMiB: median(xs.map((x) => x.peakPrivateMiB)),
  });
  const result = {
    command: `npx tsx bench/controller-idle-rss.ts${argv.length ? ` ${argv.join(' ')}` : ''}`,
    machine: { cpus: os.cpus().length, node: process.version },
    revision: revision(),
    nodeFlags: imageRuntime().nodeFlags,
    settleSeconds,
    unsharded: summary(measured.unsharded),
    member: summary(measured.member),
  };
  const out = option('out');
  if (out) fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
