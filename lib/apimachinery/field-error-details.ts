import { KubernetesVersion, since } from './kubernetes-versions';

/*
 * The details k8s.io/apimachinery's field errors write for lengths and counts, in the wording of each version
 * (`APISERVER_CHANGES`: tooLongInBytes, singularCounts): the apiserver's words, so that a user can compare ours with
 * what the cluster says.
 */

/**
 * `Too long: …` of a string over a schema's maxLength (field.TooLongMaxLength before 1.32, field.TooLong since):
 * `may not be longer than 5` (1.28-1.31), `may not be more than 5 bytes` (1.32-1.33), `… 1 byte` (1.34+).
 *
 * @internal
 */
export function tooLongMaxLength(max: number, version: KubernetesVersion): string {
  return since(version, 'tooLongInBytes')
    ? `Too long: ${mayNotBeMoreThan(max, version)}`
    : `Too long: may not be longer than ${max}`;
}

/**
 * `Too long: …` of field.TooLong (ObjectMeta's annotations): `must have at most N bytes` before 1.32, then the
 * wording of `tooLongMaxLength`.
 *
 * @internal
 */
export function tooLongBytes(max: number, version: KubernetesVersion): string {
  return since(version, 'tooLongInBytes')
    ? `Too long: ${mayNotBeMoreThan(max, version)}`
    : `Too long: must have at most ${max} bytes`;
}

/** `Too many: 3: must have at most 2 items` (`1 item` from 1.34). @internal */
export function tooMany(actual: number, max: number, version: KubernetesVersion): string {
  return `Too many: ${actual}: must have at most ${max} ${plural(max, 'item', version)}`;
}

function mayNotBeMoreThan(max: number, version: KubernetesVersion): string {
  return `may not be more than ${max} ${plural(max, 'byte', version)}`;
}

function plural(n: number, unit: string, version: KubernetesVersion): string {
  return n === 1 && since(version, 'singularCounts') ? unit : `${unit}s`;
}
