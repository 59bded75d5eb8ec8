/**
 * Streaming replication, failover and switchover for one database (maturity level 3: automated failure recovery).
 *
 * The primary is `status.currentPrimary` (pod 0 at creation); `<db>-rw` selects the pod labelled
 * `role=primary`, `<db>-ro` the pods labelled `role=replica`. Standbys stream from `<db>-rw`
 * (instance-script.ts), so moving the label moves replication too.
 *
 * Expected flow of a reconcile:
 * 1. No change in flight, primary healthy (pod ready, PostgreSQL answers, not in recovery):
 *    label it primary, label standbys replica, configure the replication user and
 *    `synchronous_standby_names`, fence any other instance that runs as a primary (delete its pod:
 *    it restarts, sees the real primary and rejoins with pg_rewind), and restart a standby that diverged from the
 *    primary's timeline so that it rewinds (diverged-standbys.ts). A switchover starts when
 *    `spec.primary` names a healthy standby, or when a scale-down would remove the primary.
 * 2. Primary unhealthy: `status.primaryUnavailableSince` is recorded; once
 *    `spec.failoverDelaySeconds` passed, the most advanced standby (highest received WAL position)
 *    becomes `status.targetPrimary` — persisted before anything else happens.
 * 3. A target in flight (failover or switchover; every step is idempotent, so an operator that
 *    dies midway finishes it after restart):
 *    a. every pod but the target loses the primary label (before the target gets it: never two);
 *    b. the old primary is fenced: its pod, if it predates the change, is deleted and the
 *       change waits until that pod is gone (a switchover so ships all WAL to the standbys);
 *    c. `pg_promote()` on the target, on a timeline ID reserved in `status.timeline` (timeline-reservation.ts), and a
 *       checkpoint once it left recovery (its control file then names the new timeline, which pg_rewind reads from a
 *       source); d. the target is labelled primary;
 *    e. `status.currentPrimary` = target, the target cleared, an event records the duration.
 *
 * No acknowledged write is lost with `spec.synchronous: true` (`synchronous_standby_names = 'ANY 1 (…)'`:
 * every commit is on a standby before it is acknowledged, and the most advanced standby is
 * promoted; no failover while a standby that may hold the last commits alone does not answer: synchronous-standbys.ts).
 * Without it, replication is asynchronous: a failover loses the commits the standbys had not received (the lag in
 * `status.instances`).
 */
import { anomalySettings, lagging } from './anomalies';
import { describeDivergence, divergence, rewindDivergedStandbys } from './diverged-standbys';
import { effectiveFailoverDelaySeconds } from './fencing';
import { Instance, PgState } from './instances';
import {
  nextSynchronousStandbys,
  synchronousStandbyNamesOf,
  unansweredSynchronousStandbys,
} from './synchronous-standbys';
import { newestTimeline } from './timeline-reservation';
import { Database, Pod, Reasons, SampleDBStatus } from './types';
import { Stored } from '../../runtime';

/** Replication fields of the status (as the CRD declares them). */
export type ReplicationStatus = Pick<
  SampleDBStatus,
  | 'currentPrimary'
  | 'targetPrimary'
  | 'targetPrimarySince'
  | 'primaryUnavailableSince'
  | 'timeline'
  | 'synchronousStandbys'
  | 'instances'
>;

/** One instance in `status.instances` (`lagBytes`: WAL the primary has that this standby has not replayed). */
export type InstanceStatus = NonNullable<SampleDBStatus['instances']>[number];

