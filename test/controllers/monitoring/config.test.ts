/**
 * The generated Prometheus configuration and rule files, from the demo's own objects (the SampleDB, Foo and
 * monitoring operators' ServiceMonitors and PrometheusRules, the demo Prometheus), checked by the real
 * promtool (Debian's prometheus 2.42.0, installed through apt when missing) and compared with what
 * prometheus-operator generates.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import { parse } from 'yaml';
import { FooChart } from '../../../apps/foo/foo-chart';
import { DEMO_MONITORING_LABELS, MonitoringChart } from '../../../apps/monitoring/monitoring-chart';
import { SampleDbChart } from '../../../apps/sampledb/sampledb-chart';
import { alertmanagerService } from '../../../controllers/monitoring/children';
import { DiscoverySource } from '../../../controllers/monitoring/discovery';
import { generateConfig, generateTargets } from '../../../controllers/monitoring/promcfg';
import { ruleFileName, ruleFiles } from '../../../controllers/monitoring/rules';
import {
  Alertmanager,
  Endpoints,
  InNamespace,
  Prometheus,
  PrometheusRule,
  Service,
  ServiceMonitor,
} from '../../../controllers/monitoring/types';
import { KubeObject, Store } from '../../../runtime';
import { runPromtool } from '../../support/promtool';

/** A synthesized manifest as the apiserver would store it (uid, resourceVersion). */
function stored<T>(m: any, i: number): T {
  return {
    ...m,
    metadata: { ...m.metadata, uid: `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`, resourceVersion: '1' },
  } as T;
}

const app = Testing.app();
const manifests = [
  ...Testing.synth(new SampleDbChart(app, 'sampledb', { monitoringLabels: DEMO_MONITORING_LABELS })),
  ...Testing.synth(new FooChart(app, 'foo', { monitoringLabels: DEMO_MONITORING_LABELS })),
  ...Testing.synth(new MonitoringChart(app, 'monitoring')),
];
const monitors = manifests
  .filter((m) => m.kind === 'ServiceMonitor')
  .map((m, i) => stored<InNamespace<ServiceMonitor>>(m, i));
const rules = manifests
  .filter((m) => m.kind === 'PrometheusRule')
  .map((m, i) => stored<InNamespace<PrometheusRule>>(m, 100 + i));
const prometheus = stored<InNamespace<Prometheus>>(
  manifests.find((m) => m.kind === 'Prometheus'),
  200,
);

/** A read-only store over fixed objects. */
function storeOf<T extends KubeObject>(objs: any[]): Store<T> {
  const key = (r: any) => (typeof r === 'string' ? r : `${r.namespace ?? ''}/${r.name}`);
  const byKey = new Map(objs.map((o) => [`${o.metadata.namespace ?? ''}/${o.metadata.name}`, o]));
  return {
    get: (r: any) => byKey.get(key(r)),
    list: (ns?: string) => objs.filter((o) => ns === undefined || o.metadata.namespace === ns),
    byIndex: () => [],
    waitForResourceVersion: async () => true,
  } as unknown as Store<T>;
}

