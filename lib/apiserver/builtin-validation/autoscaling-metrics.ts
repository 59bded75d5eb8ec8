import { invalidShown, invalidValue, isRecord, recordOf, unsupportedValue } from './services-field-errors';
import { pathSegmentNameErrors } from './services-names';
import { forbidden, required } from '../../apimachinery/field';
import { goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, minorOf, since } from '../../apimachinery/kubernetes-versions';
import { isDns1123Label } from '../../apimachinery/names';
import { Quantity } from '../../apimachinery/quantity';

/*
 * An autoscaling/v2 HorizontalPodAutoscaler's metrics as pkg/apis/autoscaling/validation's validateMetricSpec checks
 * them: one source, the one its type names, each with what its target needs.
 */

const METRIC_TYPES = ['ContainerResource', 'External', 'Object', 'Pods', 'Resource'] as const;
const SOURCE_FIELDS = {
  Object: 'object',
  Pods: 'pods',
  Resource: 'resource',
  External: 'external',
  ContainerResource: 'containerResource',
} as const;
const TARGET_TYPES = ['Utilization', 'Value', 'AverageValue'];
/** A reference's apiVersion is validated (kubernetes/kubernetes#132537). */
const API_VERSION_CHECKED = 34;

/**
 * ValidateCrossVersionObjectReference (scaleTargetRef, an Object metric's describedObject): kind and name required
 * path segments. From 1.34 its apiVersion is validated too (kubernetes/kubernetes#132537, merged for 1.34; measured on
 * 1.36, not on 1.32): it must parse as a group/version, and a scaleTargetRef's must name a group unless it targets a
 * ReplicationController (an absent apiVersion is refused).
 *
 * @internal
 */
export function crossVersionReferenceIssues(
  ref: unknown,
  at: string,
  version: KubernetesVersion,
  { requireGroup }: { readonly requireGroup: boolean },
): Issue[] {
  const r = recordOf(ref);
  const issues: Issue[] = [];
  for (const field of ['kind', 'name'] as const) {
    const v = typeof r[field] === 'string' ? r[field] : '';
    if (v === '') issues.push(required(`${at}.${field}`));
    else issues.push(...invalidValue(`${at}.${field}`, v, pathSegmentNameErrors(v), version));
  }
  if (minorOf(version) < API_VERSION_CHECKED) return issues;
  const apiVersion = typeof r.apiVersion === 'string' ? r.apiVersion : '';
  const slashes = apiVersion.split('/').length - 1;
  if (slashes > 1) {
    issues.push(
      ...invalidValue(`${at}.apiVersion`, apiVersion, [`unexpected GroupVersion string: ${apiVersion}`], version),
    );
  } else if (requireGroup && r.kind !== 'ReplicationController' && (slashes === 0 || apiVersion.startsWith('/'))) {
    issues.push(...invalidValue(`${at}.apiVersion`, apiVersion, ['apiVersion must specify API group'], version));
  }
  return issues;
}

/** A quantity as the apiserver prints it: JSON's string from 1.34, Go's `%#v` of resource.Quantity before. */
function shownQuantity(text: string, version: KubernetesVersion): string {
  if (since(version, 'fieldValuesAsJson') || !/^-?[0-9]+$/.test(text)) return goQuote(text);
  return (
    `resource.Quantity{i:resource.int64Amount{value:${BigInt(text)}, scale:0}, ` +
    `d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${goQuote(text)}, Format:"DecimalSI"}`
  );
}

/** Whether a quantity (a JSON string or number) is positive; a bad quantity is the decoder's error, not this one. @internal */
export function quantitySign(value: unknown): bigint | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' && Quantity.isValid(text) ? Quantity.parse(text).sign() : undefined;
}

function positive(value: unknown): boolean {
  const sign = quantitySign(value);
  return sign === undefined || sign === 1n;
}

const given = (v: unknown) => v !== undefined && v !== null;

function targetIssues(target: Record<string, any>, at: string, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const type = target.type ?? '';
  if (type === '') issues.push(required(`${at}.type`, 'must specify a metric target type'));
  if (!TARGET_TYPES.includes(type)) {
    issues.push(...invalidValue(`${at}.type`, type, ['must be either Utilization, Value, or AverageValue'], version));
  }
  for (const field of ['value', 'averageValue'] as const) {
    if (given(target[field]) && !positive(target[field])) {
      issues.push(
        invalidShown(
          `${at}.${field}`,
          target[field],
          shownQuantity(String(target[field]), version),
          'must be positive',
        ),
      );
    }
  }
  const utilization = target.averageUtilization;
  if (typeof utilization === 'number' && utilization < 1) {
    issues.push(...invalidValue(`${at}.averageUtilization`, utilization, ['must be greater than 0'], version));
  }
  return issues;
}