/** The writes replication needs (the reconciler's Actions and PostgreSQL). */
export interface ReplicationOps {
  /**
   * `pg_promote()` on the instance (when in recovery), then a checkpoint. Before it, every timeline ID up to
   * `reservedThrough` that its `pg_wal` has no history file of is given a placeholder one, so that PostgreSQL gives it a
   * higher ID (timeline-reservation.ts).
   */
  promote(instance: Instance, reservedThrough?: number): Promise<void>;
  /** Replication user and `synchronous_standby_names` on the primary (no-op when in place). */
  configurePrimary(instance: Instance, synchronousStandbyNames: string): Promise<void>;
  /** Sets (or, with undefined, removes) the role label of the instance's pod. */
  setRole(instance: Instance, role: 'primary' | 'replica' | undefined): Promise<void>;
  /** Deletes the instance's pod (with `gracePeriodSeconds`, else the pod's own grace period). */
  deletePod(instance: Instance, gracePeriodSeconds?: number): Promise<void>;
  /** Ends every client session of the instance, the operator's own too (so that it stops cleanly); never throws. */
  endSessions(instance: Instance): Promise<void>;
  /** Writes the replication fields to the status now (before acting on them). */
  persist(status: ReplicationStatus): Promise<void>;
  event(type: 'Normal' | 'Warning', reason: string, note: string): void;
}

/** The outcome for the reconciler. */
export interface ReplicationResult {
  readonly status: ReplicationStatus;
  readonly progress?: { reason: string; message: string };
  readonly problem?: { reason: string; message: string };
  /** Look again in this many ms (a failover delay running, a step waiting). */
  readonly requeueAfterMs?: number;
  /** Pods the StatefulSet must keep (spec.replicas, or more until the primary moved below it). */
  readonly statefulSetReplicas: number;
  /** Instances whose pods this reconcile deleted to restart them for pending settings. */
  readonly restarted?: readonly string[];
}

/**
 * Seconds a failed primary's pod gets to stop when a failover fences it (a switchover keeps the pod's
 * own grace period, so the primary ships all its WAL). An unreachable primary that is still running
 * (cut off from its standbys) cannot finish a clean shutdown: its WAL senders wait for standbys that
 * never answer, so the pod's default 30 s would all be spent before the promotion (measured by the chaos
 * suite: a partitioned primary made failovers take 45 s). Its unreplicated WAL is lost either way.
 */
export const FAILOVER_FENCE_GRACE_SECONDS = 5;

/** An instance whose pod runs and whose PostgreSQL answered. */
type Answering = Instance & { readonly pod: Stored<Pod>; readonly pg: PgState };

const healthyPrimary = (i: Instance | undefined): i is Answering =>
  !!i && !!i.pod && !i.terminating && i.ready && !!i.pg && !i.pg.recovery;
const healthyStandby = (i: Instance | undefined): i is Answering =>
  !!i && !!i.pod && !i.terminating && !!i.pg && i.pg.recovery;

/**
 * The standby to promote: newest timeline, then highest WAL position, then lowest ordinal; only among
 * `allowed`. A standby on an older timeline than another has not followed the last promotion (still
 * catching up, or diverged from it): its WAL position on the old timeline says nothing about the
 * newer one's writes, and promoted it would fork the history.
 */
export function bestStandby(
  instances: readonly Instance[],
  allowed: (i: Instance) => boolean = () => true,
): Instance | undefined {
  const tl = (i: Answering) => i.pg.timeline ?? 0;
  return instances
    .filter((i): i is Answering => healthyStandby(i) && allowed(i))
    .sort((a, b) =>
      tl(a) !== tl(b) ? tl(b) - tl(a) : a.pg.lsn === b.pg.lsn ? a.ordinal - b.ordinal : a.pg.lsn > b.pg.lsn ? -1 : 1,
    )[0];
}

/** The newest timeline ID known: `status.timeline`, each instance's as recorded and as observed now. */
function newestKnownTimeline(state: ReplicationStatus, instances: readonly Instance[]): number {
  return newestTimeline(
    state.timeline,
    state.instances,
    instances.map((i) => i.pg?.timeline),
  );
}

/** `status.instances` from what was observed. */
export function instanceStatuses(instances: readonly Instance[], primary: string | undefined): InstanceStatus[] {
  const primaryPg = instances.find((i) => i.name === primary && i.pg && !i.pg.recovery)?.pg;
  return instances
    .filter((i) => i.pod)
    .map((i) => {
      const pg = i.pg;
      const role = !pg ? 'unknown' : pg.recovery ? 'standby' : 'primary';
      const out: InstanceStatus = { name: i.name, role, ready: i.ready };
      if (pg?.timeline !== undefined) out.timeline = pg.timeline;
      if (pg?.recovery && primaryPg) {
        const replay = pg.replayLsn ?? pg.lsn;
        out.lagBytes = Number(primaryPg.lsn > replay ? primaryPg.lsn - replay : 0n);
      }
      return out;
    });
}

