/**
 * A rate-limited, de-duplicating work queue of string keys (client-go `workqueue`).
 *
 * Expected flow: event handlers `add(key)`; workers `await get()`, reconcile, then call `done(key)`
 * and one of `forget(key)` (success), `addRateLimited(key)` (retry with backoff) or
 * `addAfter(key, ms)` (requeueAfter).
 *
 * Guarantees:
 * - A key waiting in the queue is stored once (adds coalesce).
 * - A key handed out by `get()` is not handed out again until `done(key)`: no key is processed by
 *   two workers at the same time.
 * - Adds while a key is processing mark it dirty; `done` re-queues it exactly once.
 * - Per-key exponential backoff for `addRateLimited`: 5 ms · 2^failures, capped at 1000 s;
 *   `forget` resets it. `add` is never rate limited (first-time watch events go straight in).
 * - `addAfter` keeps the earliest pending time per key.
 * - Metrics: `workqueue_depth`, `_adds_total`, `_queue_duration_seconds`, `_work_duration_seconds`,
 *   `_unfinished_work_seconds`, `_longest_running_processor_seconds`, `_retries_total`, label `name`.
 *
 * Caveats: after `shutDown()`, `get()` resolves `undefined` and adds are ignored.
 */
import { RuntimeMetrics } from './metrics';

/** Options of {@link WorkQueue}. */
export interface WorkQueueOptions {
  /** Name used as the `name` (and `controller`) metric label. */
  readonly name: string;
  /** @default - a private registry */
  readonly metrics?: RuntimeMetrics;
  /** First backoff step. @default 5 */
  readonly baseDelayMs?: number;
  /** Largest backoff. @default 1000000 (1000 s) */
  readonly maxDelayMs?: number;
}

/** See module docs. */
export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly addedAt = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly getters: Array<(key: string | undefined) => void> = [];
  private shuttingDown = false;
  private readonly metrics: RuntimeMetrics;
  private readonly labels: { name: string; controller: string };
  private readonly removeCollector: () => void;

  constructor(private readonly options: WorkQueueOptions) {
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.labels = { name: options.name, controller: options.name };
    this.removeCollector = this.metrics.addCollector(() => this.collect());
  }

  /** Keys waiting (not processing, not delayed). */
  get length(): number {
    return this.queue.length;
  }

  /** True once shut down. */
  get isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Keys being processed right now. */
  get processingKeys(): string[] {
    return [...this.processing.keys()];
  }

  /** Enqueues now, coalescing with a waiting copy. */
  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.metrics.queueAdds.inc(this.labels);
    this.dirty.add(key);
    this.addedAt.set(key, Date.now());
    if (this.processing.has(key)) return;
    this.push(key);
  }

  /** Enqueues after `delayMs` (the earliest of pending delays wins). */
  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) return this.add(key);
    const at = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending && pending.at <= at) return;
    if (pending) clearTimeout(pending.timer);
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    this.delayed.set(key, { at, timer });
  }

  /** Enqueues after the key's backoff and increases it. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.metrics.queueRetries.inc(this.labels);
    this.addAfter(key, this.backoffFor(n));
  }

  /** The backoff `addRateLimited` would use now. */
  backoffFor(failures: number): number {
    return Math.min(this.options.maxDelayMs ?? 1_000_000, (this.options.baseDelayMs ?? 5) * 2 ** failures);
  }

  /** Number of consecutive `addRateLimited` calls since the last `forget`. */
  numRequeues(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Resets the key's backoff. */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Next key to process; `undefined` after shut down. */
  get(): Promise<string | undefined> {
    const key = this.queue.shift();
    if (key !== undefined) return Promise.resolve(this.hand(key));
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.getters.push(resolve));
  }

  /** Marks a key processed; re-queues it if it was added meanwhile. */
  done(key: string): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.metrics.workDuration.observe(this.labels, (Date.now() - started) / 1000);
    if (this.dirty.has(key) && !this.shuttingDown) this.push(key);
  }

  /** Stops handing out keys; waiting `get()` calls resolve `undefined`; pending delays are dropped. */
  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    this.queue.length = 0;
    this.metrics.queueDepth.set(this.labels, 0);
    for (const g of this.getters.splice(0)) g(undefined);
    this.removeCollector();
  }

  private push(key: string): void {
    const waiter = this.getters.shift();
    if (waiter) {
      waiter(this.hand(key));
      return;
    }
    this.queue.push(key);
    this.metrics.queueDepth.set(this.labels, this.queue.length);
  }

  private hand(key: string): string {
    this.dirty.delete(key);
    this.processing.set(key, Date.now());
    const added = this.addedAt.get(key);
    this.addedAt.delete(key);
    if (added !== undefined) this.metrics.queueDuration.observe(this.labels, (Date.now() - added) / 1000);
    this.metrics.queueDepth.set(this.labels, this.queue.length);
    return key;
  }

  private collect(): void {
    const now = Date.now();
    let total = 0;
    let longest = 0;
    for (const started of this.processing.values()) {
      total += now - started;
      longest = Math.max(longest, now - started);
    }
    this.metrics.unfinishedWork.set(this.labels, total / 1000);
    this.metrics.longestRunningProcessor.set(this.labels, longest / 1000);
  }
}
