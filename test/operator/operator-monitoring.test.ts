import * as fs from 'fs';
import * as path from 'path';
import Ajv from 'ajv';
import { Chart, Testing } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import * as YAML from 'yaml';
import { PrometheusRule, PrometheusRuleSpecGroupsRulesExpr } from '../../imports/prometheusrule-monitoring.coreos.com';
import { ServiceMonitor, ServiceMonitorSpecEndpointsScheme } from '../../imports/servicemonitor-monitoring.coreos.com';
import { OperatorMonitoring, OperatorMonitoringOptions } from '../../lib';

const VENDOR = path.join(__dirname, '..', '..', 'vendor', 'crds');

function schemaOf(file: string) {
  const crd = YAML.parse(fs.readFileSync(path.join(VENDOR, file), 'utf8'));
  return crd.spec.versions.find((v: any) => v.storage).schema.openAPIV3Schema;
}

function synth(opts: OperatorMonitoringOptions = {}) {
  const chart = new Chart(Testing.app(), 'test');
  const service = new kplus.Service(chart, 'svc', {
    metadata: { name: 'op-metrics', namespace: 'op-system', labels: { 'app.kubernetes.io/name': 'op' } },
    ports: [{ name: 'metrics', port: 8080 }],
  });
  new OperatorMonitoring(chart, 'mon', { name: 'op', namespace: 'op-system', metricsService: service, ...opts });
  const out = Testing.synth(chart);
  return {
    serviceMonitor: out.find((o) => o.kind === 'ServiceMonitor'),
    prometheusRule: out.find((o) => o.kind === 'PrometheusRule'),
  };
}

describe('OperatorMonitoring', () => {
  // The vendored CRD schemas are the contract; x-kubernetes-* keywords are ignored by ajv in non-strict mode.
  // Go's `(?i)` (used by prometheus-operator's patterns, e.g. `^(?i)(abort|warn)?$`) becomes JavaScript's `i` flag.
  const goRegExp = (pattern: string, flags: string) =>
    pattern.includes('(?i)') ? new RegExp(pattern.replace('(?i)', ''), `${flags}i`) : new RegExp(pattern, flags);
  goRegExp.code = 'goRegExp';
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false, code: { regExp: goRegExp as any } });

  test('the ServiceMonitor validates against the vendored CRD schema and selects the metrics Service', () => {
    const { serviceMonitor } = synth({ labels: { release: 'prom' }, interval: '15s' });
    const validate = ajv.compile(schemaOf('monitoring.coreos.com_servicemonitors.yaml'));
    expect(validate(serviceMonitor) ? [] : validate.errors).toStrictEqual([]);
    expect(serviceMonitor.metadata.labels).toStrictEqual({ release: 'prom' });
    expect(serviceMonitor.spec.selector).toStrictEqual({ matchLabels: { 'app.kubernetes.io/name': 'op' } });
    expect(serviceMonitor.spec.endpoints).toStrictEqual([
      { port: 'metrics', path: '/metrics', interval: '15s', scheme: 'http', honorLabels: true },
    ]);
  });

  test('the PrometheusRule validates against the vendored CRD schema and alerts on controller-runtime metrics', () => {
    const { prometheusRule } = synth();
    const validate = ajv.compile(schemaOf('monitoring.coreos.com_prometheusrules.yaml'));
    expect(validate(prometheusRule) ? [] : validate.errors).toStrictEqual([]);
    const rules = prometheusRule.spec.groups[0].rules;
    expect(rules.map((r: any) => r.alert)).toStrictEqual(['OpDown', 'OpReconcileErrors', 'OpWorkQueueBacklog']);
    expect(rules[1].expr).toBe(
      'sum(rate(controller_runtime_reconcile_errors_total{job="op-metrics",namespace="op-system"}[5m])) > 0',
    );
  });

  test('renders what the generated imports/ types render for the same spec', () => {
    const { serviceMonitor, prometheusRule } = synth();
    const chart = new Chart(Testing.app(), 'typed');
    new ServiceMonitor(chart, 'sm', {
      metadata: { name: 'op', namespace: 'op-system', labels: {} },
      spec: {
        endpoints: [
          {
            port: 'metrics',
            path: '/metrics',
            interval: '30s',
            scheme: ServiceMonitorSpecEndpointsScheme.HTTP,
            honorLabels: true,
          },
        ],
        namespaceSelector: { matchNames: ['op-system'] },
        selector: { matchLabels: { 'app.kubernetes.io/name': 'op' } },
      },
    });
    new PrometheusRule(chart, 'pr', {
      metadata: { name: 'op', namespace: 'op-system', labels: {} },
      spec: {
        groups: [
          {
            name: 'op.rules',
            rules: prometheusRule.spec.groups[0].rules.map((r: any) => ({
              ...r,
              expr: PrometheusRuleSpecGroupsRulesExpr.fromString(r.expr),
            })),
          },
        ],
      },
    });
    const [typedSm, typedPr] = Testing.synth(chart);
    expect(serviceMonitor).toStrictEqual(typedSm);
    expect(prometheusRule).toStrictEqual(typedPr);
  });

  test('no default alerts and none given: no PrometheusRule', () => {
    expect(synth({ defaultAlerts: false }).prometheusRule).toBeUndefined();
  });

  test('fails for a bad interval or a duplicate alert name', () => {
    expect(() => synth({ interval: '30 seconds' })).toThrow(
      /\[test\/mon\] interval: must be a Prometheus duration like '30s', got '30 seconds'/,
    );
    expect(() => synth({ alerts: [{ alert: 'OpDown', expr: 'up == 0' }] })).toThrow(
      /\[test\/mon\] alerts\[3\]\.alert: duplicate alert name 'OpDown'/,
    );
  });
});
