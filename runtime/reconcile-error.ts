/**
 * A failed reconcile made visible where a user looks: a status condition (`Ready=False`, reason from the
 * error) and a Warning Event on the object, as controller-runtime operators do by hand and kube-rs's
 * `error_policy` examples do. A 403 from RBAC becomes `Ready=False reason=Forbidden` with the apiserver's
 * message trimmed to its first line and {@link MAX_REASON_MESSAGE} characters, not a 9 KB log line repeated on
 * every retry.
 *
 * ```ts
 * reconcile: async (foo) => {
 *   try { await reconcileFoo(foo); } catch (err) {
 *     await recordReconcileError(client, recorder, foo, err, { resource: FOO });
 *     throw err; // the controller still retries with backoff
 *   }
 * }
 * ```
 *
 * Guarantees: level-triggered and idempotent — the same error again makes no request at all (the condition is
 * already set and the event is only sent when the condition changes), so a retry loop on a permanent 403 writes
 * nothing after the first failure. A status write that itself fails (no `status` permission, the object is gone)
 * is returned as `statusError`, never thrown: recording an error must not hide it.
 */
import { KubeClient } from './client';
import { ApiError, TerminalError } from './errors';
import { EventRecorder } from './events';
import { KubeObject, ResourceRef } from './resource';
import { Condition, findCondition, setCondition, updateStatus } from './status';

/** Longest condition message / event note the helper writes (the apiserver's RBAC refusals run to kilobytes). */
export const MAX_REASON_MESSAGE = 512;

/** Options of {@link recordReconcileError}. */
export interface ReconcileErrorOptions {
  /** Condition type set to False. @default 'Ready' */
  readonly conditionType?: string;
  /** The resource (give `plural` for custom resources). @default - apiVersion and kind of the object */
  readonly resource?: ResourceRef;
  /** Field manager of the status write. */
  readonly fieldManager?: string;
  /** The event's action. @default 'Reconcile' */
  readonly action?: string;
}

/** What was recorded. */
export interface RecordedReconcileError {
  /** CamelCase reason: the apiserver's (`Forbidden`, `Invalid`, `Conflict`…), `Terminal`, or `ReconcileError`. */
  readonly reason: string;
  /** The trimmed message written to the condition and the event. */
  readonly message: string;
  /** Whether the condition changed (and so a status write and an event were made). */
  readonly changed: boolean;
  /** The status write's error, when it failed. */
  readonly statusError?: unknown;
}

/** The reason and trimmed message a condition gets for `err`. */
export function reconcileErrorReason(err: unknown): { reason: string; message: string } {
  let reason = 'ReconcileError';
  let text: string;
  if (err instanceof ApiError) {
    reason = camelReason(err.reason) ?? `HTTP${err.code}`;
    text = `${err.method} ${err.path}: ${err.status?.message ?? err.message}`;
  } else if (err instanceof TerminalError) {
    reason = 'Terminal';
    text = err.message;
  } else {
    text = err instanceof Error ? err.message : String(err);
  }
  return { reason, message: trimMessage(text) };
}

/** First line of `text`, at most {@link MAX_REASON_MESSAGE} characters, saying how much was left out. */
export function trimMessage(text: string, max: number = MAX_REASON_MESSAGE): string {
  const oneLine = text.replace(/\s*\n[\s\S]*$/, '');
  const cut = oneLine.length > max ? oneLine.slice(0, max) : oneLine;
  const left = text.length - cut.length;
  return left > 0 ? `${cut} … (${left} more characters)` : cut;
}

function camelReason(reason: string | undefined): string | undefined {
  return reason && /^[A-Za-z]([A-Za-z0-9_.-]*[A-Za-z0-9])?$/.test(reason) ? reason : undefined;
}

/**
 * Sets the `conditionType` condition of `live` to False with the error's reason and message, and records a Warning
 * Event, both only when the condition changes.
 */
export async function recordReconcileError(
  client: KubeClient,
  recorder: EventRecorder | undefined,
  live: KubeObject,
  err: unknown,
  options: ReconcileErrorOptions = {},
): Promise<RecordedReconcileError> {
  const { reason, message } = reconcileErrorReason(err);
  const type = options.conditionType ?? 'Ready';
  const status = (live.status ?? {}) as { conditions?: Condition[] };
  const observedGeneration = live.metadata?.generation;
  const existing = findCondition(status.conditions, type);
  const changed =
    !existing ||
    existing.status !== 'False' ||
    existing.reason !== reason ||
    existing.message !== message ||
    existing.observedGeneration !== observedGeneration;
  if (!changed) return { reason, message, changed };
  const conditions = setCondition(status.conditions, {
    type,
    status: 'False',
    reason,
    message,
    ...(observedGeneration !== undefined ? { observedGeneration } : {}),
  });
  let statusError: unknown;
  try {
    await updateStatus(client, live, { ...status, conditions } as never, {
      resource: options.resource,
      fieldManager: options.fieldManager,
    });
  } catch (e) {
    statusError = e;
  }
  await recorder?.event(live, { type: 'Warning', reason, action: options.action ?? 'Reconcile', note: message });
  return { reason, message, changed, ...(statusError !== undefined ? { statusError } : {}) };
}
