/**
 * The Prometheus configuration of one Prometheus object, generated as prometheus-operator's
 * `pkg/prometheus/promcfg.go` generates it for the supported subset:
 *
 * - `global`: `scrape_interval`, `evaluation_interval` and `external_labels` (`prometheus: <ns>/<name>` plus
 *   `spec.externalLabels`). Upstream's `prometheus_replica` label needs its config-reloader's env substitution
 *   and is left out.
 * - `rule_files`: the mounted rule ConfigMap's directory (rules.ts writes one file per PrometheusRule).
 * - `scrape_configs`: per ServiceMonitor endpoint one job `serviceMonitor/<namespace>/<name>/<endpoint index>`
 *   with `kubernetes_sd_configs` role `endpoints` in the monitor's namespaces and upstream's relabelings, in
 *   upstream's order: the job name into `__tmp_prometheus_job_name`; keep the selected Services (one rule per
 *   `matchLabels` key, sorted, and per `matchExpressions` requirement); keep the endpoint's port; `node`/`pod`
 *   from the address target, `namespace`, `service`, `pod`, `container`; drop Failed/Succeeded pods; `job` from
 *   the Service name (so `up{job="<service>"}`); `endpoint` from the port name; then the endpoint's own
 *   `relabelings`. `metricRelabelings` become `metric_relabel_configs`.
 * - `alerting.alertmanagers`: per entry an endpoints discovery in its namespace, keeping the named Service and port.
 *
 * Objects are taken in `namespace/name` order, so the same inputs always give the same bytes (the Secret is
 * not rewritten, and Prometheus not reloaded, when nothing changed).
 */
import { stringify } from 'yaml';
import {
  alertmanagerTargets,
  DiscoverySource,
  monitoredNamespaces,
  serviceMonitorTargets,
  targetsFileName,
} from './discovery';
import { sanitizeLabelName } from './labels';
import {
  AlertmanagerEndpoints,
  Endpoint,
  InNamespace,
  names,
  PATHS,
  Prometheus,
  RelabelConfig,
  ServiceMonitor,
} from './types';

type Yaml = Record<string, unknown>;

export { sanitizeLabelName };

/**
 * How targets are discovered: `kubernetes` writes `kubernetes_sd_configs` exactly as prometheus-operator does
 * (a Prometheus built with Kubernetes discovery); `file` writes `file_sd_configs` filled by the operator
 * (discovery.ts: same labels, for builds without it, such as Debian's).
 */
export type DiscoveryMode = 'kubernetes' | 'file';

/** Options of {@link generateConfig}. */
export interface ConfigOptions {
  /** @default 'kubernetes' */
  readonly discovery?: DiscoveryMode;
  /** Where the targets ConfigMap is mounted (file discovery). @default PATHS.targetsDir */
  readonly targetsDir?: string;
  /** How often file discovery re-reads the files besides reacting to their changes. @default '10s' */
  readonly refreshInterval?: string;
}

/** Upstream `generateRelabelConfig`: the CRD's camelCase fields as Prometheus' snake_case, action lower-cased. */
export function relabelConfigs(configs: readonly RelabelConfig[] | undefined): Yaml[] {
  return (configs ?? []).map((c) => {
    const out: Yaml = {};
    if (c.sourceLabels && c.sourceLabels.length > 0) out.source_labels = [...c.sourceLabels];
    if (c.separator !== undefined) out.separator = c.separator;
    if (c.targetLabel) out.target_label = c.targetLabel;
    if (c.regex) out.regex = c.regex;
    if (c.modulus) out.modulus = c.modulus;
    if (c.replacement !== undefined) out.replacement = c.replacement;
    if (c.action) out.action = c.action.toLowerCase();
    return out;
  });
}

function serviceLabelSources(key: string): string[] {
  return [
    `__meta_kubernetes_service_label_${sanitizeLabelName(key)}`,
    `__meta_kubernetes_service_labelpresent_${sanitizeLabelName(key)}`,
  ];
}

