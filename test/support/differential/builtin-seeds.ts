import { App, Chart } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { BuiltinSeed } from './builtin-run';
import { CATALOGUE } from './builtin-seed-catalogue';
import { FooChart } from '../../../apps/foo/foo-chart';
import { DEMO_MONITORING_LABELS, MonitoringChart } from '../../../apps/monitoring/monitoring-chart';
import { SampleDbChart } from '../../../apps/sampledb/sampledb-chart';
import { BATCH_CASES } from '../../apiserver/builtin-validation/batch-cases';
import { plusWorkloads } from '../../apiserver/builtin-validation/pod-spec-plus';
import { WORKLOAD_CASES } from '../../apiserver/builtin-validation/workloads-cases';

/**
 * Built-in objects as this repository's users write them: every object of the demo's three operator charts (the
 * Deployments, Services, RBAC, webhook configurations, admission policies, PDB, NetworkPolicies, Secrets and
 * namespaces `npx cdk8s synth` writes), what cdk8s-plus-28 writes for workloads, networking and autoscaling, a
 * catalogue of one valid object of each other kind synth checks (builtin-seed-catalogue.ts), and the workload and
 * batch differential suites' cases. Custom resources and CRDs are among them, and most of those cases are refused as
 * they are: a run leaves out what the apiserver does not serve or accept unmutated.
 */
export function builtinSeeds(): BuiltinSeed[] {
  const app = new App();
  const demo = [
    new SampleDbChart(app, 'sampledb', { monitoringLabels: DEMO_MONITORING_LABELS }),
    new FooChart(app, 'foo', { monitoringLabels: DEMO_MONITORING_LABELS }),
    new MonitoringChart(app, 'monitoring'),
  ].flatMap((chart) => chart.toJson());
  const cases = [...WORKLOAD_CASES, ...BATCH_CASES].map(([, o]) => o);
  const objects = [...demo, ...plusWorkloads(), ...plusNetworking(), ...CATALOGUE, ...cases].filter(
    (o) => o.kind !== 'CustomResourceDefinition',
  );
  return objects.map((object, i) => ({ name: `${object.kind}/${object.metadata?.name ?? i}`, object }));
}

/** A Service, an Ingress, a NetworkPolicy, an HPA and a PDB as cdk8s-plus-28 writes them. */
function plusNetworking(): any[] {
  const chart = new Chart(new App(), 'n');
  const d = new kplus.Deployment(chart, 'web', { containers: [{ image: 'nginx', portNumber: 8080 }] });
  const service = d.exposeViaService({ ports: [{ port: 80, targetPort: 8080, name: 'http' }] });
  new kplus.Ingress(chart, 'ing', {
    rules: [{ host: 'example.com', path: '/', backend: kplus.IngressBackend.fromService(service) }],
  });
  new kplus.NetworkPolicy(chart, 'np', { selector: d }).addIngressRule(
    kplus.Pods.select(chart, 'peers', { labels: { role: 'client' } }),
    [kplus.NetworkPolicyPort.tcp(8080)],
  );
  new kplus.HorizontalPodAutoscaler(chart, 'hpa', {
    target: d,
    maxReplicas: 5,
    metrics: [kplus.Metric.resourceCpu(kplus.MetricTarget.averageUtilization(80))],
  });
  return chart.toJson().filter((o: any) => o.kind !== 'Deployment');
}
