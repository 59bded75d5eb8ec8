/**
 * Controllers: a work queue, workers and a reconciler, wired to shared informers by a builder
 * (controller-runtime `builder` + `internal/controller`).
 *
 * Expected flow:
 * ```ts
 * new ControllerBuilder(manager, { name: 'foo' })
 *   .for({ apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' }, { predicates: [generationChanged] })
 *   .owns({ apiVersion: 'apps/v1', kind: 'Deployment' })
 *   .withConcurrency(2)
 *   .complete(reconciler);
 * ```
 * `for` enqueues the object's own key, `owns` the owner named by the first `controller: true`
 * ownerReference of the `for` GroupKind (for the old and the new object), `ownsByLabel` the owner its
 * `setLabelOwner` label names (children the garbage collector must not delete), `watches` whatever the
 * map function returns. Workers start only after every informer synced (timeout 2 min).
 *
 * Guarantees:
 * - Reconciles are keyed `namespace/name`, de-duplicated, never concurrent for one key.
 * - `{ requeueAfter }` re-runs after that delay and resets the backoff; `{ requeue: true }` and
 *   thrown errors re-run with per-key exponential backoff; a {@link TerminalError} is counted and
 *   not retried. Nothing a reconciler throws escapes the worker.
 * - Read-your-writes without an idle worker: when the host has a read-your-writes client, each reconcile
 *   gets {@link ReconcileContext.client}, whose writes return as soon as the apiserver answered. When the
 *   reconcile returns, its worker takes the next key at once, while this key stays *parked*: held as
 *   processing (adds only mark it dirty, as during a reconcile) until the caches show every write of
 *   that reconcile (5 s at most); then its result is applied (requeue, backoff, forget) and a dirty key
 *   is queued again. So the next reconcile of a key always reads its own writes, and `concurrency`
 *   bounds reconciles running, not writes travelling back through the watch. `stop()` waits for parked
 *   keys as for running ones.
 * - Metrics: `controller_runtime_reconcile_total{controller,result}` (result = success | error |
 *   requeue | requeue_after), `_reconcile_errors_total`, `_terminal_reconcile_errors_total`,
 *   `_reconcile_panics_total` (TypeError/ReferenceError/RangeError: programming errors),
 *   `_reconcile_time_seconds`, `_max_concurrent_reconciles`, `_active_workers`.
 *
 * Caveats: reconcilers are level-based: they get only the key, never the event type, and must
 * read current state from the cache.
 */
import type { CacheOptions } from './cache-transform';
import type { KubeClient } from './client';
import { assertContractGrants, ContractNeed, ControllerContract } from './contract';
import { TerminalError, TimeoutError } from './errors';
import { getLabelOwner } from './label-owner';
import { Logger } from './log';
import { RuntimeMetrics } from './metrics';
import { SharedInformer } from './namespaced-informers';
import { getControllerOf } from './owner-references';
import { EventKind, Predicate } from './predicates';
import type { DeferredWrites } from './read-your-writes';
import { KubeObject, ObjectKeyRef, objectKey, parseObjectKey, ResourceRef } from './resource';
import { WorkQueue } from './workqueue';

/** The object to reconcile. */
export type Request = ObjectKeyRef;

/** What a reconcile asks for next. */
export interface Result {
  /** Run again after this many milliseconds (resets the error backoff). */
  readonly requeueAfter?: number;
  /** Run again with backoff. */
  readonly requeue?: boolean;
}

/** What a controller gives each reconcile besides the key. */
export interface ReconcileContext {
  /**
   * Writes through it resolve once the apiserver answered; the controller holds the key back until the
   * caches show them (see module docs), so the next reconcile of the key reads them. Within this reconcile
   * the store does not show them yet: use the object a write returns.
   */
  readonly client: KubeClient;
}

/** Business logic of a controller. */
export interface Reconciler {
  /** `context` is given when the controller's host has a read-your-writes client (a `Manager` has). */
  reconcile(request: Request, context?: ReconcileContext): Promise<Result | void>;
}

