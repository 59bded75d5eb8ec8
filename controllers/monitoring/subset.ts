/**
 * The supported subset of each kind, as data (README.md documents the same list field by field):
 * {@link unsupportedFields} names every field an object sets outside it, so the reconciler can say
 * so in a condition instead of silently ignoring what was asked.
 *
 * A field the apiserver defaults (upstream's CRDs default `portName: web`, `shards: 1`,
 * `scrapeInterval: 30s`, ...) is supported at its default value: every stored object carries it.
 */

/** What may appear at one place of a spec. */
export type Allowed =
  | { readonly any: true } // anything below (e.g. a label selector, a relabeling)
  | { readonly only: unknown } // only this value (a server default we do not change)
  | { readonly fields: Readonly<Record<string, Allowed>> } // an object with these fields
  | { readonly items: Allowed }; // a list of these

const ANY: Allowed = { any: true };
const only = (value: unknown): Allowed => ({ only: value });
const fields = (f: Record<string, Allowed>): Allowed => ({ fields: f });
const items = (of: Allowed): Allowed => ({ items: of });

/** ServiceMonitor `spec`. */
export const SERVICEMONITOR_SUBSET = fields({
  selector: fields({ matchLabels: ANY, matchExpressions: ANY }),
  namespaceSelector: fields({ any: ANY, matchNames: ANY }),
  endpoints: items(
    fields({
      port: ANY,
      path: ANY,
      interval: ANY,
      scrapeTimeout: ANY,
      scheme: ANY,
      honorLabels: ANY,
      relabelings: ANY,
      metricRelabelings: ANY,
    }),
  ),
});

/** PrometheusRule `spec`. */
export const PROMETHEUSRULE_SUBSET = fields({
  groups: items(
    fields({
      name: ANY,
      interval: ANY,
      rules: items(fields({ alert: ANY, record: ANY, expr: ANY, for: ANY, labels: ANY, annotations: ANY })),
    }),
  ),
});

/** Prometheus `spec`. */
export const PROMETHEUS_SUBSET = fields({
  replicas: ANY,
  version: ANY,
  image: ANY,
  serviceAccountName: ANY,
  serviceMonitorSelector: ANY,
  serviceMonitorNamespaceSelector: ANY,
  ruleSelector: ANY,
  ruleNamespaceSelector: ANY,
  retention: ANY,
  resources: fields({ requests: ANY, limits: ANY }),
  alerting: fields({
    alertmanagers: items(
      fields({ name: ANY, namespace: ANY, port: ANY, scheme: ANY, pathPrefix: ANY, apiVersion: ANY, timeout: ANY }),
    ),
  }),
  externalLabels: ANY,
  scrapeInterval: ANY,
  evaluationInterval: ANY,
  portName: only('web'),
  shards: only(1),
});

/** Alertmanager `spec`. */
export const ALERTMANAGER_SUBSET = fields({
  replicas: ANY,
  version: ANY,
  image: ANY,
  configSecret: ANY,
  resources: fields({ requests: ANY, limits: ANY }),
  portName: only('web'),
  retention: only('120h'),
});

/** Paths (from `path`) of every field in `value` outside `allowed`, with the value found where it is a scalar. */
export function unsupportedFields(value: unknown, allowed: Allowed, path = 'spec'): string[] {
  if (value === undefined || value === null) return [];
  if ('any' in allowed) return [];
  if ('only' in allowed) {
    return JSON.stringify(value) === JSON.stringify(allowed.only)
      ? []
      : [`${path} (${JSON.stringify(value)}; only ${JSON.stringify(allowed.only)} is supported)`];
  }
  if ('items' in allowed) {
    return Array.isArray(value)
      ? value.flatMap((v, i) => unsupportedFields(v, allowed.items, `${path}[${i}]`))
      : [path];
  }
  if (typeof value !== 'object' || Array.isArray(value)) return [path];
  return Object.entries(value).flatMap(([k, v]) => {
    const inner = allowed.fields[k];
    return inner ? unsupportedFields(v, inner, `${path}.${k}`) : [`${path}.${k}`];
  });
}
