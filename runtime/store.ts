/**
 * Typed, read-only views of informer caches: what reconcilers read (controller-runtime's cached
 * `client.Reader`, kube-rs `reflector::Store`).
 *
 * Expected flow:
 * ```ts
 * export const FOO = resourceRef<Foo>({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' });
 * const foos = manager.getStore(FOO);           // Store<Foo>
 * const foo = foos.get({ namespace, name });    // Foo | undefined — no cast
 * ```
 * The type parameter flows from the generated spec/status types (`imports/<group>.ts`) through the
 * {@link TypedResourceRef} into the store and the reconciler.
 *
 * Guarantees: objects are deep-frozen snapshots (a mutation throws); a store never writes.
 *
 * Caveats: the store shows what the watch delivered so far; after a write, read through a
 * {@link ReadYourWritesClient} (or wait with {@link Store.waitForResourceVersion}) before trusting it.
 */
import { KubeObject, ObjectKeyRef, objectKey, ObjectMeta, ResourceRef } from './resource';

/** A {@link ResourceRef} that carries the object type of its kind (type-level only). */
export interface TypedResourceRef<T extends KubeObject> extends ResourceRef {
  /** Never set: only carries `T`. */
  readonly __objectType?: T;
}

/** Names a kind together with its object type: `resourceRef<Foo>({ apiVersion, kind, plural })`. */
export function resourceRef<T extends KubeObject>(ref: ResourceRef): TypedResourceRef<T> {
  return ref;
}

/** The object type a typed reference carries. */
export type ObjectOf<R> = R extends TypedResourceRef<infer T> ? T : KubeObject;

/** The read side of an informer cache (implemented by `ObjectCache` and the multi-namespace cache). */
export interface CacheReader {
  readonly size: number;
  /** The cached object of a `namespace/name` key (frozen). */
  get(key: string): KubeObject | undefined;
  /** A mutable deep copy. */
  getCopy(key: string): KubeObject | undefined;
  list(): KubeObject[];
  keys(): string[];
  /** Objects whose indexer `name` produced `value` (built-in: `namespace`, `ownerUid`, `label` = `key=value`). */
  byIndex(name: string, value: string): KubeObject[];
  /** Resolves `true` once the key's object has at least that resourceVersion or is deleted, `false` on timeout. */
  waitForResourceVersion(key: string, resourceVersion: string, timeoutMs?: number): Promise<boolean>;
}

/** Metadata every object the apiserver returns has. */
export interface StoredMeta extends ObjectMeta {
  name: string;
  uid: string;
  resourceVersion: string;
}

/** An object as the apiserver returned it (and an informer cached it): kind, name, uid and resourceVersion set. */
export type Stored<T extends KubeObject> = T & { apiVersion: string; kind: string; metadata: StoredMeta };

/** A typed, read-only store of one kind. */
export interface Store<T extends KubeObject> {
  /** The object by `namespace/name` key or reference. */
  get(ref: ObjectKeyRef | string): Stored<T> | undefined;
  /** All objects, or those of one namespace. */
  list(namespace?: string): Stored<T>[];
  /** Objects whose indexer `name` produced `value` (built-in: `namespace`, `ownerUid`, `label` = `key=value`). */
  byIndex(name: string, value: string): Stored<T>[];
  /** Resolves `true` once the key's object has at least that resourceVersion or is deleted, `false` on timeout. */
  waitForResourceVersion(ref: ObjectKeyRef | string, resourceVersion: string, timeoutMs?: number): Promise<boolean>;
}

/**
 * A typed view of a cache. The cache must only ever hold objects of `T`'s kind: the informer of a
 * {@link TypedResourceRef} does.
 */
export function storeOf<T extends KubeObject>(cache: CacheReader): Store<T> {
  const key = (ref: ObjectKeyRef | string) => (typeof ref === 'string' ? ref : objectKey(ref));
  // The one place the runtime vouches for the type: an informer's cache holds its kind only, as listed
  // and watched from the apiserver (which always sets kind, name, uid and resourceVersion).
  const typed = (objs: KubeObject[]) => objs as Stored<T>[];
  return {
    get: (ref) => cache.get(key(ref)) as Stored<T> | undefined,
    list: (namespace) => typed(namespace === undefined ? cache.list() : cache.byIndex('namespace', namespace)),
    byIndex: (name, value) => typed(cache.byIndex(name, value)),
    waitForResourceVersion: (ref, rv, timeoutMs) => cache.waitForResourceVersion(key(ref), rv, timeoutMs),
  };
}
