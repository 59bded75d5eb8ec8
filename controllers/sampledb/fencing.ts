/**
 * Isolated-primary self-fencing (`spec.anomalies.isolationFenceSeconds`): a primary that reaches neither the
 * apiserver nor any standby for that long stops PostgreSQL by itself, so that a failover elsewhere can never leave
 * two instances accepting writes — even when nothing (no kubelet, no operator) can stop it from outside.
 *
 * The check runs inside the database container (instance-script.ts, a loop beside the postmaster), not in a
 * kubelet probe: the node of a partitioned primary is often partitioned with it, and a paused or cut-off kubelet
 * runs no probe (CloudNativePG 1.26 checks isolation in its liveness probe, `.spec.probes.liveness.isolationCheck`,
 * so the kubelet restarts the primary; Patroni demotes a leader that cannot renew its key in the DCS, and with
 * `failsafe_mode` keeps it only while every member answers it). Reached means: a TCP connection to the apiserver
 * (`$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`) opens within 2 s, or a standby's replication connection
 * replied within the window (`pg_stat_replication.reply_time`; standbys reply every second,
 * `wal_receiver_status_interval = 1s`). A standby link that works also means synchronous commits still complete.
 *
 * The bound: the loop looks every second (at most 2 s for the apiserver's connect and a local query besides) and
 * counts a standby's silence from its last reply (not from the read that found it stale: that was up to 3 s late), so
 * a primary cut off at T has stopped by T + isolationFenceSeconds + {@link FENCE_DETECTION_SECONDS}. The operator
 * never starts a failover sooner after it lost the primary ({@link effectiveFailoverDelaySeconds}): the failover
 * delay is raised to that bound when it is shorter.
 *
 * What the operator sees: a fenced instance records the time on its volume; when it starts again it passes it to
 * PostgreSQL (`sampledb.last_self_fence`), which the operator reads with the instance's state: condition
 * `IsolationFencing` (reason `Fenced`), event `PrimarySelfFenced`, metric
 * `sampledb_autopilot_actions_total{action="PrimarySelfFenced"}`.
 */
import { Instance } from './instances';
import { Database } from './types';
import { ConditionInput } from '../../runtime';

/** Default `spec.failoverDelaySeconds`. */
export const DEFAULT_FAILOVER_DELAY_SECONDS = 10;

/** Default `spec.anomalies.isolationFenceSeconds`. */
export const DEFAULT_ISOLATION_FENCE_SECONDS = 5;

/** Seconds the in-container check may take beyond `isolationFenceSeconds` to notice and stop (see module docs). */
export const FENCE_DETECTION_SECONDS = 5;

/** Container environment variable carrying `isolationFenceSeconds` to the instance script (0: off). */
export const ENV_ISOLATION_FENCE_SECONDS = 'SAMPLEDB_ISOLATION_FENCE_SECONDS';

/** `spec.anomalies.isolationFenceSeconds` with its default (0: off). */
export function isolationFenceSeconds(db: Database): number {
  return db.spec.anomalies?.isolationFenceSeconds ?? DEFAULT_ISOLATION_FENCE_SECONDS;
}

/** Seconds after which an isolated primary has stopped (0: self-fencing off). */
export function fenceBoundSeconds(db: Database): number {
  return fenceBoundFor(isolationFenceSeconds(db));
}

/** {@link fenceBoundSeconds} for a given `isolationFenceSeconds`. */
export function fenceBoundFor(fenceSeconds: number): number {
  return fenceSeconds > 0 ? fenceSeconds + FENCE_DETECTION_SECONDS : 0;
}

/**
 * The failover delay the operator applies: `spec.failoverDelaySeconds`, raised to the fence bound, so that no
 * standby is promoted before an isolated old primary has stopped itself.
 */
export function effectiveFailoverDelaySeconds(db: Database): number {
  return Math.max(db.spec.failoverDelaySeconds ?? DEFAULT_FAILOVER_DELAY_SECONDS, fenceBoundSeconds(db));
}

/** The newest self-fence an instance reported (`sampledb.last_self_fence`, an ISO time), if any. */
export function lastSelfFence(instances: readonly Instance[]): { instance: string; at: string } | undefined {
  return instances
    .flatMap((i) => (i.pg?.lastSelfFence ? [{ instance: i.name, at: i.pg.lastSelfFence }] : []))
    .sort((a, b) => b.at.localeCompare(a.at))[0];
}

/** Condition `IsolationFencing`: armed (with its bound), off, or the last self-fence. Pure (steady state: no write). */
export function fencingCondition(
  db: Database,
  fence: { instance: string; at: string } | undefined,
): Omit<ConditionInput, 'observedGeneration'> {
  const s = isolationFenceSeconds(db);
  const delay = db.spec.failoverDelaySeconds ?? DEFAULT_FAILOVER_DELAY_SECONDS;
  const bound = fenceBoundSeconds(db);
  const armed =
    s > 0
      ? `a primary cut off from the apiserver and every standby stops itself within ${bound}s (isolationFenceSeconds ${s} + ${FENCE_DETECTION_SECONDS}); failover delay ${effectiveFailoverDelaySeconds(db)}s${delay < bound ? ` (failoverDelaySeconds ${delay} raised to the fence bound)` : ''}`
      : 'off (anomalies.isolationFenceSeconds 0): an isolated primary keeps running until its pod is deleted';
  if (fence) {
    return {
      type: 'IsolationFencing',
      status: s > 0 ? 'True' : 'False',
      reason: 'Fenced',
      message: `${fence.instance} fenced itself at ${fence.at} (cut off from the apiserver and every standby); ${armed}`,
    };
  }
  return {
    type: 'IsolationFencing',
    status: s > 0 ? 'True' : 'False',
    reason: s > 0 ? 'Armed' : 'Disabled',
    message: armed,
  };
}
