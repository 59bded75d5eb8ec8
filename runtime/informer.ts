/**
 * A shared informer: one {@link Watcher} feeding one {@link ObjectCache}, fanning changes out to
 * event handlers (client-go `SharedIndexInformer`).
 *
 * Expected flow: the manager creates one informer per (kind, namespace) and shares it between
 * controllers; each controller adds a handler that maps changes to work-queue keys.
 *
 * Guarantees:
 * - The cache is updated before handlers run, so a reconcile triggered by an event sees that
 *   event's object (or newer) in the cache.
 * - A relist diffs against the cache: handlers get `onAdd` for new, `onUpdate` for changed
 *   (different resourceVersion) and `onDelete` for vanished objects.
 * - A handler added after the first list is replayed every cached object as `onAdd`.
 * - `hasSynced` turns true after the first complete list and stays true.
 * - Resync (default 10 h ± 10 %) replays the cache as `onUpdate(obj, obj)` without any request.
 * - Every object goes through the informer's cache transform first (default {@link stripForCache}),
 *   so the cache and the handlers see the same, trimmed object (cache-transform.ts).
 *
 * Caveats: handlers run synchronously in the watch loop; they must only enqueue, never block.
 */
import { deepFreeze, IndexFunc, ObjectCache } from './cache';
import { CacheTransform, stripForCache } from './cache-transform';
import { KubeClient } from './client';
import { Logger, silentLogger } from './log';
import { RuntimeMetrics } from './metrics';
import { KubeObject, objectKey, ResourceRef } from './resource';
import { Watcher, WatcherEvent, WatcherOptions } from './watcher';

/** Callbacks for cache changes. */
export interface EventHandler {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

/** Options of {@link Informer}. */
export interface InformerOptions extends Omit<WatcherOptions, 'client' | 'resource' | 'logger' | 'metrics'> {
  /** Period of cache replays to handlers; 0 disables. @default 36000000 (10 h, ± 10 % jitter) */
  readonly resyncPeriodMs?: number;
  /** Extra indexers on top of the built-in ones. */
  readonly indexers?: Record<string, IndexFunc>;
  /**
   * What the cache keeps of each object (cache-transform.ts); `false` keeps what the watch delivered.
   * @default stripForCache (no managedFields, no kubectl last-applied-configuration annotation)
   */
  readonly transform?: CacheTransform | false;
  /**
   * Keeps only the objects it admits (a shard's share, sharding.ts); the others are dropped as the watch delivers
   * them. After the predicate changed, {@link Informer.refilter} evicts what it no longer admits and re-lists.
   * @default - every object
   */
  readonly admit?: (obj: KubeObject) => boolean;
  /** Called with the number of objects a re-list after {@link Informer.refilter} added. */
  readonly onAdmitted?: (count: number) => void;
}

/** Watcher + cache + handlers. */
export class Informer {
  public readonly cache = new ObjectCache();
  private readonly watcher: Watcher;
  private readonly handlers = new Set<EventHandler>();
  private readonly syncWaiters = new Set<() => void>();
  private synced = false;
  private resyncTimer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;
  private readonly transform: CacheTransform | undefined;
  private refiltering = false;

  constructor(
    client: KubeClient,
    public readonly resource: ResourceRef,
    private readonly options: InformerOptions = {},
    logger: Logger = silentLogger,
    metrics?: RuntimeMetrics,
  ) {
    this.logger = logger;
    this.transform = options.transform === false ? undefined : (options.transform ?? stripForCache);
    for (const [name, fn] of Object.entries(options.indexers ?? {})) this.cache.addIndexer(name, fn);
    this.watcher = new Watcher({ ...options, keep: options.admit, client, resource, logger, metrics }, (e) =>
      this.apply(e),
    );
  }

  /** True after the first complete list reached the cache. */
  get hasSynced(): boolean {
    return this.synced;
  }

