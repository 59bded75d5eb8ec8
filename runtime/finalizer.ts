/**
 * Finalizer handling with JSON-Patch `test` guards (kube-rs `finalizer`).
 *
 * Expected flow (inside a reconcile, with the cached object):
 * ```ts
 * return finalizer(client, 'foo.example.com/cleanup', foo, {
 *   apply: async (obj) => { ...; return {}; },
 *   cleanup: async (obj) => { ...delete external things idempotently... },
 * });
 * ```
 * 1. Not being deleted, finalizer missing → add it, then `apply` the patched object.
 * 2. Not being deleted, finalizer present → `apply`.
 * 3. Being deleted, finalizer present → `cleanup`; only after it succeeded remove the finalizer.
 * 4. Being deleted, finalizer absent → nothing (someone else's finalizer is pending).
 *
 * Guarantees:
 * - Every patch is `application/json-patch+json` with a `test` op: adding tests the current list
 *   (or the resourceVersion when there is none), removing tests the element at its index. A
 *   concurrent change fails the test (422) instead of dropping another controller's finalizer;
 *   the error propagates and the reconcile is retried against the fresh object.
 * - If `cleanup` throws, the finalizer stays and the error propagates (retry with backoff).
 *
 * Caveats: `cleanup` must be idempotent: it can run again after a crash between cleanup and removal.
 */
import { JsonPatchOperation, KubeClient } from './client';
import { KubeObject, ResourceRef } from './resource';

/** Callbacks of {@link finalizer}. */
export interface FinalizerHandlers<R> {
  apply(obj: KubeObject): Promise<R>;
  cleanup(obj: KubeObject): Promise<R>;
}

function refOf(obj: KubeObject, resource?: ResourceRef): ResourceRef {
  return resource ?? { apiVersion: obj.apiVersion!, kind: obj.kind! };
}

/** Adds `name` to `metadata.finalizers` (no request if present). Returns the current object. */
export async function addFinalizer(client: KubeClient, obj: KubeObject, name: string, resource?: ResourceRef): Promise<KubeObject> {
  const current = obj.metadata?.finalizers ?? [];
  if (current.includes(name)) return obj;
  const ops: JsonPatchOperation[] = current.length
    ? [{ op: 'test', path: '/metadata/finalizers', value: current }, { op: 'add', path: '/metadata/finalizers/-', value: name }]
    : [{ op: 'test', path: '/metadata/resourceVersion', value: obj.metadata?.resourceVersion }, { op: 'add', path: '/metadata/finalizers', value: [name] }];
  return client.patch(refOf(obj, resource), obj.metadata!.name!, obj.metadata?.namespace, { type: 'json', ops });
}

/** Removes `name` from `metadata.finalizers` (no request if absent). Returns the current object. */
export async function removeFinalizer(client: KubeClient, obj: KubeObject, name: string, resource?: ResourceRef): Promise<KubeObject> {
  const index = (obj.metadata?.finalizers ?? []).indexOf(name);
  if (index < 0) return obj;
  const path = `/metadata/finalizers/${index}`;
  return client.patch(refOf(obj, resource), obj.metadata!.name!, obj.metadata?.namespace, {
    type: 'json',
    ops: [{ op: 'test', path, value: name }, { op: 'remove', path }],
  });
}

/** Runs `apply` or `cleanup` with the finalizer protocol described in the module docs. */
export async function finalizer<R>(client: KubeClient, name: string, obj: KubeObject, handlers: FinalizerHandlers<R>, resource?: ResourceRef): Promise<R | undefined> {
  const has = (obj.metadata?.finalizers ?? []).includes(name);
  if (obj.metadata?.deletionTimestamp) {
    if (!has) return undefined;
    const result = await handlers.cleanup(obj);
    await removeFinalizer(client, obj, name, resource);
    return result;
  }
  const current = has ? obj : await addFinalizer(client, obj, name, resource);
  return handlers.apply(current);
}
