/**
 * The shard assignment written on the objects as a label (the sharder pattern of
 * timebertt/kubernetes-controller-sharding), so that each member's watches carry only its share: a member's
 * informers of the sharded kinds select `shard.cdk8s-operator.io/<ring>=<member>`, and the apiserver, not the
 * member, drops the rest of the stream.
 *
 * Expected flow (the manager wires it; sharding.ts decides who owns what):
 * 1. Assignment: one member, the first of the latest view it acknowledged (among those acting on a view), watches
 *    the objects of the sharded kinds whose label names no member of that view (`<label> notin (<members>)`: new
 *    objects, and those of a member gone), metadata only, and labels each with the member rendezvous hashing gives
 *    it in that view. It restarts on each view it acknowledges, not only once every member did: the share of a
 *    member gone is relabelled while the others acknowledge, and an object moved to a member that joins (labelled
 *    with a member of the latest view) is never in its stream, so it never labels a move back.
 * 2. Objects a member creates in a reconcile (a Foo's Deployment) carry its label from the create on: owned
 *    objects follow their owner without a write of their own.
 * 3. Moves: when a member acknowledges a new view (it stopped reconciling what the view takes from it), it
 *    relabels every object of its caches the new view gives another member — the handover of an object to its
 *    new owner is the old owner's own write, made after it let go. The new owner's watch then delivers it.
 *
 * Guarantees:
 * - Labels decide only what a member caches; who may reconcile is still the ring's (`ShardRing.owns`): a stale
 *   or racing label can make an object wait, never make two members reconcile it.
 * - Each label write is conditional on the resourceVersion it was computed from; after a conflict the object is
 *   read again and labelled if it still needs it (a write computed from an older view, or from an older list page,
 *   that lost the race is not the last word: found in the Foo benchmark, where an assignment from the previous view
 *   won and the object sat with a member that no longer owned it).
 * - Every label write is counted (`controller_runtime_shard_label_writes_total{ring,reason}`) and logged at debug.
 * - Assignments go out before moves (two queues, `assign` drained first): an object to assign has no member that
 *   could reconcile it (new, or its member is gone and its Lease already ran out), while a move's object was just
 *   let go by a live member; found in the long fault run, where the share of a member that left waited behind the
 *   moves of the member that had joined a few seconds before. Within each, the sharded kinds take turns.
 *
 * Caveats:
 * - Labelling an object costs one patch when it is created by someone else (the Foos a user creates) and one per
 *   move; timebertt's sharder saves the first with a mutating webhook on create (not built here).
 * - An object created by server-side apply (no create request) is labelled by the assigner, one patch more.
 * - A member's watch sees an object leave its selector as a delete: handlers get `onDelete` for an object that
 *   moved away (it still exists; the reconcile of its key is skipped, as for any key not in the cache).
 */
import { KubeClient } from './client';
import { isConflict, isNotFound } from './errors';
import { Logger, silentLogger } from './log';
import { RuntimeMetrics } from './metrics';
import { KubeObject, objectKey, ResourceRef, resourceId } from './resource';
import { rendezvousOwner, ShardKey, shardKeyOf, ShardRing } from './sharding';
import { CacheReader } from './store';
import { Watcher } from './watcher';
import { shardLabel } from '../lib/apimachinery/shard-label';

export { shardLabel };

/** The label selector of a member's share. */
export function shardSelector(ring: string, member: string): string {
  return `${shardLabel(ring)}=${member}`;
}

/** Options of {@link ShardLabeller}. */
export interface ShardLabellerOptions {
  readonly client: KubeClient;
  readonly ring: ShardRing;
  readonly key: ShardKey;
  /** The sharded kinds and this member's caches of them (label-selected). */
  readonly kinds: () => ReadonlyArray<{ readonly resource: ResourceRef; readonly cache: CacheReader }>;
  /** The watched namespaces (undefined: all). */
  readonly namespaces?: readonly string[];
  /**
   * Whether the assigner labels this object at all (the manager: of an owned kind, only objects its controllers'
   * primaries control). @default - every object of the sharded kinds
   */
  readonly assignable?: (resource: ResourceRef, obj: KubeObject) => boolean;
  /** Label writes in flight at most. @default 8 */
  readonly concurrency?: number;
  readonly logger?: Logger;
  readonly metrics?: RuntimeMetrics;
}

type Reason = 'assign' | 'move';