function discoveryOf(jobName: string, namespaces: readonly string[], options: ConfigOptions): Yaml {
  if ((options.discovery ?? 'kubernetes') === 'file') {
    return {
      file_sd_configs: [
        {
          files: [`${options.targetsDir ?? PATHS.targetsDir}/${targetsFileName(jobName)}`],
          refresh_interval: options.refreshInterval ?? '10s',
        },
      ],
    };
  }
  return {
    kubernetes_sd_configs: [
      { role: 'endpoints', ...(namespaces.length ? { namespaces: { names: [...namespaces] } } : {}) },
    ],
  };
}

/** The job name of endpoint `i` of a ServiceMonitor (upstream's). */
export function serviceMonitorJobName(sm: InNamespace<ServiceMonitor>, i: number): string {
  return `serviceMonitor/${sm.metadata.namespace}/${sm.metadata.name}/${i}`;
}

/** The name of the `i`th alertmanagers entry's targets file (file discovery). */
export function alertmanagerJobName(i: number): string {
  return `alertmanager/${i}`;
}

/** The scrape job of endpoint `i` of a ServiceMonitor (upstream `generateServiceMonitorConfig`). */
export function serviceMonitorJob(
  sm: InNamespace<ServiceMonitor>,
  ep: Endpoint,
  i: number,
  options: ConfigOptions = {},
): Yaml {
  const jobName = serviceMonitorJobName(sm, i);
  const job: Yaml = { job_name: jobName, honor_labels: ep.honorLabels ?? false };
  Object.assign(job, discoveryOf(jobName, monitoredNamespaces(sm), options));
  if (ep.interval) job.scrape_interval = ep.interval;
  if (ep.scrapeTimeout) job.scrape_timeout = ep.scrapeTimeout;
  if (ep.path) job.metrics_path = ep.path;
  if (ep.scheme) job.scheme = ep.scheme.toLowerCase();

  const relabelings: Yaml[] = [{ source_labels: ['job'], target_label: '__tmp_prometheus_job_name' }];
  const selector = sm.spec.selector;
  for (const key of Object.keys(selector.matchLabels ?? {}).sort()) {
    relabelings.push({
      action: 'keep',
      source_labels: serviceLabelSources(key),
      regex: `(${(selector.matchLabels ?? {})[key]});true`,
    });
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = (req.values ?? []).join('|');
    switch (req.operator) {
      case 'In':
        relabelings.push({ action: 'keep', source_labels: serviceLabelSources(req.key), regex: `(${values});true` });
        break;
      case 'NotIn':
        relabelings.push({ action: 'drop', source_labels: serviceLabelSources(req.key), regex: `(${values});true` });
        break;
      case 'Exists':
        relabelings.push({
          action: 'keep',
          source_labels: [`__meta_kubernetes_service_labelpresent_${sanitizeLabelName(req.key)}`],
          regex: 'true',
        });
        break;
      case 'DoesNotExist':
        relabelings.push({
          action: 'drop',
          source_labels: [`__meta_kubernetes_service_labelpresent_${sanitizeLabelName(req.key)}`],
          regex: 'true',
        });
        break;
    }
  }
  if (ep.port) {
    relabelings.push({ action: 'keep', source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: ep.port });
  }
  const target = ['__meta_kubernetes_endpoint_address_target_kind', '__meta_kubernetes_endpoint_address_target_name'];
  relabelings.push(
    { source_labels: target, separator: ';', regex: 'Node;(.*)', replacement: '${1}', target_label: 'node' },
    { source_labels: target, separator: ';', regex: 'Pod;(.*)', replacement: '${1}', target_label: 'pod' },
    { source_labels: ['__meta_kubernetes_namespace'], target_label: 'namespace' },
    { source_labels: ['__meta_kubernetes_service_name'], target_label: 'service' },
    { source_labels: ['__meta_kubernetes_pod_name'], target_label: 'pod' },
    { source_labels: ['__meta_kubernetes_pod_container_name'], target_label: 'container' },
    { action: 'drop', source_labels: ['__meta_kubernetes_pod_phase'], regex: '(Failed|Succeeded)' },
    // By default the job is the Service's name: what `up{job="<service>"}` in an alert relies on.
    { source_labels: ['__meta_kubernetes_service_name'], target_label: 'job', replacement: '${1}' },
  );
  if (ep.port) relabelings.push({ target_label: 'endpoint', replacement: ep.port });
  relabelings.push(...relabelConfigs(ep.relabelings));
  job.relabel_configs = relabelings;
  const metricRelabelings = relabelConfigs(ep.metricRelabelings);
  if (metricRelabelings.length > 0) job.metric_relabel_configs = metricRelabelings;
  return job;
}

