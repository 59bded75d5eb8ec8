/**
 * Replica auto-scaling (`spec.autoscaling`): the operator adds standbys when the connections in use on the instances
 * that serve reads pass a target, and removes them again once the load has stayed below it for a stabilisation
 * window. After StackGres's horizontal autoscaling (a KEDA ScaledObject on the SGCluster's `/scale`, query: client
 * backends / `max_connections` on the read-only Service, target 0.8, cooldown 300 s, polling 30 s) and the
 * HorizontalPodAutoscaler's rules (desired = ceil(current × use / target), a 10 % tolerance, a 300 s scale-down
 * stabilisation window); CloudNativePG and Crunchy PGO scale nothing by themselves (CloudNativePG's `Cluster` has a
 * `/scale` subresource for an external HPA or KEDA, as the SampleDB has).
 *
 * - **Signal**: client connections (the operator's own excluded) over `max_connections`, summed over the ready
 *   standbys (what `<db>-ro` serves); over the primary while there is no standby (it then serves the reads).
 * - **Scale-out** to ceil(readers × use / target) standbys at once (at most `maxReplicas`), when the use is above
 *   the target by more than the tolerance and the last scaling is `cooldownSeconds` ago.
 * - **Scale-in** by one instance, once the use has been below the target (beyond the tolerance), with the HPA's
 *   recommendation below the current count (the connections stay where they are: fewer standbys must still be
 *   within the target), for `stabilizationWindowSeconds` without a break (`status.autoscaling.belowTargetSince`) and the cooldown has
 *   passed. It never goes below `minReplicas`, nor below 2 with `spec.synchronous` (a synchronous standby always
 *   remains); the StatefulSet removes the highest ordinal, and a primary there is switched over first
 *   (replication-status.ts `podsToKeep`), so the primary is never removed and no acknowledged write is lost.
 * - **Only when settled**: every wanted instance ready and answering, no failover or switchover in flight; else it
 *   waits (a standby being cloned carries no load yet, and counting it would scale in at once).
 *
 * The action is a write of `spec.replicas` (as an HPA's `/scale` write would be), guarded by the object's
 * resourceVersion so that a concurrent edit wins. Pure: the same inputs give the same decision; condition messages
 * carry the settings and fixed times, never the changing use, so steady state writes nothing.
 */
import { Database, SampleDBStatus } from './types';
import { ConditionInput } from '../../runtime';

/** Defaults of `spec.autoscaling`. */
export const AUTOSCALING_DEFAULTS = {
  targetConnectionUsePercent: 75,
  stabilizationWindowSeconds: 300,
  cooldownSeconds: 60,
} as const;

/** The HPA's tolerance: no change while use / target is within 10 % of 1. */
export const TOLERANCE = 0.1;

/** `status.autoscaling`. */
export type AutoscalingStatus = NonNullable<SampleDBStatus['autoscaling']>;

/** An instance that serves reads, as measured. */
export interface Reader {
  readonly name: string;
  readonly connections: number;
  readonly maxConnections: number;
}

/** What one reconcile measured. */
export interface ScalingInput {
  /** The ready standbys (or the primary alone when there is none), each with its connections. */
  readonly readers: readonly Reader[];
  /** Every wanted instance ready and answering, no failover or switchover in flight. */
  readonly settled: boolean;
}

/** What to do. */
export interface ScalingDecision {
  /** `spec.replicas` to write, when it changes. */
  readonly scaleTo?: number;
  /** Connection use over the readers, percent (absent: not measured). */
  readonly usePercent?: number;
  /** `status.autoscaling` after this decision (absent: autoscaling off). */
  readonly status?: AutoscalingStatus;
  readonly condition: Omit<ConditionInput, 'observedGeneration'>;
  /** The event's note, when scaling. */
  readonly note?: string;
}

/** `spec.autoscaling` with its defaults, or undefined when off (absent, or `enabled: false`). */
export function autoscalingSettings(db: Database) {
  const a = db.spec.autoscaling;
  if (!a || a.enabled === false) return undefined;
  const floor = Math.max(a.minReplicas, db.spec.synchronous === true ? 2 : 1);
  return {
    min: Math.min(floor, a.maxReplicas),
    max: a.maxReplicas,
    target: a.targetConnectionUsePercent ?? AUTOSCALING_DEFAULTS.targetConnectionUsePercent,
    window: a.stabilizationWindowSeconds ?? AUTOSCALING_DEFAULTS.stabilizationWindowSeconds,
    cooldown: a.cooldownSeconds ?? AUTOSCALING_DEFAULTS.cooldownSeconds,
  };
}

