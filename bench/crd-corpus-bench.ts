// CRD corpus benchmark: MB/s of real-world CRD YAML through CustomResourceDefinition.fromFile + synth with every
// check (the raw path a platform team uses to import third-party CRDs), as "validation" (YAML parse + every check)
// and "end to end" (that, plus synth writing the YAML). Runs the whole corpus in one fresh process, and the largest
// file alone, and each of the LARGE_FILES alone (CRDs bigger than the corpus's largest); the median of `runs` runs
// each. End to end counts from the process's start to its exit (Node's start and loading the bundle included,
// as a user's synth pays them; CPU from /usr/bin/time); the phases are timed inside. The child runs from an esbuild bundle, as
// this project runs its cdk8s apps (tools/run-app) and as consumers run the compiled package: not through tsx, whose
// transform wraps every function created at run time in a naming helper (keepNames) that the shipped code lacks.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as esbuild from 'esbuild';
import { errorsOf } from '../lib/apimachinery/issue';
import { KUBERNETES_VERSIONS, KubernetesVersion } from '../lib/apimachinery/kubernetes-versions';
import { CrdManifest } from '../lib/apiserver/crd-manifest';
import { SchemaCheckMemo } from '../lib/apiserver/crd-validation/schema-check-memo';
import { checkCrdForVersions } from '../lib/apiserver/crd-validation/version-support';
import { loadKubectlYaml } from '../lib/crd/kubectl-yaml';
import { REALWORLD_CRDS } from '../test/support/differential/corpus';

const ROOT = path.join(__dirname, '..');
/** Real CRDs beyond the corpus's sizes, vendored (test/fixtures/realworld-crds/SOURCES.tsv says where from), timed alone. */
const LARGE_FILES = [
  path.join(ROOT, 'test/fixtures/realworld-crds/argo-workflows__workflowtemplates.argoproj.io.yaml'),
];

export interface CorpusTiming {
  readonly files: number;
  readonly megabytes: number;
  /** fromFile (read + YAML parse) of every file. */
  readonly importSeconds: number;
  /** Every synth-time check. */
  readonly validateSeconds: number;
  /** app.synth(): resolving and writing the YAML (checks are not repeated). */
  readonly synthSeconds: number;
  /** Import + checks + synth, inside the process. */
  readonly totalSeconds: number;
  /** The whole process, from its start to its exit (wall). */
  readonly processSeconds: number;
  /** The whole process's CPU seconds (user + system, all threads). */
  readonly processCpuSeconds: number;
  /** Validation: megabytes / (importSeconds + validateSeconds), parse and every check, without writing YAML. */
  readonly validationMegabytesPerSecond: number;
  /** End to end: megabytes / processSeconds: a fresh process's start, fromFile, every check and synth writing the YAML. */
  readonly endToEndMegabytesPerSecond: number;
  /** The same two on the process's CPU time (user + system), which other work on the machine inflates less. */
  readonly validationCpuMegabytesPerSecond: number;
  readonly endToEndCpuMegabytesPerSecond: number;
}

export interface CrdCorpusResult {
  readonly corpus: string;
  /**
   * The Kubernetes range each project's app targets (`kubernetesVersions.min`; max 1.36): the oldest from which every
   * CRD of the project installs by synth's per-version checks (cert-manager's selectableFields need 1.31, Argo
   * Workflows' rule costs 1.29, …), so that every check runs for as many versions as the CRDs allow.
   */
  readonly minimumVersions: Record<string, KubernetesVersion>;
  readonly whole: CorpusTiming;
  readonly largest: CorpusTiming & { readonly file: string };
  /** Each of LARGE_FILES alone (not part of `whole`). */
  readonly largeFiles: ReadonlyArray<CorpusTiming & { readonly file: string }>;
}

