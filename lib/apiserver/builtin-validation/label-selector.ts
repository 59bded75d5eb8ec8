import { invalidValue, isRecord, recordsOf, stringsOf } from './services-field-errors';
import { forbidden, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName, isValidLabelValue } from '../../apimachinery/names';

/*
 * metav1 validation's ValidateLabels and ValidateLabelSelector as the apiserver applies them on create (label values
 * in selectors must be valid: AllowInvalidLabelValueInSelector is for updates of old objects only). Shared by
 * the workloads and Jobs, PodDisruptionBudgets, NetworkPolicies and Services (whose selector is a plain label map).
 */

/** ValidateLabels: each key a qualified name, each value a label value, all at `path`. @internal */
export function labelMapIssues(labels: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(labels)) return [];
  return Object.entries(labels).flatMap(([k, v]) => [
    ...invalidValue(path, k, isQualifiedName(k, version), version),
    ...(typeof v === 'string' ? invalidValue(path, v, isValidLabelValue(v, version), version) : []),
  ]);
}

/** ValidateLabelSelector of a metav1.LabelSelector at `path`. @internal */
export function labelSelectorIssues(selector: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (!isRecord(selector)) return [];
  const issues: Issue[] = [];
  recordsOf(selector.matchExpressions).forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const values = stringsOf(e.values);
    if (e.operator === 'In' || e.operator === 'NotIn') {
      if (values.length === 0) {
        issues.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      }
    } else if (e.operator === 'Exists' || e.operator === 'DoesNotExist') {
      if (values.length > 0) {
        issues.push(forbidden(`${at}.values`, "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
    } else {
      issues.push(...invalidValue(`${at}.operator`, e.operator ?? '', ['not a valid selector operator'], version));
    }
    const key = e.key ?? '';
    if (typeof key === 'string') {
      issues.push(...invalidValue(`${at}.key`, key, isQualifiedName(key, version), version));
    }
    values.forEach((v, j) => {
      if (typeof v === 'string') {
        issues.push(...invalidValue(`${at}.values[${j}]`, v, isValidLabelValue(v, version), version));
      }
    });
  });
  issues.push(...labelMapIssues(selector.matchLabels, `${path}.matchLabels`, version));
  return issues;
}
