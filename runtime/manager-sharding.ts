/**
 * The manager's sharded mode (the `sharding` option of {@link Manager}): the member's place in the ring, what its
 * informers keep, which writes of a reconcile may pass, and the assignment labels.
 *
 * Expected flow: the manager makes one `ManagerSharding` when it is sharded, asks it for each informer's filter
 * (`informerOptions`) and for each sharded controller's gate (`gate`), routes every guarded write through
 * `trackWrite` and `labelCreate`, asks `mayAct` before a write, and `start`s it before its informers (the ring must
 * hold a view before a cache can keep a share).
 *
 * Guarantees (the ring's, sharding.ts, carried into the manager):
 * - A reconcile's writes pass only while this member owns the reconciled object's shard key (`mayAct`), and a
 *   handover waits for the writes already sent (`writesSettled`): no object is written by two members at once.
 * - A sharded kind's informers keep only this member's share: by label (`labels`), by filtering the stream
 *   (`hash`), or by the apiserver's shard selector where it is served (`server`, probed at start; otherwise as
 *   `hash`). Kinds listed in `unshardedKinds` are cached whole.
 * - Objects a sharded reconcile creates carry this member's label (`labels`): owned objects follow their owner
 *   without a write of their own.
 */
import { AsyncLocalStorage } from 'async_hooks';
import { NAMESPACE } from './builtins';
import { KubeClient } from './client';
import type { Controller, ShardGate } from './controller';
import { EventRecorder } from './events';
import { Informer, InformerOptions } from './informer';
import { Logger } from './log';
import { RuntimeMetrics } from './metrics';
import { SharedInformer } from './namespaced-informers';
import { getControllerOf } from './owner-references';
import { groupKind, KubeObject, objectKey, ResourceRef, resourceId } from './resource';
import { ShardLabeller, shardLabel, shardSelector } from './shard-labels';
import {
  balancedCuts,
  bucketKey,
  bucketOwner,
  bucketRanges,
  decodeTable,
  encodeCuts,
  hashKey,
  namesPerMember,
  probeShardSelector,
  RangeTable,
  SHARD_BUCKETS,
  shardField,
  shardRangeSelector,
} from './shard-ranges';
import { memberLeaseName, rendezvousOwner, ShardKey, shardKeyOf, ShardRing } from './sharding';
import type { ShardAssignment, ShardRanges } from '../lib/apimachinery/controller-contract';

/** Sharding settings of a {@link Manager} (sharding.ts): every replica runs the same ones. */
export interface ManagerShardingOptions {
  /** The ring's name, a DNS label (the member Leases are `<ring>-<member>`), e.g. the controller's name. */
  readonly ring: string;
  /** What objects are assigned by: their UID (owned objects: their owner's) or their namespace. @default 'uid' */
  readonly key?: ShardKey;
  /**
   * Namespace of the member Leases: the operator's own namespace.
   * @default - as the leader election's (`POD_NAMESPACE`, else the in-cluster ServiceAccount's namespace)
   */
  readonly namespace?: string;
  /**
   * Kinds every member caches whole (a configuration kind, Namespaces): every other informer of the manager keeps
   * only this member's share.
   * @default - none
   */
  readonly unshardedKinds?: readonly ResourceRef[];
  /**
   * How a member's caches get its share: `labels` writes the assignment on the objects as the label
   * `shard.cdk8s-operator.io/<ring>=<member>` and each member's watches select its label, so the apiserver sends
   * each member only its share (shard-labels.ts; needs `patch` on the sharded kinds); `hash` writes nothing and
   * each member drops what is not its share as the whole stream arrives; `server` asks the apiserver for each
   * member's hash ranges (its shard selector, Kubernetes 1.36+ with the gate `ShardedListAndWatch`; detected at
   * start, and where it is not served each member filters the whole stream as with `hash`): no label, no write
   * (shard-ranges.ts; with `key: 'uid'` only the controllers' `for` kinds are selected by the server, and their
   * objects are assigned by their own UID).
   * @default - the contract's (`contract.sharding`), else 'labels'
   */
  readonly assignment?: ShardAssignment;
  /**
   * How assignment `server` keyed by namespace cuts the hash space into its 128 buckets: `even` slices (the hash's
   * top bits: namespaces whose names differ only at the end share a slice, so the shares follow the names), or
   * `namespaces`: each bucket holds an equal count of the namespaces there are (the watched ones, else every
   * namespace of the cluster: `list` and `watch` on namespaces). The ring's first member proposes a new table when
   * the members' counts of namespaces drift more than a fifth from even (an Event `ShardRangesRebalanced`,
   * `controller_runtime_shard_tables_proposed_total`); a new table moves objects behind the ring's barrier. Every
   * member must run a version that has this option (older members acknowledge views without the table).
   * @default - the contract's (`contract.sharding.ranges`), else 'even'
   */
  readonly ranges?: ShardRanges;
  /**
   * The members the ring is deployed with (the Deployment's replicas; the chart passes `--sharding-replicas`): a
   * starting member waits, at most 10 s, for a view of this many before it starts its caches, so that members started
   * together list only their share of the whole ring, not the whole set of objects under a ring of one.
   * @default - no count: a view that held for a second will do
   */
  readonly replicas?: number;
  /** @default 15000 */
  readonly leaseDurationMs?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
  /**
   * Delete the Lease a member gone left (a kill -9) once it expired on this member's clock, with an Event
   * `ShardMemberGone` about it and `controller_runtime_shard_leases_collected_total`: a member joining later would
   * count it live for a Lease duration and hold the ring's next view until then. @default true
   */
  readonly collectExpiredLeases?: boolean;
}

