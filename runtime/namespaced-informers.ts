/**
 * One kind watched in several namespaces: one {@link Informer} per namespace behind the interface
 * of a single shared informer (controller-runtime's multi-namespace cache). Used by the manager
 * when `WATCH_NAMESPACE` (or the contract) names more than one namespace, so a Role in each
 * namespace is all the controller needs — no cluster-wide list.
 *
 * Guarantees:
 * - Synced once every namespace's informer synced; handlers see the events of all namespaces.
 * - The cache routes `namespace/name` keys to that namespace's cache; `list()` and `byIndex()`
 *   concatenate all namespaces.
 *
 * Caveats: a cluster-scoped key (no namespace) is never found: watch cluster-scoped kinds
 * cluster-wide.
 */
import { ObjectCache } from './cache';
import { EventHandler, Informer } from './informer';
import { KubeObject, parseObjectKey, ResourceRef } from './resource';
import { CacheReader } from './store';

/** What controllers and the manager need from an informer, one namespace or many. */
export interface SharedInformer {
  readonly resource: ResourceRef;
  readonly cache: CacheReader;
  readonly hasSynced: boolean;
  addEventHandler(handler: EventHandler): () => void;
  start(): void;
  stop(): Promise<void>;
  waitForSync(timeoutMs?: number): Promise<boolean>;
}

/** The caches of several namespaces read as one. */
class NamespacedCaches implements CacheReader {
  constructor(private readonly caches: ReadonlyMap<string, ObjectCache>) {}

  get size(): number {
    let n = 0;
    for (const c of this.caches.values()) n += c.size;
    return n;
  }

  get(key: string): KubeObject | undefined {
    return this.cacheOf(key)?.get(key);
  }

  getCopy(key: string): KubeObject | undefined {
    return this.cacheOf(key)?.getCopy(key);
  }

  list(): KubeObject[] {
    return [...this.caches.values()].flatMap((c) => c.list());
  }

  keys(): string[] {
    return [...this.caches.values()].flatMap((c) => c.keys());
  }

  byIndex(name: string, value: string): KubeObject[] {
    if (name === 'namespace') return this.caches.get(value)?.byIndex(name, value) ?? [];
    return [...this.caches.values()].flatMap((c) => c.byIndex(name, value));
  }

  waitForResourceVersion(key: string, resourceVersion: string, timeoutMs?: number): Promise<boolean> {
    return this.cacheOf(key)?.waitForResourceVersion(key, resourceVersion, timeoutMs) ?? Promise.resolve(false);
  }

  private cacheOf(key: string): ObjectCache | undefined {
    const { namespace } = parseObjectKey(key);
    return namespace === undefined ? undefined : this.caches.get(namespace);
  }
}

/** See module docs. */
export class NamespacedInformers implements SharedInformer {
  public readonly cache: CacheReader;

  /** `informers`: the kind's informer in each namespace. */
  constructor(
    public readonly resource: ResourceRef,
    private readonly informers: ReadonlyMap<string, Informer>,
  ) {
    this.cache = new NamespacedCaches(new Map([...informers].map(([ns, informer]) => [ns, informer.cache])));
  }

  get hasSynced(): boolean {
    return [...this.informers.values()].every((i) => i.hasSynced);
  }

  addEventHandler(handler: EventHandler): () => void {
    const removers = [...this.informers.values()].map((i) => i.addEventHandler(handler));
    return () => {
      for (const remove of removers) remove();
    };
  }

  start(): void {
    for (const i of this.informers.values()) i.start();
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  async waitForSync(timeoutMs?: number): Promise<boolean> {
    const synced = await Promise.all([...this.informers.values()].map((i) => i.waitForSync(timeoutMs)));
    return synced.every(Boolean);
  }
}
