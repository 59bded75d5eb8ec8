// Entry of `npx cdk8s synth` (see cdk8s.yaml): every app's charts, written to dist/ all-or-nothing,
// in apply order, with API reference pages, checked against the released CRDs in crd-baselines/.
import { OperatorApp, OutputLayout } from '../lib';
import { DEMO_EVOLUTION } from './evolution';
import { FooChart } from './foo/foo-chart';
import { SampleDbChart } from './sampledb/sampledb-chart';

const app = new OperatorApp({
  layout: OutputLayout.APPLY_ORDER,
  docs: true,
  evolution: DEMO_EVOLUTION,
});
new SampleDbChart(app, 'sampledb');
new FooChart(app, 'foo');
app.synth();
