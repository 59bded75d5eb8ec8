// Entry of `npx cdk8s synth` (see cdk8s.yaml): every app's charts, written to dist/ all-or-nothing,
// in apply order, with API reference pages, checked against the released CRDs in crd-baselines/.
import * as path from 'path';
import { OperatorApp, OutputLayout } from '../lib';
import { FooChart } from './foo/foo-chart';
import { SampleDbChart } from './sampledb/sampledb-chart';

const app = new OperatorApp({
  layout: OutputLayout.APPLY_ORDER,
  docs: true,
  evolution: {
    baselineDir: path.join(__dirname, '..', 'crd-baselines'),
    acknowledge: [{
      change: 'type-changed v1:.spec.restoreFrom',
      reason: 'SampleDB restores from any SampleDB in the namespace: restoreFrom is { sampleDB, backup } (issue 13); a string restoreFrom of 0.1.0 becomes { backup: <string> }',
    }],
  },
});
new SampleDbChart(app, 'sampledb');
new FooChart(app, 'foo');
app.synth();