/** See module docs. */
export class ShardLabeller {
  private readonly label: string;
  private readonly logger: Logger;
  private readonly metrics: RuntimeMetrics;
  /** Writes waiting, by kind/namespace/name (one per object: the latest request wins). */
  private readonly queued = new Map<string, { readonly reason: Reason; readonly write: () => Promise<void> }>();
  /**
   * The order of the waiting writes, per reason and kind (an id may be left behind in another queue: skipped), and
   * the kind whose turn is next per reason.
   */
  private readonly order: Record<Reason, Map<string, string[]>> = { assign: new Map(), move: new Map() };
  private readonly served: Record<Reason, string | undefined> = { assign: undefined, move: undefined };
  private inFlight = 0;
  /** The assigner's watchers and the view they select against (this member is the first of it). */
  private assigner: { readonly view: string; readonly watchers: Watcher[] } | undefined;
  private stopped = false;

  constructor(private readonly options: ShardLabellerOptions) {
    this.label = shardLabel(options.ring.ring);
    this.logger = (options.logger ?? silentLogger).child({ component: 'shard-labels' });
    this.metrics = options.metrics ?? new RuntimeMetrics();
  }

  /** After a view change: relabels every cached object of this member that the latest view gives another. */
  moveAway(): void {
    for (const { resource, cache } of this.options.kinds()) {
      for (const obj of cache.list()) this.consider(resource, obj);
    }
  }

  /** An object of this member's caches (added or updated): relabels it when the latest view gives it away. */
  consider(resource: ResourceRef, obj: KubeObject): void {
    const ring = this.options.ring;
    if (this.stopped || obj.metadata?.labels?.[this.label] !== ring.member) return;
    const owner = ring.latestOwner(shardKeyOf(obj, this.options.key));
    if (owner === undefined || owner === ring.member) return;
    this.enqueue(resource, obj, owner, 'move');
  }

  /**
   * The view acknowledged or acted on changed: the first member of the latest view (re)starts the assigner against
   * it, every other member stops its own.
   */
  onViewChanged(): void {
    const ring = this.options.ring;
    const members = ring.active ? ring.latestMembers : [];
    const first = members.length > 0 && members[0] === ring.member;
    const view = members.join(',');
    if (this.assigner && (!first || this.assigner.view !== view)) {
      const old = this.assigner;
      this.assigner = undefined;
      void Promise.all(old.watchers.map((w) => w.stop()));
      // The assignments still waiting were computed for the old view: the next assigner lists what is still
      // unassigned in the new one. Kept, they relabelled a healed member's objects to the member that had taken
      // them over, then waited to be moved back (the long fault run: a partition's share, relabelled for 45 s).
      for (const [id, queued] of this.queued) if (queued.reason === 'assign') this.queued.delete(id);
    }
    if (!first || this.assigner || this.stopped) return;
    const selector = `${this.label} notin (${members.join(',')})`;
    const watchers: Watcher[] = [];
    for (const { resource } of this.options.kinds()) {
      for (const namespace of this.options.namespaces ?? [undefined]) {
        const watcher = new Watcher(
          {
            client: this.options.client,
            resource,
            namespace,
            labelSelector: selector,
            metadataOnly: true,
            // No cache: each listed object is queued for its label page by page and none is kept, so a list of
            // many unassigned objects never sits in memory whole (a paged, consistent list).
            keep: (obj) => {
              this.assign(resource, obj, members);
              return false;
            },
            logger: this.logger,
            metrics: this.metrics,
          },
          (event) => {
            if (event.type === 'Applied') this.assign(resource, event.object, members);
          },
        );
        watchers.push(watcher);
        watcher.start();
      }
    }
    this.assigner = { view, watchers };
    this.logger.info('assigning unlabelled objects and those of members gone', { members: members.length });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const old = this.assigner;
    this.assigner = undefined;
    await Promise.all((old?.watchers ?? []).map((w) => w.stop()));
  }

  private assign(resource: ResourceRef, obj: KubeObject, members: readonly string[]): void {
    // Only while this member assigns against this view (not after losing its Lease, nor after a newer view).
    if (!this.options.ring.active || this.assigner?.view !== members.join(',')) return;
    if (this.options.assignable && !this.options.assignable(resource, obj)) return;
    const owner = rendezvousOwner(shardKeyOf(obj, this.options.key), members);
    if (owner && obj.metadata?.labels?.[this.label] !== owner) this.enqueue(resource, obj, owner, 'assign');
  }

