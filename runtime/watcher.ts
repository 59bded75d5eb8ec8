/**
 * A self-healing list+watch loop for one resource kind (kube-rs `watcher`, client-go `Reflector`).
 *
 * Expected flow:
 * 1. List (the first time with `resourceVersion=0`: from the apiserver's watch cache; after a 410 all
 *    pages consistently), emit `Relisted` with every object, remember the list's resourceVersion.
 * 2. Watch from that resourceVersion with `allowWatchBookmarks=true` and a random server-side
 *    `timeoutSeconds` (300–600 s by default). ADDED/MODIFIED → `Applied`, DELETED → `Deleted`,
 *    BOOKMARK only advances the resourceVersion.
 * 3. A clean end of the stream (server timeout) re-watches from the last resourceVersion.
 * 4. 410 Gone (HTTP or an in-stream ERROR event) → back to 1; the consumer diffs the new list
 *    against what it had and emits deletes for vanished objects (see {@link Informer}).
 * 5. Any other failure → log, count `runtime_watch_errors_total`, wait a jittered backoff
 *    (800 ms → 30 s, x2, reset after 2 min without failures) and continue.
 *
 * Guarantees:
 * - Never stops silently: only {@link Watcher.stop} ends the loop; every failure is logged and counted.
 * - Quiet resources keep their watch: the apiserver sends a bookmark about once a minute and ends
 *   the stream itself at `timeoutSeconds`; only a stream still open and silent 30 s past that
 *   server-side timeout counts as dead (a half-open connection) and is aborted by the watchdog.
 *   (A short inactivity watchdog, as kopf's, restarted every idle watch: a list-free re-watch, but
 *   a request per watch per minute and an apiserver watcher torn down and rebuilt each time.)
 * - `metadata.managedFields` is stripped before objects are emitted.
 * - Events of one watcher are delivered in order, synchronously, to one handler.
 *
 * Caveats: the handler must not throw (exceptions are logged and counted, never retried);
 * a relist emits every object again — consumers compare resourceVersions.
 */
import { Backoff, BackoffOptions, sleep } from './backoff';
import { KubeClient, WatchStream } from './client';
import { ApiError, isGone, KubeStatus } from './errors';
import { Logger, silentLogger } from './log';
import { RuntimeMetrics } from './metrics';
import { KubeObject, ResourceRef, resourceId, stripManagedFields } from './resource';

/** How long past its server-side timeout a silent stream may stay open before it counts as dead. */
const WATCHDOG_GRACE_MS = 30_000;

/** What a {@link Watcher} emits. */
export type WatcherEvent =
  | { readonly type: 'Relisted'; readonly objects: readonly KubeObject[] }
  | { readonly type: 'Applied'; readonly object: KubeObject }
  | { readonly type: 'Deleted'; readonly object: KubeObject };

/** Options of {@link Watcher}. */
export interface WatcherOptions {
  readonly client: KubeClient;
  readonly resource: ResourceRef;
  /** @default - all namespaces */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * Only objects' metadata (PartialObjectMetadata, controller-runtime's metadata-only watches): for
   * reconcilers that read only names, labels, annotations, owners or finalizers of a kind. Objects keep
   * the kind's apiVersion and kind.
   * @default false
   */
  readonly metadataOnly?: boolean;
  /**
   * Keeps only the objects of a shard's share in a list (`ListOptions.keep`); the list is then paged (a consistent
   * read) rather than one response from the watch cache, so a member never holds the whole kind at once.
   * @default - every object, first list from the watch cache
   */
  readonly keep?: (obj: KubeObject) => boolean;
  /**
   * The apiserver's shard selector of each list and watch (shard-ranges.ts), read when each starts: after it
   * changed, {@link Watcher.relistNow} lists and watches with the new one.
   * @default - none
   */
  readonly shardSelector?: () => string | undefined;
  /**
   * Silence (no event, no bookmark) after which the stream counts as dead.
   * @default - the watch's server-side timeout + 30 s
   */
  readonly watchdogMs?: number;
  /** Reconnect backoff. @default 800 ms → 30 s, x2, jitter, reset after 2 min */
  readonly backoff?: BackoffOptions;
  /** Range of the random server-side watch timeout in seconds. @default [300, 600] */
  readonly timeoutSecondsRange?: readonly [number, number];
  /** @default - silent */
  readonly logger?: Logger;
  /** @default - a private registry */
  readonly metrics?: RuntimeMetrics;
}

