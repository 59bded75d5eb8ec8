// `npm run bench:sharded`: the Foo controller sharded across M members (processes of its bundle, each run as its
// image runs it, `--sharding-ring=foo`) on a fresh real kube-apiserver per run, the Foos created beforehand (as
// side-by-side.ts). Per run: time until every Foo converged (from the members' start), each member's peak RSS and
// CPU seconds (/proc), all members' requests as the apiserver audited them (ring Lease renewals included), the end
// state checked object by object, and the load average.
//
//   npx tsx bench/sharded-bench.ts --sizes=10000,50000 --members=0,1,2,4   (0 = unsharded, the baseline) [--timeout-seconds=1800] [--out=bench/latest/sharded-results.json]
import { ChildProcess, execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as yaml from 'yaml';
import { createFoos, FooWorld } from './foo-world';
import { PlainKube } from './plain-kube';
import { procStats, ProcStats } from './proc-stats';
import { countRequests, readAudit, startBenchControlPlane, WRITE_VERBS } from './real-control-plane';
import { imageRuntime } from './side-by-side';

const ROOT = path.join(__dirname, '..');
const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

export interface ShardedRun {
  readonly foos: number;
  /** 0 = the unsharded controller (one process, no ring). */
  readonly members: number;
  /** How members got their share (runtime `ManagerShardingOptions.assignment`; results without it: 'hash'). */
  readonly assignment?: 'labels' | 'hash';
  /** The commit the members were built from (`git rev-parse --short HEAD`, `+dirty` with uncommitted changes). */
  readonly revision?: string;
  readonly convergeSeconds: number;
  readonly endStateProblems: readonly string[];
  /** Each member at convergence (peak RSS = VmHWM, CPU = user + system seconds since its start). */
  readonly perMember: readonly ProcStats[];
  readonly maxPeakRssMiB: number;
  readonly totalCpuSeconds: number;
  readonly requests: Record<string, number>;
  readonly requestsPerFoo: number;
  readonly writesPerFoo: number;
  readonly loadavg: { readonly start: readonly number[]; readonly end: readonly number[] };
}

async function runSharded(bundle: string, n: number, members: number, timeoutSeconds: number): Promise<ShardedRun> {
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const loadStart = os.loadavg().map(round);
  const plane = await startBenchControlPlane([crd]);
  const client = new PlainKube({ url: plane.plane.url, token: plane.plane.admin.token, ca: plane.plane.ca });
  const children: ChildProcess[] = [];
  let world: FooWorld | undefined;
  try {
    await createFoos(client, n);
    world = new FooWorld(client, n);
    await world.start();
    const image = imageRuntime();
    const env: NodeJS.ProcessEnv = { ...process.env, ...image.env, KUBECONFIG: plane.controllerKubeconfig };
    delete env.WATCH_NAMESPACE;
    delete env.NODE_OPTIONS;
    const started = Date.now();
    // members = 0: the unsharded controller (one process, no ring), the baseline.
    for (let i = 0; i < Math.max(1, members); i++) {
      const sharding = members > 0 ? ['--sharding-ring=foo', '--leader-election-namespace=default'] : [];
      const args = [
        ...image.nodeFlags,
        bundle,
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
        ...sharding,
      ];
      children.push(spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] }));
    }
    const exited = children.map(
      (c, i) =>
        new Promise<never>((_, reject) =>
          c.once('exit', (code, signal) => reject(new Error(`member ${i} exited (${code ?? signal})`))),
        ),
    );
    const { convergedAtMs } = await Promise.race([world.waitConverged(started + timeoutSeconds * 1000), ...exited]);
    const perMember = children.map((c) => procStats(c.pid!));
    const endStateProblems = await world.verify();
    for (const c of children) await stop(c);
    const audited = readAudit(plane.auditLog).filter((r) => r.receivedMs <= convergedAtMs);
    return {
      foos: n,
      members,
      ...(members > 0 ? { assignment: 'labels' as const } : {}),
      revision: revision(),
      convergeSeconds: round((convergedAtMs - started) / 1000),
      endStateProblems: endStateProblems.slice(0, 20),
      perMember,
      maxPeakRssMiB: Math.max(...perMember.map((m) => m.peakRssMiB)),
      totalCpuSeconds: round(perMember.reduce((s, m) => s + m.cpuSeconds, 0)),
      requests: countRequests(audited),
      requestsPerFoo: round(audited.length / n),
      writesPerFoo: round(audited.filter((r) => WRITE_VERBS.has(r.verb)).length / n),
      loadavg: { start: loadStart, end: os.loadavg().map(round) },
    };
  } finally {
    for (const c of children) await stop(c);
    await world?.stop();
    client.close();
    await plane.close();
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 35_000);
  await exited;
  clearTimeout(timer);
}

function revision(): string {
  const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' }).trim();
  return (
    git(['rev-parse', '--short', 'HEAD']) +
    (git(['status', '--porcelain', '--untracked-files=no', '--', 'runtime', 'bench']) ? '+dirty' : '')
  );
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

async function main(): Promise<void> {
  const sizes = (option('sizes') ?? '10000').split(',').map(Number);
  const memberCounts = (option('members') ?? '0,1,2,4').split(',').map(Number);
  const timeoutSeconds = Number(option('timeout-seconds') ?? '1800');
  const out = option('out') ?? path.join(ROOT, 'bench/latest/sharded-results.json');
  const bundle = path.join(os.tmpdir(), `foo-controller-sharded-${process.pid}.js`);
  // The same options as controllers/foo's `npm run bundle`, from the entry whose contract allows sharding.
  const esbuild = await import('esbuild');
  await esbuild.build({
    entryPoints: [path.join(__dirname, 'foo-sharded-main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    minify: true,
    keepNames: true,
    sourcemap: true,
    outfile: bundle,
    logLevel: 'error',
  });
  const runs: ShardedRun[] =
    fs.existsSync(out) && argv.includes('--append') ? JSON.parse(fs.readFileSync(out, 'utf8')).runs : [];
  for (const n of sizes) {
    for (const m of memberCounts) {
      const run = await runSharded(bundle, n, m, timeoutSeconds);
      runs.push(run);
      console.log(
        JSON.stringify({
          foos: n,
          members: m,
          convergeSeconds: run.convergeSeconds,
          maxPeakRssMiB: run.maxPeakRssMiB,
          perMemberPeak: run.perMember.map((p) => p.peakRssMiB),
          perMemberCpu: run.perMember.map((p) => p.cpuSeconds),
          requestsPerFoo: run.requestsPerFoo,
          writesPerFoo: run.writesPerFoo,
          problems: run.endStateProblems.length,
          loadavg: run.loadavg,
        }),
      );
      fs.writeFileSync(
        out,
        JSON.stringify(
          {
            machine: { cpus: os.cpus().length, node: process.version },
            // The machine is shared: the bench and the members it starts run at this niceness (`nice -n 5 …`).
            niceness: os.getPriority(),
            command: `npx tsx bench/sharded-bench.ts ${argv.join(' ')}`,
            runs,
          },
          null,
          2,
        ) + '\n',
      );
    }
  }
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