/** Connection use over `readers`, in percent (undefined without a measurement). */
export function connectionUsePercent(readers: readonly Reader[]): number | undefined {
  const max = readers.reduce((n, r) => n + r.maxConnections, 0);
  if (max <= 0) return undefined;
  return (readers.reduce((n, r) => n + r.connections, 0) * 100) / max;
}

const seconds = (from: string | undefined, now: Date) =>
  from === undefined ? Infinity : (now.getTime() - Date.parse(from)) / 1000;

/** See module docs. */
export function planScaling(db: Database, input: ScalingInput, now: Date): ScalingDecision {
  const s = autoscalingSettings(db);
  const cond = (status: 'True' | 'False', reason: string, message: string) => ({
    type: 'Autoscaling',
    status,
    reason,
    message,
  });
  if (!s) return { condition: cond('False', 'Disabled', 'replica auto-scaling is off (no spec.autoscaling)') };
  const replicas = db.spec.replicas ?? 1;
  const last = db.status?.autoscaling?.lastScaleTime;
  const range = `${s.min}-${s.max} replicas, target ${s.target}% connection use`;
  const kept: AutoscalingStatus = last ? { lastScaleTime: last } : {};
  const scale = (to: number, why: string, usePercent?: number): ScalingDecision => ({
    scaleTo: to,
    usePercent,
    status: { lastScaleTime: now.toISOString() },
    condition: cond('True', to > replicas ? 'ScaledUp' : 'ScaledDown', `scaled from ${replicas} to ${to} (${range})`),
    note: `scaled from ${replicas} to ${to} replicas: ${why}`,
  });
  // Out of bounds (the bounds or spec.replicas were edited): back within them at once.
  if (replicas < s.min || replicas > s.max) {
    const to = Math.min(Math.max(replicas, s.min), s.max);
    return scale(to, `spec.replicas ${replicas} is outside autoscaling's ${s.min}-${s.max}`);
  }
  const use = connectionUsePercent(input.readers);
  if (!input.settled || use === undefined) {
    return {
      usePercent: use,
      status: { ...kept, ...pick(db.status?.autoscaling?.belowTargetSince) },
      condition: cond('True', 'Waiting', `waiting for every instance to be ready before measuring (${range})`),
    };
  }
  const ratio = use / s.target;
  // The HPA's recommendation over the standbys: ceil(standbys × use / target), the primary besides. A database of
  // one instance serves its reads on the primary: its first standby takes them over.
  const recommended = Math.min(
    s.max,
    Math.max(s.min, 1 + Math.ceil(input.readers.length * ratio) - (replicas === 1 ? 1 : 0)),
  );
  const cooling = seconds(last, now) < s.cooldown;
  const coolingUntil = last && new Date(Date.parse(last) + s.cooldown * 1000).toISOString();
  if (ratio > 1 + TOLERANCE) {
    if (recommended <= replicas) {
      return {
        usePercent: use,
        status: kept,
        condition: cond(
          'False',
          'AtMaximum',
          `connection use above the target at maxReplicas ${s.max}: raise spec.autoscaling.maxReplicas (${range})`,
        ),
      };
    }
    if (cooling) {
      return {
        usePercent: use,
        status: kept,
        condition: cond('True', 'CoolingDown', `scales out after ${coolingUntil} (cooldown ${s.cooldown}s; ${range})`),
      };
    }
    return scale(
      recommended,
      `connection use ${Math.round(use)}% > target ${s.target}% on ${names(input.readers)}`,
      use,
    );
  }
  // Below the target, and fewer instances would still be within it (the connections stay where they are).
  if (ratio < 1 - TOLERANCE && recommended < replicas) {
    const since = db.status?.autoscaling?.belowTargetSince ?? now.toISOString();
    const after = new Date(
      Math.max(Date.parse(since) + s.window * 1000, last ? Date.parse(last) + s.cooldown * 1000 : 0),
    );
    if (now.getTime() >= after.getTime()) {
      return scale(
        replicas - 1,
        `connection use ${Math.round(use)}% < target ${s.target}% since ${since} (window ${s.window}s)`,
        use,
      );
    }
    return {
      usePercent: use,
      status: { ...kept, belowTargetSince: since },
      condition: cond(
        'True',
        'ScaleInPending',
        `connection use below the target since ${since}: scales in at ${after.toISOString()} unless it rises (${range})`,
      ),
    };
  }
  return { usePercent: use, status: kept, condition: cond('True', 'WithinTarget', `${replicas} replicas (${range})`) };
}

function pick(belowTargetSince: string | undefined): AutoscalingStatus {
  return belowTargetSince ? { belowTargetSince } : {};
}

function names(readers: readonly Reader[]): string {
  return readers.map((r) => r.name).join(', ');
}
