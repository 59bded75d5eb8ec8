import { errorsOf } from '../../../lib/apimachinery/issue';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { describeEachApiServerVersion, OracleVersion } from '../../envtest';
import { dryRunCreate, ourVerdict } from '../../support/differential/builtin-dry-run';

/** A differential case: a name, and a valid base object with one mutation (or none: the base itself). */
export type DifferentialCase = readonly [name: string, object: any];

/** `[name, base with mutate applied]`: each case a fresh copy of the base. */
export function mutationOf(base: () => any): (name: string, mutate?: (o: any) => void) => DifferentialCase {
  return (name, mutate) => {
    const o = base();
    mutate?.(o);
    return [name, o];
  };
}

export interface DifferentialOptions {
  /**
   * Cases whose messages are compared by verdict and fields only, not word for word: the apiserver prints a Go
   * pointer's address in them (`(*intstr.IntOrString)(0xc00d0ac280)`) or a whole Go struct, its CEL parser words a
   * syntax error its own way, or the pods area prints the bad value after the message (docs/built-in-objects.md).
   */
  readonly verdictOnly?: readonly string[];
}

/** Whether `line` is in `message`, a `…` in it standing for what synth does not print (a Go struct's insides). */
export function inMessage(line: string, message: string): boolean {
  let from = 0;
  for (const piece of line.split('…')) {
    const at = message.indexOf(piece, from);
    if (at < 0) return false;
    from = at + piece.length;
  }
  return true;
}

/**
 * Each case created with a dry run on the real apiservers of 1.28, 1.32 and 1.36 (shared planes), against synth's
 * verdict for that version: accepted alike, the same fields refused, and each of synth's errors worded as the
 * apiserver words it (its line is inside the server's message; a `…` in it stands for a Go struct's insides, which
 * the server prints before 1.34 for quantities, resource lists and field paths and synth does not). A case the server refuses while decoding (a field
 * unknown to that version) is the decoding check's (decoding.ts): here synth only has to refuse it too. `cases` may
 * depend on the server's version (a kind whose API version does: flowcontrol's v1beta3 on 1.28, v1 from 1.29).
 */
export function describeBuiltinDifferential(
  title: string,
  cases: readonly DifferentialCase[] | ((version: OracleVersion) => readonly DifferentialCase[]),
  options: DifferentialOptions = {},
): void {
  describeEachApiServerVersion(
    title,
    (plane, version) => {
      test.each(typeof cases === 'function' ? cases(version) : cases)('%s', async (name, object) => {
        const server = await dryRunCreate(plane(), object);
        const ours = ourVerdict(object, version);
        if (server.code === 400) {
          expect(server.message).toMatch(/strict decoding error|cannot be handled as/); // refused while decoding
          expect(ours.accepted).toBe(false);
          return;
        }
        // the server's message on both sides: shown in the diff when the verdicts differ
        expect({ accepted: ours.accepted, fields: [...ours.fields].sort(), message: server.message }).toStrictEqual({
          accepted: server.accepted,
          fields: [...server.fields].sort(),
          message: server.message,
        });
        if (options.verdictOnly?.includes(name)) return;
        const lines = errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
        expect(lines.filter((l) => !inMessage(l, server.message))).toStrictEqual([]);
      });
    },
    { shared: true },
  );
}