/**
 * `synchronous_standby_names` of `primary`: with `spec.synchronous` and a standby to wait for (`wanted` instances:
 * fewer than `spec.replicas` while a major upgrade runs the primary alone), `ANY 1` of the standbys `recorded` in
 * `status.synchronousStandbys` (synchronous-standbys.ts); else '' (asynchronous): a primary without standbys would block
 * every commit.
 */
export function synchronousStandbyNames(
  db: Database,
  wanted: number,
  recorded: ReplicationStatus['synchronousStandbys'],
  primary: string,
): string {
  return db.spec.synchronous === true && wanted > 1 ? synchronousStandbyNamesOf(recorded, primary) : '';
}

/**
 * See module docs. `status` is the live status; `now` the clock; `wanted` the instances to run
 * (`spec.replicas`, or 1 while a major upgrade runs the primary alone on pod 0). `templateObserved`: the StatefulSet
 * controller has observed the StatefulSet's current spec, so `Instance.outdated` is known. Until it has, no rolling
 * restart or restart switchover starts: a change of resources changes the pod template and the settings derived from
 * memory at once, and the settings' pending restart shows before the template's new revision does (seen on a loaded
 * node: a standby restarted for the settings alone, then a switchover to it while the StatefulSet replaced it).
 */
export async function reconcileReplication(
  db: Database,
  instances: readonly Instance[],
  status: ReplicationStatus,
  ops: ReplicationOps,
  now: Date = new Date(),
  wanted: number = db.spec.replicas ?? 1,
  templateObserved = true,
): Promise<ReplicationResult> {
  const name = db.metadata.name;
  const want = wanted;
  const byName = (n: string | undefined) => instances.find((i) => i.name === n);
  const state: ReplicationStatus = { ...status };
  const current = state.currentPrimary;
  const primary = byName(current ?? `${name}-0`);
  // Keep the primary's pod until it moved below the new size.
  const keep = (i: Instance | undefined) => Math.max(want, i ? i.ordinal + 1 : 0);
  const done = (extra: Partial<ReplicationResult> = {}): ReplicationResult => ({
    statefulSetReplicas: keep(byName(state.targetPrimary ?? state.currentPrimary ?? `${name}-0`)),
    ...extra,
    status: {
      ...state,
      timeline: newestKnownTimeline(state, instances),
      instances: instanceStatuses(instances, state.currentPrimary),
    },
  });

  let labelledPrimary = false;
  if (!state.targetPrimary) {
    if (!current) {
      // A new database: pod 0 initializes itself; it becomes the primary once it answers as one.
      if (!healthyPrimary(primary)) {
        const roll = blindRollTarget(instances, want);
        if (roll) {
          await ops.deletePod(roll);
          ops.event(
            'Normal',
            Reasons.InstanceRestarted,
            `restarted ${roll.name} to apply the new pod template (no instance answers: by ordinal, as the StatefulSet's RollingUpdate does)`,
          );
          return done({
            progress: { reason: 'RollingRestart', message: `restarting ${roll.name} for the new pod template` },
            requeueAfterMs: 2000,
            restarted: [roll.name],
          });
        }
        return done({
          progress: { reason: 'WaitingForPrimary', message: `waiting for ${name}-0 to initialize as the primary` },
        });
      }
      await ops.setRole(primary, 'primary');
      labelledPrimary = true;
      state.currentPrimary = primary.name;
      ops.event('Normal', Reasons.PrimaryLabelled, `${primary.name} is the primary`);
    } else if (healthyPrimary(primary)) {
      delete state.primaryUnavailableSince;
      const requested = switchoverTarget(db, instances, primary, want);
      const target =
        requested ?? (templateObserved ? restartSwitchoverTarget(db, instances, primary, want) : undefined);
      if (target) {
        Object.assign(state, { targetPrimary: target.name, targetPrimarySince: now.toISOString() });
        await ops.persist(state);
        ops.event(
          'Normal',
          Reasons.SwitchoverStarted,
          requested
            ? `switching the primary over from ${primary.name} to ${target.name}`
            : `switching the primary over from ${primary.name} to ${target.name} so that ${primary.name} restarts as a standby (${restartCause(db, primary)})`,
        );
      }
    } else {
      const since = state.primaryUnavailableSince ? new Date(state.primaryUnavailableSince) : now;
      if (!state.primaryUnavailableSince) {
        state.primaryUnavailableSince = now.toISOString();
        await ops.persist(state);
      }
      // Raised to the self-fence bound (fencing.ts): an isolated old primary has stopped itself before any promotion.
      const delayMs = effectiveFailoverDelaySeconds(db) * 1000;
      const waited = now.getTime() - since.getTime();
      if (waited < delayMs) {
        return done({
          progress: {
            reason: 'PrimaryUnavailable',
            message: `primary ${current} unavailable; failover after ${delayMs / 1000}s`,
          },
          requeueAfterMs: delayMs - waited + 100,
        });
      }
      const target = bestStandby(instances);
      if (!target && primary?.pod && primary.outdated && !primary.terminating) {
        // What the StatefulSet's RollingUpdate did for a broken pod: nothing else can serve, so the pod is replaced by
        // one of the new template (e.g. the version that fixes an image the old one could not pull).
        await ops.deletePod(primary);
        ops.event(
          'Warning',
          Reasons.InstanceRestarted,
          `restarted the primary ${primary.name} (unavailable, no standby to fail over to) to apply the new pod template`,
        );
        return done({
          progress: { reason: 'RollingRestart', message: `restarting ${primary.name} for the new pod template` },
          requeueAfterMs: 2000,
          restarted: [primary.name],
        });
      }
      const waitFor =
        db.spec.synchronous === true
          ? unansweredSynchronousStandbys(state.synchronousStandbys, current, keep(primary), (n) =>
              healthyStandby(byName(n)),
            )
          : [];
      if (waitFor.length) {
        return done({
          problem: {
            reason: Reasons.WaitingForSynchronousStandby,
            message: `primary ${current} unavailable; no failover until ${waitFor.join(', ')} answers: it streamed from the primary, so it may hold acknowledged commits no other standby has (spec.synchronous: false fails over without it)`,
          },
          requeueAfterMs: 2000,
        });
      }
      if (!target) {
        return done({
          problem: {
            reason: Reasons.NoFailoverCandidate,
            message: `primary ${current} unavailable and no standby answers`,
          },
          requeueAfterMs: 2000,
        });
      }
      // Patroni's maximum_lag_on_failover: the lag last seen while the primary answered. Promoted, a standby that far
      // behind would silently drop that many bytes of acknowledged history.
      const lastLag = status.instances?.find((x) => x.name === target.name)?.lagBytes;
      if (lagging(db, lastLag)) {
        return done({
          problem: {
            reason: Reasons.NoFailoverCandidate,
            message: `primary ${current} unavailable; the most advanced standby ${target.name} was ${lastLag} bytes behind it when last seen (bound spec.anomalies.maxLagBytes ${anomalySettings(db).maxLagBytes}): not promoted`,
          },
          requeueAfterMs: 2000,
        });
      }
      Object.assign(state, { targetPrimary: target.name, targetPrimarySince: now.toISOString() });
      await ops.persist(state);
      ops.event(
        'Warning',
        Reasons.FailoverStarted,
        `primary ${current} unavailable for ${Math.round(waited / 1000)}s: promoting ${target.name} (the most advanced standby)`,
      );
    }
  }

  if (state.targetPrimary) {
    const names = synchronousStandbyNames(db, want, status.synchronousStandbys, state.targetPrimary);
    return done(await moveRole(instances, state, ops, now, names));
  }

  // Steady state: labels follow what each instance is; rogue primaries are fenced.
  const primaryNow = byName(state.currentPrimary);
  if (primaryNow && healthyPrimary(primaryNow)) {
    if (primaryNow.labelRole !== 'primary' && !labelledPrimary) await ops.setRole(primaryNow, 'primary');
    // Checked on every reconcile: standbys cannot clone before the replication user exists.
    // Named from the list as persisted before this look (synchronous-standbys.ts): it is written after it.
    await ops.configurePrimary(
      primaryNow,
      synchronousStandbyNames(db, want, status.synchronousStandbys, primaryNow.name),
    );
    const synchronous = nextSynchronousStandbys(state.synchronousStandbys, primaryNow.name, primaryNow.pg);
    if (synchronous) state.synchronousStandbys = synchronous;
    else delete state.synchronousStandbys;
  }
  const lagOf = new Map(instanceStatuses(instances, state.currentPrimary).map((x) => [x.name, x.lagBytes]));
  for (const i of instances) {
    if (i.name === state.currentPrimary || !i.pod || i.terminating) continue;
    const behind = i.pg?.recovery && lagging(db, lagOf.get(i.name));
    const diverged = healthyPrimary(primaryNow) ? divergence(primaryNow.pg, i.pg) : undefined;
    if (i.pg && !i.pg.recovery) {
      if (i.labelRole) await ops.setRole(i, undefined);
      await ops.deletePod(i);
      ops.event(
        'Warning',
        Reasons.InstanceFenced,
        `${i.name} ran as a second primary; deleted its pod so it rejoins ${state.currentPrimary} as a standby`,
      );
    } else if (diverged && rewindDivergedStandbys(db)) {
      // Deleted first: a reconcile that sees the pod terminating opens no new session, and without sessions its
      // PostgreSQL stops cleanly on SIGTERM, which pg_rewind needs (instance-script.ts rewinds it before it starts).
      await ops.deletePod(i);
      await ops.endSessions(i);
      ops.event(
        'Warning',
        Reasons.StandbyDiverged,
        `${i.name} ${describeDivergence(diverged)} in the history of ${primaryNow?.name}: it holds WAL the primary never had and cannot follow it; ${
          diverged.timeline === diverged.primaryTimeline
            ? 'restarted it so that it is cloned again from the primary (pg_rewind compares timeline IDs alone)'
            : 'restarted it so that it rewinds onto the primary (pg_rewind)'
        }`,
      );
    } else if (diverged) {
      if (i.labelRole) {
        await ops.setRole(i, undefined);
        ops.event(
          'Warning',
          Reasons.StandbyDiverged,
          `${i.name} ${describeDivergence(diverged)} in the history of ${primaryNow?.name}: removed from ${db.metadata.name}-ro, not rewound (anomalies.rewindDivergedStandbys: false)`,
        );
      }
    } else if (behind) {
      // Out of <db>-ro until it catches up: readers would see data older than the bound.
      if (i.labelRole) {
        await ops.setRole(i, undefined);
        ops.event(
          'Warning',
          Reasons.StandbyLagging,
          `${i.name} is ${lagOf.get(i.name)} bytes behind the primary (bound ${anomalySettings(db).maxLagBytes}): removed from ${db.metadata.name}-ro until it catches up`,
        );
      }
    } else if (i.pg?.recovery && i.labelRole !== 'replica') {
      await ops.setRole(i, 'replica');
    } else if (i.labelRole === 'primary') {
      await ops.setRole(i, undefined);
    }
  }
  if (!templateObserved && instances.some((i) => needsRestart(db, i))) {
    return done({
      progress: {
        reason: 'RollingRestart',
        message: 'waiting for the StatefulSet controller to observe the new pod template before restarting',
      },
      requeueAfterMs: 1000,
    });
  }
  const restart =
    primaryNow && healthyPrimary(primaryNow) ? instanceToRestart(db, instances, primaryNow, want) : undefined;
  if (restart) {
    await ops.deletePod(restart);
    const role = restart.name === primaryNow?.name ? 'the primary (no standby to switch over to)' : 'standby';
    const why = restartCause(db, restart);
    ops.event('Normal', Reasons.InstanceRestarted, `restarted ${role} ${restart.name} to apply ${why}`);
    return done({
      progress: { reason: 'RollingRestart', message: `restarting ${restart.name} to apply ${why}` },
      requeueAfterMs: 2000,
      restarted: [restart.name],
    });
  }
  return done();
}

