/**
 * Sharding: the replicas of a controller form a ring and each reconciles, and caches, only its share of
 * the objects (controller-runtime has none; timebertt/kubernetes-controller-sharding is the model).
 *
 * Expected flow:
 * ```ts
 * const manager = new Manager({ sharding: { ring: 'foo', key: 'uid' } });   // every replica the same
 * new ControllerBuilder(manager, { name: 'foo' }).for(FOO).owns(DEPLOYMENT).complete(reconciler);
 * await manager.start();
 * ```
 * 1. Membership: each member holds its own `coordination.k8s.io/v1` Lease `<ring>-<member>` in the operator's
 *    namespace, labelled `sharding.cdk8s-operator.io/ring=<ring>`, renewed every retry period as a leader lease
 *    is; every member watches the ring's Leases. A Lease not renewed for its duration (on the observer's own
 *    clock, no clock-skew dependence) is a dead member, and the members delete its Lease (at the version seen
 *    expired), so that a member starting later does not count it live; a member stopping cleanly deletes its Lease.
 * 2. Assignment: rendezvous (highest random weight) hashing of the shard key over the live members — the
 *    object's UID, or its namespace (`key`); an object with a controller owner uses its owner's UID, so owned
 *    objects follow their owner. Every member computes the same assignment from the same Leases (no sharder
 *    process; the labels of shard-labels.ts only record it). A member joining or leaving moves only the share it takes
 *    or leaves: rendezvous hashing keeps every other object where it was. The `server` assignment's keys are 128
 *    hash buckets, dealt with bounded loads (`boundedRendezvous`, the ring's `owner` option): even shares, for a few
 *    buckets moved between the other members at a change. A view may also carry a table (`proposeTable`: where
 *    `server`'s buckets start, cut by the namespaces), proposed by its first member in its Lease and copied by every
 *    member that acknowledges it; a new table is a new view, behind the same barrier.
 * 3. Handover (the "view" barrier): a member that sees the live set change to a new view V stops reconciling
 *    every object it would not own under V (writes of reconciles in flight for them are refused from that
 *    moment, as the leader guard refuses them), waits until the writes it already sent were answered, and then
 *    acknowledges V in its Lease (`sharding.cdk8s-operator.io/view`). It starts reconciling its share under V
 *    only once every member of V acknowledged V. Until then it reconciles only the objects it owns both under the
 *    view it acts on and under every view it acknowledged since.
 * 4. Caches: each member's informers keep only the objects of its share: label-selected (shard-labels.ts), or,
 *    with `assignment: 'hash'`, filtered when the watch delivers them (under the view it acts on and the latest
 *    one; a view change evicts the objects that left, without delete events, and re-lists to pick up those that
 *    arrive, which are then reconciled). `start` resolves, and the manager starts its informers, only once the view
 *    acted on has settled (see `settle`): members started together do not each list the share of a ring of one.
 *
 * Guarantees:
 * - No object is reconciled by two members at once: two members act on the same view or one of them
 *   acknowledged the other's view (and so reconciles a subset of its share under it); a member that cannot
 *   renew its Lease within the renew deadline stops writing before the Lease can expire for the others.
 * - A dead member's share is taken over within its Lease duration (from the last renewal each member saw: a
 *   timer re-evaluates the ring when a Lease expires) plus the barrier (the acknowledgements' round trip).
 * - Metrics: `controller_runtime_shard_members{ring}`, `controller_runtime_shard_owned_objects{ring,resource}`,
 *   `controller_runtime_shard_handovers_total{ring,direction}` (objects that came in / went out),
 *   `controller_runtime_shard_view_changes_total{ring}`; the queue depth is `workqueue_depth` of each member.
 *
 * Caveats:
 * - With the manager's `assignment: 'labels'` (the default) the assignment is also written on the objects as a
 *   label and each member's watches select it (shard-labels.ts): the apiserver sends a member only its share.
 *   With `assignment: 'hash'` every member receives the whole watch stream of a sharded kind and drops what is
 *   not its share (memory scales down with members, decoding the stream does not). With `assignment: 'server'`
 *   the apiserver's own shard selector (Kubernetes 1.36 alpha, `ShardedListAndWatch`) sends each member only its
 *   hash ranges where it is served, and every member filters itself where not (shard-ranges.ts).
 * - A reconciler may assume it is the only one acting on its object and the objects that object owns; it may
 *   not assume its cache holds objects of other shards (a reconcile that lists the whole kind to decide is not
 *   safe to shard).
 * - In `uid` mode, a reconcile of a key no longer in the cache (a deleted object) is skipped: clean up with
 *   finalizers (the object stays until the owner's reconcile removed them).
 */
