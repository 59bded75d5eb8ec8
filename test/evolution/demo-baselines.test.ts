import * as path from 'path';
import { Chart } from 'cdk8s';
import { defineCrds } from '../../apps/crds';
import { DEMO_EVOLUTION } from '../../apps/evolution';
import { CrdBaselines, OperatorApp } from '../../lib';

const BASELINES = path.join(__dirname, '..', '..', 'crd-baselines');

// The demo apps' CRDs against their committed baselines (crd-baselines/, written by apps/write-crd-baselines.ts
// when releasing): a breaking change fails here until it is acknowledged in code or a release rewrites the baselines.
test('every demo CRD has a baseline and evolves from it without unacknowledged breaking changes', () => {
  const app = new OperatorApp({
    outdir: path.join(__dirname, 'unused'),
    evolution: { ...DEMO_EVOLUTION, requireBaseline: true },
  });
  const crds = defineCrds(new Chart(app, 'apps'));
  expect(app.node.validate()).toStrictEqual([]);
  expect(app.evolutionResults.map((e) => e.crd).sort()).toStrictEqual(
    crds.map((c) => c.toManifest().metadata.name).sort(),
  );
  expect(crds.every((c) => new CrdBaselines(BASELINES).read(c.toManifest().metadata.name) !== undefined)).toBe(true);
});