/** `spec.postgresql.autoRestart` (default on). */
export function autoRestart(db: Database): boolean {
  return db.spec.postgresql?.autoRestart !== false;
}

const pending = (i: Instance) => (i.pg?.pendingRestart?.length ?? 0) > 0;

/**
 * The instance must restart: its pod runs an older template than the StatefulSet's (always: the spec asked for it), or
 * its settings wait for a restart (`pending_restart`, unless `spec.postgresql.autoRestart: false`).
 */
export function needsRestart(db: Database, i: Instance): boolean {
  return !!i.outdated || (autoRestart(db) && pending(i));
}

/** What a restart of `i` applies (events and conditions). */
function restartCause(db: Database, i: Instance): string {
  return [
    ...(i.outdated ? ['the new pod template'] : []),
    ...(autoRestart(db) && pending(i)
      ? [`settings that need a restart (pending restart: ${i.pg?.pendingRestart?.join(', ')})`]
      : []),
  ].join(' and ');
}

/** Every instance to run has a ready pod whose PostgreSQL answers (a rolling restart goes one instance at a time). */
function allSettled(instances: readonly Instance[], want: number): boolean {
  const wanted = instances.filter((i) => i.ordinal < want);
  return (
    wanted.length === want &&
    wanted.every((i) => i.pod && !i.terminating && i.ready && i.pg) &&
    instances.every((i) => !i.terminating)
  );
}

