/**
 * What the differential corpus (test/apiserver/cr-differential.test.ts) costs the kube-apiserver of one version, in
 * its two parts: installing the 201 real-world CRDs (each create, then the apiserver's own status updates, schema
 * checks and OpenAPI) and creating the generated custom resources (dry run). The apiserver's and etcd's CPU-seconds
 * are read from /proc when the installs end and when the cases end; each Go GODEBUG value given is run in turn, on a
 * fresh plane each (GOGC as the environment sets it; the test task sets 400). Run on a quiet machine, with
 * REALWORLD_CORPUS_DIR set, and transparent huge pages as CI's (`always`).
 *
 *   npx tsx tools/probe/crd-install-cost.ts [--runs=2] [--godebug=,madvdontneed=0] [--out=FILE]
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { ControlPlane } from '../../runtime/envtest';
import { loadCorpusCrds } from '../../test/support/differential/corpus';
import { installCrds, runDifferential } from '../../test/support/differential/run';

const option = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/** utime + stime, in seconds, of the process of that command whose command line names the plane's folder. */
function cpuSeconds(command: string, planeDir: string): number {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (!cmdline.split('\0')[0].endsWith(`/${command}`) || !cmdline.includes(planeDir)) continue;
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no ${command} of ${planeDir}`);
}

async function once(godebug: string): Promise<string> {
  const previous = process.env.GODEBUG;
  process.env.GODEBUG = godebug;
  const plane = await ControlPlane.start({ controllerManager: false });
  process.env.GODEBUG = previous;
  try {
    const cpu = () => [cpuSeconds('kube-apiserver', plane.dir), cpuSeconds('etcd', plane.dir)];
    const round = (x: number) => Math.round(x * 10) / 10;
    const crds = loadCorpusCrds();
    const start = cpu();
    let t = Date.now();
    // one CRD at a time, each until Established (the test installs two at a time: the same work)
    await installCrds(plane, crds);
    const installed = cpu();
    const installSeconds = (Date.now() - t) / 1000;
    t = Date.now();
    // the CRDs are there: its installs answer 409, and the cases run as in the test
    const result = await runDifferential(plane, '1.32', crds, { seed: 1, perCrd: 1 });
    const end = cpu();
    return JSON.stringify({
      godebug,
      crds: result.crdsInstalled,
      resources: result.cases,
      agree: result.agree,
      install: {
        seconds: round(installSeconds),
        apiserverCpuS: round(installed[0] - start[0]),
        etcdCpuS: round(installed[1] - start[1]),
      },
      created: {
        seconds: round((Date.now() - t) / 1000),
        apiserverCpuS: round(end[0] - installed[0]),
        etcdCpuS: round(end[1] - installed[1]),
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
