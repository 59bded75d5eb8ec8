import { STATEFUL_TEMPLATE_CASES, WORKLOAD_CASES } from './workloads-cases';
import { describeEachApiServerVersion } from '../../envtest';
import { dryRunCreate, ourVerdict } from '../../support/differential/builtin-dry-run';

/**
 * The apps kinds' own fields (selector, replicas, strategies, StatefulSet policies) on create: synth's verdict and
 * fields against each real apiserver's dry-run create.
 */
describeEachApiServerVersion(
  'apps workloads against the apiserver',
  (plane, version) => {
    const cases = version === '1.36' ? WORKLOAD_CASES : [...WORKLOAD_CASES, ...STATEFUL_TEMPLATE_CASES];
    test.each(cases)('%s', async (_name, object) => {
      const server = await dryRunCreate(plane(), object);
      const ours = ourVerdict(object, version);
      if (server.code === 400) {
        // refused while decoding (a field this version lacks: 1.28's claim spec has no volumeAttributesClassName)
        expect(server.message).toMatch(/strict decoding error|cannot be handled as/);
        expect(ours.accepted).toBe(false);
        return;
      }
      expect({ accepted: ours.accepted, fields: [...ours.fields].sort(), server: server.message }).toStrictEqual({
        accepted: server.accepted,
        fields: [...server.fields].sort(),
        server: server.message,
      });
    });
  },
  { shared: true },
);