/** A new table is proposed when a member's count of namespaces is off its even share by more than this fraction. */
const TABLE_DRIFT = 0.2;

/** What the manager lends its sharded mode. */
export interface ShardingHost {
  /** The member's identity (the leader election's): its Lease is named after it. */
  readonly identity: string;
  /** The client the assignment labels are written with. */
  readonly client: KubeClient;
  /** The ring's own client (its Lease requests time out and are not retried, as the leader election's). */
  readonly electionClient: KubeClient;
  /** The manager's informers by resource id. */
  readonly informers: ReadonlyMap<string, SharedInformer>;
  /** The namespaces watched; undefined = all. */
  readonly watchNamespaces?: readonly string[];
  /** A label selector every informer of the manager already applies (`informer.labelSelector`). */
  readonly labelSelector?: string;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  /** The manager's controllers (requeued when this member's share grows). */
  controllers(): readonly Controller[];
  /** A recorder for the Events about the Leases the ring collects, where the contract allows Events. */
  recorder(): EventRecorder | undefined;
  /** The informer of a kind (created when it does not exist yet). */
  informerOf(resource: ResourceRef): SharedInformer;
}

/** See module docs. @internal (the manager's: `ManagerOptions.sharding`) */
export class ManagerSharding {
  /** The shard ring, created at start. */
  private ringOf: ShardRing | undefined;
  /** Writes the shard assignment labels (assignment `labels`), created at start. */
  private labeller: ShardLabeller | undefined;
  /** The shard key of the reconcile running: its writes pass only while this member owns it. */
  private readonly reconciling = new AsyncLocalStorage<string>();
  /** The guarded writes sent and not yet answered (a shard handover waits for them). */
  private readonly writesInFlight = new Set<Promise<unknown>>();
  private readonly unsharded: ReadonlySet<string>;
  /** The `for` kinds of the sharded controllers (assignment `server` hashes their own UID). */
  private readonly primaries = new Set<string>();
  /** The kinds sharded controllers own by ownerReference, with the group/kinds of the primaries that own them. */
  private readonly ownedBy = new Map<string, Set<string>>();
  /** The apiserver applies shard selectors (assignment `server`, probed at start). */
  private serverSelects = false;
  private readonly key: ShardKey;
  /** The cluster's namespaces (`ranges: 'namespaces'` without watched namespaces), started with the ring. */
  private namespaces: Informer | undefined;
  /** Where the member Leases live (the Event about a new table is recorded there, about this member's Lease). */
  private ringNamespace: string | undefined;
  /** The last table cut (see cutFor), and the namespaces, members and table it was cut for. */
  private lastCut: { readonly asked: string; readonly cut: TableCut | undefined } | undefined;

