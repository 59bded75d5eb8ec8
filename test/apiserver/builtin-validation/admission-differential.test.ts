import { CEL_SYNTAX_ERROR_CASES, MUTATING_POLICY_CASES, POLICY_CASES, WEBHOOK_CASES } from './admission-cases';
import { describeBuiltinDifferential } from './differential-harness';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { servedBy } from '../../../lib/apimachinery/served-apis';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { describeEachApiServerVersion } from '../../envtest';
import { dryRunCreate, ourVerdict } from '../../support/differential/builtin-dry-run';

/** admissionregistration.k8s.io: synth's verdict against the real apiservers' (1.28, 1.32, 1.36). */

describeBuiltinDifferential(
  'admissionregistration.k8s.io/v1 webhook configurations: synth and the apiserver',
  WEBHOOK_CASES,
  // (the option skips the word-for-word comparison, here for CEL syntax errors: see CEL_SYNTAX_ERROR_CASES)
  { verdictOnly: CEL_SYNTAX_ERROR_CASES },
);

/**
 * Raw admission policies and bindings, each on the versions that serve its API by default (v1 policies from 1.30,
 * mutating ones from 1.36); the others are checked to be refused as not served (served-apis.ts), not here.
 */
describeEachApiServerVersion(
  'admissionregistration.k8s.io/v1 raw admission policies: synth and the apiserver',
  (plane, version) => {
    const cases = [...POLICY_CASES, ...MUTATING_POLICY_CASES].filter(([, o]) =>
      servedBy(o.apiVersion, o.kind, version),
    );
    test('a version serves the policies it is said to serve', () => {
      expect(cases.length).toBe(
        version === '1.28'
          ? 0
          : version === '1.32'
            ? POLICY_CASES.length
            : POLICY_CASES.length + MUTATING_POLICY_CASES.length,
      );
    });
    if (cases.length === 0) return;
    test.each(cases)('%s', async (name, object) => {
      const server = await dryRunCreate(plane(), object);
      const ours = ourVerdict(object, version);
      // refused while decoding (an unknown field): the decoding check's words are decoding's tests'; here the verdict
      if (server.code === 400) {
        expect(server.message).toMatch(/strict decoding error|cannot be handled as/); // refused while decoding
        expect(ours.accepted).toBe(false);
        return;
      }
      expect({ accepted: ours.accepted, fields: [...ours.fields].sort(), message: server.message }).toStrictEqual({
        accepted: server.accepted,
        fields: [...server.fields].sort(),
        message: server.message,
      });
      if (CEL_SYNTAX_ERROR_CASES.includes(name)) return;
      const lines = errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
      expect(lines.filter((l) => !server.message.includes(l))).toStrictEqual([]);
    });
  },
  { shared: true },
);