import { createHash } from 'crypto';
import { sleep } from './backoff';
import { KubeClient } from './client';
import { isAlreadyExists, isConflict, isNotFound } from './errors';
import { EventRecorder } from './events';
import { Informer } from './informer';
import { Logger, silentLogger } from './log';
import { RuntimeMetrics } from './metrics';
import { KubeObject } from './resource';
import { microTime } from './status';

/** What objects are assigned by. */
export type ShardKey = 'uid' | 'namespace';

/** The label naming a member Lease's ring. */
export const SHARD_RING_LABEL = 'sharding.cdk8s-operator.io/ring';
/** The annotation of a member Lease acknowledging a view (the hash of the member set it drained to). */
export const SHARD_VIEW_ANNOTATION = 'sharding.cdk8s-operator.io/view';
/**
 * The annotation of a member Lease carrying the ring's range table (`<generation>:<table>`, opaque to the ring): the
 * one of the view it acknowledged, or the one it proposes (see `proposeTable`).
 */
export const SHARD_TABLE_ANNOTATION = 'sharding.cdk8s-operator.io/table';

/** The longest a joining member waits for its first view to settle before it starts its caches (see settle). */
const JOIN_SETTLE_MAX_MS = 10_000;

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' } as const;

/** Options of {@link ShardRing}. */
export interface ShardRingOptions {
  readonly client: KubeClient;
  /** The ring's name (a DNS label): the Leases are `<ring>-<member>`. */
  readonly ring: string;
  /** The operator's namespace, where the Leases live. */
  readonly namespace: string;
  /** This member's identity (any string; hashed into the Lease name). */
  readonly identity: string;
  readonly key: ShardKey;
  /** @default 15000 */
  readonly leaseDurationMs?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
  /**
   * How many members the ring is deployed with (the Deployment's replicas). A starting member waits, at most
   * {@link JOIN_SETTLE_MAX_MS} in all, for a view of at least this many before it starts its caches (see settle): pods
   * of one Deployment start seconds apart (image pulls, a busy node), more than the second a view must hold, and a
   * member that started on a smaller ring listed that ring's share and gave most of it away a moment later.
   * @default 1 (a view that held for the settle time will do)
   */
  readonly expectedMembers?: number;
  /** Called when the set of objects this member may reconcile grew (the controllers re-enqueue their caches). */
  readonly onOwnershipGrew?: () => void;
  /** Called when the set of objects the caches keep changed (the informers evict and re-list). */
  readonly onHoldingChanged?: () => void;
  /**
   * Resolves once every write this member sent before the call was answered. A new view is acknowledged only then:
   * a write already on its way when its object moved would otherwise land while the new owner reconciles it.
   * @default - nothing awaited
   */
  readonly writesSettled?: () => Promise<void>;
  /**
   * Delete the Lease of a member gone once it expired (see `collect`), so that a member joining later does not count
   * it live for a Lease duration. @default true
   */
  readonly collectExpiredLeases?: boolean;
  /**
   * Who owns a shard key under a view (every member of the ring must use the same function).
   * @default rendezvousOwner
   */
  readonly owner?: ShardOwner;
  /**
   * A table the view carries besides its members (assignment `server` with `ranges: 'namespaces'`: where the hash
   * buckets start, shard-ranges.ts), proposed by the view's first member: called with the view's table (undefined:
   * none yet) and members; returns a new table, or undefined to keep it. The view's first member writes its answer
   * when it acts on a settled view; every joining member asks too (so it must not act, only answer), and starts its
   * caches once the view carries a table it would keep. The table is part of the view, so a new one moves objects
   * behind the same barrier as a ring change.
   * @default - no table
   */
  readonly proposeTable?: (table: string | undefined, members: readonly string[]) => string | undefined;
  /** Called when this member, as the view's first, proposes `table` (in place of `previous`). @default - nothing */
  readonly onTableProposed?: (table: string, previous: string | undefined, members: readonly string[]) => void;
  /** Records an Event about each Lease this member deleted. @default - none */
  readonly recorder?: Pick<EventRecorder, 'event'>;
  readonly logger?: Logger;
  readonly metrics?: RuntimeMetrics;
}

