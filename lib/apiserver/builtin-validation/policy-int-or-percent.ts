import { invalidShown, invalidValue } from './services-field-errors';
import { goQuote } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';

/*
 * An int-or-percent field (a PodDisruptionBudget's minAvailable/maxUnavailable) as apps/validation's
 * ValidatePositiveIntOrPercent and IsNotMoreThan100Percent check it: an int >= 0, or a percent string `N%` up to 100%.
 */

const PERCENT = /^[0-9]+%$/;
const PERCENT_MESSAGE =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for " +
  "validation is '[0-9]+%')";

/** An intstr.IntOrString string as the apiserver prints it: Go's `%#v` of the struct up to 1.33, JSON from 1.34. @internal */
export function shownIntOrString(value: string, version: KubernetesVersion): string {
  return since(version, 'fieldValuesAsJson')
    ? JSON.stringify(value)
    : `intstr.IntOrString{Type:1, IntVal:0, StrVal:${goQuote(value)}}`;
}

/** @internal */
export function intOrPercentIssues(value: unknown, path: string, version: KubernetesVersion): Issue[] {
  if (typeof value === 'number') {
    return value < 0 ? invalidValue(path, value, ['must be greater than or equal to 0'], version) : [];
  }
  if (typeof value !== 'string') return [];
  if (!PERCENT.test(value)) return [invalidShown(path, value, shownIntOrString(value, version), PERCENT_MESSAGE)];
  if (Number(value.slice(0, -1)) > 100) {
    return [invalidShown(path, value, shownIntOrString(value, version), 'must not be greater than 100%')];
  }
  return [];
}
