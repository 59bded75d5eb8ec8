import { describeEachApiServerVersion } from '../envtest';
import { loadCorpusCrds, REALWORLD_CORPUS } from '../support/differential/corpus';
import { RULE_KINDS } from '../support/differential/mutations';
import { DifferentialResult, runDifferential } from '../support/differential/run';

/**
 * A generated differential corpus of custom resources over the real-world CRDs: valid instances of every CRD version
 * plus single mutations aimed at every rule kind (schema keywords, formats, CEL rules, list types, embedded
 * resources, ObjectMeta, the scale subresource's replicas), each created (dry run, strict field validation) on the
 * real apiserver of each oracle version and checked by validateCustomResource for that version in the same run:
 * refused or not, and every error message word for word (type, field path, value as that version prints it, detail),
 * equal case by case. Fixed seed; a larger run:
 * `npm run differential -- --seed N --per-crd K` (bench/latest/cr-differential.json).
 */
const SEED = 1;
const PER_CRD = 1;
// Its own control plane per version: deleting 254 CRDs and their 2,715 resources costs more than a fresh start.
const describeIfCorpus = REALWORLD_CORPUS
  ? describeEachApiServerVersion
  : (name: string) =>
      describe.skip(`${name} (no corpus: npm run corpus:fetch, or set REALWORLD_CORPUS_DIR)`, () =>
        test.todo('corpus'));

describeIfCorpus('custom resources of the real-world CRDs: generated differential corpus', (plane, version) => {
  let result: DifferentialResult;
  beforeAll(async () => {
    result = await runDifferential(plane(), version, loadCorpusCrds(), { seed: SEED, perCrd: PER_CRD });
    const refused = Object.values(result.byKind).reduce((n, k) => n + k.refused, 0);
    console.log(
      `v${version}: ${result.agree}/${result.cases} custom resources agree, messages word for word (${result.agreePaths} on verdict and paths; ${refused} refused by the apiserver) over ` +
        `${result.crdsInstalled}/${result.crds} CRDs (${result.crdVersions} versions; ${result.crdsRefused.length} refused by this version), ` +
        `install ${result.installSeconds.toFixed(0)} s, cases ${result.casesSeconds.toFixed(0)} s`,
    );
  }, 600_000);

  test('every CRD this version accepts is covered, every rule kind is aimed at, both verdicts occur', () => {
    expect(result.crds).toBeGreaterThanOrEqual(201);
    expect(result.crdsInstalled + result.crdsRefused.length).toBe(result.crds);
    expect(result.crdsInstalled).toBeGreaterThan(170);
    // no real-world CRD uses multipleOf (the corpus is checked for it below): every other kind is aimed at
    const expected = ['valid', ...RULE_KINDS.filter((k) => k !== 'multipleOf')];
    expect(['valid', ...RULE_KINDS].filter((kind) => (result.byKind[kind]?.cases ?? 0) > 0)).toStrictEqual(expected);
    expect(
      loadCorpusCrds()
        .filter((c) => JSON.stringify(c.manifest).includes('"multipleOf"'))
        .map((c) => c.file),
    ).toStrictEqual([]);
    const refused = Object.values(result.byKind).reduce((n, k) => n + k.refused, 0);
    expect(refused).toBeGreaterThan(result.cases / 4);
    expect(refused).toBeLessThan(result.cases);
  });

  test("every verdict and every error message, word for word, equals the apiserver's", () => {
    expect(result.disagreements).toStrictEqual([]);
    expect(result.agree).toBe(result.cases);
  });
});
