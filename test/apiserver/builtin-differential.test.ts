import { describeEachApiServerVersion } from '../envtest';
import { BuiltinDifferentialResult, runBuiltinDifferential } from '../support/differential/builtin-run';
import { builtinSeeds } from '../support/differential/builtin-seeds';

/**
 * Built-in objects refused or accepted as the apiserver does: two random single mutations of each built-in object of
 * the demo's charts, cdk8s-plus's and a catalogue of every kind synth checks (test/support/differential/
 * builtin-seeds.ts, builtin-mutations.ts), each created (dry run, strict field validation, as kubectl apply sends
 * it) on the real apiserver of each oracle version and checked as synth checks a built-in object for that version.
 * Fixed seed; the long forms, with their committed results: `npx tsx bench/builtin-differential.ts --seed 1
 * --per-object 40` and `--per-object sweep` (bench/latest/builtin-differential*.json).
 */
const SEED = 1;
const PER_OBJECT = 2;
let seeds: ReturnType<typeof builtinSeeds> | undefined;

describeEachApiServerVersion(
  'built-in verdicts: a generated differential of mutated built-in objects',
  (plane, version) => {
    let result: BuiltinDifferentialResult;
    beforeAll(async () => {
      result = await runBuiltinDifferential(plane(), version, (seeds ??= builtinSeeds()), {
        seed: SEED,
        perObject: PER_OBJECT,
      });
      console.log(
        `v${version}: ${result.cases - result.disagreements.length}/${result.cases} mutated objects agree (${result.refused} refused by the apiserver, ${result.seeds} seeds)`,
      );
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

    test('both refuse at the same fields, but for the node port the apiserver allocates', () => {
      // a Service's repeated port gets a node port allocated twice: which one depends on the cluster, not the object
      const allocated = (message: string) => message.includes('nodePort: Duplicate value');
      expect(result.fieldDisagreements.filter((d) => !allocated(d.apiserver))).toStrictEqual([]);
    });
  },
  // the shared plane of each version (dry runs change nothing)
  { shared: true },
);
