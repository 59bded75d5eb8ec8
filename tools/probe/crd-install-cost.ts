/**
 * What the differential corpus (test/apiserver/cr-differential.test.ts) costs the kube-apiserver of one version, in
 * its two parts, each as the test runs it: installing the 201 real-world CRDs (each create, then the apiserver's own
 * status updates, schema checks and OpenAPI) and creating the generated custom resources (dry run). The apiserver's
 * and etcd's CPU-seconds are read from /proc when the installs end and when the cases end; each Go GODEBUG value
 * given is run in turn, on a fresh plane each (GOGC as the environment sets it; the test task sets 400). Run on a
 * quiet machine, with REALWORLD_CORPUS_DIR set, and transparent huge pages as CI's (`always`).
 *
 *   npx tsx tools/probe/crd-install-cost.ts [--runs=2] [--godebug=,madvdontneed=0] [--out=FILE]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProcess, procStats } from '../../bench/proc-stats';
import { ControlPlane } from '../../runtime/envtest';
import { loadCorpusCrds } from '../../test/support/differential/corpus';
import { compareCorpus, installCorpus } from '../../test/support/differential/run';

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

async function once(godebug: string): Promise<string> {
  const previous = process.env.GODEBUG;
  process.env.GODEBUG = godebug;
  const plane = await ControlPlane.start({ controllerManager: false });
  process.env.GODEBUG = previous;
  try {
    // the plane's processes: the apiserver's flags name its folder, etcd's data folder is `<folder>/etcd`
    const pids = [findProcess('kube-apiserver', `${plane.dir}/`), findProcess(join(plane.dir, 'etcd'))];
    if (pids.some((pid) => pid === undefined)) throw new Error(`the processes of the plane in ${plane.dir} not found`);
    const cpu = () => pids.map((pid) => procStats(pid!).cpuSeconds);
    const round = (x: number) => Math.round(x * 10) / 10;
    const start = cpu();
    let t = Date.now();
    // the test's two parts, as runDifferential runs them
    const { installed } = await installCorpus(plane, loadCorpusCrds());
    const afterInstall = cpu();
    const installSeconds = (Date.now() - t) / 1000;
    t = Date.now();
    const result = await compareCorpus(plane, '1.32', installed, { seed: 1, perCrd: 1 });
    const end = cpu();
    return JSON.stringify({
      godebug,
      crds: installed.length,
      resources: result.cases,
      agree: result.agree,
      install: {
        seconds: round(installSeconds),
        apiserverCpuS: round(afterInstall[0] - start[0]),
        etcdCpuS: round(afterInstall[1] - start[1]),
      },
      created: {
        seconds: round((Date.now() - t) / 1000),
        apiserverCpuS: round(end[0] - afterInstall[0]),
        etcdCpuS: round(end[1] - afterInstall[1]),
      },
    });
  } finally {
    await plane.stop();
  }
}

/** The kernel's transparent huge page setting (`.ci/run` sets `always` for its run). */
function thp(): string {
  try {
    return /\[(\w+)\]/.exec(readFileSync('/sys/kernel/mm/transparent_hugepage/enabled', 'utf8'))?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const runs = Number(option('runs') ?? 2);
  const variants = (option('godebug') ?? '').split(',');
  const lines = [
    `# ${process.argv.slice(1).join(' ')} (GOGC=${process.env.GOGC ?? 'unset'}, transparent huge pages ${thp()}), ${new Date().toISOString()}`,
  ];
  for (let i = 0; i < runs; i++) for (const v of variants) lines.push(await once(v));
  const text = lines.join('\n') + '\n';
  const out = option('out');
  if (out) writeFileSync(out, text);
  process.stdout.write(text);
}

void main().catch((err) => {
  console.error(err);
  process.exit(1);
});
