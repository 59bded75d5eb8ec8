/**
 * Event filters for controllers (controller-runtime `predicate`).
 *
 * A predicate sees create/update/delete events and returns whether to enqueue. Updates pass
 * `oldObj` and `newObj`; creates and deletes pass the object as both.
 *
 * Guarantees: the built-in predicates filter updates only (creates and deletes always pass), are pure,
 * and accept objects without metadata; {@link and} / {@link or} combine them left to right.
 *
 * Caveats: {@link generationChanged} ignores status-only and metadata-only updates, which is what
 * you want for the primary resource's own status writes — but then label/annotation edits do not
 * reconcile either; combine with {@link or}.
 */
import { KubeObject } from './resource';

/** The kind of change a predicate sees. */
export type EventKind = 'create' | 'update' | 'delete';

/** Returns true to enqueue the event. */
export type Predicate = (kind: EventKind, oldObj: KubeObject, newObj: KubeObject) => boolean;

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b ?? {});
}

/** Updates pass only when `metadata.generation` changed (spec edits); creates/deletes always pass. */
export const generationChanged: Predicate = (kind, o, n) =>
  kind !== 'update' || o.metadata?.generation !== n.metadata?.generation;

/** Updates pass only when labels changed. */
export const labelsChanged: Predicate = (kind, o, n) =>
  kind !== 'update' || !sameJson(o.metadata?.labels, n.metadata?.labels);

/** Updates pass only when annotations changed. */
export const annotationsChanged: Predicate = (kind, o, n) =>
  kind !== 'update' || !sameJson(o.metadata?.annotations, n.metadata?.annotations);

/** Updates pass only when the resourceVersion changed (filters resync replays). */
export const resourceVersionChanged: Predicate = (kind, o, n) =>
  kind !== 'update' || o.metadata?.resourceVersion !== n.metadata?.resourceVersion;

/** Passes when any predicate passes. */
export function or(...predicates: Predicate[]): Predicate {
  return (kind, o, n) => predicates.some((p) => p(kind, o, n));
}

/** Passes when all predicates pass. */
export function and(...predicates: Predicate[]): Predicate {
  return (kind, o, n) => predicates.every((p) => p(kind, o, n));
}
