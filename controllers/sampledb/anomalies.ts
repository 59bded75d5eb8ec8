/**
 * Anomaly detection that acts (`spec.anomalies`): the signals a DBA watches, each a condition on the SampleDB, a
 * `sampledb_anomaly{signal}` gauge and an alert of the chart's PrometheusRule, and where an action is safe, the action:
 *
 * | signal | measured | condition (True = anomaly) | action |
 * |---|---|---|---|
 * | `ReplicationLag` | each standby's WAL not replayed (`status.instances[].lagBytes`) | `ReplicationLagging` | the standby leaves `<db>-ro`; a failover never promotes it (replication.ts) |
 * | `TimelineDivergence` | a standby that replayed past where its timeline history and the primary's part (diverged-standbys.ts) | `StandbyDiverged` | the standby leaves `<db>-ro`, and is restarted to rewind onto the primary unless `rewindDivergedStandbys: false` |
 * | `IdleInTransaction` | sessions idle in a transaction longer than `idleInTransactionSeconds` | `IdleInTransaction` | terminated (`pg_terminate_backend`) when the timeout is set |
 * | `LongTransaction` | the oldest open transaction | `LongTransaction` | none (reported) |
 * | `XidAge` | `max(age(datfrozenxid))` | `XidAgeHigh` | none (reported: a VACUUM FREEZE is the DBA's call) |
 * | `ConnectionSaturation` | client connections / `max_connections` on the primary | `ConnectionsSaturated` | none (reported) |
 *
 * Pure: the same measurements give the same conditions (messages carry the thresholds, not the changing values,
 * so that steady state writes nothing).
 */
import { Divergence, rewindDivergedStandbys } from './diverged-standbys';
import { Database } from './types';
import { ConditionInput } from '../../runtime';

/** Defaults of `spec.anomalies`. */
export const ANOMALY_DEFAULTS = {
  maxLagBytes: 32 * 2 ** 20,
  longTransactionSeconds: 300,
  xidAgeThreshold: 1_000_000_000,
  connectionSaturationPercent: 80,
} as const;

/** The signals, as the `signal` label of `sampledb_anomaly` and the alerts name them. */
export const SIGNALS = [
  'ReplicationLag',
  'TimelineDivergence',
  'IdleInTransaction',
  'LongTransaction',
  'XidAge',
  'ConnectionSaturation',
] as const;
export type Signal = (typeof SIGNALS)[number];

/** What the primary reports about its sessions (InstanceClient.activity). */
export interface Activity {
  /** Seconds the oldest open transaction of a client has been running (0: none). */
  readonly longestTransactionSeconds: number;
  /** Client sessions idle in a transaction for longer than the timeout (terminated when one is configured). */
  readonly idleInTransaction: readonly {
    readonly pid: number;
    readonly user: string;
    readonly application: string;
    readonly seconds: number;
  }[];
  /** Whether they were terminated. */
  readonly terminated: boolean;
  readonly connections: number;
  readonly maxConnections: number;
  readonly xidAge: number;
}

/** `spec.anomalies` with its defaults. */
export function anomalySettings(db: Database) {
  const a = db.spec.anomalies ?? {};
  return {
    maxLagBytes: a.maxLagBytes ?? ANOMALY_DEFAULTS.maxLagBytes,
    idleInTransactionSeconds: a.idleInTransactionSeconds,
    longTransactionSeconds: a.longTransactionSeconds ?? ANOMALY_DEFAULTS.longTransactionSeconds,
    xidAgeThreshold: a.xidAgeThreshold ?? ANOMALY_DEFAULTS.xidAgeThreshold,
    connectionSaturationPercent: a.connectionSaturationPercent ?? ANOMALY_DEFAULTS.connectionSaturationPercent,
  };
}

/** Whether a standby `lagBytes` behind is beyond the bound (never with `maxLagBytes: 0`). */
export function lagging(db: Database, lagBytes: number | undefined): boolean {
  const bound = anomalySettings(db).maxLagBytes;
  return bound > 0 && (lagBytes ?? 0) > bound;
}

