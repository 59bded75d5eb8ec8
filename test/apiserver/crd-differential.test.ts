import { describeEachApiServerVersion } from '../envtest';
import { loadCorpusCrds, REALWORLD_CRDS } from '../support/differential/corpus';
import { CrdDifferentialResult, runCrdDifferential } from '../support/differential/crd-run';

/**
 * CRDs refused or accepted as the apiserver does: two random single mutations of each real-world CRD (its schema's
 * keywords, names, versions, columns, subresources; test/support/differential/crd-mutations.ts), each created (dry run,
 * strict field validation, as kubectl apply sends it) on the real apiserver of each oracle version and checked as synth
 * checks a CRD for that version. Fixed seed; the long form, with its committed results:
 * `npx tsx bench/crd-differential.ts --seed 3 --per-crd 20` (bench/latest/crd-differential.json).
 */
const SEED = 1;
const PER_CRD = 2;
// parsed once for the three versions (21 MB of YAML)
let corpus: ReturnType<typeof loadCorpusCrds> | undefined;

describeEachApiServerVersion(
  'CRD verdicts: a generated differential of mutated real-world CRDs',
  (plane, version) => {
    let result: CrdDifferentialResult;
    beforeAll(async () => {
      result = await runCrdDifferential(plane(), version, (corpus ??= loadCorpusCrds(REALWORLD_CRDS)), {
        seed: SEED,
        perCrd: PER_CRD,
      });
      const refused = Object.values(result.byKind).reduce((n, k) => n + k.refused, 0);
      console.log(
        `v${version}: ${result.cases - result.disagreements.length}/${result.cases} mutated CRDs agree (${refused} refused by the apiserver, ${result.panics.length} of them by a panic)`,
      );
    }, 300_000);

    test('both verdicts occur, over every kind of mutation', () => {
      const refused = Object.values(result.byKind).reduce((n, k) => n + k.refused, 0);
      expect(refused).toBeGreaterThan(result.cases / 5);
      expect(refused).toBeLessThan(result.cases);
      expect(Object.keys(result.byKind).length).toBeGreaterThanOrEqual(20);
    });

    test("every verdict equals the apiserver's, and our checks never throw", () => {
      expect(result.crashes).toStrictEqual([]);
      expect(result.disagreements).toStrictEqual([]);
    });
  },
  // the shared plane of each version, as the other corpus-wide suites use it (dry runs change nothing)
  { shared: true },
);
