import { casesFor, CorpusCase, CorpusCrd, CorpusOptions, servedVersions } from './corpus';
import { repeatIfDropped } from './repeat-if-dropped';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { validateCustomResource } from '../../../lib/apiserver/value-validation/custom-resource';
import { CANNOT_BE_HANDLED } from '../../../lib/apiserver/value-validation/object-meta';
import { RULES_SKIPPED } from '../../../lib/apiserver/value-validation/value-validator';
import { ControlPlane } from '../../envtest';
import { until } from '../../runtime/support';

/** One side's verdict on a custom resource: refused or not, the field paths of the errors, and the errors (`path: message`). */
export interface Verdict {
  readonly refused: boolean;
  readonly paths: readonly string[];
  /** Every error as `path: message`, sorted (the apiserver's causes; for a strict decoding error, one per unknown field). */
  readonly messages: readonly string[];
}

export interface Disagreement {
  readonly id: string;
  readonly kind: string;
  readonly note: string;
  readonly at: string;
  readonly apiserver: Verdict;
  readonly ours: Verdict;
  readonly object?: unknown;
}

/** The outcome of a differential run on one apiserver version. */
export interface DifferentialResult {
  readonly kubernetesVersion: string;
  readonly seed: number;
  readonly perCrd: number;
  readonly crds: number;
  readonly crdsInstalled: number;
  /** CRDs this version refuses (e.g. CEL cost on 1.28): no resources of theirs. */
  readonly crdsRefused: readonly { file: string; message: string }[];
  readonly crdVersions: number;
  readonly installSeconds: number;
  readonly casesSeconds: number;
  readonly cases: number;
  /** Cases where the verdict and every error message, word for word (type, path, value, detail), are the apiserver's. */
  readonly agree: number;
  /** Cases where the verdict and the error paths agree (the messages may differ). */
  readonly agreePaths: number;
  /** Cases per kind: total, how many the apiserver refused, how many agree (messages included). */
  readonly byKind: Record<string, { cases: number; refused: number; agree: number }>;
  readonly disagreements: readonly Disagreement[];
}

/** Runs the corpus on one control plane: installs every CRD, creates every case (dry run) and compares verdicts. */
export async function runDifferential(
  plane: ControlPlane,
  kubernetesVersion: KubernetesVersion,
  crds: readonly CorpusCrd[],
  options: CorpusOptions,
): Promise<DifferentialResult> {
  const t0 = Date.now();
  const { installed, refused } = await installCorpus(plane, crds);
  const installSeconds = (Date.now() - t0) / 1000;
  const compared = await compareCorpus(plane, kubernetesVersion, installed, options);
  return {
    kubernetesVersion,
    seed: options.seed,
    perCrd: options.perCrd,
    crds: crds.length,
    crdsInstalled: installed.length,
    crdsRefused: refused,
    crdVersions: installed.reduce((n, crd) => n + servedVersions(crd).length, 0),
    installSeconds,
    casesSeconds: (Date.now() - t0) / 1000 - installSeconds,
    ...compared,
  };
}

/**
 * Creates every CRD, two at a time, and waits until each it accepted is Established: those this version accepts
 * (sorted by file) and why it refused the others.
 */
export async function installCorpus(
  plane: ControlPlane,
  crds: readonly CorpusCrd[],
): Promise<{ installed: CorpusCrd[]; refused: DifferentialResult['crdsRefused'] }> {
  const refused: { file: string; message: string }[] = [];
  const installed: CorpusCrd[] = [];
  await pool(crds, 2, async (crd) => {
    // large CRDs on a loaded machine take long: a generous timeout, and a retry that finds the CRD already there
    const r = await repeatIfDropped(`install ${crd.file}`, () =>
      plane.request('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd.manifest, {
        timeoutMs: 180_000,
      }),
    );
    if (r.code === 201 || r.code === 409) installed.push(crd);
    else refused.push({ file: crd.file, message: `${r.code}: ${String(r.body?.message).slice(0, 300)}` });
  });
  await pool(installed, 8, (crd) => established(plane, crd.manifest.metadata.name));
  installed.sort((a, b) => a.file.localeCompare(b.file));
  return { installed, refused: refused.sort((a, b) => a.file.localeCompare(b.file)) };
}

/** Creates every case of the installed CRDs (dry run, six at a time) and compares each verdict with ours. */
export async function compareCorpus(
  plane: ControlPlane,
  kubernetesVersion: KubernetesVersion,
  installed: readonly CorpusCrd[],
  options: CorpusOptions,
): Promise<Pick<DifferentialResult, 'cases' | 'agree' | 'agreePaths' | 'byKind' | 'disagreements'>> {
  const cases = installed.flatMap((crd) => casesFor(crd, options));
  const byKind: DifferentialResult['byKind'] = {};
  const disagreements: Disagreement[] = [];
  let agree = 0;
  let agreePaths = 0;
  await pool(cases, 6, async (c) => {
    const { apiserver, ours, samePaths, same } = await compareCase(plane, kubernetesVersion, c);
    const k = (byKind[c.kind] ??= { cases: 0, refused: 0, agree: 0 });
    k.cases++;
    if (apiserver.refused) k.refused++;
    if (samePaths) agreePaths++;
    if (same) {
      k.agree++;
      agree++;
    } else {
      disagreements.push({
        id: c.id,
        kind: c.kind,
        note: c.note,
        at: c.at,
        apiserver,
        ours,
        object: JSON.stringify(c.object).length < 4000 ? c.object : undefined,
      });
    }
  });
  disagreements.sort((a, b) => a.id.localeCompare(b.id));
  return {
    cases: cases.length,
    agree,
    agreePaths,
    byKind: Object.fromEntries(Object.entries(byKind).sort()),
    disagreements,
  };
}

