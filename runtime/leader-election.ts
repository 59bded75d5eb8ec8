/**
 * Leader election on a `coordination.k8s.io/v1` Lease (client-go `leaderelection` with `LeaseLock`).
 *
 * Expected flow: the manager runs a {@link LeaderElector}; `onStartedLeading` starts controllers,
 * `onStoppedLeading` (lease lost) stops them; the manager then campaigns again with a new elector of the
 * same identity (or exits, when asked to).
 *
 * Guarantees:
 * - Defaults as controller-runtime: lease 15 s, renew deadline 10 s, retry period 2 s; identity
 *   `<hostname>_<uuid>`.
 * - Acquire: create the Lease if missing; take it over only when the holder is empty or its
 *   record did not change for `leaseDurationSeconds` measured on our own clock (no clock-skew
 *   dependence); every write is a PUT with the read resourceVersion, so two candidates cannot both win.
 * - Renew every retry period; if no renewal succeeded within the renew deadline, leadership is lost — at the
 *   deadline even while a renewal request still hangs, so the loss is declared before the lease can expire
 *   for the other candidates (renew deadline < lease duration).
 * - `stop()` releases the lease (empty holder, 1 s duration, `leaseTransitions` kept) so a successor takes over at once.
 * - `leaseTransitions` as client-go: 0 when the Lease is created, +1 whenever a candidate that was not the
 *   holder acquires it (after expiry, or a released lease), unchanged on renewal — and unchanged when an
 *   elector re-acquires a lease that still names its own identity (client-go's `IsLeader()` case: a process
 *   that lost the lease to an unreachable apiserver, and that nobody else took meanwhile).
 * - `leader_election_master_status{name}` is 1 while leading, else 0.
 *
 * - Fails fast: a 403 on the Lease before leadership was ever acquired rejects {@link LeaderElector.start}
 *   with a {@link LeaderElectionForbiddenError} naming the namespace and the fix, instead of retrying a
 *   request RBAC will never allow (controller-runtime exits the same way).
 *
 * Caveats: leader election is not fencing: briefly two processes may act; writes must stay safe
 * (resourceVersion preconditions, deterministic names).
 */
import { randomUUID } from 'crypto';
import { hostname } from 'os';
import { sleep } from './backoff';
import { KubeClient } from './client';
import { isAlreadyExists, isConflict, isForbidden, isNotFound } from './errors';
import { Logger, silentLogger } from './log';
import { RuntimeMetrics } from './metrics';
import { KubeObject } from './resource';
import { microTime } from './status';

/** Options of {@link LeaderElector}. */
export interface LeaderElectionOptions {
  readonly client: KubeClient;
  /** Lease name. */
  readonly leaseName: string;
  /** Lease namespace. */
  readonly namespace: string;
  /** @default `<hostname>_<uuid>` */
  readonly identity?: string;
  /** @default 15000 */
  readonly leaseDurationMs?: number;
  /** @default 10000 */
  readonly renewDeadlineMs?: number;
  /** @default 2000 */
  readonly retryPeriodMs?: number;
  /** Called once when this process becomes leader. */
  readonly onStartedLeading: () => void;
  /** Called once when leadership is lost (not on a clean `stop()`). */
  readonly onStoppedLeading: () => void;
  readonly logger?: Logger;
  readonly metrics?: RuntimeMetrics;
}

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' } as const;

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

/** The Lease cannot be read or written with this identity: retrying cannot help. */
export class LeaderElectionForbiddenError extends Error {
  constructor(
    readonly namespace: string,
    readonly leaseName: string,
    cause: unknown,
  ) {
    super(
      `leader election: the apiserver forbids this identity the Lease ${namespace}/${leaseName} (${String((cause as Error)?.message ?? cause).slice(0, 300)}). ` +
        "The chart grants Leases in the operator's own namespace only: start the controller with " +
        "--leader-election-namespace=<the operator's namespace> (or POD_NAMESPACE=<it>; in the cluster the chart sets it, " +
        'and `npx cdk8s-operator run` sets it out of cluster)',
    );
    this.name = 'LeaderElectionForbiddenError';
  }
}

/** The default identity `<hostname>_<uuid>`. */
export function defaultIdentity(): string {
  return `${hostname()}_${randomUUID()}`;
}

