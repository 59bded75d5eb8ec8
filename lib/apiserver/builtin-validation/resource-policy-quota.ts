import { isIntegerResource, isQuotaResource, quotaResourceNameIssues } from './resource-policy-names';
import { canonicalQuantity, quantityMilliValue, quantityText } from './resource-policy-quantity';
import { shownQuantity } from './resource-policy-values';
import { goStringList, invalidValue, isRecord, recordsOf, stringsOf } from './services-field-errors';
import { child, key, required } from '../../apimachinery/field';
import { goJson } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A v1 ResourceQuota as the apiserver checks it on create (pkg/apis/core/validation's ValidateResourceQuotaSpec;
 * the status is cleared on create): resource names and quantities of `hard`, the scopes and the scope selector, and
 * which scopes apply to which resources (pkg/apis/core/helper's IsResourceQuotaScopeValidForResource). Measured on
 * 1.28, 1.32 and 1.36 (resource-policy-differential.test.ts).
 */

const SCOPES = [
  'Terminating',
  'NotTerminating',
  'BestEffort',
  'NotBestEffort',
  'PriorityClass',
  'CrossNamespacePodAffinity',
];

/**
 * IsStandardResourceQuotaScope: the VolumeAttributesClass scope too where its gate is on by default (GA in 1.34;
 * measured: refused on 1.32, accepted on 1.36).
 */
function isScope(scope: string, version: KubernetesVersion): boolean {
  return SCOPES.includes(scope) || (scope === 'VolumeAttributesClass' && minorOf(version) >= 34);
}
const POD_COMPUTE = ['cpu', 'memory', 'limits.cpu', 'limits.memory', 'requests.cpu', 'requests.memory'];
const CONFLICTING = [
  ['BestEffort', 'NotBestEffort'],
  ['Terminating', 'NotTerminating'],
] as const;

/** IsResourceQuotaScopeValidForResource. */
function scopeValidFor(scope: string, resource: string): boolean {
  switch (scope) {
    case 'Terminating':
    case 'NotTerminating':
    case 'NotBestEffort':
    case 'PriorityClass':
    case 'CrossNamespacePodAffinity':
      return resource === 'pods' || POD_COMPUTE.includes(resource);
    case 'BestEffort':
      return resource === 'pods';
    case 'VolumeAttributesClass':
      return resource === 'persistentvolumeclaims' || resource === 'requests.storage';
    default:
      return true;
  }
}

/** ValidateResourceQuantityValue: non-negative, an integer for object counts and extended resources. */
function quantityIssues(name: string, value: unknown, path: string, version: KubernetesVersion): Issue[] {
  const text = quantityText(value);
  if (text === undefined) return [];
  const issues: Issue[] = [];
  if (Quantity.parse(text).sign() < 0n) {
    issues.push(...invalidValue(path, canonicalQuantity(text), ['must be greater than or equal to 0'], version));
  }
  if (isIntegerResource(name, version) && quantityMilliValue(text) % 1000n !== 0n) {
    issues.push({ path, message: `Invalid value: ${shownQuantity(text, version)}: must be an integer`, value });
  }
  return issues;
}

function resourceQuotaIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const hard = isRecord(spec.hard) ? spec.hard : {};
  const issues: Issue[] = [];
  for (const [name, value] of Object.entries(hard)) {
    const at = key('spec.hard', name);
    issues.push(...quotaResourceNameIssues(name, at, version), ...quantityIssues(name, value, at, version));
  }
  const resources = Object.keys(hard).filter(isQuotaResource);
  const scopes = stringsOf(spec.scopes).map(String);
  const shownScopes = (v: readonly string[] | undefined) =>
    v === undefined
      ? since(version, 'fieldValuesAsJson')
        ? 'null'
        : '[]core.ResourceQuotaScope(nil)'
      : goStringList(v, version, '[]core.ResourceQuotaScope');
  const scopesInvalid = (path: string, detail: string) =>
    issues.push({
      path,
      message: `Invalid value: ${shownScopes(scopes.length > 0 ? scopes : undefined)}: ${detail}`,
      value: spec.scopes,
    });
  for (const scope of scopes) {
    if (!isScope(scope, version)) scopesInvalid('spec.scopes', 'unsupported scope');
    for (const r of resources) {
      if (!scopeValidFor(scope, r)) scopesInvalid('spec.scopes', 'unsupported scope applied to resource');
    }
  }
  for (const pair of CONFLICTING) {
    if (pair.every((p) => scopes.includes(p))) scopesInvalid('spec.scopes', 'conflicting scopes');
  }
  if (isRecord(spec.scopeSelector)) {
    issues.push(...scopeSelectorIssues(spec.scopeSelector, resources, version));
    const selected = recordsOf(spec.scopeSelector.matchExpressions).map((e) => String(e.scopeName ?? ''));
    for (const pair of CONFLICTING) {
      if (pair.every((p) => selected.includes(p))) {
        scopesInvalid('spec.scopeSelector.matchExpressions', 'conflicting scopes');
      }
    }
  }
  return issues;
}