/**
 * The next instance of a rolling restart ({@link needsRestart}: a new pod template, or settings that need a restart):
 * standbys first, the highest ordinal first, one at a time (every instance ready before the next); the primary only
 * when no standby runs (a database of one instance restarts in place). A primary with standbys restarts through a
 * switchover instead ({@link restartSwitchoverTarget}). A standby of an old template that is not ready serves nothing:
 * it is replaced at once (the StatefulSet's RollingUpdate did so too: a template that fixes a broken pod must reach it).
 */
export function instanceToRestart(
  db: Database,
  instances: readonly Instance[],
  primary: Instance,
  want: number,
): Instance | undefined {
  const highestFirst = (a: Instance, b: Instance) => b.ordinal - a.ordinal;
  const broken = instances
    .filter((i) => i.name !== primary.name && i.pod && !i.terminating && i.outdated && !i.ready)
    .sort(highestFirst)[0];
  if (broken) return broken;
  if (!allSettled(instances, want)) return undefined;
  const standby = instances
    .filter((i) => i.name !== primary.name && i.pg?.recovery && needsRestart(db, i))
    .sort(highestFirst)[0];
  if (standby) return standby;
  const standbys = instances.filter((i) => i.name !== primary.name && i.pod);
  return needsRestart(db, primary) && standbys.length === 0 ? primary : undefined;
}