/** What the builder needs from a manager. */
export interface ControllerHost {
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  /** The shared informer for a kind (created on first use, with `cache` options then). */
  getInformer(resource: ResourceRef, cache?: CacheOptions): SharedInformer;
  /** What the controller may do; wiring beyond it is refused. @default - unchecked */
  readonly contract?: ControllerContract;
  /** Parallel reconciles of a controller built without `withConcurrency`. @default 1 */
  readonly defaultConcurrency?: number;
  /** Registers a controller to be started with the manager (after leader election). */
  addController(controller: Controller): void;
  /** A client for one reconcile's writes (see {@link ReconcileContext}). @default - none: reconciles get no context */
  deferredWrites?(): DeferredWrites;
  /**
   * Sharding (sharding.ts): which requests of the primary kind this replica reconciles. `owned` are the kinds the
   * controller owns by ownerReference: of those, only objects a primary controls are the ring's. @default - all
   */
  shardGate?(primary: ResourceRef, owned?: readonly ResourceRef[]): ShardGate | undefined;
}

/** What a sharded controller asks its host (see `Manager.shardGate`). */
export interface ShardGate {
  /** The shard key of a request (undefined: the object is not in this member's cache). */
  shardKeyOf(request: Request): string | undefined;
  /** Does this member reconcile objects of this shard key now? */
  owns(shardKey: string): boolean;
  /** Runs a reconcile in the scope of its shard key (its writes are refused once the key moves away). */
  run<T>(shardKey: string, fn: () => T): T;
}

/** Maps an object of a watched kind to reconcile requests. */
export type MapFunc = (obj: KubeObject) => Request[];

/** Options of a watch source. */
export interface SourceOptions {
  /** All must pass for the event to enqueue. */
  readonly predicates?: readonly Predicate[];
  /** What the kind's shared informer keeps (cache-transform.ts); see `Manager.getInformer`. @default - stripForCache */
  readonly cache?: CacheOptions;
}

interface Source {
  readonly informer: SharedInformer;
  readonly map: MapFunc;
  readonly predicates: readonly Predicate[];
}

/** Options of {@link Controller}. */
export interface ControllerOptions {
  /** Name in metrics and logs. */
  readonly name: string;
  /** Parallel workers. @default 1 */
  readonly concurrency?: number;
  /** How long to wait for informers before failing. @default 120000 */
  readonly cacheSyncTimeoutMs?: number;
  /** Backoff base for failed reconciles. @default 5 */
  readonly backoffBaseMs?: number;
  /** Backoff cap for failed reconciles. @default 1000000 */
  readonly backoffMaxMs?: number;
  /** Gives each reconcile a client whose writes park the key (see module docs). @default - no context */
  readonly deferredWrites?: () => DeferredWrites;
  /** Sharded: reconcile only the keys this member owns (skipped otherwise), each in its shard's scope. @default - every key */
  readonly shard?: ShardGate;
}

function isPanic(err: unknown): boolean {
  return (
    err instanceof TypeError || err instanceof ReferenceError || err instanceof RangeError || !(err instanceof Error)
  );
}

/** A running controller; build with {@link ControllerBuilder}. */
export class Controller {
  public readonly name: string;
  /** Parallel reconciles (workers). */
  public readonly concurrency: number;
  private workQueue: WorkQueue;
  private readonly sources: Source[] = [];
  private readonly removers: Array<() => void> = [];
  private workers: Array<Promise<void>> = [];
  /** Keys whose reconcile returned and whose writes are on their way to the caches. */
  private readonly parked = new Set<Promise<void>>();
  /** Sharded: keys skipped as not this member's (yet), enqueued first when its share grows. */
  private readonly skipped = new Set<string>();
  private readonly logger: Logger;
  private started = false;

  constructor(
    private readonly options: ControllerOptions,
    private readonly reconciler: Reconciler,
    private readonly metrics: RuntimeMetrics,
    logger: Logger,
  ) {
    this.name = options.name;
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.logger = logger.child({ controller: options.name });
    this.workQueue = this.newQueue();
  }

