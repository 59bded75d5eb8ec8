/**
 * The SampleDB status from what was observed in one reconcile: replica counts, phase, version,
 * last backup, and the conditions Ready, Progressing, Degraded and BackupSucceeded.
 *
 * Deterministic: the same observation gives the same status (messages carry no timestamps or
 * counters that change on their own), so steady state writes nothing. Never carries credentials.
 */
import { evaluateAnomalies } from './anomalies';
import { GrowthPlan, toMi } from './autogrow';
import { ScalingDecision } from './autoscaling';
import { BackupObservation } from './backups';
import { fencingCondition } from './fencing';
import { ReplicationStatus } from './replication';
import { withReplicationStatus } from './replication-status';
import { Database, labelSelectorString, SampleDBStatus } from './types';
import { Condition, ConditionInput, setCondition } from '../../runtime';

/** A problem that makes the database Degraded. */
export interface Problem {
  readonly reason: string;
  readonly message: string;
}

/** A step in flight (Progressing). */
export interface Progress {
  readonly reason: string;
  readonly message: string;
}

/** Settings applied to the instances (tuning.ts) and the instances that still need a restart for them. */
export interface TuningObservation {
  readonly parameters: Readonly<Record<string, string>>;
  /** The memory quantity the derived settings come from. @default - nothing derived */
  readonly tunedForMemory?: string;
  /** Instances with `pending_restart` settings. */
  restartPending: string[];
  /** The settings pending a restart, over all instances. */
  readonly pendingSettings: readonly string[];
  readonly autoRestart: boolean;
  /** Settings written in this reconcile. */
  readonly changed: readonly string[];
  /** A setting PostgreSQL refused. @default - none */
  readonly error?: string;
}

/** The anomaly signals of one reconcile (anomalies.ts). */
export interface AnomalyObservation {
  readonly signals: ReturnType<typeof evaluateAnomalies>;
  /** Condition IsolationFencing (fencing.ts). @default - unchanged */
  readonly fencing?: ReturnType<typeof fencingCondition>;
}

/** What a reconcile observed and decided. */
export interface Observation {
  readonly statefulSetExists: boolean;
  readonly replicas: number;
  readonly readyReplicas: number;
  readonly runningVersion?: string;
  readonly initialized: boolean;
  readonly backups: BackupObservation;
  readonly restoredFrom?: string;
  readonly deleting: boolean;
  readonly upgrading: boolean;
  readonly restoring: boolean;
  /** Steps in flight, most important first. */
  readonly progress: readonly Progress[];
  /** Problems, most important first. */
  readonly problems: readonly Problem[];
  /** Primary, failover in flight, instances. @default - none */
  readonly replication?: ReplicationStatus;
  /** Settings, when the instances were reached. @default - the status keeps what it said */
  readonly tuning?: TuningObservation;
  /** Storage auto-grow, when configured and measured. @default - the status keeps what it said */
  readonly storage?: GrowthPlan & { readonly limit: string };
  /** Anomaly signals, when the instances were reached. @default - the conditions stay as they were */
  readonly anomalies?: AnomalyObservation;
  /** Replica auto-scaling's decision, when the instances were reached. @default - the status keeps what it said */
  readonly autoscaling?: ScalingDecision;
}

