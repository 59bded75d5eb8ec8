// Entry of `npx cdk8s synth` (see cdk8s.yaml): every app's charts, written to dist/ all-or-nothing,
// in apply order, with API reference pages, checked against the released CRDs in crd-baselines/.
import { OperatorApp, OutputLayout } from '../lib';
import { DEMO_EVOLUTION } from './evolution';
import { FooChart } from './foo/foo-chart';
import { DEMO_MONITORING_LABELS, MonitoringChart } from './monitoring/monitoring-chart';
import { SampleDbChart } from './sampledb/sampledb-chart';

const app = new OperatorApp({
  layout: OutputLayout.APPLY_ORDER,
  docs: true,
  evolution: DEMO_EVOLUTION,
});
// The monitoring stack scrapes both operators: their ServiceMonitors, PrometheusRules and namespaces carry its label.
new SampleDbChart(app, 'sampledb', { monitoringLabels: DEMO_MONITORING_LABELS });
new FooChart(app, 'foo', { monitoringLabels: DEMO_MONITORING_LABELS });
new MonitoringChart(app, 'monitoring');
app.synth();