  /** The work queue of the current run (a controller started again after `stop()` gets a fresh one). */
  get queue(): WorkQueue {
    return this.workQueue;
  }

  private newQueue(): WorkQueue {
    return new WorkQueue({
      name: this.options.name,
      metrics: this.metrics,
      baseDelayMs: this.options.backoffBaseMs,
      maxDelayMs: this.options.backoffMaxMs,
    });
  }

  /** Adds an event source (before start). */
  watch(informer: SharedInformer, map: MapFunc, predicates: readonly Predicate[] = []): void {
    if (this.started) throw new Error(`controller '${this.name}' already started`);
    this.sources.push({ informer, map, predicates });
  }

  /**
   * Registers handlers, waits for caches, starts workers. Throws {@link TimeoutError} if caches do not sync.
   * After `stop()` it can start again (a manager re-elected): a fresh queue, the handlers registered again,
   * so every cached object is enqueued once more (level-triggered: nothing from the last run is assumed).
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.workQueue.isShuttingDown) this.workQueue = this.newQueue();
    const queue = this.workQueue;
    for (const source of this.sources) {
      const enqueue = (kind: EventKind, oldObj: KubeObject, newObj: KubeObject, objs: KubeObject[]) => {
        if (!source.predicates.every((p) => p(kind, oldObj, newObj))) return;
        for (const obj of objs) for (const req of source.map(obj)) queue.add(objectKey(req));
      };
      this.removers.push(
        source.informer.addEventHandler({
          onAdd: (o) => enqueue('create', o, o, [o]),
          onUpdate: (o, n) => enqueue('update', o, n, [o, n]),
          onDelete: (o) => enqueue('delete', o, o, [o]),
        }),
      );
      source.informer.start();
    }
    const timeout = this.options.cacheSyncTimeoutMs ?? 120_000;
    const synced = await Promise.all(this.sources.map((s) => s.informer.waitForSync(timeout)));
    if (synced.includes(false)) {
      const missing = this.sources.filter((s) => !s.informer.hasSynced).map((s) => s.informer.resource.kind);
      throw new TimeoutError(
        `controller '${this.name}': caches of ${missing.join(', ')} did not sync within ${timeout} ms`,
      );
    }
    const n = this.concurrency;
    this.metrics.maxConcurrentReconciles.set({ controller: this.name }, n);
    this.metrics.activeWorkers.set({ controller: this.name }, 0);
    // Stopped while the caches synced: no worker may start on this run's queue.
    if (queue.isShuttingDown) return;
    this.logger.info('starting workers', { workers: n });
    for (let i = 0; i < n; i++) this.workers.push(this.work(queue));
  }

  /**
   * Stops taking work and waits for in-flight reconciles, at most `timeoutMs`.
   * Resolves `true` if all finished in time.
   */
  async stop(timeoutMs = 30_000): Promise<boolean> {
    this.workQueue.shutDown();
    for (const remove of this.removers.splice(0)) remove();
    this.started = false;
    const workers = this.workers.splice(0);
    let timer: NodeJS.Timeout | undefined;
    // Parked keys settle within the read-your-writes timeout; a worker may park one more until it returns.
    const inFlight = Promise.all(workers).then(() => Promise.all([...this.parked]));
    const finished = await Promise.race([
      inFlight.then(() => true),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (!finished) {
      this.logger.warn('in-flight reconciles did not finish before the shutdown timeout', {
        timeoutMs,
        keys: this.queue.processingKeys,
      });
    }
    return finished;
  }

  /**
   * Enqueues every cached object of the primary kind (sharding: this member's share grew). Keys already
   * reconciled converge with no write (level-triggered). The keys skipped as not this member's go first: the
   * objects it takes over, which came into its cache last, are reconciled before the share it already had.
   */
  requeueAll(): void {
    if (!this.started) return;
    const first = [...this.skipped];
    this.skipped.clear();
    for (const key of first) this.workQueue.add(key);
    const added = new Set(first);
    const primary = this.sources[0];
    for (const obj of primary?.informer.cache.list() ?? []) {
      const key = objectKey(obj);
      // Not again: a key a worker took at once would be queued a second time behind its reconcile.
      if (!added.has(key)) this.workQueue.add(key);
    }
  }

  private async work(queue: WorkQueue): Promise<void> {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      await this.reconcileKey(queue, key);
    }
  }

  private async reconcileKey(queue: WorkQueue, key: string): Promise<void> {
    const labels = { controller: this.name };
    const request = parseObjectKey(key);
    const shard = this.options.shard;
    const shardKey = shard?.shardKeyOf(request);
    if (shard && (shardKey === undefined || !shard.owns(shardKey))) {
      // Another member's (or not ours yet: the key is enqueued again when this member's share grows).
      this.skipped.add(key);
      queue.forget(key);
      queue.done(key);
      return;
    }
    this.metrics.activeWorkers.inc(labels);
    const started = Date.now();
    const writes = this.options.deferredWrites?.();
    let outcome: Outcome;
    try {
      const run = () => this.reconciler.reconcile(request, writes && { client: writes });
      const res = (await (shard ? shard.run(shardKey!, run) : run())) ?? {};
      outcome = { res };
    } catch (err) {
      outcome = { err };
    }
    this.metrics.reconcileTime.observe(labels, (Date.now() - started) / 1000);
    this.metrics.activeWorkers.dec(labels);
    if (!writes?.pending) {
      this.finish(queue, key, outcome);
      return;
    }
    // Parked: the worker goes on with the next key; this one stays processing until its writes are cached.
    const parked: Promise<void> = writes.settled().then(() => {
      this.parked.delete(parked);
      this.finish(queue, key, outcome);
    });
    this.parked.add(parked);
  }

  /** Applies a reconcile's result to the queue and releases the key. Never throws. */
  private finish(queue: WorkQueue, key: string, outcome: Outcome): void {
    const labels = { controller: this.name };
    let result: 'success' | 'error' | 'requeue' | 'requeue_after' = 'success';
    try {
      if (!('err' in outcome)) {
        const res = outcome.res;
        if (res.requeueAfter !== undefined && res.requeueAfter > 0) {
          queue.forget(key);
          queue.addAfter(key, res.requeueAfter);
          result = 'requeue_after';
        } else if (res.requeue) {
          queue.addRateLimited(key);
          result = 'requeue';
        } else {
          queue.forget(key);
        }
      } else {
        const err = outcome.err;
        result = 'error';
        this.metrics.reconcileErrors.inc(labels);
        if (err instanceof TerminalError) {
          this.metrics.terminalReconcileErrors.inc(labels);
          queue.forget(key);
          this.logger.error('reconcile failed terminally, not retrying', { key, error: err });
        } else {
          if (isPanic(err)) {
            this.metrics.reconcilePanics.inc(labels);
            this.logger.error('reconcile panicked (programming error)', {
              key,
              error: err,
              stack: (err as Error)?.stack,
            });
          } else {
            this.logger.warn('reconcile failed, retrying with backoff', {
              key,
              error: err,
              requeues: queue.numRequeues(key),
            });
          }
          queue.addRateLimited(key);
        }
      }
    } finally {
      this.metrics.reconcileTotal.inc({ ...labels, result });
      queue.done(key);
    }
  }
}

/** How a reconcile ended: its result, or what it threw. */
type Outcome = { readonly res: Result } | { readonly err: unknown };

/** Fluent builder; see module docs. */
export class ControllerBuilder {
  private forSource: { resource: ResourceRef; options: SourceOptions } | undefined;
  private readonly owned: Array<{ resource: ResourceRef; options: SourceOptions }> = [];
  private readonly labelOwned: Array<{ resource: ResourceRef; options: SourceOptions }> = [];
  private readonly watched: Array<{ resource: ResourceRef; map: MapFunc; options: SourceOptions }> = [];
  private concurrency: number | undefined;
  private extra: Partial<ControllerOptions> = {};