/** The desired status (conditions keep their lastTransitionTime when their status is unchanged). */
export function computeStatus(db: Database, o: Observation, now: Date = new Date()): SampleDBStatus {
  const generation = db.metadata?.generation;
  const want = db.spec.replicas ?? 1;
  let conditions: Condition[] | undefined = db.status?.conditions;
  const set = (c: Omit<ConditionInput, 'observedGeneration'>) => {
    conditions = setCondition(
      conditions,
      { ...c, ...(generation !== undefined ? { observedGeneration: generation } : {}) },
      now,
    );
  };

  const ready =
    !o.deleting &&
    o.initialized &&
    o.readyReplicas >= want &&
    o.runningVersion === db.spec.version &&
    o.problems.length === 0;
  set(
    ready
      ? {
          type: 'Ready',
          status: 'True',
          reason: 'AllReplicasReady',
          message: `${o.readyReplicas}/${want} replicas ready`,
        }
      : {
          type: 'Ready',
          status: 'False',
          reason: readyReason(o, want),
          message: `${o.readyReplicas}/${want} replicas ready`,
        },
  );

  const p = o.progress[0];
  set(
    p
      ? { type: 'Progressing', status: 'True', reason: p.reason, message: p.message }
      : { type: 'Progressing', status: 'False', reason: 'Stable', message: 'nothing in progress' },
  );

  const d = o.problems[0];
  set(
    d
      ? { type: 'Degraded', status: 'True', reason: d.reason, message: d.message }
      : { type: 'Degraded', status: 'False', reason: 'AsExpected', message: 'no problems' },
  );

  const latest = o.backups.latest;
  set(
    !latest
      ? { type: 'BackupSucceeded', status: 'Unknown', reason: 'NoBackupYet', message: 'no backup has finished yet' }
      : latest.succeeded
        ? {
            type: 'BackupSucceeded',
            status: 'True',
            reason: 'BackupSucceeded',
            message: `${latest.type} backup ${latest.name} succeeded`,
          }
        : {
            type: 'BackupSucceeded',
            status: 'False',
            reason: 'BackupFailed',
            message: `${latest.type} backup ${latest.name} failed`,
          },
  );

  const t = o.tuning;
  if (t) {
    const count = Object.keys(t.parameters).length;
    set(
      t.error
        ? {
            type: 'ParametersApplied',
            status: 'False',
            reason: 'InvalidParameter',
            message: `PostgreSQL refused a setting: ${t.error}`,
          }
        : t.restartPending.length
          ? {
              type: 'ParametersApplied',
              status: 'False',
              reason: t.autoRestart ? 'RestartInProgress' : 'RestartPending',
              message: `${t.restartPending.join(', ')} need a restart for ${t.pendingSettings.join(', ')}${t.autoRestart ? ': rolling restart (standbys first, then a switchover)' : ' (spec.postgresql.autoRestart is false: restart them yourself)'}`,
            }
          : {
              type: 'ParametersApplied',
              status: 'True',
              reason: 'Applied',
              message: count
                ? `${count} setting(s) applied on every instance${t.tunedForMemory ? `, derived from ${t.tunedForMemory} of memory` : ''}`
                : "no settings beyond PostgreSQL's defaults",
            },
    );
  }

  for (const a of o.anomalies?.signals ?? []) set(a.condition);
  if (o.anomalies?.fencing) set(o.anomalies.fencing);

  // Condition Autoscaling: on SampleDBs that use it (or used it: False Disabled), never added to the others.
  const sc = o.autoscaling;
  if (sc && (sc.status || db.status?.conditions?.some((c) => c.type === 'Autoscaling'))) set(sc.condition);
  const autoscaling = sc ? sc.status : db.status?.autoscaling;

  const g = o.storage;
  if (g) {
    set(
      g.limitReached
        ? {
            type: 'StorageAutoGrow',
            status: 'False',
            reason: 'LimitReached',
            message: `the data volumes are at the limit ${g.limit} and the database uses ${g.usedPercent}% of them: raise storageAutoGrow.limit or free space`,
          }
        : g.grow.length || g.resizing
          ? {
              type: 'StorageAutoGrow',
              status: 'True',
              reason: 'Growing',
              message: `growing the data volumes beyond ${toMi(g.capacity)}`,
            }
          : {
              type: 'StorageAutoGrow',
              status: 'True',
              reason: 'WithinLimit',
              message: `the data volumes may grow up to ${g.limit}`,
            },
    );
  }

  // The newest successful backup ever seen, not only among the Jobs that still exist: Jobs are pruned (retention,
  // or garbage-collected with their CronJob when the schedule is removed) while their dumps stay on the backup
  // volume, and the validating webhook admits a restoreFrom that names this backup.
  const lastBackup = newerBackup(o.backups.lastSuccess, db.status?.lastBackup);
  const status: SampleDBStatus = {
    replicas: o.replicas,
    readyReplicas: o.readyReplicas,
    labelSelector: labelSelectorString(db),
    phase: phaseOf(o, ready),
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    ...(o.runningVersion ? { currentVersion: o.runningVersion } : {}),
    ...(lastBackup ? { lastBackup } : {}),
    ...(o.restoredFrom ? { restoredFrom: o.restoredFrom } : {}),
    ...postgresqlStatus(db, t),
    ...(g
      ? { storage: { capacity: toMi(g.capacity), usedPercent: g.usedPercent } }
      : db.status?.storage
        ? { storage: db.status.storage }
        : {}),
    ...(autoscaling && Object.keys(autoscaling).length ? { autoscaling } : {}),
    conditions,
  };
  return withReplicationStatus(status, o.replication ?? {});
}

type BackupRecord = NonNullable<SampleDBStatus['lastBackup']>;

/** `status.postgresql`: from this reconcile's observation, else as it was. */
function postgresqlStatus(db: Database, t: TuningObservation | undefined): Pick<SampleDBStatus, 'postgresql'> {
  if (!t) return db.status?.postgresql ? { postgresql: db.status.postgresql } : {};
  return {
    postgresql: {
      parameters: { ...t.parameters },
      ...(t.tunedForMemory ? { tunedForMemory: t.tunedForMemory } : {}),
      ...(t.restartPending.length ? { restartPending: [...t.restartPending] } : {}),
    },
  };
}

function newerBackup(observed: BackupRecord | undefined, recorded: BackupRecord | undefined): BackupRecord | undefined {
  if (!observed || !recorded) return observed ?? recorded;
  return (recorded.completionTime ?? '') > (observed.completionTime ?? '') ? recorded : observed;
}

function readyReason(o: Observation, want: number): string {
  if (o.deleting) return 'Deleting';
  if (o.problems.length) return o.problems[0].reason;
  if (!o.statefulSetExists) return 'Creating';
  if (!o.initialized) return 'Initializing';
  if (o.upgrading) return 'Upgrading';
  return o.readyReplicas < want ? 'ReplicasNotReady' : 'Progressing';
}

function phaseOf(o: Observation, ready: boolean): NonNullable<SampleDBStatus['phase']> {
  if (o.deleting) return 'Deleting';
  if (o.problems.length) return 'Failed';
  if (o.upgrading) return 'Upgrading';
  if (o.restoring) return 'Restoring';
  if (!o.statefulSetExists || !o.initialized) return 'Creating';
  return ready ? 'Running' : 'Pending';
}