/** One evaluation: per signal, whether it is anomalous, and its condition. */
export function evaluateAnomalies(
  db: Database,
  lags: readonly { name: string; lagBytes?: number }[],
  activity: Activity | undefined,
  diverged: readonly { readonly name: string; readonly divergence: Divergence }[] = [],
): { signal: Signal; active: boolean; condition: Omit<ConditionInput, 'observedGeneration'> }[] {
  const s = anomalySettings(db);
  const out: { signal: Signal; active: boolean; condition: Omit<ConditionInput, 'observedGeneration'> }[] = [];
  const add = (signal: Signal, type: string, active: boolean, reason: string, message: string) =>
    out.push({ signal, active, condition: { type, status: active ? 'True' : 'False', reason, message } });
  const behind = lags.filter((l) => lagging(db, l.lagBytes)).map((l) => l.name);
  add(
    'ReplicationLag',
    'ReplicationLagging',
    behind.length > 0,
    behind.length ? 'StandbyBehind' : 'WithinBound',
    behind.length
      ? `${behind.join(', ')} more than ${s.maxLagBytes} bytes behind the primary: out of <db>-ro, never promoted, until caught up`
      : s.maxLagBytes > 0
        ? `every standby within ${s.maxLagBytes} bytes of the primary`
        : 'no lag bound (maxLagBytes 0)',
  );
  const rewind = rewindDivergedStandbys(db);
  const divergedNames = diverged.map((d) => d.name).join(', ');
  add(
    'TimelineDivergence',
    'StandbyDiverged',
    diverged.length > 0,
    diverged.length ? (rewind ? 'Rewinding' : 'Diverged') : 'None',
    diverged.length
      ? `${divergedNames} replayed WAL the primary never had (past where its timeline forked): out of <db>-ro, ${rewind ? 'restarted to rewind onto the primary (pg_rewind)' : 'left as is (anomalies.rewindDivergedStandbys: false)'}`
      : 'every standby can follow the primary',
  );
  if (!activity) return out;
  const idle = activity.idleInTransaction;
  add(
    'IdleInTransaction',
    'IdleInTransaction',
    idle.length > 0 && !activity.terminated,
    idle.length ? (activity.terminated ? 'Terminated' : 'SessionsIdle') : 'None',
    idle.length
      ? activity.terminated
        ? `terminated sessions idle in a transaction for more than ${s.idleInTransactionSeconds}s`
        : 'sessions are idle in a transaction (set anomalies.idleInTransactionSeconds to terminate them)'
      : 'no session idle in a transaction past the timeout',
  );
  const long = activity.longestTransactionSeconds > s.longTransactionSeconds;
  add(
    'LongTransaction',
    'LongTransaction',
    long,
    long ? 'TransactionTooLong' : 'None',
    long
      ? `a transaction has been open for more than ${s.longTransactionSeconds}s`
      : `no transaction open for more than ${s.longTransactionSeconds}s`,
  );
  const xid = activity.xidAge > s.xidAgeThreshold;
  add(
    'XidAge',
    'XidAgeHigh',
    xid,
    xid ? 'WraparoundRisk' : 'BelowThreshold',
    xid
      ? `transaction ID age above ${s.xidAgeThreshold} (wraparound at 2147483648): VACUUM FREEZE the oldest databases`
      : `transaction ID age below ${s.xidAgeThreshold}`,
  );
  const saturated =
    activity.maxConnections > 0 &&
    activity.connections * 100 >= activity.maxConnections * s.connectionSaturationPercent;
  add(
    'ConnectionSaturation',
    'ConnectionsSaturated',
    saturated,
    saturated ? 'Saturated' : 'BelowThreshold',
    saturated
      ? `${s.connectionSaturationPercent}% or more of max_connections in use on the primary`
      : `less than ${s.connectionSaturationPercent}% of max_connections in use`,
  );
  return out;
}