/** A view: the sorted member names of the ring, the table it carries (`<generation>:<table>`), and its hash. */
interface View {
  readonly members: readonly string[];
  readonly table?: string;
  readonly hash: string;
}

function viewOf(members: Iterable<string>, table?: string): View {
  const sorted = [...new Set(members)].sort();
  // without a table the hash is what it always was: members of older versions acknowledge the same view
  const hash = createHash('sha256')
    .update(sorted.join(',') + (table === undefined ? '' : `\n${table}`))
    .digest('hex')
    .slice(0, 16);
  return { members: sorted, table, hash };
}

/** The table a view carries, without its generation (undefined: none). */
function tableOf(view: View): string | undefined {
  return view.table?.slice(view.table.indexOf(':') + 1);
}

/** The generation of a table annotation (`<generation>:<table>`); -1 when it has none. */
function generationOf(table: string): number {
  const generation = Number(table.slice(0, table.indexOf(':')));
  return Number.isSafeInteger(generation) && generation >= 0 ? generation : -1;
}

/** FNV-1a (32 bit) of a string, finished with murmur3's avalanche step. */
/* eslint-disable no-bitwise -- a hash is bit arithmetic */
function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
/* eslint-enable no-bitwise */

/**
 * The member owning `key` among `members` by rendezvous hashing: the one with the highest hash of
 * (member, key). Removing a member moves only its keys; adding one moves to it only the keys it wins.
 */
export function rendezvousOwner(key: string, members: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = -1;
  for (const m of members) {
    const score = hash32(`${m}\u0000${key}`);
    if (score > bestScore || (score === bestScore && best !== undefined && m < best)) {
      best = m;
      bestScore = score;
    }
  }
  return best;
}

/**
 * Rendezvous hashing with bounded loads over a known, finite set of keys (assignment `server`'s hash buckets): the
 * (key, member) pairs are taken from the highest rendezvous score down, and a key goes to the first member that
 * still has fewer than ceil(keys / members) keys. So no member holds more than its even share, rounded up (plain
 * rendezvous over 128 buckets gave the largest of four members 34 to 37: test/runtime/shard-buckets.test.ts), and
 * a key still goes to its rendezvous owner unless that member is full. A member joining or leaving moves its own
 * share and, through the changed bound, a few keys between the others: more than plain rendezvous moves, far fewer
 * than a re-deal.
 */
export function boundedRendezvous(keys: readonly string[], members: readonly string[]): Map<string, string> {
  const owners = new Map<string, string>();
  if (members.length === 0) return owners;
  const bound = Math.ceil(keys.length / members.length);
  const load = new Map(members.map((m) => [m, 0]));
  const pairs = keys.flatMap((key) =>
    members.map((member) => ({ key, member, score: hash32(`${member}\u0000${key}`) })),
  );
  // highest score first; ties broken by name, as rendezvousOwner breaks them, so every member sorts alike
  pairs.sort(
    (x, y) => y.score - x.score || (x.member < y.member ? -1 : x.member > y.member ? 1 : x.key < y.key ? -1 : 1),
  );
  for (const { key, member } of pairs) {
    if (owners.has(key) || load.get(member)! >= bound) continue;
    owners.set(key, member);
    load.set(member, load.get(member)! + 1);
  }
  return owners;
}

