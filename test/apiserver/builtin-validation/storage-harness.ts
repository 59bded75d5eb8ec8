import { DifferentialCase } from './services-harness';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { describeEachApiServerVersion } from '../../envtest';
import { dryRunCreate, ourVerdict } from '../../support/differential/builtin-dry-run';

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
 * services-harness's describeBuiltinDifferential for the storage and resource-policy kinds, whose messages print
 * quantities and selectors as Go structs before 1.34: synth writes `…` for their insides, and the rest of its line
 * must be in the server's message, in order.
 */
export function describeStorageDifferential(title: string, cases: readonly DifferentialCase[]): void {
  describeEachApiServerVersion(
    title,
    (plane, version) => {
      test.each(cases)('%s', async (_name, object) => {
        const server = await dryRunCreate(plane(), object);
        if (server.code === 400) {
          expect(server.message).toContain('strict decoding error');
          return;
        }
        const ours = ourVerdict(object, version);
        expect({ accepted: ours.accepted, fields: [...ours.fields].sort(), message: server.message }).toStrictEqual({
          accepted: server.accepted,
          fields: [...server.fields].sort(),
          message: server.message,
        });
        const lines = errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
        expect(lines.filter((l) => !inMessage(l, server.message))).toStrictEqual([]);
      });
    },
    { shared: true },
  );
}
