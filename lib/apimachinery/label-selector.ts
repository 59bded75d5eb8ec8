import { forbidden, required } from './field';
import { fieldValue } from './field-value';
import { Issue } from './issue';
import { KubernetesVersion } from './kubernetes-versions';
import { isQualifiedName, isValidLabelValue } from './names';

/*
 * metav1 validation's ValidateLabels and ValidateLabelSelector as the apiserver applies them on create (label values
 * in selectors must be valid: AllowInvalidLabelValueInSelector is for updates of old objects only). One check for
 * every selector synth meets: the built-in objects' (workloads, Jobs, PodDisruptionBudgets, NetworkPolicies,
 * webhooks, ClusterRole aggregation, claims, pod affinity) and the admission policies' match resources and params.
 */

/** ValidateLabels: each key a qualified name, each value a label value, all at `path`. @internal */
export function labelMapIssues(labels: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(labels)) return [];
  return Object.entries(labels).flatMap(([k, v]) => [
    ...invalid(path, k, isQualifiedName(k, version), version),
    ...(typeof v === 'string' ? invalid(path, v, isValidLabelValue(v, version), version) : []),
  ]);
}

/** ValidateLabelSelector of a metav1.LabelSelector at `path`. @internal */
export function labelSelectorIssues(selector: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(selector)) return [];
  const issues: Issue[] = [];
  // as the decoder leaves them: a null item is an empty expression, a null value the empty string
  listOf(selector.matchExpressions).forEach((item, i) => {
    const e: Record<string, any> = isRecord(item) ? item : {};
    const at = `${path}.matchExpressions[${i}]`;
    const values = listOf(e.values).map((v) => (v === null ? '' : v));
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (values.length === 0) {
        issues.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length > 0) {
        issues.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      issues.push(...invalid(`${at}.operator`, e.operator ?? '', ['not a valid selector operator'], version));
    }
    // an absent key is the empty string to Go: invalid as a qualified name, not a crash (builtin differential)
    const key = e.key ?? '';
    if (typeof key === 'string') issues.push(...invalid(`${at}.key`, key, isQualifiedName(key, version), version));
    values.forEach((v, j) => {
      if (typeof v === 'string') {
        issues.push(...invalid(`${at}.values[${j}]`, v, isValidLabelValue(v, version), version));
      }
    });
  });
  issues.push(...labelMapIssues(selector.matchLabels, `${path}.matchLabels`, version));
  return issues;
}

/** field.Invalid, one issue per detail, the value as the version prints it. */
function invalid(path: string, value: unknown, details: readonly string[], version: KubernetesVersion): Issue[] {
  return details.map((d) => ({ path, message: `Invalid value: ${fieldValue(value, version)}: ${d}`, value }));
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function isRecord(value: unknown): value is Record<string, any> {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
