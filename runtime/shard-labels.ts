/**
 * The shard assignment written on the objects as a label (the sharder pattern of
 * timebertt/kubernetes-controller-sharding), so that each member's watches carry only its share: a member's
 * informers of the sharded kinds select `shard.cdk8s-operator.io/<ring>=<member>`, and the apiserver, not the
 * member, drops the rest of the stream.
 *
 * Expected flow (the manager wires it; sharding.ts decides who owns what):
 * 1. Assignment: one member, the first of the view every member acts on, watches the objects of the sharded
 *    kinds whose label names no member of that view (`<label> notin (<members>)`: new objects, and those of a
 *    member that died), metadata only, and labels each with the member rendezvous hashing gives it.
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
  /** Writes waiting or in flight, by kind/namespace/name (one per object at a time). */
  private readonly queued = new Map<string, () => Promise<void>>();
  private readonly order: string[] = [];
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
   * The view acted on changed: the first of its members (re)starts the assigner against it, every other
   * member stops its own.
   */
  onActing(): void {
    const members = this.options.ring.members;
    const first = this.options.ring.active && members[0] === this.options.ring.member;
    const view = members.join(',');
    if (this.assigner && (!first || this.assigner.view !== view)) {
      const old = this.assigner;
      this.assigner = undefined;
      void Promise.all(old.watchers.map((w) => w.stop()));
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
    // Only while this member acts on the view it assigns against (not after losing its Lease).
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
    this.queued.set(id, () => this.write(resource, target, owner, reason));
    if (fresh) this.order.push(id);
    this.pump();
  }

  private pump(): void {
    const limit = this.options.concurrency ?? 8;
    while (this.inFlight < limit && this.order.length > 0) {
      const id = this.order.shift()!;
      const write = this.queued.get(id)!;
      this.queued.delete(id);
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
