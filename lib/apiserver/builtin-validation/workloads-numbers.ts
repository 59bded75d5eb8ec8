import { nonNegativeIssues } from './pod-spec-common';
import { invalid } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';

/*
 * The numeric checks the workload kinds share (core validation's `ValidateNonnegativeField` is pod-spec-common's), apps validation's
 * int-or-percent fields (`maxSurge`, `maxUnavailable`): `ValidatePositiveIntOrPercent`, `IsNotMoreThan100Percent`
 * and the value they compare with zero (`getIntOrPercentValue`).
 */

const PERCENT = /^[0-9]+%$/;
const PERCENT_MSG =
  "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')";

/** `ValidatePositiveIntOrPercent`: a non-negative integer or a percent string. @internal */
export function intOrPercentIssues(path: string, value: number | string): Issue[] {
  if (typeof value === 'string') return PERCENT.test(value) ? [] : [invalid(path, value, PERCENT_MSG)];
  return nonNegativeIssues(path, value);
}

/**
 * `getIntOrPercentValue`: a percent's number, else the integer (a string that is no percent counts as Go's
 * `strconv.Atoi` of it, 0 when that fails: `"5"` is 5).
 *
 * @internal
 */
export function intOrPercentValue(value: number | string): number {
  if (typeof value === 'number') return value;
  if (PERCENT.test(value)) return Number(value.slice(0, -1));
  return /^[+-]?[0-9]+$/.test(value) ? Number(value) : 0;
}

/** `IsNotMoreThan100Percent`: only percents are bounded. @internal */
export function notMoreThan100Percent(path: string, value: number | string): Issue[] {
  return typeof value === 'string' && PERCENT.test(value) && Number(value.slice(0, -1)) > 100
    ? [invalid(path, value, 'must not be greater than 100%')]
    : [];
}