  private enqueue(resource: ResourceRef, obj: KubeObject, owner: string, reason: Reason): void {
    const id = `${resourceId(resource)}/${objectKey(obj)}`;
    const fresh = !this.queued.has(id);
    // Only what the write needs is held while it waits (not the object). The latest request for an object wins
    // (a newer resourceVersion, or another owner).
    const { name, namespace, resourceVersion } = obj.metadata ?? {};
    const target = { metadata: { name, namespace, resourceVersion } };
    const lane = this.queued.get(id)?.reason;
    this.queued.set(id, { reason, write: () => this.write(resource, target, owner, reason) });
    if (fresh || lane !== reason) {
      const kind = resourceId(resource);
      const order = this.order[reason].get(kind) ?? [];
      order.push(id);
      this.order[reason].set(kind, order);
    }
    this.pump();
  }

  /**
   * The next waiting write: assignments first; within a reason the kinds take turns (a Foo and its Deployment are
   * both needed before the Foo can be reconciled, and one kind's whole list must not wait behind another's: found in
   * the long fault run, where every Deployment of a member gone was relabelled before its first Foo); ids whose write
   * went to another queue are skipped.
   */
  private next(): (() => Promise<void>) | undefined {
    for (const reason of ['assign', 'move'] as const) {
      const kinds = [...this.order[reason].keys()];
      const after = kinds.indexOf(this.served[reason]!) + 1; // the kind after the one served last
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(after + k) % kinds.length];
        const order = this.order[reason].get(kind)!;
        while (order.length > 0) {
          const id = order.shift()!;
          const queued = this.queued.get(id);
          if (queued?.reason !== reason) continue;
          this.queued.delete(id);
          this.served[reason] = kind;
          return queued.write;
        }
      }
    }
    return undefined;
  }

  private pump(): void {
    const limit = this.options.concurrency ?? 8;
    while (this.inFlight < limit) {
      const write = this.next();
      if (!write) return;
      this.inFlight++;
      void write().finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /**
   * After a conflict: the object as it is now, labelled again if it still needs it — by the assigner when its label
   * names no member of the view it assigns against, by this member when the label is its own and the latest view
   * gives the object away (a move). A label naming another member is that member's to move.
   */
  private async reconsider(resource: ResourceRef, name: string, namespace: string | undefined): Promise<void> {
    if (this.stopped) return;
    let current: KubeObject;
    try {
      current = await this.options.client.get(resource, name, namespace);
    } catch (err) {
      if (isNotFound(err)) return;
      this.logger.warn('could not read an object after a shard label conflict, retrying', {
        object: namespace ? `${namespace}/${name}` : name,
        kind: resource.kind,
        error: err,
      });
      setTimeout(() => void this.reconsider(resource, name, namespace), 1000).unref();
      return;
    }
    const members = this.assigner?.view.split(',');
    const label = current.metadata?.labels?.[this.label];
    if (members && (label === undefined || !members.includes(label))) this.assign(resource, current, members);
    else this.consider(resource, current);
  }

  private async write(resource: ResourceRef, obj: KubeObject, owner: string, reason: Reason): Promise<void> {
    if (this.stopped) return;
    const meta = obj.metadata ?? {};
    try {
      await this.options.client.patch(
        resource,
        meta.name!,
        meta.namespace,
        // The resourceVersion makes the write conditional: computed from this version of the object only.
        {
          type: 'merge',
          body: { metadata: { resourceVersion: meta.resourceVersion, labels: { [this.label]: owner } } },
        },
        { fieldManager: 'cdk8s-operator-sharding' },
      );
      this.metrics.shardLabelWrites.inc({ ring: this.options.ring.ring, reason });
      if (reason === 'move') this.metrics.shardHandovers.inc({ ring: this.options.ring.ring, direction: 'out' });
      this.logger.debug('shard label written', { object: objectKey(obj), kind: resource.kind, owner, reason });
    } catch (err) {
      // A conflict: the object changed since this write was computed. The newer object is considered again, read
      // here: the watches need not deliver it (the assigner's selects only unassigned objects; a label written
      // meanwhile from an older view takes it out of that stream and into a member that no longer owns it).
      if (isConflict(err)) {
        await this.reconsider(resource, meta.name!, meta.namespace);
        return;
      }
      if (!isNotFound(err)) {
        this.logger.warn('could not write the shard label, retrying', {
          object: objectKey(obj),
          kind: resource.kind,
          error: err,
        });
        setTimeout(() => this.enqueue(resource, obj, owner, reason), 1000).unref();
      }
    }
  }
}
