// Entry of `npx cdk8s synth` (see cdk8s.yaml): every app's charts, written to dist/ all-or-nothing.
import { OperatorApp, OutputLayout } from '../lib';
import { FooChart } from './foo/foo-chart';
import { SampleDbChart } from './sampledb/sampledb-chart';

const app = new OperatorApp({ layout: OutputLayout.APPLY_ORDER });
new SampleDbChart(app, 'sampledb');
new FooChart(app, 'foo');
app.synth();