/** List+watch loop; see the module docs. */
export class Watcher {
  private stopped = true;
  private loop: Promise<void> | undefined;
  private stream: WatchStream | undefined;
  private readonly abort = new AbortController();
  private readonly logger: Logger;
  private readonly metrics: RuntimeMetrics;
  private readonly backoff: Backoff;
  private readonly id: string;
  private resourceVersion: string | undefined;
  private listed = false;
  /** A consumer asked for a re-list (relistNow): made before the next watch, whatever ended the last one. */
  private relistWanted = false;

  constructor(
    private readonly options: WatcherOptions,
    private readonly handler: (event: WatcherEvent) => void,
  ) {
    this.id = resourceId(options.resource);
    this.logger = (options.logger ?? silentLogger).child({ resource: this.id, namespace: options.namespace });
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.backoff = new Backoff(options.backoff);
  }

  /** True once the first list was delivered. */
  get hasListed(): boolean {
    return this.listed;
  }

  /** The last resourceVersion seen (list, event or bookmark). */
  get lastResourceVersion(): string | undefined {
    return this.resourceVersion;
  }

  /** Starts the loop (idempotent). */
  start(): void {
    if (this.loop) return;
    this.stopped = false;
    this.loop = this.run();
  }

  /**
   * Stops the loop and closes the stream; resolves when the loop has ended, or after `graceMs` if a
   * list request is still in flight (its result is then ignored).
   */
  async stop(graceMs = 1000): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    this.stream?.abort();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.loop,
      new Promise((resolve) => {
        timer = setTimeout(resolve, graceMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Ends the current watch and lists again (its `Relisted` event diffs against what the consumer holds). */
  relistNow(): void {
    if (this.stopped) return;
    this.relistWanted = true;
    this.stream?.abort();
  }

  private emit(event: WatcherEvent): void {
    try {
      this.handler(event);
    } catch (err) {
      this.metrics.watchErrors.inc({ resource: this.id, reason: 'handler' });
      this.logger.error('watch event handler failed', { error: err });
    }
  }

  private async relist(): Promise<void> {
    const list = await this.options.client.list(this.options.resource, {
      namespace: this.options.namespace,
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
      shardSelector: this.options.shardSelector?.(),
      metadataOnly: this.options.metadataOnly,
      keep: this.options.keep,
      // The first list from the apiserver's watch cache (one response, no etcd read), as client-go's
      // reflector: it can be slightly behind, and the watch from its resourceVersion catches up. A relist
      // after 410 Gone reads consistently: the cache must not take us back behind what we have seen.
      resourceVersion: this.listed || this.options.keep ? undefined : '0',
    });
    if (this.stopped) return;
    this.resourceVersion = list.resourceVersion;
    this.emit({ type: 'Relisted', objects: list.items.map((o) => stripManagedFields(o)) });
    this.listed = true;
    this.logger.debug('listed', { count: list.items.length, resourceVersion: list.resourceVersion });
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let reason: 'timeout' | 'watchdog' | 'gone' | 'short' = 'timeout';
      try {
        // A relistNow() while a list is in flight lists again: that list may have been filtered by what was
        // admitted (or selected) before the change.
        while ((this.resourceVersion === undefined || this.relistWanted) && !this.stopped) {
          this.relistWanted = false;
          await this.relist();
        }
        if (this.stopped) break;
        reason = await this.watchOnce();
      } catch (err) {
        if (this.stopped) break;
        if (isGone(err)) {
          reason = 'gone';
        } else {
          const kind = err instanceof ApiError ? String(err.code) : ((err as { code?: string }).code ?? 'error');
          this.metrics.watchErrors.inc({ resource: this.id, reason: kind });
          const delay = this.backoff.next();
          this.logger.warn('list/watch failed, retrying', { error: err, delayMs: Math.round(delay) });
          await sleep(delay, this.abort.signal);
          continue;
        }
      }
      if (this.stopped) break;
      this.metrics.watchRestarts.inc({ resource: this.id, reason });
      if (reason === 'gone') {
        this.logger.info('resourceVersion expired (410), re-listing', { resourceVersion: this.resourceVersion });
        this.resourceVersion = undefined;
      } else if (reason === 'short') {
        // A stream that closes at once without events would otherwise spin.
        await sleep(this.backoff.next(), this.abort.signal);
      } else if (reason === 'watchdog') {
        this.logger.warn('watch silent past its server-side timeout, restarting', {
          watchdogMs: this.options.watchdogMs,
        });
      }
    }
  }

  /** A metadata-only event's object (a PartialObjectMetadata) named as the watched kind, as list items are. */
  private asKind(obj: KubeObject): KubeObject {
    if (this.options.metadataOnly) {
      obj.apiVersion = this.options.resource.apiVersion;
      obj.kind = this.options.resource.kind;
    }
    return obj;
  }

  /** One watch connection; returns why it ended. */
  private async watchOnce(): Promise<'timeout' | 'watchdog' | 'gone' | 'short'> {
    const [min, max] = this.options.timeoutSecondsRange ?? [300, 600];
    const timeoutSeconds = Math.floor(min + Math.random() * (max - min));
    const stream = await this.options.client.watch(this.options.resource, {
      namespace: this.options.namespace,
      labelSelector: this.options.labelSelector,
      fieldSelector: this.options.fieldSelector,
      shardSelector: this.options.shardSelector?.(),
      metadataOnly: this.options.metadataOnly,
      resourceVersion: this.resourceVersion!,
      allowWatchBookmarks: true,
      timeoutSeconds,
    });
    this.stream = stream;
    if (this.stopped || this.relistWanted) {
      // relistNow() came while the watch was being opened: list again first.
      stream.abort();
      return 'timeout';
    }
    const started = Date.now();
    const watchdogMs = this.options.watchdogMs ?? timeoutSeconds * 1000 + WATCHDOG_GRACE_MS;
    let silent = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        silent = true;
        stream.abort();
      }, watchdogMs);
    };
    arm();
    let received = 0;
    try {
      for await (const event of stream.events) {
        arm();
        received++;
        if (this.stopped) break;
        const obj = event.object;
        switch (event.type) {
          case 'BOOKMARK':
            this.resourceVersion = obj.metadata?.resourceVersion ?? this.resourceVersion;
            break;
          case 'ERROR': {
            const status = obj as unknown as KubeStatus;
            if (status.code === 410) return 'gone';
            throw new ApiError(status.code ?? 500, 'WATCH', this.id, status);
          }
          case 'ADDED':
          case 'MODIFIED':
            this.resourceVersion = obj.metadata?.resourceVersion ?? this.resourceVersion;
            this.emit({ type: 'Applied', object: this.asKind(stripManagedFields(obj)) });
            break;
          case 'DELETED':
            this.resourceVersion = obj.metadata?.resourceVersion ?? this.resourceVersion;
            this.emit({ type: 'Deleted', object: this.asKind(stripManagedFields(obj)) });
            break;
          default:
            this.logger.warn('unknown watch event type', { type: (event as { type?: string }).type });
        }
      }
    } catch (err) {
      if (!silent && !this.stopped && !this.relistWanted) throw err;
    } finally {
      if (timer) clearTimeout(timer);
      stream.abort();
      this.stream = undefined;
    }
    if (silent) return 'watchdog';
    if (received === 0 && Date.now() - started < 1000 && !this.relistWanted) return 'short';
    return 'timeout';
  }
}
