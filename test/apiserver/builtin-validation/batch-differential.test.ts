import { BATCH_CASES, NEWER_JOB_CASES } from './batch-cases';
import { describeEachApiServerVersion } from '../../envtest';
import { dryRunCreate, ourVerdict } from '../../support/differential/builtin-dry-run';

/**
 * A Job's and a CronJob's own fields (counts, completion mode, policies, selector generation, schedule, time zone)
 * on create: synth's verdict and fields against each real apiserver's dry-run create.
 */
describeEachApiServerVersion(
  'batch workloads against the apiserver',
  (plane, version) => {
    const cases = version === '1.28' ? BATCH_CASES : [...BATCH_CASES, ...NEWER_JOB_CASES];
    test.each(cases)('%s', async (_name, object) => {
      const server = await dryRunCreate(plane(), object);
      const ours = ourVerdict(object, version);
      expect({ accepted: ours.accepted, fields: [...ours.fields].sort(), server: server.message }).toStrictEqual({
        accepted: server.accepted,
        fields: [...server.fields].sort(),
        server: server.message,
      });
    });
  },
  { shared: true },
);