function metricIdentifierIssues(metric: unknown, at: string, version: KubernetesVersion): Issue[] {
  const name = isRecord(metric) && typeof metric.name === 'string' ? metric.name : '';
  if (name === '') return [required(`${at}.name`, 'must specify a metric name')];
  return invalidValue(`${at}.name`, name, pathSegmentNameErrors(name), version);
}

function sourceIssues(type: string, src: Record<string, any>, at: string, version: KubernetesVersion): Issue[] {
  const target = isRecord(src.target) ? src.target : {};
  const t = `${at}.target`;
  const issues: Issue[] = [];
  if (type === 'Resource' || type === 'ContainerResource') {
    if (!src.name) issues.push(required(`${at}.name`, 'must specify a resource name'));
    if (type === 'ContainerResource') {
      const container = typeof src.container === 'string' ? src.container : '';
      if (container === '') issues.push(required(`${at}.container`, 'must specify a container'));
      else issues.push(...invalidValue(`${at}.container`, container, isDns1123Label(container), version));
    }
    issues.push(...targetIssues(target, t, version));
    if (!given(target.averageUtilization) && !given(target.averageValue)) {
      issues.push(required(`${t}.averageUtilization`, 'must set either a target raw value or a target utilization'));
    }
    if (given(target.averageUtilization) && given(target.averageValue)) {
      issues.push(forbidden(`${t}.averageValue`, 'may not set both a target raw value and a target utilization'));
    }
    return issues;
  }
  if (type === 'Object') {
    issues.push(
      ...crossVersionReferenceIssues(src.describedObject, `${at}.describedObject`, version, { requireGroup: false }),
    );
  }
  issues.push(...metricIdentifierIssues(src.metric, `${at}.metric`, version));
  issues.push(...targetIssues(target, t, version));
  if (type === 'Pods' && !given(target.averageValue)) {
    issues.push(required(`${t}.averageValue`, 'must specify a positive target averageValue'));
  }
  if (type === 'Object' && !given(target.value) && !given(target.averageValue)) {
    issues.push(required(`${t}.averageValue`, 'must set either a target value or averageValue'));
  }
  if (type === 'External') {
    if (!given(target.value) && !given(target.averageValue)) {
      issues.push(required(`${t}.averageValue`, 'must set either a target value for metric or a per-pod target'));
    }
    if (given(target.value) && given(target.averageValue)) {
      issues.push(forbidden(`${t}.value`, 'may not set both a target value for metric and a per-pod target'));
    }
  }
  return issues;
}

/** validateMetricSpec of `spec.metrics[i]`. @internal */
export function metricIssues(item: unknown, at: string, version: KubernetesVersion): Issue[] {
  const metric = recordOf(item);
  const issues: Issue[] = [];
  const type = typeof metric.type === 'string' ? metric.type : '';
  if (type === '') issues.push(required(`${at}.type`, 'must specify a metric source type'));
  const known = (METRIC_TYPES as readonly string[]).includes(type);
  if (!known) issues.push(unsupportedValue(`${at}.type`, type, METRIC_TYPES, version));
  // the sources present: the first in the apiserver's order is validated, the others than the type's are refused
  const present = (['Object', 'External', 'Pods', 'Resource', 'ContainerResource'] as const).filter((t) =>
    isRecord(metric[SOURCE_FIELDS[t]]),
  );
  if (present.length > 0) {
    const first = SOURCE_FIELDS[present[0]];
    issues.push(...sourceIssues(present[0], metric[first], `${at}.${first}`, version));
  }
  const expected = known ? SOURCE_FIELDS[type as keyof typeof SOURCE_FIELDS] : undefined;
  if (!known) {
    issues.push(unsupportedValue(`${at}.type`, type, METRIC_TYPES, version));
  } else if (!isRecord(metric[expected!])) {
    issues.push(required(`${at}.${expected}`, 'must populate information for the given metric source'));
  }
  if (present.length !== 1) {
    for (const t of present) {
      if (SOURCE_FIELDS[t] !== expected) {
        issues.push(forbidden(`${at}.${SOURCE_FIELDS[t]}`, 'must populate the given metric source only'));
      }
    }
  }
  return issues;
}