  /** Adds a handler; if already synced, replays the cache to it as adds. Returns a remover. */
  addEventHandler(handler: EventHandler): () => void {
    this.handlers.add(handler);
    if (this.synced) for (const obj of this.cache.list()) this.call(() => handler.onAdd?.(obj));
    return () => this.handlers.delete(handler);
  }

  /** Starts watching (idempotent). */
  start(): void {
    this.watcher.start();
    const period = this.options.resyncPeriodMs ?? 36_000_000;
    if (period > 0 && !this.resyncTimer) this.scheduleResync(period);
  }

  /** Stops watching; the cache keeps its content. */
  async stop(): Promise<void> {
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    this.resyncTimer = undefined;
    await this.watcher.stop();
  }

  /**
   * After the `admit` predicate changed: evicts the cached objects it no longer admits, without delete events
   * (they still exist; another shard holds them now), and re-lists to receive those it now admits (as adds).
   * Returns the number evicted.
   */
  refilter(): number {
    const admit = this.options.admit;
    if (!admit) return 0;
    let evicted = 0;
    for (const obj of this.cache.list()) {
      if (!admit(obj)) {
        this.cache.delete(obj);
        evicted++;
      }
    }
    // what the first list brings is the initial share, not objects handed over
    this.refiltering = this.watcher.hasListed;
    this.watcher.relistNow();
    return evicted;
  }

  /** Resolves `true` once synced, `false` after `timeoutMs` (default 2 min). */
  waitForSync(timeoutMs = 120_000): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.syncWaiters.delete(onSync);
        resolve(ok);
      };
      const onSync = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.syncWaiters.add(onSync);
    });
  }

  private scheduleResync(period: number): void {
    const delay = period * (0.9 + Math.random() * 0.2);
    this.resyncTimer = setTimeout(() => {
      for (const obj of this.cache.list()) this.dispatch((h) => h.onUpdate?.(obj, obj));
      this.scheduleResync(period);
    }, delay);
    this.resyncTimer.unref();
  }

  private apply(event: WatcherEvent): void {
    switch (event.type) {
      case 'Relisted': {
        const admitted = this.options.admit ? event.objects.filter(this.options.admit) : event.objects;
        const diff = this.cache.replace(this.transform ? admitted.map(this.transform) : admitted);
        if (this.refiltering) {
          this.refiltering = false;
          this.options.onAdmitted?.(diff.added.length);
        }
        for (const obj of diff.added) this.dispatch((h) => h.onAdd?.(obj));
        for (const { oldObject, newObject } of diff.updated) this.dispatch((h) => h.onUpdate?.(oldObject, newObject));
        for (const obj of diff.deleted) this.dispatch((h) => h.onDelete?.(obj));
        if (!this.synced) {
          this.synced = true;
          for (const w of [...this.syncWaiters]) w();
        }
        break;
      }
      case 'Applied': {
        if (this.options.admit && !this.options.admit(event.object)) {
          // Not (or no longer) this shard's: dropped, and evicted silently when cached (it still exists).
          if (this.cache.get(objectKey(event.object))) this.cache.delete(event.object);
          break;
        }
        const object = this.transform ? this.transform(event.object) : event.object;
        const old = this.cache.upsert(object);
        const now = this.cache.get(objectKey(object))!;
        if (old) this.dispatch((h) => h.onUpdate?.(old, now));
        else this.dispatch((h) => h.onAdd?.(now));
        break;
      }
      case 'Deleted': {
        if (this.options.admit && !this.cache.get(objectKey(event.object))) break;
        const object = this.transform ? this.transform(event.object) : event.object;
        this.cache.delete(object);
        // The DELETED event carries the final state (e.g. deletionTimestamp), as client-go passes it on.
        const obj = deepFreeze(object);
        this.dispatch((h) => h.onDelete?.(obj));
        break;
      }
    }
  }

  private dispatch(fn: (h: EventHandler) => void): void {
    for (const h of this.handlers) this.call(() => fn(h));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      this.logger.error('event handler failed', { error: err });
    }
  }
}