  constructor(
    private readonly options: ManagerShardingOptions,
    readonly assignment: ShardAssignment,
    private readonly host: ShardingHost,
  ) {
    this.key = options.key ?? 'uid';
    this.unsharded = new Set((options.unshardedKinds ?? []).map(resourceId));
    if ((options.ranges ?? 'even') !== 'even' && (options.ranges !== 'namespaces' || this.key !== 'namespace')) {
      throw new Error(
        `sharding.ranges: '${options.ranges}' needs key 'namespace' and assignment 'server' (the only value besides 'even' is 'namespaces'), got key '${this.key}'`,
      );
    }
    if (options.ranges === 'namespaces' && assignment !== 'server') {
      throw new Error(`sharding.ranges: 'namespaces' needs assignment 'server', got '${assignment}'`);
    }
  }

  /** The ring, once started. */
  get ring(): ShardRing | undefined {
    return this.ringOf;
  }

  /** The member name and the members it acts with, once started. */
  get shard(): { readonly member: string; readonly members: readonly string[] } | undefined {
    return this.ringOf && { member: this.ringOf.member, members: this.ringOf.members };
  }

  /** True for a kind whose informers keep only this member's share. */
  isSharded(resource: ResourceRef): boolean {
    return !this.unsharded.has(resourceId(resource));
  }

  /**
   * Whether a write may pass as far as the ring decides: a reconcile's only for an object this member owns now;
   * other code without leader election only while this member holds its Lease. Undefined: the ring does not
   * decide (not started, or the leader election does).
   */
  mayAct(leaderElection: boolean): boolean | undefined {
    if (!this.ringOf) return undefined;
    const shardKey = this.reconciling.getStore();
    if (shardKey !== undefined) return this.ringOf.owns(shardKey);
    return leaderElection ? undefined : this.ringOf.active;
  }

  /** The cache filter of a kind's informers: keep this member's share (sharding.ts). */
  informerOptions(
    resource: ResourceRef,
  ): Pick<InformerOptions, 'admit' | 'onAdmitted' | 'labelSelector' | 'shardSelector'> {
    if (!this.isSharded(resource)) return {};
    const ring = this.options.ring;
    if (this.labelled) {
      const own = shardSelector(ring, memberLeaseName(ring, this.host.identity));
      return { labelSelector: [this.host.labelSelector, own].filter(Boolean).join(',') };
    }
    return {
      admit: (obj) => this.ringOf?.holds(this.shardKeyFor(resource, obj)) ?? false,
      onAdmitted: (n) => this.host.metrics.shardHandovers.inc({ ring, direction: 'in' }, n),
      shardSelector: () => this.serverSelector(resource),
    };
  }

  /** A new informer of the manager: with assignment `labels`, what its kind's share receives is considered for a move. */
  watch(resource: ResourceRef, informer: SharedInformer): void {
    if (!this.labelled || !this.isSharded(resource)) return;
    // An object of this member's share that the latest ring view gives another member moves (shard-labels.ts).
    informer.addEventHandler({
      onAdd: (obj) => this.labeller?.consider(resource, obj),
      onUpdate: (_old, obj) => this.labeller?.consider(resource, obj),
    });
  }

  /**
   * An object a sharded reconcile creates carries this member's label (assignment `labels`): owned objects follow
   * their owner without a write of their own.
   */
  labelCreate(obj: KubeObject): KubeObject {
    if (!this.ringOf || !this.labelled || !obj.apiVersion || !obj.kind) return obj;
    // Only kinds this member caches as shares (its informers select the label); Events and the like stay as given.
    const ref = { apiVersion: obj.apiVersion, kind: obj.kind };
    if (
      this.reconciling.getStore() === undefined ||
      !this.host.informers.has(resourceId(ref)) ||
      !this.isSharded(ref)
    ) {
      return obj;
    }
    const labels = { ...obj.metadata?.labels, [shardLabel(this.ringOf.ring)]: this.ringOf.member };
    return { ...obj, metadata: { ...obj.metadata, labels } };
  }

