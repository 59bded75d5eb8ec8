/**
 * Operator metrics per database (beside the runtime's controller_runtime_* and workqueue_*):
 * what the chart's PrometheusRule alerts on.
 */
import * as prom from 'prom-client';
import { Activity, SIGNALS } from './anomalies';
import { MAX_INSTANCES } from './instance-script';

/** Gauges labelled `{namespace, name}`. */
export class SampleDbMetrics {
  readonly desiredReplicas: prom.Gauge<'namespace' | 'name'>;
  readonly readyReplicas: prom.Gauge<'namespace' | 'name'>;
  readonly backupFailed: prom.Gauge<'namespace' | 'name'>;
  readonly lastBackupTimestamp: prom.Gauge<'namespace' | 'name'>;
  readonly degraded: prom.Gauge<'namespace' | 'name'>;
  readonly restartPending: prom.Gauge<'namespace' | 'name'>;
  readonly volumeUsedBytes: prom.Gauge<'namespace' | 'name'>;
  readonly volumeCapacityBytes: prom.Gauge<'namespace' | 'name'>;
  readonly autopilotActions: prom.Counter<'namespace' | 'name' | 'action'>;
  readonly anomaly: prom.Gauge<'namespace' | 'name' | 'signal'>;
  readonly replicationLagBytes: prom.Gauge<'namespace' | 'name' | 'instance'>;
  readonly longestTransactionSeconds: prom.Gauge<'namespace' | 'name'>;
  readonly connections: prom.Gauge<'namespace' | 'name'>;
  readonly maxConnections: prom.Gauge<'namespace' | 'name'>;
  readonly xidAge: prom.Gauge<'namespace' | 'name'>;
  readonly connectionUseRatio: prom.Gauge<'namespace' | 'name'>;

  constructor(registry: prom.Registry) {
    const g = (name: string, help: string) =>
      new prom.Gauge({ name, help, labelNames: ['namespace', 'name'], registers: [registry] });
    this.desiredReplicas = g('sampledb_replicas_desired', 'spec.replicas of the SampleDB');
    this.readyReplicas = g('sampledb_replicas_ready', 'Ready pods of the SampleDB StatefulSet');
    this.backupFailed = g('sampledb_backup_failed', '1 if the most recent finished backup Job of the SampleDB failed');
    this.lastBackupTimestamp = g(
      'sampledb_backup_last_success_timestamp_seconds',
      'Completion time of the most recent successful backup',
    );
    this.degraded = g('sampledb_degraded', '1 if the SampleDB has condition Degraded=True');
    this.restartPending = g(
      'sampledb_parameters_restart_pending',
      'Instances of the SampleDB whose PostgreSQL needs a restart to run the applied settings',
    );
    this.volumeUsedBytes = g(
      'sampledb_volume_used_bytes',
      'Bytes of the data volume the database uses (its databases and WAL, as PostgreSQL reports them; the largest over the instances)',
    );
    this.volumeCapacityBytes = g(
      'sampledb_volume_capacity_bytes',
      'Capacity of the smallest data volume claim of the SampleDB',
    );
    this.anomaly = new prom.Gauge({
      name: 'sampledb_anomaly',
      help: '1 while the signal is anomalous (the condition of the same signal is True; spec.anomalies)',
      labelNames: ['namespace', 'name', 'signal'],
      registers: [registry],
    });
    this.replicationLagBytes = new prom.Gauge({
      name: 'sampledb_replication_lag_bytes',
      help: 'WAL bytes the primary has that the standby has not replayed',
      labelNames: ['namespace', 'name', 'instance'],
      registers: [registry],
    });
    this.longestTransactionSeconds = g(
      'sampledb_longest_transaction_seconds',
      'Age of the oldest open client transaction on the primary',
    );
    this.connections = g('sampledb_connections', 'Client connections on the primary');
    this.maxConnections = g('sampledb_max_connections', 'max_connections of the primary');
    this.xidAge = g(
      'sampledb_xid_age',
      'Largest transaction ID age (age(datfrozenxid)) over the databases; wraparound at 2^31',
    );
    this.connectionUseRatio = g(
      'sampledb_autoscaling_connection_use_ratio',
      'Client connections over max_connections on the standbys (the primary while there is none): the signal of replica auto-scaling',
    );
    this.autopilotActions = new prom.Counter({
      name: 'sampledb_autopilot_actions_total',
      help: 'Automatic actions the operator took on the SampleDB, by action (ParametersApplied, InstanceRestarted, RestartSwitchover, ...)',
      labelNames: ['namespace', 'name', 'action'],
      registers: [registry],
    });
  }

