import { containerResourceNameIssues, isOvercommitAllowed, resourceNameIssues } from './resource-policy-names';
import { canonicalQuantity, quantityMilliValue, quantityText, quantityValue } from './resource-policy-quantity';
import { shownQuantity } from './resource-policy-values';
import { duplicateValue, invalidValue, isRecord, recordsOf } from './services-field-errors';
import { child, forbidden, index, key, required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';
import { isQualifiedName } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * A v1 LimitRange as the apiserver checks it on create (pkg/apis/core/validation's ValidateLimitRange), after
 * SetDefaults_LimitRangeItem: for a Container item, `default` takes each `max` it lacks, `defaultRequest` each
 * `default`, then each `min`, so an inconsistent min and max is also reported against the defaults they made.
 * Measured on 1.28, 1.32 and 1.36 (resource-policy-differential.test.ts).
 */

const LIMIT_TYPES = ['Pod', 'Container', 'PersistentVolumeClaim'];
/** resource.MaxMilliValue: the largest value whose milli-value fits int64. */
const MAX_MILLI_VALUE = (2n ** 63n - 1n) / 1000n;

type Quantities = Map<string, string>;

/** The quantities of a resource list by name (texts the decoder accepted). */
function quantitiesOf(value: unknown): Quantities {
  const out: Quantities = new Map();
  for (const [name, q] of Object.entries(isRecord(value) ? value : {})) {
    const text = quantityText(q);
    if (text !== undefined) out.set(name, text);
  }
  return out;
}

/** SetDefaults_LimitRangeItem of a Container item. */
function defaulted(item: Record<string, any>) {
  const max = quantitiesOf(item.max);
  const min = quantitiesOf(item.min);
  const defaults = quantitiesOf(item.default);
  const defaultRequests = quantitiesOf(item.defaultRequest);
  if (item.type === 'Container') {
    for (const [k, v] of max) if (!defaults.has(k)) defaults.set(k, v);
    for (const [k, v] of defaults) if (!defaultRequests.has(k)) defaultRequests.set(k, v);
    for (const [k, v] of min) if (!defaultRequests.has(k)) defaultRequests.set(k, v);
  }
  return { max, min, defaults, defaultRequests, ratios: quantitiesOf(item.maxLimitRequestRatio) };
}

/** validateLimitRangeTypeName. */
function typeIssues(type: string, path: string, version: KubernetesVersion): Issue[] {
  const qualified = invalidValue(path, type, isQualifiedName(type, version), version);
  if (qualified.length > 0) return qualified;
  if (!type.includes('/') && !LIMIT_TYPES.includes(type)) {
    return invalidValue(path, type, ['must be a standard limit type or fully qualified'], version);
  }
  return [];
}

const cmp = (a: string, b: string) => Quantity.parse(a).compareTo(Quantity.parse(b));

function limitRangeIssues(object: any, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const types = new Set<string>();
  recordsOf(isRecord(object?.spec) ? object.spec.limits : undefined).forEach((item, i) => {
    const at = index('spec.limits', i);
    const type = typeof item.type === 'string' ? item.type : '';
    issues.push(...typeIssues(type, child(at, 'type'), version));
    if (types.has(type)) issues.push(duplicateValue(child(at, 'type'), type, version));
    types.add(type);
    const { max, min, defaults, defaultRequests, ratios } = defaulted(item);
    const nameIssues = type === 'Pod' || type === 'Container' ? containerResourceNameIssues : resourceNameIssues;
    const names = (list: Quantities, field: string) => {
      for (const k of list.keys()) issues.push(...nameIssues(k, key(child(at, field), k), version));
    };
    names(max, 'max');
    names(min, 'min');
    if (type === 'Pod') {
      if (defaults.size > 0) issues.push(forbidden(child(at, 'default'), "may not be specified when `type` is 'Pod'"));
      if (defaultRequests.size > 0) {
        issues.push(forbidden(child(at, 'defaultRequest'), "may not be specified when `type` is 'Pod'"));
      }
    } else {
      names(defaults, 'default');
      names(defaultRequests, 'defaultRequest');
    }
    if (type === 'PersistentVolumeClaim' && !min.has('storage') && !max.has('storage')) {
      issues.push(
        required(child(at, 'limits'), 'either minimum or maximum storage value is required, but neither was provided'),
      );
    }
    names(ratios, 'maxLimitRequestRatio');
    const keys = new Set([...max.keys(), ...min.keys(), ...ratios.keys()]);
    if (type !== 'Pod') for (const k of [...defaults.keys(), ...defaultRequests.keys()]) keys.add(k);
    for (const k of keys) {
      issues.push(...boundsIssues(k, at, { max, min, defaults, defaultRequests, ratios }, type, version));
    }
  });
  return issues;
}

/** The order checks of one resource: min ≤ defaultRequest ≤ default ≤ max, and the ratio. */
function boundsIssues(
  k: string,
  at: string,
  q: ReturnType<typeof defaulted>,
  type: string,
  version: KubernetesVersion,
): Issue[] {
  const issues: Issue[] = [];
  const min = q.min.get(k);
  const max = q.max.get(k);
  const def = type === 'Pod' ? undefined : q.defaults.get(k);
  const req = type === 'Pod' ? undefined : q.defaultRequests.get(k);
  const ratio = q.ratios.get(k);
  const s = canonicalQuantity;
  const bad = (field: string, value: string, detail: string) =>
    issues.push({
      path: key(child(at, field), k),
      message: `Invalid value: ${shownQuantity(value, version)}: ${detail}`,
      value,
    });
  if (min !== undefined && max !== undefined && cmp(min, max) > 0) {
    bad('min', min, `min value ${s(min)} is greater than max value ${s(max)}`);
  }
  if (req !== undefined && min !== undefined && cmp(min, req) > 0) {
    bad('defaultRequest', req, `min value ${s(min)} is greater than default request value ${s(req)}`);
  }
  if (req !== undefined && max !== undefined && cmp(req, max) > 0) {
    bad('defaultRequest', req, `default request value ${s(req)} is greater than max value ${s(max)}`);
  }
  if (req !== undefined && def !== undefined && cmp(req, def) > 0) {
    bad('defaultRequest', req, `default request value ${s(req)} is greater than default limit value ${s(def)}`);
  }
  if (def !== undefined && min !== undefined && cmp(min, def) > 0) {
    bad('default', min, `min value ${s(min)} is greater than default value ${s(def)}`);
  }
  if (def !== undefined && max !== undefined && cmp(def, max) > 0) {
    bad('default', max, `default value ${s(def)} is greater than max value ${s(max)}`);
  }
  if (ratio !== undefined && cmp(ratio, '1') < 0) {
    bad('maxLimitRequestRatio', ratio, `ratio ${s(ratio)} is less than 1`);
  }
  if (ratio !== undefined && min !== undefined && max !== undefined) {
    const limit = ratioLimit(ratio, min, max);
    if (limit.ratio > limit.bound) {
      bad('maxLimitRequestRatio', ratio, `ratio ${s(ratio)} is greater than max/min = ${goFixed(limit.bound)}`);
    }
  }
  if (!isOvercommitAllowed(k) && def !== undefined && req !== undefined && cmp(def, req) !== 0n) {
    bad('defaultRequest', req, `default value ${s(def)} must equal to defaultRequest value ${s(req)} in ${k}`);
  }
  return issues;
}

/** The ratio and max/min as upstream computes them: in milli-units when all three are small enough. */
function ratioLimit(ratio: string, min: string, max: string): { ratio: number; bound: number } {
  const small = [ratio, min, max].every((t) => quantityValue(t) < MAX_MILLI_VALUE);
  if (small) {
    return {
      ratio: Number(quantityMilliValue(ratio)) / 1000,
      bound: Number(quantityMilliValue(max)) / Number(quantityMilliValue(min)),
    };
  }
  return { ratio: Number(quantityValue(ratio)), bound: Number(quantityValue(max)) / Number(quantityValue(min)) };
}

/** Go's `%f` of a float64. */
function goFixed(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? '+Inf' : '-Inf';
  return v.toFixed(6);
}

/** @internal */
export const LIMIT_RANGE_VALIDATORS = {
  'v1/LimitRange': limitRangeIssues,
} as const;