  /** Records a write until it is answered (either way): a handover waits for the writes in flight. */
  trackWrite<T>(write: Promise<T>): Promise<T> {
    const answered = write.then(
      () => undefined,
      () => undefined,
    );
    this.writesInFlight.add(answered);
    void answered.then(() => this.writesInFlight.delete(answered));
    return write;
  }

  /**
   * What a sharded controller needs (controller.ts): the shard key of a request of its primary kind (undefined
   * when the object is not in this member's cache: not its share, or deleted), whether this member owns it now,
   * and the scope its reconcile runs in (its writes are checked against the key).
   */
  gate(primary: ResourceRef, owned: readonly ResourceRef[]): ShardGate {
    this.primaries.add(resourceId(primary));
    for (const kind of owned) {
      const owners = this.ownedBy.get(resourceId(kind)) ?? new Set<string>();
      owners.add(groupKind(primary));
      this.ownedBy.set(resourceId(kind), owners);
    }
    const cache = () => this.host.informerOf(primary).cache;
    return {
      shardKeyOf: (request) => {
        if (this.key === 'namespace') {
          const ns = request.namespace ?? '';
          return this.assignment === 'server' ? hashKey(ns) : ns;
        }
        const obj = cache().get(objectKey(request));
        return obj ? this.shardKeyFor(primary, obj) : undefined;
      },
      owns: (shardKey) => this.ringOf?.owns(shardKey) ?? false,
      run: (shardKey, fn) => this.reconciling.run(shardKey, fn),
    };
  }

  /**
   * The shard label an object gets when it is created (the labelling webhook, shard-label-webhook.ts): see
   * `Manager.shardLabelAtAdmission`.
   */
  labelAtAdmission(
    obj: KubeObject,
    namespace?: string,
  ): { readonly ring: string; readonly label: string; readonly member: string } | undefined {
    if (!this.labelled || !this.ringOf || this.ringOf.members.length === 0) return undefined;
    const key =
      this.key === 'namespace'
        ? (obj.metadata?.namespace ?? namespace ?? '')
        : obj.metadata?.ownerReferences?.find((r) => r.controller)?.uid;
    const member = key === undefined ? undefined : rendezvousOwner(key, this.ringOf.members);
    return member ? { ring: this.options.ring, label: shardLabel(this.options.ring), member } : undefined;
  }