/** validateScopedResourceSelectorRequirement (its conflicting scopes aside). */
function scopeSelectorIssues(
  selector: Record<string, any>,
  resources: readonly string[],
  version: KubernetesVersion,
): Issue[] {
  const issues: Issue[] = [];
  const path = 'spec.scopeSelector.matchExpressions';
  recordsOf(selector.matchExpressions).forEach((e) => {
    const scope = typeof e.scopeName === 'string' ? e.scopeName : '';
    const operator = typeof e.operator === 'string' ? e.operator : '';
    const values = stringsOf(e.values).map(String);
    if (!isScope(scope, version)) {
      issues.push(...invalidValue(child(path, 'scopeName'), scope, ['unsupported scope'], version));
    }
    for (const r of resources) {
      if (!scopeValidFor(scope, r)) {
        issues.push({
          path,
          message: `Invalid value: ${shownSelector(selector, version)}: unsupported scope applied to resource`,
          value: selector,
        });
      }
    }
    if (
      ['BestEffort', 'NotBestEffort', 'Terminating', 'NotTerminating', 'CrossNamespacePodAffinity'].includes(scope) &&
      operator !== 'Exists'
    ) {
      issues.push(
        ...invalidValue(
          child(path, 'operator'),
          operator,
          // `Exist` on 1.28, `Exists` on 1.32 (kubernetes/kubernetes#124053, merged for 1.31)
          [
            `must be '${minorOf(version) >= 31 ? 'Exists' : 'Exist'}' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity`,
          ],
          version,
        ),
      );
    }
    if (operator === 'In' || operator === 'NotIn') {
      if (values.length === 0) {
        issues.push(
          required(
            child(path, 'values'),
            "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
          ),
        );
      }
    } else if (operator === 'Exists' || operator === 'DoesNotExist') {
      if (values.length > 0) {
        issues.push({
          path: child(path, 'values'),
          message: `Invalid value: ${goStringList(values, version)}: must be no value when \`operator\` is 'Exist' or 'DoesNotExist' for scope selector`,
          value: e.values,
        });
      }
    } else {
      issues.push(...invalidValue(child(path, 'operator'), operator, ['not a valid selector operator'], version));
    }
  });
  return issues;
}

/**
 * The *core.ScopeSelector as the apiserver prints it: JSON of the internal Go type (field names as in Go, no JSON
 * tags) from 1.34, Go's `%#v` before.
 */
function shownSelector(selector: Record<string, any>, version: KubernetesVersion): string {
  const expressions = recordsOf(selector.matchExpressions).map((e) => ({
    scope: typeof e.scopeName === 'string' ? e.scopeName : '',
    operator: typeof e.operator === 'string' ? e.operator : '',
    values: Array.isArray(e.values) ? stringsOf(e.values).map(String) : undefined,
  }));
  if (since(version, 'fieldValuesAsJson')) {
    const items = expressions.map(
      (e) =>
        `{"ScopeName":${goJson(e.scope)},"Operator":${goJson(e.operator)},"Values":${e.values ? goJson(e.values) : 'null'}}`,
    );
    return `{"MatchExpressions":${selector.matchExpressions == null ? 'null' : `[${items.join(',')}]`}}`;
  }
  const items = expressions.map(
    (e) =>
      `core.ScopedResourceSelectorRequirement{ScopeName:${goJson(e.scope)}, Operator:${goJson(e.operator)}, ` +
      `Values:${e.values ? `[]string{${e.values.map((v) => goJson(v)).join(', ')}}` : '[]string(nil)'}}`,
  );
  const list =
    selector.matchExpressions == null
      ? '[]core.ScopedResourceSelectorRequirement(nil)'
      : `[]core.ScopedResourceSelectorRequirement{${items.join(', ')}}`;
  return `core.ScopeSelector{MatchExpressions:${list}}`;
}

/** @internal */
export const RESOURCE_QUOTA_VALIDATORS = {
  'v1/ResourceQuota': resourceQuotaIssues,
} as const;
