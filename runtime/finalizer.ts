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
 * - Typed: `obj` of type `T` (e.g. a `Stored<SampleDB>` from a store) reaches `apply`/`cleanup` and
 *   comes back from `addFinalizer`/`removeFinalizer` as `T`, no cast at the call site.
 * - Write through `manager.readYourWritesClient`: the next reconcile then sees the finalizer in its store.
 *
 * Caveats: `cleanup` must be idempotent: it can run again after a crash between cleanup and removal.
 */
import { JsonPatchOperation, KubeClient } from './client';
import { KubeObject, ResourceRef } from './resource';

/** Callbacks of {@link finalizer}, called with the object's own type `T`. */
export interface FinalizerHandlers<R, T extends KubeObject = KubeObject> {
  apply(obj: T): Promise<R>;
  cleanup(obj: T): Promise<R>;
}

/** Where to send the patch: the given resource, else the object's own apiVersion and kind; its name and namespace. */
function target(
  obj: KubeObject,
  resource: ResourceRef | undefined,
): { ref: ResourceRef; name: string; namespace?: string } {
  const name = obj.metadata?.name;
  const ref = resource ?? (obj.apiVersion && obj.kind ? { apiVersion: obj.apiVersion, kind: obj.kind } : undefined);
  if (!name || !ref) {
    throw new Error(
      `finalizer: the object needs metadata.name and apiVersion/kind (or pass its resource), got ${JSON.stringify({ apiVersion: obj.apiVersion, kind: obj.kind, name })}`,
    );
  }
  return { ref, name, namespace: obj.metadata?.namespace };
}

// The apiserver answers a patch with the patched object of the same kind: the object's type carries over.
async function patched<T extends KubeObject>(
  client: KubeClient,
  obj: T,
  resource: ResourceRef | undefined,
  ops: JsonPatchOperation[],
): Promise<T> {
  const { ref, name, namespace } = target(obj, resource);
  return (await client.patch(ref, name, namespace, { type: 'json', ops })) as T;
}

/** Adds `name` to `metadata.finalizers` (no request if present). Returns the current object. */
export async function addFinalizer<T extends KubeObject>(
  client: KubeClient,
  obj: T,
  name: string,
  resource?: ResourceRef,
): Promise<T> {
  const current = obj.metadata?.finalizers ?? [];
  if (current.includes(name)) return obj;
  return patched(
    client,
    obj,
    resource,
    current.length
      ? [
          { op: 'test', path: '/metadata/finalizers', value: current },
          { op: 'add', path: '/metadata/finalizers/-', value: name },
        ]
      : [
          { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata?.resourceVersion },
          { op: 'add', path: '/metadata/finalizers', value: [name] },
        ],
  );
}

/** Removes `name` from `metadata.finalizers` (no request if absent). Returns the current object. */
export async function removeFinalizer<T extends KubeObject>(
  client: KubeClient,
  obj: T,
  name: string,
  resource?: ResourceRef,
): Promise<T> {
  const index = (obj.metadata?.finalizers ?? []).indexOf(name);
  if (index < 0) return obj;
  const path = `/metadata/finalizers/${index}`;
  return patched(client, obj, resource, [
    { op: 'test', path, value: name },
    { op: 'remove', path },
  ]);
}

/** Runs `apply` or `cleanup` with the finalizer protocol described in the module docs. */
export async function finalizer<R, T extends KubeObject>(
  client: KubeClient,
  name: string,
  obj: T,
  handlers: FinalizerHandlers<R, T>,
  resource?: ResourceRef,
): Promise<R | undefined> {
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
