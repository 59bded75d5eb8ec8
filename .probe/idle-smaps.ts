import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as yaml from 'yaml';
import { startBenchControlPlane } from '../bench/real-control-plane';
import { buildMemberBundle, memberArgs } from '../bench/sharded-bench';
import { imageRuntime } from '../bench/side-by-side';
const ROOT = path.join(__dirname, '..');
function smaps(pid: number) {
  const text = fs.readFileSync(`/proc/${pid}/smaps`, 'utf8');
  const rows: { name: string; perms: string; rss: number; anon: number; size: number }[] = [];
  let cur: any;
  for (const line of text.split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) { cur = { name: m[4] || '[anon]', perms: m[3], rss: 0, anon: 0, size: (parseInt(m[2], 16) - parseInt(m[1], 16)) / 1024 }; rows.push(cur); continue; }
    const r = /^Rss:\s+(\d+)/.exec(line); if (r) cur.rss = +r[1];
    const a = /^Anonymous:\s+(\d+)/.exec(line); if (a) cur.anon = +a[1];
  }
  const by = new Map<string, { rss: number; anon: number; size: number }>();
  for (const r of rows) { const k = `${r.name} ${r.perms}`; const e = by.get(k) ?? { rss: 0, anon: 0, size: 0 }; e.rss += r.rss; e.anon += r.anon; e.size += r.size; by.set(k, e); }
  return [...by].filter(([, e]) => e.rss > 256).sort((a, b) => b[1].rss - a[1].rss).map(([k, e]) => `${(e.rss / 1024).toFixed(1).padStart(7)} MiB rss ${(e.anon / 1024).toFixed(1).padStart(6)} anon ${(e.size / 1024).toFixed(0).padStart(6)} MiB size  ${k}`);
}
async function main() {
  const sharded = process.argv[2] === 'member';
  const bundle = await buildMemberBundle();
  console.log('bundle bytes', fs.statSync(bundle).size);
  const crd = yaml.parse(fs.readFileSync(path.join(ROOT, 'controllers/foo/crd.yaml'), 'utf8'));
  const control = await startBenchControlPlane([crd], {});
  const image = imageRuntime();
  const env: NodeJS.ProcessEnv = { ...process.env, ...image.env, KUBECONFIG: control.controllerKubeconfig };
  delete env.NODE_OPTIONS;
  const extra = (process.env.EXTRA ?? '').split(' ').filter(Boolean);
  const args = [...image.nodeFlags, ...extra, bundle, ...memberArgs(sharded ? { assignment: 'server', key: 'uid' } : undefined)];
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  await new Promise((r) => setTimeout(r, 20000));
  const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8').split('\n').filter((l) => /Vm(HWM|RSS)|Rss/.test(l));
  console.log(status.join('\n'));
  console.log(smaps(child.pid!).slice(0, 6).join('\n'));
  console.log(require('child_process').execFileSync('python3', ['.probe/syms.py', String(child.pid), '.rodata', '30'], { encoding: 'utf8' }));
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await control.close();
  fs.rmSync(bundle);
}
main().catch((e) => { console.error(e); process.exit(1); });
