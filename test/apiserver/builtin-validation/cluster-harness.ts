import { DifferentialCase, DifferentialOptions } from './services-harness';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { describeEachApiServerVersion, OracleVersion } from '../../envtest';
import { dryRunCreate, ourVerdict } from '../../support/differential/builtin-dry-run';

/**
 * describeBuiltinDifferential (services-harness.ts) for kinds whose API version depends on the server's: the cases of
 * each version are `casesOf(version)` (flowcontrol's v1beta3 on 1.28, v1 from 1.29), checked alike: accepted alike,
 * the same fields refused, each of synth's errors inside the server's message.
 */
export function describeVersionedDifferential(
  title: string,
  casesOf: (version: OracleVersion) => readonly DifferentialCase[],
  options: DifferentialOptions = {},
): void {
  describeEachApiServerVersion(
    title,
    (plane, version) => {
      test.each(casesOf(version))('%s', async (name, object) => {
        const server = await dryRunCreate(plane(), object);
        const ours = ourVerdict(object, version);
        expect({ accepted: ours.accepted, fields: [...ours.fields].sort(), message: server.message }).toStrictEqual({
          accepted: server.accepted,
          fields: [...server.fields].sort(),
          message: server.message,
        });
        if (options.addressesInMessage?.includes(name)) return;
        const lines = errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
        expect(lines.filter((l) => !server.message.includes(l))).toStrictEqual([]);
      });
    },
    { shared: true },
  );
}