  constructor(
    private readonly host: ControllerHost,
    private readonly options: { readonly name: string },
  ) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(options.name)) {
      throw new Error(`controller name must be a DNS label, got '${options.name}'`);
    }
  }

  /** The primary kind: its events enqueue the object itself. */
  for(resource: ResourceRef, options: SourceOptions = {}): this {
    if (this.forSource) throw new Error(`for() already called with ${this.forSource.resource.kind}`);
    this.forSource = { resource, options };
    return this;
  }

  /** An owned kind: its events enqueue its controller owner of the primary kind. */
  owns(resource: ResourceRef, options: SourceOptions = {}): this {
    this.owned.push({ resource, options });
    return this;
  }

  /**
   * A kind owned by label (`setLabelOwner`, no ownerReference: the garbage collector never deletes it): its events
   * enqueue the owner of the primary kind its label and annotation name. Needs the kind in `contract.owns`, as `owns`.
   */
  ownsByLabel(resource: ResourceRef, options: SourceOptions = {}): this {
    this.labelOwned.push({ resource, options });
    return this;
  }

  /** Any kind with a custom mapping to requests. */
  watches(resource: ResourceRef, map: MapFunc, options: SourceOptions = {}): this {
    this.watched.push({ resource, map, options });
    return this;
  }

  /** Parallel reconciles (different keys). @default - the manager's `concurrency` (`--concurrency` in a binary), else 1 */
  withConcurrency(n: number): this {
    if (!Number.isInteger(n) || n < 1) throw new Error(`concurrency must be a positive integer, got ${n}`);
    this.concurrency = n;
    return this;
  }

  /** Further controller options (cache sync timeout, backoff). */
  withOptions(options: Partial<Omit<ControllerOptions, 'name'>>): this {
    this.extra = { ...this.extra, ...options };
    return this;
  }

  /**
   * Creates the controller and registers it with the manager. Throws `ContractViolationError`
   * when the manager has a contract that does not grant this wiring.
   */
  complete(reconciler: Reconciler): Controller {
    const primary = this.forSource;
    if (!primary) throw new Error(`controller '${this.options.name}' needs for() before complete()`);
    if (this.host.contract) {
      const needs: ContractNeed[] = [
        { use: 'for', resource: primary.resource },
        ...[...this.owned, ...this.labelOwned].map(({ resource }) => ({ use: 'owns' as const, resource })),
        ...this.watched.map(({ resource }) => ({ use: 'watches' as const, resource })),
      ];
      assertContractGrants(`controller '${this.options.name}'`, this.host.contract, needs);
    }
    const deferredWrites = this.host.deferredWrites ? () => this.host.deferredWrites!() : undefined;
    const shard = this.host.shardGate?.(
      primary.resource,
      this.owned.map((o) => o.resource),
    );
    const controller = new Controller(
      {
        deferredWrites,
        shard,
        ...this.extra,
        name: this.options.name,
        concurrency: this.concurrency ?? this.host.defaultConcurrency ?? 1,
      },
      reconciler,
      this.host.metrics,
      this.host.logger,
    );
    const self: MapFunc = (o) => [{ namespace: o.metadata?.namespace, name: o.metadata!.name! }];
    controller.watch(this.host.getInformer(primary.resource, primary.options.cache), self, primary.options.predicates);
    for (const { resource, options } of this.owned) {
      const toOwner: MapFunc = (o) => {
        const ref = getControllerOf(o, primary.resource);
        return ref ? [{ namespace: o.metadata?.namespace, name: ref.name }] : [];
      };
      controller.watch(this.host.getInformer(resource, options.cache), toOwner, options.predicates);
    }
    for (const { resource, options } of this.labelOwned) {
      const toOwner: MapFunc = (o) => {
        const ref = getLabelOwner(o, primary.resource);
        return ref ? [{ namespace: ref.namespace, name: ref.name }] : [];
      };
      controller.watch(this.host.getInformer(resource, options.cache), toOwner, options.predicates);
    }
    for (const { resource, map, options } of this.watched) {
      controller.watch(this.host.getInformer(resource, options.cache), map, options.predicates);
    }
    this.host.addController(controller);
    return controller;
  }
}
