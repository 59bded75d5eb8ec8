// Peak RSS (VmHWM) and private memory (RssAnon) of a Node.js process that loads nothing, started the way the Foo image starts its bundle
// (controllers/foo/Dockerfile's node flags and environment): the floor under any Node.js member's fixed cost, which
// the sharded benchmark's memory model (docs/sharding.md) compares with what the 0.35x goal leaves at 50,000 Foos.
//   npx tsx bench/node-idle-rss.ts [--runs=5] [--out=bench/latest/node-idle-rss.json]
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import { procStats, ProcStats } from './proc-stats';
import { imageRuntime } from './side-by-side';

const argv = process.argv.slice(2);
const option = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/** One idle process: started, left 2 s to settle, its VmHWM and RssAnon read, stopped. */
async function idleProcess(nodeFlags: readonly string[], env: NodeJS.ProcessEnv): Promise<ProcStats> {
  const child = spawn(process.execPath, [...nodeFlags, '-e', 'setTimeout(() => {}, 60_000)'], { env, stdio: 'ignore' });
  try {
    await new Promise((r) => setTimeout(r, 2000));
    return procStats(child.pid!);
  } finally {
    child.kill();
  }
}

async function main(): Promise<void> {
  const runs = Number(option('runs') ?? 5);
  const image = imageRuntime();
  const env: NodeJS.ProcessEnv = { ...process.env, ...image.env };
  delete env.NODE_OPTIONS;
  const stats: ProcStats[] = [];
  for (let i = 0; i < runs; i++) stats.push(await idleProcess(image.nodeFlags, env));
  const peaks = stats.map((s) => s.peakRssMiB);
  const sorted = [...peaks].sort((a, b) => a - b);
  const privates = stats.map((s) => s.privateMiB).sort((a, b) => a - b);
  const result = {
    command: `npx tsx bench/node-idle-rss.ts${argv.length ? ` ${argv.join(' ')}` : ''}`,
    machine: { cpus: os.cpus().length, node: process.version },
    nodeFlags: image.nodeFlags,
    peakRssMiB: peaks,
    minPeakRssMiB: sorted[0],
    medianPeakRssMiB: sorted[Math.floor(sorted.length / 2)],
    // RssAnon after 2 s: the rest of the peak is pages of mapped files, most of them the node binary's
    privateMiB: stats.map((s) => s.privateMiB),
    medianPrivateMiB: privates[Math.floor(privates.length / 2)],
  };
  const out = option('out');
  if (out) fs.writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  console.log(JSON.stringify(result));
}

void main();