  /** Joins the ring (its Leases in `ringNamespace`); the manager starts its informers after it. */
  async start(ringNamespace: string): Promise<void> {
    this.ringNamespace = ringNamespace;
    const { ring: name } = this.options;
    const { metrics, informers } = this.host;
    const ring = new ShardRing({
      client: this.host.electionClient,
      ring: name,
      namespace: ringNamespace,
      identity: this.host.identity,
      key: this.key,
      leaseDurationMs: this.options.leaseDurationMs,
      renewDeadlineMs: this.options.renewDeadlineMs,
      retryPeriodMs: this.options.retryPeriodMs,
      collectExpiredLeases: this.options.collectExpiredLeases,
      expectedMembers: this.options.replicas,
      // buckets (assignment `server`) are dealt evenly; object keys (labels, hash) by plain rendezvous hashing
      owner: this.assignment === 'server' ? bucketOwner : undefined,
      ...(this.options.ranges === 'namespaces'
        ? {
            proposeTable: (table, members) => this.cutFor(table, members)?.table,
            onTableProposed: (table, previous, members) => this.tableProposed(table, previous, members),
          }
        : {}),
      recorder: this.host.recorder(),
      logger: this.host.logger.child({ component: 'sharding' }),
      metrics,
      onHoldingChanged: () => {
        if (this.labelled) {
          // A new view acknowledged or acted on: the assigner follows the latest; what it gives away moves.
          this.labeller?.onViewChanged();
          this.labeller?.moveAway();
          return;
        }
        for (const [id, informer] of informers) {
          if (this.unsharded.has(id) || !(informer instanceof Informer)) continue;
          const evicted = informer.refilter();
          if (evicted) metrics.shardHandovers.inc({ ring: name, direction: 'out' }, evicted);
        }
      },
      onOwnershipGrew: () => {
        for (const c of this.host.controllers()) c.requeueAll();
      },
      writesSettled: async () => {
        await Promise.all([...this.writesInFlight]);
      },
    });
    this.ringOf = ring;
    if (this.assignment === 'server') await this.probeServerSelection(ringNamespace);
    if (this.options.ranges === 'namespaces' && !this.host.watchNamespaces) {
      this.namespaces = new Informer(
        this.host.client,
        NAMESPACE,
        { metadataOnly: true, resyncPeriodMs: 0 },
        this.host.logger.child({ component: 'sharding' }),
      );
      this.namespaces.start();
      // listed before joining: the first settled view of several members is cut at once, before its members have
      // reconciled much under equal slices (each object they reconciled then may move); a ring that cannot list
      // them in time starts under equal slices and is cut once they arrive
      if (!(await this.namespaces.waitForSync(10_000))) {
        this.host.logger.warn('the namespaces were not listed within 10 s: the ring starts under equal hash slices', {
          ring: this.options.ring,
        });
      }
    }
    if (this.labelled) {
      this.labeller = new ShardLabeller({
        client: this.host.client,
        ring,
        key: this.key,
        kinds: () =>
          [...informers.values()]
            .filter((i) => this.isSharded(i.resource))
            .map((i) => ({ resource: i.resource, cache: i.cache })),
        namespaces: this.host.watchNamespaces,
        assignable: (resource, obj) => this.assignable(resource, obj),
        logger: this.host.logger.child({ component: 'sharding' }),
        metrics,
      });
    }
    metrics.addCollector(() => {
      for (const [id, informer] of informers) {
        if (!this.unsharded.has(id)) metrics.shardOwnedObjects.set({ ring: name, resource: id }, informer.cache.size);
      }
    });
    await ring.start();
  }

  /** Stops moving objects, then leaves the ring (its Lease released). */
  async stop(): Promise<void> {
    await this.labeller?.stop();
    await this.ringOf?.stop();
    await this.namespaces?.stop();
  }

  /**
   * `ranges: 'namespaces'`: a table whose buckets hold equal counts of the namespaces, when there is none yet or a
   * member's count under the current one is off its even share by more than {@link TABLE_DRIFT}; else undefined.
   * Asked by the ring at every settled evaluation (each Lease renewal) and by a joining member while it waits for
   * its first view to settle: computed once per namespaces, members and table.
   */
  private cutFor(table: string | undefined, members: readonly string[]): TableCut | undefined {
    const names =
      this.host.watchNamespaces ??
      (this.namespaces?.hasSynced ? this.namespaces.cache.list().map((ns) => ns.metadata?.name ?? '') : undefined);
    // one member holds everything whatever the table: a cut would only change the view
    if (!names || names.length === 0 || members.length < 2) return undefined;
    const asked = `${members.join(',')}\n${table ?? ''}\n${names.join(',')}`;
    if (this.lastCut?.asked !== asked) this.lastCut = { asked, cut: balancedCut(names, table, members) };
    return this.lastCut.cut;
  }