/** One case on the apiserver (dry run) and by validateCustomResource for its version: both verdicts, and whether they agree. */
export async function compareCase(plane: ControlPlane, kubernetesVersion: KubernetesVersion, c: CorpusCase) {
  const apiserver = withOurGeneratedName(c, await apiserverVerdict(plane, c));
  const ours = ourVerdict(c, kubernetesVersion);
  const samePaths = apiserver.refused === ours.refused && apiserver.paths.join('\n') === ours.paths.join('\n');
  return { apiserver, ours, samePaths, same: samePaths && apiserver.messages.join('\n') === ours.messages.join('\n') };
}

/** Installs CRDs and waits until each is Established; a CRD the apiserver refuses is an error. */
export async function installCrds(plane: ControlPlane, crds: readonly CorpusCrd[]): Promise<void> {
  const { refused } = await installCorpus(plane, crds);
  if (refused.length) throw new Error(refused.map((r) => `${r.file}: ${r.message}`).join('\n'));
}

/** The apiserver's verdict on a dry-run create with strict field validation (unknown fields are errors, as ours). */
async function apiserverVerdict(plane: ControlPlane, c: CorpusCase): Promise<Verdict> {
  const { group, names, scope } = c.crd.manifest.spec;
  const ns = scope === 'Namespaced' ? '/namespaces/default' : '';
  const r = await repeatIfDropped(c.id, () =>
    plane.request(
      'POST',
      `/apis/${group}/${c.version}${ns}/${names.plural}?dryRun=All&fieldValidation=Strict`,
      c.object,
      {
        timeoutMs: 120_000,
      },
    ),
  );
  if (r.code === 201) return { refused: false, paths: [], messages: [] };
  const causes: { field?: string; message?: string }[] = r.body?.details?.causes ?? [];
  if (r.code === 400 && /strict decoding error/.test(r.body?.message ?? '')) {
    // "strict decoding error: unknown field "spec.x", unknown field "metadata.y""
    const paths = [...String(r.body.message).matchAll(/unknown field "([^"]+)"/g)].map((m) => m[1]);
    return { refused: true, paths: sorted(paths), messages: sorted(paths.map((p) => `${p}: unknown field "${p}"`)) };
  }
  if (r.code !== 422 && r.code !== 400) {
    throw new Error(`${c.id}: unexpected reply ${r.code}: ${JSON.stringify(r.body).slice(0, 500)}`);
  }
  if (causes.length === 0) return { refused: true, paths: ['<decode>'], messages: [`<decode>: ${r.body?.message}`] };
  return {
    refused: true,
    paths: sorted(causes.map((x) => x.field ?? '')),
    messages: sorted(causes.map((x) => `${x.field ?? ''}: ${x.message}`)),
  };
}

function ourVerdict(c: CorpusCase, kubernetesVersion: KubernetesVersion): Verdict {
  const { scope, names } = c.crd.manifest.spec;
  const version = c.crd.manifest.spec.versions.find((v) => v.name === c.version)!;
  const issues = validateCustomResource({ scope, kind: names.kind, version }, c.object, { kubernetesVersion }).issues;
  const errors = issues.filter((i) => (i.severity ?? 'error') === 'error');
  const unknown = errors.filter((i) => /^unknown field /.test(i.message));
  // strict decoding reports unknown fields alone, before any validation; the note that rules were skipped is the
  // apiserver's fieldless cause (our warning, as it refuses nothing by itself)
  const skipped = issues.filter((i) => i.message.endsWith(RULES_SKIPPED)).map((i) => ({ ...i, path: '<nil>' }));
  const undecodable = errors
    .filter((i) => i.message.includes(CANNOT_BE_HANDLED))
    .map((i) => ({ ...i, path: '<decode>' }));
  const shown = undecodable.length ? undecodable : unknown.length ? unknown : [...errors, ...skipped];
  return {
    refused: errors.length > 0,
    paths: sorted(shown.map((i) => i.path)),
    messages: sorted(shown.map((i) => `${i.path}: ${i.message}`)),
  };
}

/**
 * The one thing no imitation can predict: the 5 random characters the apiserver appends to a `generateName` (from
 * `bcdfghjklmnpqrstvwxz2456789`). Where the object has only a generateName, the apiserver's generated name in its
 * messages is replaced by the one validateCustomResource validates (the prefix cut to 58 characters + `x2b4z`).
 */
function withOurGeneratedName(c: CorpusCase, verdict: Verdict): Verdict {
  const meta = (c.object.metadata ?? {}) as Record<string, unknown>;
  if (
    (meta.name !== undefined && meta.name !== '') ||
    typeof meta.generateName !== 'string' ||
    meta.generateName === ''
  ) {
    return verdict;
  }
  const prefix = meta.generateName.slice(0, 58);
  const generated = new RegExp(
    `"${prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[bcdfghjklmnpqrstvwxz2456789]{5}"`,
    'g',
  );
  return { ...verdict, messages: sorted(verdict.messages.map((m) => m.replace(generated, `"${prefix}x2b4z"`))) };
}

/** Sorted, each once (the apiserver reports a repeated error once, as ours). */
function sorted(items: readonly string[]): string[] {
  return [...new Set(items)].sort();
}

async function established(plane: ControlPlane, name: string): Promise<void> {
  await until(
    `CRD ${name} Established`,
    async () => {
      // a GET that times out on a starved apiserver is asked again (the landing CI of 2026-11-29 failed on one)
      const r = await plane
        .request('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`)
        .catch(() => undefined);
      return (r?.body?.status?.conditions ?? []).some((c: any) => c.type === 'Established' && c.status === 'True');
    },
    60_000,
    100,
  );
}

/** Runs `fn` over `items`, at most `n` at a time. */
async function pool<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}
