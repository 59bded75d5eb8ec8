/**
 * A client whose writes return only once the written object shows up in the informer cache of its
 * kind (kopf's "consistency timeout", controller-runtime users' `wait for cache` loop), so the next
 * reconcile never acts on the state from before our own write.
 *
 * Expected flow: reconcilers write through `manager.readYourWritesClient` and read from stores;
 * no reconciler waits for its cache itself.
 *
 * Guarantees:
 * - `create`, `replace`, `replaceStatus` and `patch` resolve with the server's object after the
 *   cache of that kind (if the manager watches it) reached the returned resourceVersion or deleted the
 *   object (a write that removes the last finalizer of a deleting object), or after
 *   `timeoutMs` (then the write still succeeded; the caller gets its result, and a warning is logged).
 * - Reads, watches and deletes pass straight through.
 *
 * - {@link ReadYourWritesClient.deferred} gives a view for one reconcile whose writes resolve as soon
 *   as the apiserver answered; its `settled()` resolves once every one of them reached the cache (or
 *   timed out, as above). The controller hands each reconcile such a view and keeps the key out of the
 *   queue until `settled()` (see controller.ts): the next reconcile of that key still reads its own
 *   writes, but no worker sits idle while the watch brings them back.
 *
 * Caveats: an uncached kind is not waited for; a delete is not waited for (the informer's delete
 * event re-triggers the reconcile anyway). Within one reconcile, a deferred write is not yet in the
 * cache when the call returns: read the object the write returned, not the store.
 */
import {
  DeleteOptions,
  KubeClient,
  ListOptions,
  ListResult,
  Patch,
  PatchOptions,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from './client';
import { Logger, silentLogger } from './log';
import { KubeObject, objectKey, ResourceRef } from './resource';
import { CacheReader } from './store';

/** Options of {@link ReadYourWritesClient}. */
export interface ReadYourWritesOptions {
  /** The cache of a kind, if one is watched. */
  readonly cacheOf: (resource: ResourceRef) => CacheReader | undefined;
  /** Longest wait for the cache. @default 5000 */
  readonly timeoutMs?: number;
  /** @default - silent */
  readonly logger?: Logger;
}

/**
 * A client that passes everything through and hands each written object to `afterWrite` before the write
 * resolves: what the two clients below do differently is only what happens after a write.
 */
abstract class WriteFollowingClient implements KubeClient {
  constructor(protected readonly client: KubeClient) {}

  list(ref: ResourceRef, options?: ListOptions): Promise<ListResult> {
    return this.client.list(ref, options);
  }

  watch(ref: ResourceRef, options: WatchOptions): Promise<WatchStream> {
    return this.client.watch(ref, options);
  }

  get(ref: ResourceRef, name: string, namespace?: string): Promise<KubeObject> {
    return this.client.get(ref, name, namespace);
  }

  async create(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.afterWrite(kindOf(obj), await this.client.create(obj, options));
  }

  async replace(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.afterWrite(kindOf(obj), await this.client.replace(obj, options));
  }

  async replaceStatus(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    return this.afterWrite(kindOf(obj), await this.client.replaceStatus(obj, options));
  }

  async patch(
    ref: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Patch,
    options?: PatchOptions,
  ): Promise<KubeObject> {
    return this.afterWrite(ref, await this.client.patch(ref, name, namespace, patch, options));
  }

  delete(ref: ResourceRef, name: string, namespace?: string, options?: DeleteOptions): Promise<void> {
    return this.client.delete(ref, name, namespace, options);
  }

  /** What the write resolves with, once this client is done with it. */
  protected abstract afterWrite(resource: ResourceRef, written: KubeObject): Promise<KubeObject> | KubeObject;
}

/** See module docs. */
export class ReadYourWritesClient extends WriteFollowingClient {
  private readonly timeoutMs: number;
  private readonly logger: Logger;

  constructor(
    client: KubeClient,
    private readonly options: ReadYourWritesOptions,
  ) {
    super(client);
    this.timeoutMs = options.timeoutMs ?? 5000;
    this.logger = options.logger ?? silentLogger;
  }

  /** A view for one reconcile: writes return once the apiserver answered; see {@link DeferredWrites}. */
  deferred(): DeferredWrites {
    return new DeferredWrites(this.client, this);
  }

  protected async afterWrite(resource: ResourceRef, written: KubeObject): Promise<KubeObject> {
    await this.reached(resource, written);
    return written;
  }

  /**
   * Resolves once the cache of `resource` shows `written` (or its deletion), at once when the kind is
   * not cached; after `timeoutMs` at the latest (logged). Never rejects.
   */
  reached(resource: ResourceRef, written: KubeObject): Promise<void> | undefined {
    const cache = this.options.cacheOf(resource);
    const rv = written.metadata?.resourceVersion;
    if (!cache || !rv) return undefined;
    const key = objectKey(written);
    // A deleting object whose last finalizer this write removed is deleted by the apiserver: the cache
    // will see it go, never this version, and may have seen it go before the response reached us.
    const deleted = written.metadata?.deletionTimestamp && !written.metadata.finalizers?.length;
    if (deleted && !cache.get(key)) return undefined;
    return cache.waitForResourceVersion(key, rv, this.timeoutMs).then((ok) => {
      if (!ok) {
        this.logger.warn('own write did not reach the cache in time', {
          kind: resource.kind,
          key,
          resourceVersion: rv,
          timeoutMs: this.timeoutMs,
        });
      }
    });
  }
}

/**
 * The writes of one reconcile (from {@link ReadYourWritesClient.deferred}): each write resolves with the
 * server's object as soon as the apiserver answered, and is remembered until the cache shows it.
 * `settled()` resolves once all of them did. Reads, watches and deletes pass straight through.
 */
export class DeferredWrites extends WriteFollowingClient {
  private readonly waits: Array<Promise<void>> = [];

  constructor(
    client: KubeClient,
    private readonly ryw: ReadYourWritesClient,
  ) {
    super(client);
  }

  /** Writes whose object the cache does not show yet (0 once settled). */
  get pending(): number {
    return this.waits.length;
  }

  /** Resolves once every write made so far reached its cache (or timed out); never rejects. */
  async settled(): Promise<void> {
    // Each wait removes itself once settled; writes made meanwhile are waited for too.
    while (this.waits.length) await Promise.all([...this.waits]);
  }

  protected afterWrite(resource: ResourceRef, written: KubeObject): KubeObject {
    const wait = this.ryw.reached(resource, written);
    if (wait) {
      const entry: Promise<void> = wait.then(() => {
        const i = this.waits.indexOf(entry);
        // eslint-disable-next-line @typescript-eslint/no-floating-promises -- splice returns the removed entry, not a new promise
        if (i >= 0) this.waits.splice(i, 1);
      });
      this.waits.push(entry);
    }
    return written;
  }
}

function kindOf(obj: KubeObject): ResourceRef {
  if (!obj.apiVersion || !obj.kind) throw new Error(`object ${objectKey(obj)} must have apiVersion and kind`);
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}