// The demo's Services and the Alertmanager's (the operator makes it), each with one ready pod address on its
// ports (as the endpoints controller would list them).
const alertmanager = stored<InNamespace<Alertmanager>>(
  manifests.find((m) => m.kind === 'Alertmanager'),
  300,
);
const services: any[] = [...manifests.filter((m) => m.kind === 'Service'), alertmanagerService(alertmanager)];
const endpoints = services.map((svc, i) => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: svc.metadata.name, namespace: svc.metadata.namespace },
  subsets: [
    {
      addresses: [
        {
          ip: `10.244.0.${10 + i}`,
          nodeName: 'acc-node',
          targetRef: { kind: 'Pod', name: `${svc.metadata.name}-pod` },
        },
      ],
      ports: svc.spec.ports.map((p: any) => ({
        name: p.name,
        port: typeof p.targetPort === 'number' ? p.targetPort : p.port,
        protocol: 'TCP',
      })),
    },
  ],
}));
const source: DiscoverySource = {
  services: storeOf<Service>(services),
  endpoints: storeOf<Endpoints>(endpoints),
  namespaceNames: () => [...new Set(services.map((s) => s.metadata.namespace))].sort(),
};

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'promcfg-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the demo Prometheus configuration', () => {
  test("the demo has the three operators' ServiceMonitors and PrometheusRules", () => {
    expect(monitors.map((m) => `${m.metadata.namespace}/${m.metadata.name}`).sort()).toStrictEqual([
      'foo-controller-system/foo-controller',
      'monitoring-operator-system/monitoring-operator',
      'sampledb-operator-system/sampledb-operator',
    ]);
    expect(rules).toHaveLength(3);
  });

  test('promtool check config accepts it with the file discovery targets (the targets files are checked too)', () => {
    const targetsDir = path.join(dir, 'targets');
    fs.mkdirSync(targetsDir);
    const targets = generateTargets(prometheus, monitors, source);
    expect(Object.keys(targets).sort()).toStrictEqual([
      'alertmanager_0.json',
      'serviceMonitor_foo-controller-system_foo-controller_0.json',
      'serviceMonitor_monitoring-operator-system_monitoring-operator_0.json',
      'serviceMonitor_sampledb-operator-system_sampledb-operator_0.json',
    ]);
    for (const [name, content] of Object.entries(targets)) fs.writeFileSync(path.join(targetsDir, name), content);
    const file = path.join(dir, 'prometheus.yaml');
    fs.writeFileSync(file, generateConfig(prometheus, monitors, { discovery: 'file', targetsDir }));
    const r = runPromtool('check', 'config', file);
    expect(r).toMatchObject({ status: 0 });
    expect(r.output).toContain('SUCCESS');
    expect(r.output).not.toContain('WARNING'); // every targets file exists and parses
    // the SampleDB operator's metrics Service: one target with the labels Kubernetes discovery would give it (like
    // Kubernetes discovery, every port of every selected Service is listed; the `keep` on the port name picks `metrics`)
    const sampledbGroups: any[] = JSON.parse(
      targets['serviceMonitor_sampledb-operator-system_sampledb-operator_0.json'],
    );
    expect(sampledbGroups.filter((g) => g.labels.__meta_kubernetes_endpoint_port_name === 'metrics')).toStrictEqual([
      {
        targets: [expect.stringMatching(/^10\.244\.0\.\d+:8080$/)],
        labels: expect.objectContaining({
          __meta_kubernetes_namespace: 'sampledb-operator-system',
          __meta_kubernetes_service_name: 'sampledb-operator-metrics',
          __meta_kubernetes_service_label_app_kubernetes_io_name: 'sampledb-operator',
          __meta_kubernetes_service_labelpresent_app_kubernetes_io_name: 'true',
          __meta_kubernetes_endpoint_port_name: 'metrics',
          __meta_kubernetes_endpoint_ready: 'true',
          __meta_kubernetes_endpoint_address_target_kind: 'Pod',
          __meta_kubernetes_pod_name: 'sampledb-operator-metrics-pod',
        }),
      },
    ]);
    expect(JSON.parse(targets['alertmanager_0.json'])).toStrictEqual([
      {
        targets: [expect.stringMatching(/:9093$/)],
        labels: expect.objectContaining({
          __meta_kubernetes_service_name: 'alertmanager-main',
          __meta_kubernetes_endpoint_port_name: 'web',
        }),
      },
    ]);
  });

  test("Debian's promtool has no Kubernetes discovery: it refuses upstream's kubernetes_sd_configs (why the demo uses file discovery)", () => {
    const file = path.join(dir, 'prometheus-kubernetes-sd.yaml');
    fs.writeFileSync(file, generateConfig(prometheus, monitors, { discovery: 'kubernetes' }));
    const r = runPromtool('check', 'config', file);
    expect(r.status).not.toBe(0);
    expect(r.output).toContain('field kubernetes_sd_configs not found');
  });

  test('promtool check rules accepts every rule file', () => {
    const files = ruleFiles(rules);
    expect(Object.keys(files)).toHaveLength(3);
    for (const [name, content] of Object.entries(files)) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, content);
      const r = runPromtool('check', 'rules', file);
      expect({ name, status: r.status, output: r.output }).toMatchObject({ name, status: 0 });
      expect(r.output).toMatch(/SUCCESS: \d+ rules found/);
    }
  });

  test('promtool is a real check: it refuses a broken rule and a broken relabeling', () => {
    const broken = { ...rules[0], spec: { groups: [{ name: 'g', rules: [{ alert: 'A', expr: 'sum(up' }] }] } };
    const ruleFile = path.join(dir, 'broken-rule.yaml');
    fs.writeFileSync(ruleFile, ruleFiles([broken])[ruleFileName(broken)]);
    expect(runPromtool('check', 'rules', ruleFile).status).not.toBe(0);
    const badMonitor = {
      ...monitors[0],
      spec: { ...monitors[0].spec, endpoints: [{ port: 'metrics', relabelings: [{ action: 'Replace', regex: '(' }] }] },
    };
    const configFile = path.join(dir, 'broken-config.yaml');
    fs.writeFileSync(configFile, generateConfig(prometheus, [badMonitor], { discovery: 'file' }));
    expect(runPromtool('check', 'config', configFile).status).not.toBe(0);
  });

  test('jobs are named and relabelled as prometheus-operator does (kubernetes discovery): job = the Service name', () => {
    const config = parse(generateConfig(prometheus, monitors));
    expect(config.global).toStrictEqual({
      evaluation_interval: '15s',
      scrape_interval: '15s',
      external_labels: { prometheus: 'monitoring/main', cluster: 'demo' },
    });
    expect(config.rule_files).toStrictEqual(['/etc/prometheus/rules/prometheus-main-rulefiles-0/*.yaml']);
    expect(config.scrape_configs.map((j: any) => j.job_name)).toStrictEqual([
      'serviceMonitor/foo-controller-system/foo-controller/0',
      'serviceMonitor/monitoring-operator-system/monitoring-operator/0',
      'serviceMonitor/sampledb-operator-system/sampledb-operator/0',
    ]);
    const sampledb = config.scrape_configs[2];
    expect(sampledb.kubernetes_sd_configs).toStrictEqual([
      { role: 'endpoints', namespaces: { names: ['sampledb-operator-system'] } },
    ]);
    // upstream's relabelings in upstream's order (pkg/prometheus/promcfg.go generateServiceMonitorConfig)
    expect(sampledb.relabel_configs).toStrictEqual([
      { source_labels: ['job'], target_label: '__tmp_prometheus_job_name' },
      {
        action: 'keep',
        source_labels: [
          '__meta_kubernetes_service_label_app_kubernetes_io_component',
          '__meta_kubernetes_service_labelpresent_app_kubernetes_io_component',
        ],
        regex: '(controller);true',
      },
      {
        action: 'keep',
        source_labels: [
          '__meta_kubernetes_service_label_app_kubernetes_io_instance',
          '__meta_kubernetes_service_labelpresent_app_kubernetes_io_instance',
        ],
        regex: '(sampledb-operator);true',
      },
      {
        action: 'keep',
        source_labels: [
          '__meta_kubernetes_service_label_app_kubernetes_io_managed_by',
          '__meta_kubernetes_service_labelpresent_app_kubernetes_io_managed_by',
        ],
        regex: '(cdk8s-operator);true',
      },
      {
        action: 'keep',
        source_labels: [
          '__meta_kubernetes_service_label_app_kubernetes_io_name',
          '__meta_kubernetes_service_labelpresent_app_kubernetes_io_name',
        ],
        regex: '(sampledb-operator);true',
      },
      { action: 'keep', source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: 'metrics' },
      {
        source_labels: [
          '__meta_kubernetes_endpoint_address_target_kind',
          '__meta_kubernetes_endpoint_address_target_name',
        ],
        separator: ';',
        regex: 'Node;(.*)',
        replacement: '${1}',
        target_label: 'node',
      },
      {
        source_labels: [
          '__meta_kubernetes_endpoint_address_target_kind',
          '__meta_kubernetes_endpoint_address_target_name',
        ],
        separator: ';',
        regex: 'Pod;(.*)',
        replacement: '${1}',
        target_label: 'pod',
      },
      { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
      { source_labels: ['__meta_kubernetes_service_name'], target_label: 'service' },
      { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
      { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
      { action: 'drop', source_labels: ['__meta_kubernetes_pod_phase'], regex: '(Failed|Succeeded)' },
      { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job', replacement: '${1}' },
      { target_label: 'endpoint', replacement: 'metrics' },
    ]);
    expect(sampledb).toMatchObject({
      scrape_interval: '30s',
      metrics_path: '/metrics',
      scheme: 'http',
      honor_labels: true,
    });
    expect(config.alerting.alertmanagers).toStrictEqual([
      {
        kubernetes_sd_configs: [{ role: 'endpoints', namespaces: { names: ['monitoring'] } }],
        api_version: 'v2',
        relabel_configs: [
          { action: 'keep', source_labels: ['__meta_kubernetes_service_name'], regex: 'alertmanager-main' },
          { action: 'keep', source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: 'web' },
        ],
      },
    ]);
  });

  test('the same inputs give the same bytes, in any order (no Secret rewrite, no reload, when nothing changed)', () => {
    expect(generateConfig(prometheus, [...monitors].reverse())).toBe(generateConfig(prometheus, monitors));
    expect(generateTargets(prometheus, [...monitors].reverse(), source)).toStrictEqual(
      generateTargets(prometheus, monitors, source),
    );
    expect(JSON.stringify(ruleFiles([...rules].reverse()))).toBe(JSON.stringify(ruleFiles(rules)));
  });
});