/** See module docs. */
export class LeaderElector {
  public readonly identity: string;
  private leading = false;
  private stopped = false;
  private readonly abort = new AbortController();
  private observedVersion: string | undefined;
  private observedAt = 0;
  /** Holder identity of the lease as last read or written. */
  private observedHolder: string | undefined;
  private loop: Promise<void> | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: LeaderElectionOptions) {
    this.identity = options.identity ?? defaultIdentity();
    this.logger = (options.logger ?? silentLogger).child({
      lease: `${options.namespace}/${options.leaseName}`,
      identity: this.identity,
    });
    if ((options.renewDeadlineMs ?? 10_000) >= (options.leaseDurationMs ?? 15_000)) {
      throw new Error(
        `renewDeadlineMs must be less than leaseDurationMs, got ${options.renewDeadlineMs} >= ${options.leaseDurationMs}`,
      );
    }
  }

  /** True while leading. */
  get isLeader(): boolean {
    return this.leading;
  }

  /** Starts campaigning (idempotent); the promise ends when stopped or leadership was lost. */
  start(): Promise<void> {
    if (!this.loop) this.loop = this.run();
    return this.loop;
  }

  /** Stops campaigning/renewing and releases the lease if held. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.abort.abort();
    await this.loop;
    if (this.leading) {
      this.setLeading(false);
      await this.release();
    }
  }

  private get retryMs(): number {
    return this.options.retryPeriodMs ?? 2000;
  }

  private setLeading(value: boolean): void {
    this.leading = value;
    this.options.metrics?.leaderElectionMasterStatus.set({ name: this.options.leaseName }, value ? 1 : 0);
  }

  private async run(): Promise<void> {
    this.options.metrics?.leaderElectionMasterStatus.set({ name: this.options.leaseName }, 0);
    this.logger.info('attempting to acquire leader lease');
    while (!this.stopped && !(await this.tryAcquireOrRenew())) {
      await sleep(this.retryMs * (1 + Math.random() * 0.2), this.abort.signal);
    }
    // Mark leadership even when stopped meanwhile, so stop() releases a lease we just acquired.
    if (!this.stopped || this.observedHolder === this.identity) this.setLeading(true);
    if (this.stopped) return;
    this.logger.info('acquired leader lease');
    this.options.onStartedLeading();
    let lastRenew = Date.now();
    const deadline = this.options.renewDeadlineMs ?? 10_000;
    while (!this.stopped) {
      await sleep(this.retryMs, this.abort.signal);
      if (this.stopped) return;
      // A renewal hanging on an unreachable apiserver must not hold leadership past the deadline (client-go
      // bounds the renew loop by a context with the renew deadline): the attempt counts as failed then.
      const remaining = Math.max(0, deadline - (Date.now() - lastRenew));
      if (await withTimeout(this.tryAcquireOrRenew(), remaining, false)) {
        lastRenew = Date.now();
      } else if (Date.now() - lastRenew >= deadline) {
        this.setLeading(false);
        this.logger.error('failed to renew leader lease within the renew deadline, leadership lost', {
          renewDeadlineMs: deadline,
        });
        this.options.onStoppedLeading();
        return;
      }
    }
  }

  private leaseSpec(previous: LeaseSpec | undefined, now: Date): LeaseSpec {
    const mine = previous?.holderIdentity === this.identity;
    return {
      holderIdentity: this.identity,
      leaseDurationSeconds: Math.max(1, Math.ceil((this.options.leaseDurationMs ?? 15_000) / 1000)),
      acquireTime: mine && previous?.acquireTime ? previous.acquireTime : microTime(now),
      renewTime: microTime(now),
      // client-go counts every acquisition by a candidate that did not hold the lease, a released one
      // (empty holder) included: `LeaderTransitions = old + 1` unless `IsLeader()` (leaderelection.go).
      leaseTransitions: (previous?.leaseTransitions ?? 0) + (previous && !mine ? 1 : 0),
    };
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, leaseName, namespace } = this.options;
    const now = new Date();
    try {
      let lease: KubeObject;
      try {
        lease = await client.get(LEASE, leaseName, namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
        await client.create({
          apiVersion: LEASE.apiVersion,
          kind: LEASE.kind,
          metadata: { name: leaseName, namespace },
          spec: this.leaseSpec(undefined, now),
        });
        this.observedAt = Date.now();
        this.observedHolder = this.identity;
        return true;
      }
      const spec = (lease.spec ?? {}) as LeaseSpec;
      if (lease.metadata?.resourceVersion !== this.observedVersion) {
        this.observedVersion = lease.metadata?.resourceVersion;
        this.observedAt = Date.now();
      }
      const holder = spec.holderIdentity;
      this.observedHolder = holder;
      const expired = this.observedAt + (spec.leaseDurationSeconds ?? 15) * 1000 <= Date.now();
      if (holder && holder !== this.identity && !expired) return false;
      const updated = await client.replace({ ...lease, spec: { ...spec, ...this.leaseSpec(spec, now) } });
      this.observedVersion = updated.metadata?.resourceVersion;
      this.observedAt = Date.now();
      this.observedHolder = this.identity;
      return true;
    } catch (err) {
      if (isForbidden(err) && !this.leading) throw new LeaderElectionForbiddenError(namespace, leaseName, err);
      if (!isConflict(err) && !isAlreadyExists(err)) this.logger.warn('leader lease request failed', { error: err });
      return false;
    }
  }

  private async release(): Promise<void> {
    const { client, leaseName, namespace } = this.options;
    try {
      const lease = await client.get(LEASE, leaseName, namespace);
      const spec = (lease.spec ?? {}) as LeaseSpec;
      if (spec.holderIdentity !== this.identity) return;
      const now = microTime();
      await client.replace({
        ...lease,
        spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
      });
      this.logger.info('released leader lease');
    } catch (err) {
      this.logger.warn('could not release leader lease', { error: err });
    }
  }
}

/** `promise`, or `fallback` when it has not settled within `ms` (the promise keeps running). */
function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<T>((resolve) => {
      timer = setTimeout(() => resolve(fallback), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