  /** Records the Event about a table this member proposed (the ring counts it). */
  private tableProposed(table: string, previous: string | undefined, members: readonly string[]): void {
    const cut = this.cutFor(previous, members);
    const recorder = this.host.recorder();
    if (!recorder || !this.ringOf || cut?.table !== table) return;
    void recorder.event(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.ringOf.member, namespace: this.ringNamespace },
      },
      {
        type: 'Normal',
        reason: 'ShardRangesRebalanced',
        action: 'ProposeTable',
        note: `ring ${this.options.ring}: ${members.length} members, ${cut.names} namespaces: new hash ranges of equal counts of namespaces (namespaces per member ${cut.now.join('/')}${cut.was ? `, were ${cut.was.join('/')}` : ''})`,
      },
    );
  }

  /** True when the shard assignment is written as labels (shard-labels.ts). */
  private get labelled(): boolean {
    return this.assignment === 'labels';
  }

  /**
   * Whether the ring assigns an object a label (shard-labels.ts): of a kind the sharded controllers own, only an
   * object whose controller owner is of their primary kind (a Foo's Deployment, not another operator's: the ring
   * never writes on objects that are not its controllers'); of a primary or a watched kind, every object.
   */
  private assignable(resource: ResourceRef, obj: KubeObject): boolean {
    const owners = this.ownedBy.get(resourceId(resource));
    if (!owners || this.primaries.has(resourceId(resource))) return true;
    const ref = getControllerOf(obj);
    return ref !== undefined && owners.has(groupKind(ref));
  }

  /**
   * The ring's shard key of an object (sharding.ts): with assignment `server`, the hash bucket of the field the
   * apiserver hashes (shard-ranges.ts): its namespace, or its own UID for a `for` kind, else its controller
   * owner's UID (owned objects follow their owner, filtered by the member).
   */
  private shardKeyFor(resource: ResourceRef, obj: KubeObject): string {
    if (this.assignment !== 'server') return shardKeyOf(obj, this.key);
    const own = this.key === 'uid' && this.primaries.has(resourceId(resource));
    return hashKey(own ? (obj.metadata?.uid ?? '') : shardKeyOf(obj, this.key));
  }

  /** The shard selector of a kind's lists and watches: the buckets this member holds, where the server applies it. */
  private serverSelector(resource: ResourceRef): string | undefined {
    const ring = this.ringOf;
    if (!this.serverSelects || !ring || (this.key === 'uid' && !this.primaries.has(resourceId(resource)))) {
      return undefined;
    }
    // the buckets this member owns under each view it holds, each under that view's table (a new table moves ranges)
    const ranges = ring.heldViews.flatMap((view) =>
      bucketRanges(
        [...Array(SHARD_BUCKETS).keys()].filter((b) => bucketOwner(bucketKey(b), view.members) === ring.member),
        decodeTable(view.table),
      ),
    );
    return shardRangeSelector(shardField(this.key), ranges);
  }

  /**
   * Assignment `server`: does the apiserver apply shard selectors (it echoes the selector of a list of the ring's
   * Leases)? Where it does not, each member filters the whole stream (as `hash`), said in the log and the metric.
   */
  private async probeServerSelection(ringNamespace: string): Promise<void> {
    const { ring } = this.options;
    const { logger } = this.host;
    try {
      this.serverSelects = await probeShardSelector(this.host.electionClient, ringNamespace);
    } catch (err) {
      logger.warn('could not probe the apiserver for shard selectors', { error: err });
    }
    this.host.metrics.shardServerSelection.set({ ring }, this.serverSelects ? 1 : 0);
    if (this.serverSelects) {
      logger.info('the apiserver applies shard selectors: each member lists and watches its hash ranges', { ring });
    } else {
      logger.warn(
        'the apiserver ignores shard selectors (Kubernetes < 1.36, or the feature gate ShardedListAndWatch is off): each member filters the whole stream of its sharded kinds',
        { ring },
      );
    }
  }
}

/** A table of equal counts of namespaces per member, with those counts (and the counts under the table it replaces). */
interface TableCut {
  readonly table: string;
  readonly names: number;
  readonly now: readonly number[];
  readonly was?: readonly number[];
}

/** The cut of `names` over `members` that replaces `table`, or undefined when `table` is even enough (see cutFor). */
function balancedCut(
  names: readonly string[],
  table: string | undefined,
  members: readonly string[],
): TableCut | undefined {
  // each member's count of the namespaces under a table, and how far the farthest is from an even share
  const countsUnder = (cuts: RangeTable | undefined) => namesPerMember(names, members, cuts);
  const even = names.length / members.length;
  const drift = (counts: readonly number[]) => Math.max(...counts.map((n) => Math.abs(n - even) / even));
  const was = table === undefined ? undefined : countsUnder(decodeTable(table));
  if (was && drift(was) <= TABLE_DRIFT) return undefined;
  const next = balancedCuts(names, members);
  const now = countsUnder(next);
  if (was && drift(now) >= drift(was)) return undefined;
  return { table: encodeCuts(next), names: names.length, now, was };
}
