import { describeEachApiServerVersion } from '../envtest';
import { BuiltinDifferentialResult, runBuiltinDifferential } from '../support/differential/builtin-run';
import { builtinSeeds } from '../support/differential/builtin-seeds';

/**
 * Built-in objects refused or accepted as the apiserver does: two random single mutations of each built-in object of
 * the demo's charts, cdk8s-plus's and a catalogue of every kind synth checks (test/support/differential/
 * builtin-seeds.ts, builtin-mutations.ts), and one field each lacks added (builtin-additions.ts), each created (dry
 * run, strict field validation, as kubectl apply sends it) on the real apiserver of each oracle version and checked
 * as synth checks a built-in object for that version. Fixed seed; the long forms, with their committed results:
 * `npx tsx bench/builtin-differential.ts --seed 1 --per-object 40`, `--per-object sweep` and `--mutate additions
 * --per-object 40` (bench/latest/builtin-differential*.json).
 */
const SEED = 1;
const PER_OBJECT = 2;
/** Fields each seed lacks, added (builtin-additions.ts): one a seed, the long form 40. */
const ADDITIONS_PER_OBJECT = 1;
let seeds: ReturnType<typeof builtinSeeds> | undefined;

describeEachApiServerVersion(
  'built-in verdicts: a generated differential of mutated built-in objects',
  (plane, version) => {
    let result: BuiltinDifferentialResult;
    let additions: BuiltinDifferentialResult;
    beforeAll(async () => {
      seeds ??= builtinSeeds();
      result = await runBuiltinDifferential(plane(), version, seeds, { seed: SEED, perObject: PER_OBJECT });
      additions = await runBuiltinDifferential(plane(), version, seeds, {
        seed: SEED,
        perObject: ADDITIONS_PER_OBJECT,
        mutate: 'additions',
      });
      for (const r of [result, additions]) {
        console.log(
          `v${version} ${r.mutate}: ${r.cases - r.disagreements.length - r.clusterDependent.length}/${r.cases} mutated objects agree (${r.refused} refused by the apiserver, ${r.seeds} seeds)`,
        );
      }
    }, 300_000);

    test('both verdicts occur, over the seeds of every kind', () => {
      expect(result.seeds).toBeGreaterThan(200);
      expect(result.refused).toBeGreaterThan(result.cases / 4);
      expect(result.refused).toBeLessThan(result.cases);
      // 34 kinds on 1.28 (no flow control v1, no admission policy v1), 38 on 1.32, 40 on 1.36
      expect(Object.keys(result.byKind).length).toBeGreaterThanOrEqual(30);
    });

    test("every verdict equals the apiserver's, and synth's checks never throw", () => {
      expect(result.crashes).toStrictEqual([]);
      expect(result.disagreements).toStrictEqual([]);
    });

    test('fields the seeds lack, added: every verdict equal, and some of each', () => {
      expect(additions.crashes).toStrictEqual([]);
      expect(additions.disagreements).toStrictEqual([]);
      expect(additions.refused).toBeGreaterThan(additions.cases / 10);
      expect(additions.refused).toBeLessThan(additions.cases);
    });

    test('both refuse at the same fields, but for the node port the apiserver allocates', () => {
      // a Service's repeated port gets a node port allocated twice: which one depends on the cluster, not the object
      const allocated = (message: string) => message.includes('nodePort: Duplicate value');
      expect(result.fieldDisagreements.filter((d) => !allocated(d.apiserver))).toStrictEqual([]);
    });
  },
  // the shared plane of each version (dry runs change nothing)
  { shared: true },
);