export function runCrdCorpusBench(runs: number): CrdCorpusResult {
  // the whole corpus (npm run corpus:fetch, or REALWORLD_CORPUS_DIR), else the part kept in the repository
  const dir = REALWORLD_CRDS;
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => path.join(dir, f));
  const largest = files.reduce((a, b) => (fs.statSync(b).size > fs.statSync(a).size ? b : a));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'crd-corpus-bench-'));
  try {
    const app = path.join(work, 'crd-corpus-app.cjs');
    // tools/run-app's options
    esbuild.buildSync({
      entryPoints: [path.join(__dirname, 'crd-corpus-app.ts')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: `node${process.versions.node.split('.')[0]}`,
      outfile: app,
      logLevel: 'warning',
    });
    // before any timing: the range each project's app targets
    const minimumVersions = projectMinimumVersions([...files, ...LARGE_FILES]);
    const env = { ...process.env, CRD_CORPUS_MINIMUM_VERSIONS: JSON.stringify(minimumVersions) };
    const whole = medianOf(runs, () => timeCorpus(app, work, files, env));
    const one = medianOf(runs, () => timeCorpus(app, work, [largest], env));
    const largeFiles = LARGE_FILES.map((f) => ({
      ...medianOf(runs, () => timeCorpus(app, work, [f], env)),
      file: path.basename(f),
    }));
    return {
      corpus: path.relative(ROOT, dir),
      minimumVersions,
      whole,
      largest: { ...one, file: path.basename(largest) },
      largeFiles,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** Corpus files are named `<project>__<plural>.<group>.yaml` (crd-corpus-app.ts makes one app per project). */
const projectOf = (file: string) => path.basename(file).split('__')[0];

/**
 * Per project, the oldest supported Kubernetes version from which synth's checks of every version up to the newest
 * accept each of its CRDs (the versions a user of those CRDs can target: OperatorApp's default range, 1.28 to 1.36,
 * refuses e.g. selectableFields on 1.28 to 1.30).
 */
function projectMinimumVersions(files: readonly string[]): Record<string, KubernetesVersion> {
  const out: Record<string, KubernetesVersion> = {};
  for (const file of files) {
    const memo = new SchemaCheckMemo();
    const crds = loadKubectlYaml(fs.readFileSync(file, 'utf8')) as CrdManifest[];
    const from = KUBERNETES_VERSIONS.findIndex((_, i) =>
      crds.every((crd) => errorsOf(checkCrdForVersions(crd, KUBERNETES_VERSIONS.slice(i), memo)).length === 0),
    );
    if (from < 0) {
      throw new Error(`${file}: refused by synth's checks of ${KUBERNETES_VERSIONS[KUBERNETES_VERSIONS.length - 1]}`);
    }
    const project = projectOf(file);
    if (out[project] === undefined || KUBERNETES_VERSIONS.indexOf(out[project]) < from) {
      out[project] = KUBERNETES_VERSIONS[from];
    }
  }
  return out;
}

function timeCorpus(app: string, work: string, files: readonly string[], env: NodeJS.ProcessEnv): CorpusTiming {
  const out = fs.mkdtempSync(path.join(work, 'out-'));
  try {
    const started = process.hrtime.bigint();
    const run = spawnSync('/usr/bin/time', ['-f', 'BENCH_TIME %U %S', process.execPath, app, out, ...files], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      maxBuffer: 1 << 24,
    });
    const processSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    const time = /BENCH_TIME ([\d.]+) ([\d.]+)/.exec(run.stderr ?? '');
    if (run.status !== 0 || !time) throw new Error(`crd-corpus-app failed (${run.status}):\n${run.stderr}`);
    const processCpuSeconds = Number(time[1]) + Number(time[2]);
    const r = JSON.parse(run.stdout.trim().split('\n').pop()!);
    const megabytes = r.bytes / 1e6;
    return {
      files: r.files,
      megabytes: round(megabytes),
      importSeconds: round(r.importSeconds),
      validateSeconds: round(r.validateSeconds),
      synthSeconds: round(r.synthSeconds),
      totalSeconds: round(r.totalSeconds),
      processSeconds: round(processSeconds),
      processCpuSeconds: round(processCpuSeconds),
      validationMegabytesPerSecond: round(megabytes / (r.importSeconds + r.validateSeconds)),
      endToEndMegabytesPerSecond: round(megabytes / processSeconds),
      validationCpuMegabytesPerSecond: round(megabytes / r.validationCpuSeconds),
      endToEndCpuMegabytesPerSecond: round(megabytes / processCpuSeconds),
    };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

function medianOf(runs: number, measure: () => CorpusTiming): CorpusTiming {
  const all = Array.from({ length: Math.max(1, runs) }, measure).sort((a, b) => a.processSeconds - b.processSeconds);
  return all[Math.floor(all.length / 2)];
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
