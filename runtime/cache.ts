/**
 * An in-memory object store with indexers (client-go `Indexer`, kube-rs `reflector::Store`).
 *
 * Expected flow: an {@link Informer} applies watcher events to the store; controllers read from it
 * instead of the apiserver.
 *
 * Guarantees:
 * - Objects handed out are deep-frozen (mutation throws in strict mode); use {@link ObjectCache.getCopy}
 *   for a mutable copy.
 * - Built-in indexes: `namespace`, `ownerUid` (every ownerReference uid) and `label` (`key=value`);
 *   more with {@link ObjectCache.addIndexer}.
 * - {@link ObjectCache.replace} returns what changed, so a relist yields deletes for vanished objects.
 * - {@link ObjectCache.waitForResourceVersion} supports read-your-own-writes: it resolves once the
 *   cache holds the object at (or past) the resourceVersion a write returned, or has deleted it.
 *
 * Caveats: resourceVersions are opaque; "at or past" compares them numerically only when both are
 * decimal integers (true for etcd-backed apiservers), otherwise it waits for equality.
 */
import { KubeObject, objectKey } from './resource';

/** Computes index values of an object. */
export type IndexFunc = (obj: KubeObject) => readonly string[];

/** What {@link ObjectCache.replace} changed. */
export interface ReplaceResult {
  readonly added: readonly KubeObject[];
  readonly updated: ReadonlyArray<{ readonly oldObject: KubeObject; readonly newObject: KubeObject }>;
  readonly deleted: readonly KubeObject[];
}

/** Deep-freezes a plain JSON object. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** True if resourceVersion `have` is at or past `want`. */
export function resourceVersionReached(have: string | undefined, want: string): boolean {
  if (have === undefined) return false;
  if (have === want) return true;
  if (/^\d+$/.test(have) && /^\d+$/.test(want)) return BigInt(have) >= BigInt(want);
  return false;
}

/** The built-in indexers. */
export const BUILTIN_INDEXERS: Readonly<Record<string, IndexFunc>> = {
  namespace: (o) => [o.metadata?.namespace ?? ''],
  ownerUid: (o) => (o.metadata?.ownerReferences ?? []).map((r) => r.uid),
  label: (o) => Object.entries(o.metadata?.labels ?? {}).map(([k, v]) => `${k}=${v}`),
};

interface Waiter {
  readonly rv: string;
  readonly resolve: (ok: boolean) => void;
}

/** Indexed store of frozen objects keyed by `namespace/name`. */
export class ObjectCache {
  private readonly items = new Map<string, KubeObject>();
  private readonly indexers = new Map<string, IndexFunc>();
  /** index name → index value → keys */
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly waiters = new Map<string, Set<Waiter>>();

  constructor(indexers: Record<string, IndexFunc> = BUILTIN_INDEXERS) {
    for (const [name, fn] of Object.entries(indexers)) this.addIndexer(name, fn);
  }

  /** Adds an index (existing objects are indexed at once). Throws for a duplicate name. */
  addIndexer(name: string, fn: IndexFunc): void {
    if (this.indexers.has(name)) throw new Error(`indexer '${name}' already exists`);
    this.indexers.set(name, fn);
    this.indices.set(name, new Map());
    for (const [key, obj] of this.items) this.indexOne(name, fn, key, obj);
  }

  /** Number of objects. */
  get size(): number {
    return this.items.size;
  }

  /** The frozen object with this key. */
  get(key: string): KubeObject | undefined {
    return this.items.get(key);
  }

  /** A mutable deep copy of the object with this key. */
  getCopy(key: string): KubeObject | undefined {
    const obj = this.items.get(key);
    return obj ? (structuredClone(obj) as KubeObject) : undefined;
  }

  /** All objects (frozen). */
  list(): KubeObject[] {
    return [...this.items.values()];
  }

  /** All keys. */
  keys(): string[] {
    return [...this.items.keys()];
  }

  /** Objects whose index `name` contains `value`. Throws for an unknown index. */
  byIndex(name: string, value: string): KubeObject[] {
    const index = this.indices.get(name);
    if (!index) throw new Error(`unknown indexer '${name}'`);
    return [...(index.get(value) ?? [])].map((k) => this.items.get(k)!).filter(Boolean);
  }

  /** Inserts or replaces an object; returns the previous one. */
  upsert(obj: KubeObject): KubeObject | undefined {
    const key = objectKey(obj);
    const old = this.items.get(key);
    if (old) this.unindex(key, old);
    const frozen = deepFreeze(obj);
    this.items.set(key, frozen);
    for (const [name, fn] of this.indexers) this.indexOne(name, fn, key, frozen);
    this.notify(key, frozen);
    return old;
  }

  /** Removes an object; returns the removed one. */
  delete(objOrKey: KubeObject | string): KubeObject | undefined {
    const key = typeof objOrKey === 'string' ? objOrKey : objectKey(objOrKey);
    const old = this.items.get(key);
    if (!old) return undefined;
    this.unindex(key, old);
    this.items.delete(key);
    this.releaseWaiters(key);
    return old;
  }

  /** Replaces the whole content (a relist) and reports the difference. */
  replace(objects: readonly KubeObject[]): ReplaceResult {
    const added: KubeObject[] = [];
    const updated: Array<{ oldObject: KubeObject; newObject: KubeObject }> = [];
    const seen = new Set<string>();
    for (const obj of objects) {
      const key = objectKey(obj);
      seen.add(key);
      const old = this.items.get(key);
      if (old && old.metadata?.resourceVersion === obj.metadata?.resourceVersion) continue;
      this.upsert(obj);
      if (old) updated.push({ oldObject: old, newObject: this.items.get(key)! });
      else added.push(this.items.get(key)!);
    }
    const deleted: KubeObject[] = [];
    for (const key of [...this.items.keys()]) {
      if (!seen.has(key)) deleted.push(this.delete(key)!);
    }
    return { added, updated, deleted };
  }

  /**
   * Resolves `true` once the cached object `key` is at or past `resourceVersion`, or is deleted from
   * the cache (no later version can come: a write that removed the last finalizer of a deleting
   * object is followed by its deletion, never by that version); `false` after `timeoutMs` (kopf's
   * consistency timeout is 5 s).
   */
  waitForResourceVersion(key: string, resourceVersion: string, timeoutMs = 5000): Promise<boolean> {
    if (resourceVersionReached(this.items.get(key)?.metadata?.resourceVersion, resourceVersion)) {
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const waiter: Waiter = {
        rv: resourceVersion,
        resolve: (ok) => {
          clearTimeout(timer);
          set!.delete(waiter);
          if (!set!.size) this.waiters.delete(key);
          resolve(ok);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      set.add(waiter);
    });
  }

  private releaseWaiters(key: string): void {
    for (const w of [...(this.waiters.get(key) ?? [])]) w.resolve(true);
  }

  private notify(key: string, obj: KubeObject): void {
    const set = this.waiters.get(key);
    if (!set) return;
    for (const w of [...set]) if (resourceVersionReached(obj.metadata?.resourceVersion, w.rv)) w.resolve(true);
  }

  private indexOne(name: string, fn: IndexFunc, key: string, obj: KubeObject): void {
    const index = this.indices.get(name)!;
    for (const value of fn(obj)) {
      let keys = index.get(value);
      if (!keys) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  private unindex(key: string, obj: KubeObject): void {
    for (const [name, fn] of this.indexers) {
      const index = this.indices.get(name)!;
      for (const value of fn(obj)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys && !keys.size) index.delete(value);
      }
    }
  }
}