  /** Records one database. */
  set(
    namespace: string,
    name: string,
    v: {
      desired: number;
      ready: number;
      backupFailed: boolean;
      lastBackup?: string;
      degraded: boolean;
      restartPending?: number;
    },
  ): void {
    const l = { namespace, name };
    this.desiredReplicas.set(l, v.desired);
    this.readyReplicas.set(l, v.ready);
    this.backupFailed.set(l, v.backupFailed ? 1 : 0);
    this.degraded.set(l, v.degraded ? 1 : 0);
    this.restartPending.set(l, v.restartPending ?? 0);
    if (v.lastBackup) this.lastBackupTimestamp.set(l, Date.parse(v.lastBackup) / 1000);
    // A self-fence is rare and alerted on with increase(): its series must exist at 0 before the first one, or the
    // first fence would start the series at 1 and increase() would never see it.
    this.autopilotActions.inc({ ...l, action: 'PrimarySelfFenced' }, 0);
  }

  /** Records the data volumes' use (storage auto-grow). */
  volume(namespace: string, name: string, used: number, capacity: number): void {
    this.volumeUsedBytes.set({ namespace, name }, used);
    this.volumeCapacityBytes.set({ namespace, name }, capacity);
  }

  /** Records replica auto-scaling's signal (percent; removed when not measured). */
  connectionUse(namespace: string, name: string, percent: number | undefined): void {
    if (percent === undefined) this.connectionUseRatio.remove({ namespace, name });
    else this.connectionUseRatio.set({ namespace, name }, percent / 100);
  }

  /** Counts automatic actions. */
  action(namespace: string, name: string, action: string, count = 1): void {
    this.autopilotActions.inc({ namespace, name, action }, count);
  }

  /** Records the anomaly signals and the measurements behind them. */
  anomalies(
    namespace: string,
    name: string,
    signals: readonly { signal: string; active: boolean }[],
    lags: readonly { name: string; lagBytes?: number }[],
    activity: Activity | undefined,
  ): void {
    const l = { namespace, name };
    for (const s of signals) this.anomaly.set({ ...l, signal: s.signal }, s.active ? 1 : 0);
    for (const i of lags) this.replicationLagBytes.set({ ...l, instance: i.name }, i.lagBytes ?? 0);
    if (!activity) return;
    this.longestTransactionSeconds.set(l, activity.longestTransactionSeconds);
    this.connections.set(l, activity.connections);
    this.maxConnections.set(l, activity.maxConnections);
    this.xidAge.set(l, activity.xidAge);
  }

  /** Forgets a deleted database. */
  forget(namespace: string, name: string): void {
    for (const g of [
      this.desiredReplicas,
      this.readyReplicas,
      this.backupFailed,
      this.lastBackupTimestamp,
      this.degraded,
      this.restartPending,
      this.volumeUsedBytes,
      this.volumeCapacityBytes,
      this.longestTransactionSeconds,
      this.connections,
      this.maxConnections,
      this.xidAge,
      this.connectionUseRatio,
    ]) {
      g.remove({ namespace, name });
    }
    for (const signal of SIGNALS) this.anomaly.remove({ namespace, name, signal });
    for (let i = 0; i < MAX_INSTANCES; i++) {
      this.replicationLagBytes.remove({ namespace, name, instance: `${name}-${i}` });
    }
    for (const action of [
      'ParametersApplied',
      'InstanceRestarted',
      'RestartSwitchover',
      'VolumeGrown',
      'SessionsTerminated',
      'PrimarySelfFenced',
      'StandbyRewound',
      'ScaledUp',
      'ScaledDown',
    ]) {
      this.autopilotActions.remove({ namespace, name, action });
    }
  }
}