/**
 * Before any instance answered (no primary known: a database initializing, or PostgreSQL unreachable), roles cannot
 * order a roll: pods of an old template are replaced as the StatefulSet's RollingUpdate does, the highest ordinal
 * first, one at a time with every pod ready in between (one that is not ready at once: it serves nothing).
 */
export function blindRollTarget(instances: readonly Instance[], want: number): Instance | undefined {
  if (instances.some((i) => i.pg)) return undefined;
  const outdated = instances.filter((i) => i.pod && !i.terminating && i.outdated).sort((a, b) => b.ordinal - a.ordinal);
  const wanted = instances.filter((i) => i.ordinal < want);
  const settled =
    wanted.length === want && wanted.every((i) => i.pod && i.ready) && instances.every((i) => !i.terminating);
  return outdated.find((i) => !i.ready) ?? (settled ? outdated[0] : undefined);
}

/**
 * When only the primary still needs a restart: the standby to switch over to (the most advanced ready one that
 * follows the primary and runs the new template and settings), so the old primary restarts as a standby (the
 * switchover stops it first: it ships all its WAL; its pod comes back from the new template) and writes pause only
 * for the switchover.
 */
export function restartSwitchoverTarget(
  db: Database,
  instances: readonly Instance[],
  primary: Instance,
  want: number,
): Instance | undefined {
  if (!needsRestart(db, primary) || !allSettled(instances, want)) return undefined;
  if (instances.some((i) => i.name !== primary.name && i.pod && needsRestart(db, i))) return undefined;
  return bestStandby(instances, (i) => i.ordinal < want && i.ready && i.pg?.timeline === primary.pg?.timeline);
}