/** One `alerting.alertmanagers` entry (upstream `generateAlertmanagerConfig`). */
export function alertmanagerEndpoints(
  am: AlertmanagerEndpoints,
  i: number,
  defaultNamespace: string,
  options: ConfigOptions = {},
): Yaml {
  const out: Yaml = {};
  if (am.scheme) out.scheme = am.scheme;
  if (am.pathPrefix) out.path_prefix = am.pathPrefix;
  if (am.timeout) out.timeout = am.timeout;
  Object.assign(out, discoveryOf(alertmanagerJobName(i), [am.namespace ?? defaultNamespace], options));
  if (am.apiVersion) out.api_version = am.apiVersion.toLowerCase();
  const relabelings: Yaml[] = [{ action: 'keep', source_labels: ['__meta_kubernetes_service_name'], regex: am.name }];
  if (typeof am.port === 'string') {
    relabelings.push({ action: 'keep', source_labels: ['__meta_kubernetes_endpoint_port_name'], regex: am.port });
  } else {
    relabelings.push({
      action: 'keep',
      source_labels: ['__meta_kubernetes_pod_container_port_number'],
      regex: String(am.port),
    });
  }
  out.relabel_configs = relabelings;
  return out;
}

/** The configuration as a YAML document. */
export function generateConfig(
  prometheus: InNamespace<Prometheus>,
  serviceMonitors: readonly InNamespace<ServiceMonitor>[],
  options: ConfigOptions = {},
): string {
  const spec = prometheus.spec;
  const { namespace, name } = prometheus.metadata;
  const config: Yaml = {
    global: {
      evaluation_interval: spec.evaluationInterval ?? '30s',
      scrape_interval: spec.scrapeInterval ?? '30s',
      external_labels: { prometheus: `${namespace}/${name}`, ...(spec.externalLabels ?? {}) },
    },
    rule_files: [`${PATHS.rulesDir}/${names.prometheusRulesConfigMap(name)}/*.yaml`],
    scrape_configs: sortByKey(serviceMonitors).flatMap((sm) =>
      (sm.spec.endpoints ?? []).map((ep, i) => serviceMonitorJob(sm, ep, i, options)),
    ),
  };
  const alertmanagers = spec.alerting?.alertmanagers ?? [];
  if (alertmanagers.length > 0) {
    config.alerting = { alertmanagers: alertmanagers.map((am, i) => alertmanagerEndpoints(am, i, namespace, options)) };
  }
  return stringify(config, { lineWidth: 0 });
}

function sortByKey<T extends { metadata: { namespace: string; name: string } }>(objs: readonly T[]): T[] {
  return [...objs].sort((a, b) =>
    `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
  );
}

/** The file discovery targets of every job, by file name (the targets ConfigMap's data). */
export function generateTargets(
  prometheus: InNamespace<Prometheus>,
  serviceMonitors: readonly InNamespace<ServiceMonitor>[],
  source: DiscoverySource,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const sm of sortByKey(serviceMonitors)) {
    (sm.spec.endpoints ?? []).forEach((ep, i) => {
      out[targetsFileName(serviceMonitorJobName(sm, i))] = JSON.stringify(serviceMonitorTargets(source, sm, ep));
    });
  }
  (prometheus.spec.alerting?.alertmanagers ?? []).forEach((am, i) => {
    out[targetsFileName(alertmanagerJobName(i))] = JSON.stringify(
      alertmanagerTargets(source, am, prometheus.metadata.namespace),
    );
  });
  return out;
}
