/**
 * PrometheusRules as rule files, as prometheus-operator writes them (`pkg/prometheus/rules.go`):
 * one file `<namespace>-<name>-<uid>.yaml` per PrometheusRule holding its `groups`, all in one
 * ConfigMap `prometheus-<name>-rulefiles-0` mounted under `/etc/prometheus/rules/`.
 *
 * Caveat: upstream spreads rule files over several ConfigMaps beyond the 1 MiB object limit; this
 * operator writes one and reports a rule set that does not fit (see {@link RULES_CONFIGMAP_LIMIT}).
 */
import { stringify } from 'yaml';
import { InNamespace, PrometheusRule } from './types';

/** Bytes of rule files one ConfigMap may hold (the apiserver refuses objects over 1 MiB; room for metadata). */
export const RULES_CONFIGMAP_LIMIT = 1024 * 1024 - 16 * 1024;

/** The file name of a PrometheusRule. */
export function ruleFileName(rule: InNamespace<PrometheusRule>): string {
  return `${rule.metadata.namespace}-${rule.metadata.name}-${rule.metadata.uid}.yaml`;
}

/** The rule file of a PrometheusRule: its groups, `expr` always a string (the CRD allows int-or-string). */
export function ruleFile(rule: InNamespace<PrometheusRule>): string {
  const groups = (rule.spec.groups ?? []).map((g) => ({
    name: g.name,
    ...(g.interval ? { interval: g.interval } : {}),
    rules: (g.rules ?? []).map((r) => ({
      ...(r.record !== undefined ? { record: r.record } : {}),
      ...(r.alert !== undefined ? { alert: r.alert } : {}),
      expr: String(r.expr),
      ...(r.for !== undefined ? { for: r.for } : {}),
      ...(r.labels ? { labels: { ...r.labels } } : {}),
      ...(r.annotations ? { annotations: { ...r.annotations } } : {}),
    })),
  }));
  return stringify({ groups }, { lineWidth: 0 });
}

/** Every rule file by name. */
export function ruleFiles(rules: readonly InNamespace<PrometheusRule>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rule of [...rules].sort((a, b) => ruleFileName(a).localeCompare(ruleFileName(b)))) {
    out[ruleFileName(rule)] = ruleFile(rule);
  }
  return out;
}