/**
 * Who owns a shard key among members (and under the view's table, if it carries one): the ring's assignment
 * (rendezvousOwner unless the manager says otherwise).
 */
export type ShardOwner = (shardKey: string, members: readonly string[], table?: string) => string | undefined;

/** The shard key of an object: its controller owner's UID (owned objects follow their owner), else its own UID; or its namespace. */
export function shardKeyOf(obj: KubeObject, key: ShardKey): string {
  if (key === 'namespace') return obj.metadata?.namespace ?? '';
  const owner = obj.metadata?.ownerReferences?.find((r) => r.controller);
  return owner?.uid ?? obj.metadata?.uid ?? '';
}

/** The Lease name of a member: `<ring>-<10 hex digits of its identity's hash>`. */
export function memberLeaseName(ring: string, identity: string): string {
  return `${ring}-${createHash('sha256').update(identity).digest('hex').slice(0, 10)}`;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
}

/** See module docs. */
export class ShardRing {
  /** This member's name in the ring (its Lease's name). */
  public readonly member: string;
  private readonly leases: Informer;
  /** When each Lease (by name) was last seen to change, on our clock; and its resourceVersion then. */
  private readonly seen = new Map<string, { rv: string; at: number }>();
  /** Expired Leases this member asked the apiserver to delete (name/resourceVersion), not to ask twice. */
  private readonly collected = new Set<string>();
  /** The view acted on (undefined: none yet, this member reconciles nothing). */
  private acting: View | undefined;
  /** The latest live view this member stopped for, and every one since `acting` (owns() reads them). */
  private target: View | undefined;
  private pending: View[] = [];
  /** The view its Lease acknowledges: `target` once the writes sent before it were answered. */
  private acknowledged: View | undefined;
  /** The table this member proposes as the view's first member (see `proposeTable`), until a view carries it. */
  private proposal: string | undefined;
  /** When this member began acting on its current view (a table is proposed only once the view has settled). */
  private actingSince = 0;
  /** Asks again once the view has settled (see propose). */
  private settleTimer: NodeJS.Timeout | undefined;
  /** Holds its Lease (renewed within the deadline). */
  private holding = false;
  private leaving = false;
  private stopped = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private readonly logger: Logger;
  private readonly metrics: RuntimeMetrics;
  private lastRenew = 0;
  /** Re-evaluates the ring when the next live Lease of another member expires (see evaluate). */
  private expiryTimer: NodeJS.Timeout | undefined;
  private readonly ownerOf: ShardOwner;

