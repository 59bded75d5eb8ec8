import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, Chart } from 'cdk8s';
import { OperatorApp } from '../../../lib';
import {
  fieldsUnknownTo,
  gatedFieldsSet,
  gatedFieldVerdict,
} from '../../../lib/apiserver/admission-policy/builtin-fields';
import { GATED_FIELD_VERDICTS } from '../../../lib/apiserver/admission-policy/gated-fields-by-version';
import { GATED_FIELD_PROBES, runProbe } from '../../../tools/vendor-openapi/gated-probes';
import { describeEachApiServerVersion } from '../../envtest';

/**
 * Fields a version knows but drops on create while their feature gate is off by default (kept, dropped, refused or
 * unknown, measured by creating an object that sets each; `npx projen vendor-gated-fields` writes the data): the
 * committed verdicts are re-measured on 1.28, 1.32 and 1.36, and synth fails where a version of the range drops a
 * field the app sets.
 */
describe('gated fields at synth', () => {
  const synth = (range: { min?: string; max?: string }, object: any): { error: string; warnings: string[] } => {
    const app = new OperatorApp({
      outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'gated-')),
      report: false,
      policy: false,
      kubernetesVersions: range,
    });
    const chart = new Chart(app, 'chart');
    new ApiObject(chart, 'o', object);
    const warnings: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: any) => {
      warnings.push(String(chunk));
      return true;
    });
    try {
      app.synth();
      return { error: '', warnings };
    } catch (e) {
      return { error: (e as Error).message, warnings };
    } finally {
      spy.mockRestore();
    }
  };
  const probe = (field: string) => GATED_FIELD_PROBES.find((p) => `${p.schema}.${p.property}` === field)!.object;

  test('every probe sets exactly its field, as the walk finds it', () => {
    for (const p of GATED_FIELD_PROBES) {
      expect(gatedFieldsSet(p.object).map((g) => g.field)).toStrictEqual([`${p.schema}.${p.property}`]);
    }
  });

  test('a field a measured version of the range drops fails synth naming the path, the versions and the gate', () => {
    const { error } = synth({ min: '1.32', max: '1.36' }, probe('io.k8s.api.core.v1.PodSpec.resources'));
    expect(error).toContain(
      '[chart/o] apps/v1 Deployment spec.template.spec.resources: dropped on Kubernetes 1.32: the apiserver accepts the object and silently drops the field while the PodLevelResources feature gate is off',
    );
    expect(synth({ min: '1.36' }, probe('io.k8s.api.core.v1.PodSpec.resources')).error).toBe('');
  });

  test('versions between measured ones: "may be dropped" where a neighbour drops it', () => {
    // sidecar containers: dropped by 1.28, kept by 1.32: 1.29 to 1.31 are not measured
    expect(
      ['1.28', '1.29', '1.31', '1.32'].map((v) => gatedFieldVerdict('io.k8s.api.core.v1.Container.restartPolicy', v)),
    ).toStrictEqual(['dropped', 'maybe-dropped', 'maybe-dropped', 'kept']);
    // pod-level resources: unknown to 1.28, dropped by 1.32, kept by 1.36
    expect(['1.33', '1.35'].map((v) => gatedFieldVerdict('io.k8s.api.core.v1.PodSpec.resources', v))).toStrictEqual([
      'maybe-dropped',
      'maybe-dropped',
    ]);
    expect(fieldsUnknownTo(probe('io.k8s.api.core.v1.PodSpec.resources'), '1.31')).toStrictEqual([
      'spec.template.spec.resources',
    ]);
    const { error, warnings } = synth(
      { min: '1.29', max: '1.31' },
      probe('io.k8s.api.core.v1.Container.restartPolicy'),
    );
    expect(error).toBe('');
    expect(warnings.join('')).toContain(
      'warning: [chart/o] spec.template.spec.initContainers[0].restartPolicy: may be dropped on Kubernetes 1.29, 1.30, 1.31 (not measured: a neighbouring measured version drops it while the SidecarContainers feature gate is off by default)',
    );
  });
});

describeEachApiServerVersion(
  'gated fields on kube-apiserver',
  (plane, version) => {
    test.each(GATED_FIELD_PROBES.map((p) => [`${p.schema}.${p.property}`, p] as const))(
      '%s: the committed verdict is what this version does',
      async (field, p) => {
        const measured = await runProbe(p, (m, at, body) => plane().request(m, at, body));
        expect({ field, verdict: measured }).toStrictEqual({
          field,
          verdict: GATED_FIELD_VERDICTS[version].verdicts[field],
        });
        // where the field is unknown, our OpenAPI data says so too
        expect(fieldsUnknownTo(p.object, version).length > 0).toBe(measured === 'unknown');
      },
    );
  },
  { shared: true },
);
