import { validateCustomResource } from '../../lib/apiserver/value-validation/custom-resource';
import { reachesNewerChecks } from '../../lib/apiserver/value-validation/newer-checks';
import { casesFor, loadCorpusCrds, REALWORLD_CORPUS } from '../support/differential/corpus';

/**
 * Synth checks an example custom resource on 1.36 as well only where it reaches a check 1.36 changed
 * (`reachesNewerChecks`). On the generated corpus (valid instances and single mutations over the real-world CRDs):
 * wherever the scan says no, 1.35 and 1.36 find issues in the same resources.
 */
const describeIfCorpus = REALWORLD_CORPUS ? describe : describe.skip;

describeIfCorpus('reachesNewerChecks on the generated corpus', () => {
  test('where it says no, 1.35 and 1.36 agree on whether the resource has issues', () => {
    const cases = loadCorpusCrds().flatMap((crd) => casesFor(crd, { seed: 3, perCrd: 1 }));
    let skipped = 0;
    let differing = 0;
    const wrong: string[] = [];
    for (const c of cases) {
      const version = c.crd.manifest.spec.versions.find((v) => v.name === c.version)!;
      const def = { scope: c.crd.manifest.spec.scope, kind: c.crd.manifest.spec.names.kind, version };
      const clean = (v: '1.35' | '1.36') =>
        validateCustomResource(def, c.object, { kubernetesVersion: v }).issues.length === 0;
      const same = clean('1.35') === clean('1.36');
      if (reachesNewerChecks(version.schema?.openAPIV3Schema, c.object)) {
        if (!same) differing++;
      } else {
        skipped++;
        if (!same) wrong.push(c.id);
      }
    }
    expect(wrong).toStrictEqual([]);
    // the scan spares most resources a second check, and is needed for some
    expect(skipped).toBeGreaterThan(cases.length / 4);
    expect(differing).toBeGreaterThan(0);
  }, 600_000);
});
