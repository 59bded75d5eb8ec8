/**
 * Lossless round trips through a version that cannot express every field of the hub (private module).
 *
 * Kubebuilder's projects (Cluster API's `conversion-data` annotation) keep what a spoke version cannot
 * hold in an annotation of the spoke object and restore it on the way back. Here it is generic, so no
 * conversion function has to know which fields it loses: after converting hub → spoke, the spoke is
 * converted back and compared with the hub; every difference is recorded as `{ path, rt, value }`
 * (`rt`: what the round trip gave at `path`, `value`: what the hub had). On spoke → hub, each recorded
 * value is put back only where the converted hub still shows `rt` (the spoke did not change what it can
 * express there) and the parent object still exists: a client that edits a field at the old version
 * wins, a field the old version cannot see survives.
 */
import { deepEqual, isObject } from '../../lib/apimachinery/json';

/** One difference between a round-tripped hub and the original. */
export interface LostField {
  /** Keys from the object root, e.g. `['spec', 'restoreFrom', 'sampleDB']`. */
  readonly path: readonly string[];
  /** What the round trip gave there (absent when it gave nothing). */
  readonly rt?: unknown;
  /** What the hub had there (absent when it had nothing). */
  readonly value?: unknown;
}

/** Top-level members compared: everything but what the runtime itself sets (apiVersion, kind, metadata). */
const SKIPPED = new Set(['apiVersion', 'kind', 'metadata']);

/** Where `roundTripped` differs from `original`, at the deepest object level both share. */
export function lostFields(original: Record<string, unknown>, roundTripped: Record<string, unknown>): LostField[] {
  const out: LostField[] = [];
  const walk = (a: Record<string, unknown>, b: Record<string, unknown>, path: string[], top: boolean) => {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const key of [...keys].sort()) {
      if (top && SKIPPED.has(key)) continue;
      const av = a[key];
      const bv = b[key];
      if (deepEqual(av, bv)) continue;
      if (isObject(av) && isObject(bv)) {
        walk(av, bv, [...path, key], false);
        continue;
      }
      out.push({
        path: [...path, key],
        ...(bv === undefined ? {} : { rt: bv }),
        ...(av === undefined ? {} : { value: av }),
      });
    }
  };
  walk(original, roundTripped, [], true);
  return out;
}

/** Puts every lost field back into `hub` (in place) where the spoke left it as the round trip had it. */
export function restoreLostFields(hub: Record<string, unknown>, lost: readonly LostField[]): void {
  for (const field of lost) {
    let parent: unknown = hub;
    for (const key of field.path.slice(0, -1)) parent = isObject(parent) ? parent[key] : undefined;
    if (!isObject(parent)) continue; // the spoke removed the object holding it
    const key = field.path[field.path.length - 1];
    if (!deepEqual(parent[key], field.rt)) continue; // the spoke changed it: the spoke wins
    if (field.value === undefined) delete parent[key];
    else parent[key] = structuredClone(field.value);
  }
}

/** Parses the annotation's value; throws on anything but a list of `{ path, rt?, value? }`. */
export function parseLostFields(text: string): LostField[] {
  const parsed: unknown = JSON.parse(text);
  const list = isObject(parsed) ? parsed.lost : undefined;
  if (
    !Array.isArray(list) ||
    !list.every(
      (f) => isObject(f) && Array.isArray(f.path) && f.path.length > 0 && f.path.every((k) => typeof k === 'string'),
    )
  ) {
    throw new Error('expected {"lost":[{"path":[...],"rt":...,"value":...}]}');
  }
  return list as LostField[];
}

/** The annotation's value. */
export function formatLostFields(lost: readonly LostField[]): string {
  return JSON.stringify({ lost });
}