  constructor(private readonly options: ShardRingOptions) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(options.ring) || options.ring.length > 50) {
      throw new Error(`sharding.ring: must be a DNS label of at most 50 characters, got '${options.ring}'`);
    }
    if ((options.renewDeadlineMs ?? 10_000) >= (options.leaseDurationMs ?? 15_000)) {
      throw new Error(
        `sharding: renewDeadlineMs must be less than leaseDurationMs, got ${options.renewDeadlineMs} >= ${options.leaseDurationMs}`,
      );
    }
    this.member = memberLeaseName(options.ring, options.identity);
    this.ownerOf = options.owner ?? rendezvousOwner;
    this.logger = (options.logger ?? silentLogger).child({ ring: options.ring, member: this.member });
    this.metrics = options.metrics ?? new RuntimeMetrics();
    this.leases = new Informer(
      options.client,
      LEASE,
      {
        namespace: options.namespace,
        labelSelector: `${SHARD_RING_LABEL}=${options.ring}`,
        resyncPeriodMs: 0,
      },
      this.logger,
    );
    this.leases.addEventHandler({
      onAdd: () => this.evaluate(),
      onUpdate: () => this.evaluate(),
      onDelete: () => this.evaluate(),
    });
  }

  get ring(): string {
    return this.options.ring;
  }

  get key(): ShardKey {
    return this.options.key;
  }

  /** The members of the view acted on. */
  get members(): readonly string[] {
    return this.acting?.members ?? [];
  }

  /** True while this member holds its Lease and acts on a view. */
  get active(): boolean {
    return this.holding && !this.leaving && this.acting !== undefined;
  }

  /** May this member reconcile (and write for) the object with this shard key now? */
  owns(shardKey: string): boolean {
    if (!this.active) return false;
    if (this.ownerIn(shardKey, this.acting!) !== this.member) return false;
    return this.pending.every((v) => this.ownerIn(shardKey, v) === this.member);
  }

  /**
   * The member the latest view this member acknowledged gives the shard key to (undefined before it holds its
   * Lease): where a member sends an object it labelled for itself but no longer owns (shard-labels.ts).
   */
  latestOwner(shardKey: string): string | undefined {
    if (!this.holding || this.leaving || !this.target) return undefined;
    return this.ownerIn(shardKey, this.target);
  }

  /**
   * The members of the latest view this member acknowledged (empty before it holds its Lease, or once it leaves):
   * the view the shard labels are written against (shard-labels.ts), ahead of the view acted on during a ring change.
   */
  get latestMembers(): readonly string[] {
    if (!this.holding || this.leaving || !this.target) return [];
    return this.target.members;
  }

  /** Should the caches keep the object with this shard key (its share under the view acted on or the latest)? */
  holds(shardKey: string): boolean {
    return this.heldViews.some((v) => this.ownerIn(shardKey, v) === this.member);
  }

  /**
   * The views whose share the caches keep (the view acted on and the latest): a cache that selects its share on the
   * server (shard-ranges.ts) asks for the union of this member's ranges under each, with each view's table.
   */
  get heldViews(): ReadonlyArray<{ readonly members: readonly string[]; readonly table?: string }> {
    if (this.leaving) return [];
    return [this.acting, this.target].filter((v): v is View => v !== undefined);
  }

  private ownerIn(shardKey: string, view: Pick<View, 'members' | 'table'>): string | undefined {
    return this.ownerOf(shardKey, view.members, view.table);
  }

  /**
   * Joins the ring: creates its Lease, starts watching the others. Resolves once the first view is acted on and has
   * settled (see settle).
   */
  async start(timeoutMs = 120_000): Promise<void> {
    if (this.loop) return;
    this.leases.start();
    this.loop = this.run();
    const deadline = Date.now() + timeoutMs;
    while (!this.active) {
      if (Date.now() > deadline) {
        throw new Error(
          `sharding: ring '${this.ring}' did not form within ${timeoutMs} ms (members must acknowledge the view in their Leases)`,
        );
      }
      await sleep(50);
    }
    await this.settle();
  }

  /**
   * Waits, at most {@link JOIN_SETTLE_MAX_MS}, until the view acted on has held for the settle time (a second, or the
   * retry period if shorter) with no newer one pending, counts the members expected (`expectedMembers`), and carries
   * the table its first member would keep: the caller starts its caches then. Members started together join one
   * after another, and the first one acted on a ring of one, then of two …, and listed each view's share (the whole
   * set of objects at first), only to give most of it away a moment later; a benchmark of 4 members at 10,000 Foos
   * saw every member go through 4 views and a new table in 2.5 s. Bounded, so that a ring that keeps changing (or a
   * first member whose namespaces differ, or a replica that does not come up) does not hold a member's caches back.
   */
  private async settle(): Promise<void> {
    const settleMs = Math.min(1000, this.options.retryPeriodMs ?? 2000);
    const deadline = Date.now() + JOIN_SETTLE_MAX_MS;
    while (!this.stopped) {
      const view = this.acting;
      const settled =
        this.active &&
        view !== undefined &&
        this.target?.hash === view.hash &&
        Date.now() - this.actingSince >= settleMs &&
        view.members.length >= (this.options.expectedMembers ?? 1) &&
        this.keepsTable(view);
      if (settled) return;
      if (Date.now() > deadline) {
        this.logger.info('the ring did not settle: starting on the view acted on', { settleMaxMs: JOIN_SETTLE_MAX_MS });
        return;
      }
      await sleep(50);
    }
  }

  /** Would the view's first member keep the view's table (always, without `proposeTable`)? */
  private keepsTable(view: View): boolean {
    const { proposeTable } = this.options;
    return !proposeTable || proposeTable(tableOf(view), view.members) === undefined;
  }

  /**
   * Leaves the ring: from now on it owns nothing (the caller waits for in-flight reconciles), then deletes its
   * Lease so the others take its share over at once.
   */
  async stop(): Promise<void> {
    this.leaving = true;
    this.stopped = true;
    clearTimeout(this.expiryTimer);
    clearTimeout(this.settleTimer);
    this.abort.abort();
    await this.loop;
    try {
      await this.options.client.delete(LEASE, this.member, this.options.namespace);
    } catch (err) {
      if (!isNotFound(err)) this.logger.warn('could not delete the member Lease', { error: err });
    }
    await this.leases.stop();
    this.logger.info('left the ring');
  }

  private get durationMs(): number {
    return this.options.leaseDurationMs ?? 15_000;
  }

  private async run(): Promise<void> {
    const retry = this.options.retryPeriodMs ?? 2000;
    const deadline = this.options.renewDeadlineMs ?? 10_000;
    while (!this.stopped) {
      if (await withTimeout(this.renew(), Math.max(1000, deadline / 2), false)) {
        this.lastRenew = Date.now();
        if (!this.holding) {
          this.holding = true;
          this.logger.info('joined the ring');
        }
      } else if (this.holding && Date.now() - this.lastRenew >= deadline) {
        // As the leader elector: from the deadline, before the Lease can expire for anyone else, nothing is written.
        this.holding = false;
        this.acting = undefined;
        this.pending = [];
        this.target = undefined;
        this.acknowledged = undefined;
        this.logger.error('could not renew the member Lease within the renew deadline: owns nothing until it rejoins', {
          renewDeadlineMs: deadline,
        });
        this.options.onHoldingChanged?.();
      }
      this.evaluate();
      await sleep(retry * (1 + Math.random() * 0.1), this.abort.signal);
    }
  }

  /** Creates or renews this member's Lease, acknowledging the latest view. */
  private async renew(): Promise<boolean> {
    const { client, namespace } = this.options;
    const now = microTime(new Date());
    const spec: LeaseSpec = {
      holderIdentity: this.options.identity,
      leaseDurationSeconds: Math.ceil(this.durationMs / 1000),
      renewTime: now,
    };
    const table = this.proposal ?? this.acknowledged?.table;
    const annotations = this.acknowledged
      ? { [SHARD_VIEW_ANNOTATION]: this.acknowledged.hash, ...(table ? { [SHARD_TABLE_ANNOTATION]: table } : {}) }
      : undefined;
    try {
      const current =
        this.leases.cache.get(`${namespace}/${this.member}`) ?? (await getOrUndefined(client, this.member, namespace));
      if (!current) {
        await client.create({
          apiVersion: LEASE.apiVersion,
          kind: LEASE.kind,
          metadata: { name: this.member, namespace, labels: { [SHARD_RING_LABEL]: this.ring }, annotations },
          spec: { ...spec, acquireTime: now },
        });
        return true;
      }
      await client.replace({
        ...current,
        metadata: { ...current.metadata, annotations: { ...current.metadata?.annotations, ...annotations } },
        spec: { ...(current.spec as LeaseSpec), ...spec },
      });
      return true;
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err)) this.logger.warn('member Lease request failed', { error: err });
      return false;
    }
  }

  /** Recomputes the live view, acknowledges a new one, and advances to it once every member acknowledged it. */
  private evaluate(): void {
    if (!this.holding || this.leaving) return;
    const now = Date.now();
    const live: string[] = [];
    const acks = new Map<string, string | undefined>();
    let table: string | undefined;
    const names = new Set<string>();
    const expired: Array<{ lease: KubeObject; rv: string }> = [];
    let nextExpiry = Infinity;
    for (const lease of this.leases.cache.list()) {
      const name = lease.metadata!.name!;
      names.add(name);
      const rv = lease.metadata?.resourceVersion ?? '';
      const seen = this.seen.get(name);
      if (!seen || seen.rv !== rv) this.seen.set(name, { rv, at: now });
      const at = this.seen.get(name)!.at;
      const spec = (lease.spec ?? {}) as LeaseSpec;
      const duration = (spec.leaseDurationSeconds ?? 15) * 1000;
      if (name === this.member || (spec.holderIdentity && now - at < duration)) {
        live.push(name);
        acks.set(name, lease.metadata?.annotations?.[SHARD_VIEW_ANNOTATION]);
        // the view carries the newest table a live member holds (ties: the greater), so every member picks the same
        const held = lease.metadata?.annotations?.[SHARD_TABLE_ANNOTATION];
        if (held && generationOf(held) >= 0 && (!table || compareTables(held, table) > 0)) table = held;
        if (name !== this.member) nextExpiry = Math.min(nextExpiry, at + duration);
      } else {
        expired.push({ lease, rv });
      }
    }
    for (const name of this.seen.keys()) if (!names.has(name)) this.seen.delete(name);
    // A dead member is seen dead when its Lease expires, not at the next renew round: up to a retry period (2 s)
    // and one more for the others' acknowledgements came on top of every takeover before.
    clearTimeout(this.expiryTimer);
    if (nextExpiry !== Infinity) {
      this.expiryTimer = setTimeout(() => this.evaluate(), Math.max(0, nextExpiry - now) + 10);
      this.expiryTimer.unref?.();
    }
    if (!live.includes(this.member)) return; // our own Lease is not in the cache yet
    const view = viewOf(live, this.options.proposeTable ? table : undefined);
    if (this.options.collectExpiredLeases !== false) this.collect(expired);
    if (view.hash !== this.target?.hash) {
      // Stop reconciling what we would not own under the new view before saying so (owns() reads pending).
      this.target = view;
      this.pending.push(view);
      this.metrics.shardViewChanges.inc({ ring: this.ring });
      this.logger.info('ring changed, acknowledging', { members: view.members.length, view: view.hash });
      this.options.onHoldingChanged?.();
      void this.acknowledge(view);
      return;
    }
    this.metrics.shardMembers.set({ ring: this.ring }, view.members.length);
    if (this.acting?.hash === view.hash) {
      this.propose(view);
      return;
    }
    if (!view.members.every((m) => acks.get(m) === view.hash)) return;
    const before = this.acting;
    this.acting = view;
    this.actingSince = now;
    this.pending = [];
    this.logger.info('acting on the ring view', {
      members: view.members.length,
      view: view.hash,
      previous: before?.hash,
    });
    this.options.onHoldingChanged?.();
    this.options.onOwnershipGrew?.();
    this.propose(view); // as the first member: asks again once the view settled (a timer), not at the next renewal
  }

  /**
   * Acknowledges `view` in the Lease (at once rather than at the next renewal) when every write sent before it was
   * answered. From the view change on, owns() refuses the writes of the objects this member gives away; a write sent
   * before it may still be on its way (a rehearsal on a loaded host saw a 400 ms patch land after the new owner's).
   */
  private async acknowledge(view: View): Promise<void> {
    await this.options.writesSettled?.();
    if (this.target !== view) return; // a newer view came meanwhile: that one is acknowledged instead
    this.acknowledged = view;
    // adopted, or outdone by another member's table of the same or a later generation: proposed no longer
    if (this.proposal !== undefined && view.table && generationOf(view.table) >= generationOf(this.proposal)) {
      this.proposal = undefined;
    }
    await this.renew();
  }

  /**
   * As the first member of a settled view (every member acts on it, for a second: members starting together
   * join one after another, and one cut for all of them moves fewer objects than one per join), asks `proposeTable`
   * whether the view's table should change, and writes the new one, a generation up, into its Lease: every member
   * then sees a new view.
   */
  private propose(view: View): void {
    const { proposeTable } = this.options;
    if (!proposeTable || view.members[0] !== this.member || this.proposal !== undefined) return;
    const settled = this.actingSince + Math.min(1000, this.options.retryPeriodMs ?? 2000);
    if (Date.now() < settled) {
      // evaluated again then, not only at the next renewal round (up to a retry period later)
      clearTimeout(this.settleTimer);
      this.settleTimer = setTimeout(() => this.evaluate(), settled - Date.now() + 10);
      this.settleTimer.unref?.();
      return;
    }
    const current = tableOf(view);
    const next = proposeTable(current, view.members);
    if (next === undefined || next === current) return;
    this.proposal = `${view.table ? generationOf(view.table) + 1 : 1}:${next}`;
    this.metrics.shardTablesProposed.inc({ ring: this.ring });
    this.options.onTableProposed?.(next, current, view.members);
    this.logger.info('proposing a new range table', { members: view.members.length, view: view.hash });
    void this.renew();
  }

  /**
   * Deletes the Leases of members gone (expired on this member's clock), each only at the resourceVersion seen
   * expired: a member that renewed meanwhile keeps its Lease (409). A kill -9 leaves its member's Lease behind, and a
   * member that starts later cannot tell how old it is (Lease expiry is measured on the observer's clock): it would
   * count the dead member in its view for a whole Lease duration, and no member could act on the view it joins with
   * until then — found in the long fault run, where every join after a kill -9 waited 15 s for its barrier. Each
   * member asks once per Lease version (the first request wins; the others get 404 or 409).
   */
  private collect(expired: ReadonlyArray<{ lease: KubeObject; rv: string }>): void {
    for (const { lease, rv } of expired) {
      const name = lease.metadata!.name!;
      const id = `${name}/${rv}`;
      if (this.collected.has(id)) continue;
      this.collected.add(id);
      this.options.client
        .delete(LEASE, name, this.options.namespace, { preconditions: { resourceVersion: rv } })
        .then(() => {
          // Only the member whose request deleted it says so: the others got 404 or 409.
          const spec = (lease.spec ?? {}) as LeaseSpec;
          this.logger.info('deleted the Lease of a member gone', { lease: name, holder: spec.holderIdentity });
          this.metrics.shardLeasesCollected.inc({ ring: this.ring });
          void this.options.recorder?.event(lease, {
            type: 'Normal',
            reason: 'ShardMemberGone',
            action: 'DeleteLease',
            note: `member ${spec.holderIdentity} of ring ${this.ring} did not renew its Lease for ${spec.leaseDurationSeconds ?? 15} s: deleted, so that members joining later do not count it`,
          });
        })
        .catch((err) => {
          if (!isNotFound(err) && !isConflict(err)) {
            this.collected.delete(id);
            this.logger.warn('could not delete the Lease of a member gone', { lease: name, error: err });
          }
        });
    }
    if (this.collected.size > 1000) this.collected.clear();
  }
}

async function getOrUndefined(client: KubeClient, name: string, namespace: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(LEASE, name, namespace);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Orders table annotations: the higher generation, then the greater text. */
function compareTables(a: string, b: string): number {
  return generationOf(a) - generationOf(b) || (a < b ? -1 : a > b ? 1 : 0);
}

function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(fallback), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
