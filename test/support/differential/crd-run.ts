import { errorsOf, formatIssue } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { SchemaCheckMemo } from '../../../lib/apiserver/crd-validation/schema-check-memo';
import { validateCrdManifestWith } from '../../../lib/apiserver/crd-validation/validate-crd';
import { crdIssuesForVersions } from '../../../lib/apiserver/crd-validation/version-support';
import type { ControlPlane } from '../../../runtime/envtest';
import { seededRandom } from '../seeded-random';
import { CorpusCrd } from './corpus';
import { crdMutationsOf } from './crd-mutations';

/** Cases and refusals of one mutation kind. */
export interface KindCount {
  cases: number;
  refused: number;
  agree: number;
}

export interface CrdDisagreement {
  readonly file: string;
  readonly mutation: string;
  /** The apiserver's message, or `accepted`. */
  readonly apiserver: string;
  /** Our errors, or `accepted`. */
  readonly ours: readonly string[] | 'accepted';
}

export interface CrdDifferentialResult {
  readonly kubernetesVersion: KubernetesVersion;
  readonly seed: number;
  readonly perCrd: number;
  readonly crds: number;
  readonly cases: number;
  readonly byKind: Record<string, KindCount>;
  readonly disagreements: CrdDisagreement[];
  /** Mutated CRDs the apiserver panicked on (it recovers and drops the connection: the apply fails). */
  readonly panics: { readonly file: string; readonly mutation: string }[];
  /** Mutated CRDs our checks threw on instead of reporting. */
  readonly crashes: { readonly file: string; readonly mutation: string; readonly error: string }[];
}

/**
 * `perCrd` single random mutations of each CRD (crd-mutations.ts), each created on `plane` (dry run, strict field
 * validation, as `kubectl apply` sends it) and checked as synth checks a CRD for `version` (what that version
 * reports and what it lacks): a case agrees when both refuse or both accept. A seed replays a run exactly.
 */
export async function runCrdDifferential(
  plane: ControlPlane,
  version: KubernetesVersion,
  crds: readonly CorpusCrd[],
  opts: { readonly seed: number; readonly perCrd: number },
): Promise<CrdDifferentialResult> {
  const rand = seededRandom(opts.seed);
  const result: CrdDifferentialResult = {
    kubernetesVersion: version,
    seed: opts.seed,
    perCrd: opts.perCrd,
    crds: crds.length,
    cases: 0,
    byKind: {},
    disagreements: [],
    panics: [],
    crashes: [],
  };
  for (const crd of crds) {
    for (const m of crdMutationsOf(crd.manifest, rand, opts.perCrd)) {
      (result as { cases: number }).cases++;
      const r = await plane
        .request(
          'POST',
          '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?dryRun=All&fieldValidation=Strict',
          m.manifest,
        )
        .catch((e: Error) => ({ code: 0, body: { message: `the apiserver panicked: ${e.message}` } }));
      if (![0, 201, 400, 422].includes(r.code)) {
        throw new Error(`${crd.file} ${m.description}: ${r.code} ${JSON.stringify(r.body)}`);
      }
      if (r.code === 0) result.panics.push({ file: crd.file, mutation: m.description });
      const serverRefused = r.code !== 201;
      let ours: string[];
      try {
        const memo = new SchemaCheckMemo();
        const checked = validateCrdManifestWith(m.manifest, version, memo);
        ours = errorsOf(crdIssuesForVersions(m.manifest, [version], memo, checked)).map(formatIssue);
      } catch (e) {
        ours = [`the checks threw: ${(e as Error).stack?.split('\n').slice(0, 3).join(' | ')}`];
        result.crashes.push({ file: crd.file, mutation: m.description, error: ours[0] });
      }
      const k = (result.byKind[m.kind] ??= { cases: 0, refused: 0, agree: 0 });
      k.cases++;
      if (serverRefused) k.refused++;
      if (serverRefused === ours.length > 0) {
        k.agree++;
      } else {
        result.disagreements.push({
          file: crd.file,
          mutation: m.description,
          apiserver: serverRefused ? String((r.body as { message?: string })?.message ?? '') : 'accepted',
          ours: ours.length ? ours : 'accepted',
        });
      }
    }
  }
  return result;
}
