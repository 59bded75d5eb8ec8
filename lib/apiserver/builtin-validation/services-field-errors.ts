import { fieldValue } from '../../apimachinery/field-value';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * The field errors of k8s.io/apimachinery's `field` package as the apiserver prints them for a built-in object: the
 * bad value inside the message (`Invalid value: 70000: must be between 1 and 65535, inclusive`), printed as the
 * version prints it (field-value.ts), so that a user can compare synth's line with the cluster's word for word.
 */

/** field.Invalid: `Invalid value: <value>: <detail>`, one issue per detail. @internal */
export function invalidValue(
  path: string,
  value: unknown,
  details: readonly string[],
  version: KubernetesVersion,
): Issue[] {
  return details.map((d) => ({ path, message: `Invalid value: ${fieldValue(value, version)}: ${d}`, value }));
}

/** field.Invalid with a value the apiserver prints from its own Go types (`[]string{"a"}`, a struct): given as printed. @internal */
export function invalidShown(path: string, value: unknown, shown: string, detail: string): Issue {
  return { path, message: `Invalid value: ${shown}: ${detail}`, value };
}

/** field.NotSupported: `Unsupported value: "x": supported values: "a", "b"` (in the order the apiserver lists them). @internal */
export function unsupportedValue(
  path: string,
  value: unknown,
  supported: readonly string[],
  version: KubernetesVersion,
): Issue {
  const list = supported.map((s) => JSON.stringify(s)).join(', ');
  return { path, message: `Unsupported value: ${fieldValue(value, version)}: supported values: ${list}`, value };
}

/** field.Duplicate: `Duplicate value: "x"`. @internal */
export function duplicateValue(path: string, value: unknown, version: KubernetesVersion): Issue {
  return { path, message: `Duplicate value: ${fieldValue(value, version)}`, value };
}

/**
 * A list of strings as the apiserver prints a Go `[]string` (or a named string slice such as `[]networking.PolicyType`)
 * in a field error: Go's `%#v` up to 1.33, JSON from 1.34 (fieldValuesAsJson).
 *
 * @internal
 */
export function goStringList(values: readonly string[], version: KubernetesVersion, goType = '[]string'): string {
  const shown = fieldValue(values, version);
  return shown.startsWith('[]interface {}') ? shown.replace('[]interface {}', goType) : shown;
}

/** Whether `value` is a plain JSON object (what the decoder makes a Go struct or map of). @internal */
export function isRecord(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a list field, or none when it is absent (a wrong type is the decoder's error). @internal */
export function listOf(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}

/** An object field, `{}` when null or absent: the decoder makes a zero struct of a null list item. @internal */
export function recordOf(value: unknown): Record<string, any> {
  return isRecord(value) ? value : {};
}

/** The items of a list of objects, a null item as the zero struct the decoder makes of it. @internal */
export function recordsOf(value: unknown): Record<string, any>[] {
  return listOf(value).map(recordOf);
}

/** The items of a list of strings, a null item as the empty string the decoder makes of it. @internal */
export function stringsOf(value: unknown): unknown[] {
  return listOf(value).map((x) => (x === null ? '' : x));
}
