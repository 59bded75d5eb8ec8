/**
 * Status writes and `metav1.Condition` semantics (controller-runtime `meta.SetStatusCondition`).
 *
 * Expected flow: the reconciler computes the desired status from the cached object (using
 * {@link setCondition} for conditions and `observedGeneration`), then calls {@link updateStatus}.
 *
 * Guarantees:
 * - {@link setCondition} changes `lastTransitionTime` only when the condition's `status` changes;
 *   reason, message and observedGeneration are updated in place.
 * - {@link updateStatus} makes no request at all when the live status already equals the desired
 *   one (steady state = zero writes); otherwise it sends a minimal JSON merge patch to the
 *   `/status` subresource (removed fields become `null`).
 *
 * Caveats: status is assumed to be owned by this controller (no resourceVersion precondition), so a
 * 409 is retried by the client and the last writer wins.
 */
import { createMergePatch, deepEqual } from './_json';
import { KubeClient } from './client';
import { KubeObject, ResourceRef } from './resource';

/** `metav1.Condition`. */
export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly observedGeneration?: number;
  /** RFC 3339, seconds precision. */
  readonly lastTransitionTime: string;
  /** CamelCase reason. */
  readonly reason: string;
  readonly message: string;
}

/** A condition to set; `lastTransitionTime` is filled in. */
export type ConditionInput = Omit<Condition, 'lastTransitionTime'> & { readonly lastTransitionTime?: string };

/** `metav1.Time` format: RFC 3339 with second precision. */
export function metaTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** `metav1.MicroTime` format: RFC 3339 with microseconds. */
export function microTime(date: Date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** The condition of a type. */
export function findCondition(conditions: readonly Condition[] | undefined, type: string): Condition | undefined {
  return (conditions ?? []).find((c) => c.type === type);
}

/** True if the condition of `type` has status True. */
export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * Returns a new list with `input` set. `lastTransitionTime` is kept when the status did not change,
 * otherwise `input.lastTransitionTime ?? now`. The order of other conditions is kept.
 */
export function setCondition(
  conditions: readonly Condition[] | undefined,
  input: ConditionInput,
  now: Date = new Date(),
): Condition[] {
  if (!/^[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(input.type)) {
    throw new Error(`condition type must be CamelCase, got '${input.type}'`);
  }
  if (!['True', 'False', 'Unknown'].includes(input.status)) {
    throw new Error(`condition status must be True, False or Unknown, got '${input.status}'`);
  }
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === input.type);
  const existing = i >= 0 ? list[i] : undefined;
  const lastTransitionTime =
    existing && existing.status === input.status
      ? existing.lastTransitionTime
      : (input.lastTransitionTime ?? metaTime(now));
  const next: Condition = {
    type: input.type,
    status: input.status,
    ...(input.observedGeneration !== undefined ? { observedGeneration: input.observedGeneration } : {}),
    lastTransitionTime,
    reason: input.reason,
    message: input.message,
  };
  if (i >= 0) list[i] = next;
  else list.push(next);
  return list;
}

/** Returns a new list without the condition of `type`. */
export function removeCondition(conditions: readonly Condition[] | undefined, type: string): Condition[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}

/** Options of {@link updateStatus}. */
export interface UpdateStatusOptions {
  /** Field manager recorded for the status write. */
  readonly fieldManager?: string;
  /** The resource (give `plural` for custom resources). @default - apiVersion and kind of `live` */
  readonly resource?: ResourceRef;
}

/**
 * The status a kind declares (e.g. the generated `FooStatus` of a `Foo` with `status?: FooStatus`), or
 * any record for an object whose type declares none: what {@link updateStatus} accepts for it.
 */
export type StatusOf<T extends KubeObject> = T extends { status?: infer S }
  ? unknown extends S
    ? Record<string, unknown>
    : NonNullable<S>
  : Record<string, unknown>;

/**
 * Writes `status` through the `/status` subresource unless `live.status` already equals it.
 * Typed by `live`: a field the kind's status type lacks, or of the wrong type, does not compile.
 * Returns the updated object, or `undefined` when nothing was written.
 */
export async function updateStatus<T extends KubeObject>(
  client: KubeClient,
  live: T,
  status: StatusOf<T>,
  options: UpdateStatusOptions = {},
): Promise<T | undefined> {
  const current = (live.status ?? {}) as Record<string, unknown>;
  if (deepEqual(current, status)) return undefined;
  const meta = live.metadata ?? {};
  if (!live.apiVersion || !live.kind || !meta.name) {
    throw new Error(
      `cannot update status of an object without apiVersion, kind and name (${meta.namespace ?? ''}/${meta.name ?? ''})`,
    );
  }
  // The apiserver answers with the object it stored: the same kind as `live`.
  return (await client.patch(
    options.resource ?? { apiVersion: live.apiVersion, kind: live.kind },
    meta.name,
    meta.namespace,
    { type: 'merge', body: { status: createMergePatch(current, status) } },
    { subresource: 'status', fieldManager: options.fieldManager },
  )) as T;
}
