/**
 * A client that refuses writes while its manager may not act: the half of "never act without the lease"
 * that stopping the controllers cannot give, a reconcile already in flight when the lease is lost.
 *
 * Expected flow: the manager wraps the client behind `manager.readYourWritesClient` in it; reconcilers
 * write through that client; actions outside the API (SQL on a database, calls to a cloud) check
 * `manager.assertLeader()` first.
 *
 * Guarantees:
 * - `create`, `replace`, `replaceStatus`, `patch` and `delete` throw {@link NotLeaderError} without sending
 *   anything once `mayAct()` is false; reads and watches pass (caches stay warm on every replica).
 * - The check is made when the request is issued: a write already sent when the lease is lost completes
 *   (it was sent while leading, at least `leaseDuration - renewDeadline` before anyone else could lead).
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
import { KubeObject, ResourceRef } from './resource';

/** A write (or another action) was refused: this process does not hold the leader lease. */
export class NotLeaderError extends Error {
  constructor(what: string) {
    super(
      `not the leader: ${what} refused (the leader lease was lost; the controllers are stopping and campaign again)`,
    );
    this.name = 'NotLeaderError';
  }
}

/** See module docs. */
export class LeaderGuardedClient implements KubeClient {
  constructor(
    private readonly client: KubeClient,
    private readonly mayAct: () => boolean,
    /** Adds what a create must carry (a shard label, shard-labels.ts). @default - the object as given */
    private readonly prepareCreate: (obj: KubeObject) => KubeObject = (obj) => obj,
    /** Sees every write it lets through (the shard ring waits for them before a handover). @default - none */
    private readonly sent: <T>(write: Promise<T>) => Promise<T> = (write) => write,
  ) {}

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
    this.check('create', obj.kind, obj.metadata?.name);
    return this.sent(this.client.create(this.prepareCreate(obj), options));
  }

  async replace(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    this.check('update', obj.kind, obj.metadata?.name);
    return this.sent(this.client.replace(obj, options));
  }

  async replaceStatus(obj: KubeObject, options?: WriteOptions): Promise<KubeObject> {
    this.check('status update', obj.kind, obj.metadata?.name);
    return this.sent(this.client.replaceStatus(obj, options));
  }

  async patch(
    ref: ResourceRef,
    name: string,
    namespace: string | undefined,
    patch: Patch,
    options?: PatchOptions,
  ): Promise<KubeObject> {
    this.check('patch', ref.kind, name);
    return this.sent(this.client.patch(ref, name, namespace, patch, options));
  }

  async delete(ref: ResourceRef, name: string, namespace?: string, options?: DeleteOptions): Promise<void> {
    this.check('delete', ref.kind, name);
    return this.sent(this.client.delete(ref, name, namespace, options));
  }

  private check(verb: string, kind: string | undefined, name: string | undefined): void {
    if (!this.mayAct()) throw new NotLeaderError(`${verb} of ${kind ?? 'object'} ${name ?? ''}`.trim());
  }
}