/**
 * A switchover target: `spec.primary` when it is a ready standby following the primary, else one below a
 * shrinking size. Following = on the primary's timeline: a standby that has just rejoined can still be
 * on an older timeline; promoted from there it would lose the primary's later writes and fork a
 * timeline the old primary cannot follow (seen on the real node: the old primary then crash-loops with
 * "requested timeline … does not contain minimum recovery point"). It qualifies on a later poll.
 */
function switchoverTarget(
  db: Database,
  instances: readonly Instance[],
  primary: Instance,
  want: number,
): Instance | undefined {
  const follows = (i: Instance) => i.ready && i.pg?.timeline === primary.pg?.timeline;
  const preferred = instances.find((i) => i.name === db.spec.primary);
  if (
    preferred &&
    preferred.name !== primary.name &&
    preferred.ordinal < want &&
    healthyStandby(preferred) &&
    follows(preferred)
  ) {
    return preferred;
  }
  if (primary.ordinal >= want) return bestStandby(instances, (i) => i.ordinal < want && follows(i));
  return undefined;
}

/**
 * Steps a–e of the module docs; each returns early while it waits. `synchronousNames`: the target's
 * `synchronous_standby_names` once it is the primary.
 */
async function moveRole(
  instances: readonly Instance[],
  state: ReplicationStatus,
  ops: ReplicationOps,
  now: Date,
  synchronousNames: string,
): Promise<Partial<ReplicationResult>> {
  const target = instances.find((i) => i.name === state.targetPrimary);
  const old = instances.find((i) => i.name === state.currentPrimary && i.name !== state.targetPrimary);
  const kind = old && !state.primaryUnavailableSince ? 'Switchover' : 'Failover';
  const progress = (message: string) => ({
    progress: { reason: kind === 'Switchover' ? 'SwitchingOver' : 'FailingOver', message },
    requeueAfterMs: 1000,
  });
  if (!target?.pod || target.terminating || (!target.pg && target.labelRole !== 'primary' && !target.ready)) {
    // The target vanished before it was labelled: give up this target; the next reconcile picks again.
    ops.event(
      'Warning',
      kind === 'Switchover' ? Reasons.SwitchoverStarted : Reasons.FailoverStarted,
      `target ${state.targetPrimary} is gone; choosing again`,
    );
    delete state.targetPrimary;
    delete state.targetPrimarySince;
    await ops.persist(state);
    return { requeueAfterMs: 500 };
  }
  // A target that did not answer this time but whose pod the kubelet finds ready (its readiness probe asks PostgreSQL
  // too) is slow, not gone: a query of a loaded host timed out. Given up after its promotion, it would run as a
  // primary nobody labels, no standby left to promote (a CI run at a load of 40: the failover stalled until the old
  // primary came back). If PostgreSQL is really gone, the pod turns unready within the probe's 10 s.
  if (!target.pg && target.labelRole !== 'primary') {
    return progress(
      `waiting for ${target.name} to answer before ${kind === 'Switchover' ? 'switching over' : 'failing over'} to it`,
    );
  }
  // a. Never two pods labelled primary: unlabel everyone else first.
  for (const i of instances) {
    if (i.name !== target.name && i.labelRole === 'primary' && i.pod) await ops.setRole(i, undefined);
  }
  // b. Fence the old primary: the pod that served as primary (created before it became unavailable,
  //    or before the switchover started) must be gone. A replacement pod is not fenced here: if it
  //    starts as a primary it carries no label, and the steady state fences it.
  const since = state.primaryUnavailableSince ?? state.targetPrimarySince ?? now.toISOString();
  if (old?.pod && (old.createdAt ?? '') <= since) {
    if (!old.terminating) {
      await ops.deletePod(old, kind === 'Failover' ? FAILOVER_FENCE_GRACE_SECONDS : undefined);
      ops.event(
        'Normal',
        Reasons.InstanceFenced,
        `deleted pod ${old.name} (the old primary) so it cannot accept writes; it rejoins as a standby`,
      );
    }
    return progress(`waiting for the old primary ${old.name} to stop before promoting ${target.name}`);
  }
  //    Nor may any other instance run as a primary when the target is promoted: the old primary's
  //    replacement pod starts as a primary when it finds none behind <db>-rw (the target is not
  //    labelled yet); promoted beside it, two instances would accept writes on diverging timelines.
  const others = instances.filter((i) => i.name !== target.name && i.pod && i.pg && !i.pg.recovery);
  if (target.pg?.recovery && others.length) {
    for (const i of others.filter((x) => !x.terminating)) {
      await ops.deletePod(i, kind === 'Failover' ? FAILOVER_FENCE_GRACE_SECONDS : undefined);
      ops.event(
        'Warning',
        Reasons.InstanceFenced,
        `deleted pod ${i.name}: it runs as a primary while ${target.name} is being promoted; it rejoins as a standby`,
      );
    }
    return progress(
      `waiting for ${others.map((i) => i.name).join(', ')} (running as a primary) to stop before promoting ${target.name}`,
    );
  }
  // c. Promote. Its synchronous_standby_names first (ALTER SYSTEM works on a standby): the setting its own
  //    configuration file had (its clone's) may name a standby a failover would not wait for, or none.
  //    It takes a timeline ID above any an instance took, reserved in the status first (timeline-reservation.ts): each
  //    attempt reserves anew, as a target given up may have taken the last reservation before it vanished.
  if (target.pg?.recovery) {
    await ops.configurePrimary(target, synchronousNames);
    state.timeline = newestKnownTimeline(state, instances) + 1;
    await ops.persist(state);
    await ops.promote(target, state.timeline - 1);
    ops.event(
      'Normal',
      Reasons.StandbyPromoted,
      `promoted ${target.name} (timeline ${state.timeline} reserved for it)`,
    );
    return progress(`promoted ${target.name}; waiting for it to leave recovery`);
  }
  // Until its control file names the new timeline, a former primary rewinding from the target would be
  // told "no rewind required" and diverge: checkpoint it (promote is idempotent) before -rw leads to it.
  if (
    target.pg &&
    target.pg.timeline !== undefined &&
    target.pg.checkpointTimeline !== undefined &&
    target.pg.checkpointTimeline !== target.pg.timeline
  ) {
    await ops.promote(target);
    return progress(`promoted ${target.name}; waiting for its first checkpoint on timeline ${target.pg.timeline}`);
  }
  // d. Label. e. Record.
  if (target.labelRole !== 'primary') await ops.setRole(target, 'primary');
  const tookMs = now.getTime() - new Date(state.primaryUnavailableSince ?? since).getTime();
  const from = state.currentPrimary;
  Object.assign(state, { currentPrimary: target.name });
  delete state.targetPrimary;
  delete state.targetPrimarySince;
  delete state.primaryUnavailableSince;
  await ops.persist(state);
  ops.event(
    'Normal',
    kind === 'Switchover' ? Reasons.SwitchoverCompleted : Reasons.FailoverCompleted,
    `${target.name} is the primary (was ${from}); ${kind.toLowerCase()} took ${(tookMs / 1000).toFixed(1)}s`,
  );
  return {};
}
