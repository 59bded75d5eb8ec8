/**
 * The SampleDB reconciler: composes the concerns (credentials, services, statefulset, init-job,
 * backups, upgrade, restore, deletion, status) for one database. Level-triggered and idempotent:
 * every decision is made from the cached objects, never from the event that caused the reconcile.
 *
 * Expected flow for a live SampleDB:
 * 1. Finalizer {@link FINALIZER} (so deletion can take the final snapshot first).
 * 2. Credentials Secret (created once), headless and client Services (applied), backup volume
 *    (created once), StatefulSet at the version the upgrade plan allows (applied: drift on any
 *    field it sets is reverted), init Job (created once the StatefulSet exists), backup CronJob
 *    (applied, or deleted when `spec.backupSchedule` is removed), restore Jobs.
 * 2a. The pre-upgrade backup Job when `spec.version` moved past the running version (upgrade.ts).
 * 3. Status through `/status` (no request when unchanged) and one event per lifecycle step.
 * A SampleDB being deleted runs deletion.ts instead, then drops its finalizer.
 *
 * Guarantees: steady state makes zero writes (every write is skipped when the cache already
 * matches; events only follow writes or status transitions). An object of the database's name
 * that this SampleDB does not control is never touched (`ResourceExists`, Degraded, retried).
 * Credentials never appear in status, events or logs.
 */
import { ActionDeps, Actions, EventSink, ResourceExistsError } from './actions';
import { Activity, anomalySettings, evaluateAnomalies } from './anomalies';
import { DEFAULT_TRIGGER_PERCENT, GrowthPlan, planGrowth, toMi } from './autogrow';
import { planScaling, Reader, ScalingDecision } from './autoscaling';
import { backupCronJob, backupJob, backupPvc, observeBackups } from './backups';
import { Credentials, missingCredentialData, newCredentialsSecret, readCredentials, secretData } from './credentials';
import { dataPvcs, runDeletion } from './deletion';
import { divergence } from './diverged-standbys';
import { fencingCondition, lastSelfFence } from './fencing';
import { PostgresImages } from './images';
import { initJob } from './init-job';
import { Instance, InstanceClient, observeInstances, PgInstanceClient } from './instances';
import { SampleDbMetrics } from './metrics';
import { jobFinishedAt, jobState } from './pods';
import { autoRestart, reconcileReplication, ReplicationStatus } from './replication';
import { podsToKeep, replicationStatusOf, withReplicationStatus } from './replication-status';
import { LABEL_RESTORE_FROM, RestoreSource, restoreJob, restoreJobName, restoreSourceOf } from './restore';
import { clientService, headlessService, primaryService, replicaService } from './services';
import { desiredStatefulSet, runningVersion, statefulSetCounts, updateRevisionOf } from './statefulset';
import { AnomalyObservation, computeStatus, Observation, Problem, Progress, TuningObservation } from './status';
import { desiredParameters, OPERATOR_WRITTEN_PARAMETERS, quantityBytes, tuningMemory } from './tuning';
import {
  ANNOTATION_UPGRADE_RESTORE,
  CRONJOB,
  Database,
  databaseOf,
  FINALIZER,
  Job,
  LABEL_COMPONENT,
  LABEL_INSTANCE,
  LABEL_NAME,
  LABEL_ROLE,
  names,
  Pod,
  POD,
  PVC,
  Reasons,
  SAMPLEDB,
  SampleDB,
  SampleDBStatus,
  SECRET,
  SERVICE,
  STATEFULSET,
  StatefulSet,
} from './types';
import { planVersion } from './upgrade';
import { UnsupportedVersionError } from './versions';
import { KubeClient, KubeObject, Reconciler, Request, Result, Store, Stored, updateStatus } from '../../runtime';

/** Typed, read-only stores of the informers the reconciler reads. */
export interface SampleDbStores {
  readonly sampledbs: Store<SampleDB>;
  readonly services: Store<KubeObject>;
  readonly statefulsets: Store<StatefulSet>;
  readonly jobs: Store<Job>;
  readonly cronjobs: Store<KubeObject>;
  readonly pvcs: Store<KubeObject>;
  readonly pods: Store<Pod>;
}

/** Dependencies of {@link SampleDbReconciler}. */
export interface SampleDbReconcilerDeps {
  /** Writes return once the informer of their kind shows them (the manager's `readYourWritesClient`). */
  readonly client: KubeClient;
  readonly stores: SampleDbStores;
  readonly recorder?: EventSink;
  /** @default 'sampledb-controller' */
  readonly fieldManager?: string;
  readonly metrics?: SampleDbMetrics;
  /** Talks to the PostgreSQL instances. @default a PgInstanceClient */
  readonly instances?: InstanceClient;
  /** How often a running database is looked at again (replication status, failure detection). @default 10000 */
  readonly pollIntervalMs?: number;
  /** Which image runs each PostgreSQL version (the operator's overrides). @default - the pinned official images */
  readonly images?: PostgresImages;
  /**
   * Throws unless this process may act (`manager.assertLeader`): checked before every SQL action on an
   * instance (promote, configure), which no API client guard sees. @default - always may act
   */
  readonly assertLeader?: (what: string) => void;
}

/** What the live-object steps found, for the status. */
interface Findings {
  statefulSet?: Stored<StatefulSet>;
  initialized: boolean;
  upgrading: boolean;
  restoring: boolean;
  progress: Progress[];
  problems: Problem[];
  replication?: ReplicationStatus;
  tuning?: TuningObservation;
  storage?: GrowthPlan;
  anomalies?: AnomalyObservation;
  autoscaling?: ScalingDecision;
  requeueAfterMs?: number;
}

/** Longest database name whose derived names all stay valid (CronJob names ≤ 52, labels ≤ 63). */
export const MAX_NAME_LENGTH = 40;

/**
 * Why `name` cannot name a database's objects (Services need a DNS-1035 label; derived names add
 * up to 15 characters), or undefined.
 */
export function checkName(name: string): string | undefined {
  if (!/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name)) {
    return `name '${name}' must start with a letter and contain only lowercase letters, digits and '-' (it names Services)`;
  }
  if (name.length > MAX_NAME_LENGTH) {
    return `name '${name}' is longer than ${MAX_NAME_LENGTH} characters (derived object names would exceed Kubernetes limits)`;
  }
  return undefined;
}

/** See module docs. */
export class SampleDbReconciler implements Reconciler {
  private readonly actionDeps: ActionDeps;

  private readonly instances: InstanceClient;

  private readonly images: PostgresImages;

  constructor(private readonly deps: SampleDbReconcilerDeps) {
    this.instances = deps.instances ?? new PgInstanceClient();
    this.images = deps.images ?? new PostgresImages();
    this.actionDeps = {
      client: deps.client,
      fieldManager: deps.fieldManager ?? 'sampledb-controller',
      recorder: deps.recorder,
    };
  }

  async reconcile(request: Request): Promise<Result | void> {
    const stored = this.deps.stores.sampledbs.get(request);
    const db = stored && databaseOf(stored);
    if (!db) {
      this.deps.metrics?.forget(request.namespace ?? '', request.name);
      return;
    }
    const a = new Actions(this.actionDeps, db);
    try {
      if (db.metadata.deletionTimestamp) return await this.reconcileDeletion(a);
      return await this.reconcileLive(a);
    } catch (err) {
      if (err instanceof ResourceExistsError) {
        a.event('Warning', Reasons.ResourceExists, err.message);
        await this.writeStatus(
          db,
          this.observe(
            db,
            {
              initialized: false,
              upgrading: false,
              restoring: false,
              progress: [],
              problems: [{ reason: Reasons.ResourceExists, message: err.message }],
            },
            false,
          ),
        );
      }
      throw err;
    }
  }

  private async reconcileLive(a: Actions): Promise<Result | void> {
    const c = this.deps.stores;
    const db = await a.addFinalizer(a.db, SAMPLEDB, FINALIZER);
    const name = db.metadata.name;
    const findings: Findings = { initialized: false, upgrading: false, restoring: false, progress: [], problems: [] };
    const nameProblem = checkName(name);
    if (nameProblem) findings.problems.push({ reason: Reasons.InvalidName, message: nameProblem });
    try {
      this.images.imageFor(db.spec.version);
    } catch (err) {
      if (!(err instanceof UnsupportedVersionError)) throw err;
      findings.problems.push({ reason: Reasons.UnsupportedVersion, message: err.message });
    }
    if (findings.problems.length) {
      findings.statefulSet = a.cached(c.statefulsets, names.statefulSet(name));
      findings.initialized = jobState(a.cached(c.jobs, names.initJob(name))) === 'Succeeded';
      await this.finish(a, findings);
      return;
    }

    const credentials = readCredentials(await this.ensureCredentials(a));
    let servicesChanged = false;
    for (const svc of [headlessService(db), clientService(db), primaryService(db), replicaService(db)]) {
      if (await a.apply(c.services, svc, SERVICE)) servicesChanged = true;
    }
    if (servicesChanged) {
      a.event(
        'Normal',
        Reasons.ServicesApplied,
        `applied Services ${[names.headlessService(name), names.clientService(name), names.primaryService(name), names.replicaService(name)].join(', ')}`,
      );
    }
    await this.ensureBackupVolume(a);

    // StatefulSet at the version the upgrade plan allows.
    const before = a.cached(c.statefulsets, names.statefulSet(name));
    a.assertControlled(before);
    if (before?.metadata?.deletionTimestamp) {
      // Deleted by hand: let it go (its volumes are retained) and recreate it once it is gone.
      await a.removeFinalizer(before, STATEFULSET, FINALIZER);
      a.event(
        'Warning',
        Reasons.StatefulSetUpdated,
        `StatefulSet ${name} is being deleted outside the SampleDB lifecycle; it will be recreated on its volumes`,
      );
      findings.statefulSet = before;
      await this.finish(a, findings);
      return;
    }
    const plan = planVersion(db, before, runningVersion(before), (job) => jobState(a.cached(c.jobs, job)));
    if (plan.preUpgradeBackup && jobState(a.cached(c.jobs, plan.preUpgradeBackup.name)) === 'Missing') {
      if (
        await a.create(
          c.jobs,
          backupJob(db, plan.preUpgradeBackup.name, 'PreUpgrade', this.images.imageFor(plan.preUpgradeBackup.version)),
        )
      ) {
        a.event(
          'Normal',
          Reasons.PreUpgradeBackupStarted,
          `created pre-upgrade backup Job ${plan.preUpgradeBackup.name} (${plan.from} → ${db.spec.version})`,
          'Upgrade',
        );
      }
    }
    if (plan.state === 'DowngradeRefused') {
      findings.problems.push({
        reason: Reasons.DowngradeRefused,
        message: `refusing to downgrade from ${plan.from} to ${db.spec.version}; still running ${plan.from}`,
      });
    } else if (plan.state === 'BackupFailed') {
      findings.problems.push({
        reason: Reasons.PreUpgradeBackupFailed,
        message: `pre-upgrade backup Job ${plan.preUpgradeBackup?.name} failed; still running ${plan.from} (delete the Job to retry)`,
      });
    } else if (plan.state === 'BackingUp') {
      findings.progress.push({
        reason: 'PreUpgradeBackupRunning',
        message: `waiting for pre-upgrade backup Job ${plan.preUpgradeBackup?.name} before upgrading ${plan.from} → ${db.spec.version}`,
      });
    } else if (plan.state === 'Shrinking') {
      findings.progress.push({
        reason: 'UpgradeShrinking',
        message: `major upgrade ${plan.from} → ${db.spec.version}: running the primary alone on ${names.pod(name, 0)} before it moves to a new data directory; standbys re-clone afterwards`,
      });
    }
    // Instances to run now: spec.replicas, or the primary alone while a major upgrade is in flight.
    const wanted = plan.instances ?? db.spec.replicas ?? 1;
    const image = this.images.imageFor(plan.statefulSetVersion);
    const replicas = podsToKeep(db, wanted);
    const desired = desiredStatefulSet(db, {
      version: plan.statefulSetVersion,
      image,
      upgradeRestoreFrom: plan.upgradeRestoreFrom,
      replicas,
    });
    if (await a.apply(c.statefulsets, desired, STATEFULSET)) {
      const want = replicas;
      if (!before) {
        a.event(
          'Normal',
          Reasons.StatefulSetCreated,
          `created StatefulSet ${name} running ${plan.statefulSetVersion} with ${want} replica(s)`,
          'Create',
        );
      } else if (runningVersion(before) !== plan.statefulSetVersion) {
        a.event(
          'Normal',
          Reasons.UpgradeStarted,
          `rolling StatefulSet ${name} from ${runningVersion(before)} to ${plan.statefulSetVersion}`,
          'Upgrade',
        );
      } else if (before.spec?.replicas !== want) {
        a.event('Normal', Reasons.Scaled, `scaled StatefulSet ${name} to ${want} replica(s)`, 'Scale');
      } else {
        a.event(
          'Normal',
          Reasons.StatefulSetUpdated,
          `applied StatefulSet ${name} (reverted drift or applied a spec change)`,
        );
      }
    }
    const sts = a.cached(c.statefulsets, names.statefulSet(name));
    findings.statefulSet = sts;
    const counts = statefulSetCounts(sts);
    const want = db.spec.replicas ?? 1;
    if (plan.state === 'BackingUp' || plan.state === 'Shrinking' || plan.state === 'Rolling') findings.upgrading = true;
    if (sts && !counts.settled) {
      findings.progress.push({ reason: 'RollingUpdate', message: `StatefulSet ${name} is rolling out` });
    } else if (counts.ready < want || counts.replicas !== want) {
      findings.progress.push({ reason: 'WaitingForReplicas', message: `${counts.ready}/${want} replicas ready` });
    }

    // Init Job, once the StatefulSet exists.
    if (sts) {
      const init = a.cached(c.jobs, names.initJob(name));
      a.assertControlled(init);
      if (!init && (await a.create(c.jobs, initJob(db, image)))) {
        a.event('Normal', Reasons.InitJobCreated, `created init Job ${names.initJob(name)}`, 'Create');
      }
      const initState = jobState(a.cached(c.jobs, names.initJob(name)));
      findings.initialized = initState === 'Succeeded';
      if (initState === 'Failed') {
        findings.problems.push({
          reason: Reasons.InitFailed,
          message: `init Job ${names.initJob(name)} failed (delete it to retry)`,
        });
      } else if (!findings.initialized) {
        findings.progress.unshift({ reason: 'Initializing', message: `waiting for init Job ${names.initJob(name)}` });
      }
    }

    if (sts) await this.ensureReplication(a, findings, credentials, wanted);

    await this.ensureBackupSchedule(a, image);
    await this.ensureRestores(a, findings, sts, counts, image);
    await this.finish(a, findings);
    if (!sts) return;
    return { requeueAfter: Math.min(findings.requeueAfterMs ?? Infinity, this.deps.pollIntervalMs ?? 10_000) };
  }

  /** Roles, failover and switchover (replication.ts) over the database's pods. */
  private async ensureReplication(
    a: Actions,
    f: Findings,
    credentials: Credentials | undefined,
    wanted: number,
  ): Promise<void> {
    const c = this.deps.stores;
    const db = a.db;
    const name = db.metadata.name;
    const pods = c.pods
      .list(db.metadata.namespace)
      .filter(
        (p) =>
          p.metadata.labels?.[LABEL_INSTANCE] === name &&
          p.metadata.labels?.[LABEL_NAME] === 'sampledb' &&
          p.metadata.labels?.[LABEL_COMPONENT] === 'database',
      );
    const sts = a.cached(c.statefulsets, names.statefulSet(name));
    const updateRevision = updateRevisionOf(sts);
    const instances = await observeInstances(
      name,
      pods,
      podsToKeep(db, wanted),
      this.instances,
      credentials,
      updateRevision,
    );
    if (!instances.some((i) => i.pod)) return; // nothing runs yet (or no kubelet: tests on an apiserver only)
    f.tuning = await this.ensureParameters(a, instances, credentials);
    if (f.tuning.changed.length) f.requeueAfterMs = 2000; // pending_restart shows once the reload is processed
    const live = replicationStatusOf(db.status);
    // PostgreSQL is reached on the pod's IP with the credentials; without either there is nothing to send.
    // A reconcile in flight when the lease is lost must not promote or reconfigure anything afterwards.
    const onInstance = async (i: Instance, fn: (ip: string, c: Credentials) => Promise<void>) => {
      this.deps.assertLeader?.(`SQL on instance ${i.name}`);
      if (i.ip && credentials) await fn(i.ip, credentials);
    };
    const result = await reconcileReplication(
      db,
      instances,
      live,
      {
        setRole: async (i, role) => {
          await a.mergePatch(POD, i.name, { metadata: { labels: { [LABEL_ROLE]: role ?? null } } });
        },
        deletePod: async (i, gracePeriodSeconds) => {
          await a.delete(POD, i.name, i.pod?.metadata.uid, gracePeriodSeconds);
        },
        endSessions: (i) => onInstance(i, (ip, cr) => this.instances.endSessions(ip, cr)),
        promote: (i, reservedThrough) => onInstance(i, (ip, cr) => this.instances.promote(ip, cr, reservedThrough)),
        configurePrimary: (i, sync) =>
          onInstance(i, (ip, cr) => this.instances.configurePrimary(ip, cr, sync)).catch(() => undefined),
        persist: async (state) => {
          const fresh = this.latest(db);
          await this.writeStatus(fresh, withReplicationStatus(fresh.status ?? {}, state));
        },
        event: (type, reason, note) => {
          a.event(type, reason, note, 'Replication');
          if (reason === Reasons.StandbyDiverged && note.includes('restarted')) {
            this.deps.metrics?.action(db.metadata.namespace, db.metadata.name, 'StandbyRewound');
          }
          if (
            reason === Reasons.InstanceRestarted ||
            (reason === Reasons.SwitchoverStarted && note.includes('restarts as a standby'))
          ) {
            this.deps.metrics?.action(
              db.metadata.namespace,
              db.metadata.name,
              reason === Reasons.InstanceRestarted ? Reasons.InstanceRestarted : 'RestartSwitchover',
            );
          }
        },
      },
      new Date(),
      wanted,
      !sts || updateRevision !== undefined,
    );
    await this.ensureStorage(a, f, instances);
    if (!db.metadata.deletionTimestamp) f.autoscaling = await this.ensureAutoscaling(a, instances, result.status);
    f.anomalies = await this.observeAnomalies(a, instances, result.status, credentials);
    f.replication = result.status;
    // The restart-pending list after this reconcile's restarts: a deleted pod restarts with the applied settings.
    if (f.tuning) f.tuning.restartPending = f.tuning.restartPending.filter((n) => !result.restarted?.includes(n));
    if (result.progress) f.progress.push(result.progress);
    if (result.problem) f.problems.push(result.problem);
    f.requeueAfterMs = result.requeueAfterMs;
  }

  /** The anomaly signals (anomalies.ts); idle-in-transaction sessions terminated past the configured timeout. */
  private async observeAnomalies(
    a: Actions,
    instances: readonly Instance[],
    replication: ReplicationStatus,
    credentials: Credentials | undefined,
  ): Promise<AnomalyObservation> {
    const db = a.db;
    const settings = anomalySettings(db);
    const primary = instances.find(
      (i) => i.name === replication.currentPrimary && i.pg && !i.pg.recovery && i.ip && !i.terminating,
    );
    let activity: Activity | undefined;
    if (primary?.ip && credentials) {
      const terminate = settings.idleInTransactionSeconds !== undefined;
      if (terminate) this.deps.assertLeader?.(`SQL on instance ${primary.name}`);
      activity = await this.instances
        .activity(
          primary.ip,
          credentials,
          settings.idleInTransactionSeconds ?? settings.longTransactionSeconds,
          terminate,
        )
        .catch(() => undefined);
      if (activity?.terminated) {
        const who = activity.idleInTransaction
          .map((s) => `pid ${s.pid} (user ${s.user}${s.application ? `, ${s.application}` : ''}, idle ${s.seconds}s)`)
          .join('; ');
        a.event(
          'Warning',
          Reasons.SessionsTerminated,
          `terminated ${activity.idleInTransaction.length} session(s) idle in a transaction for more than ${settings.idleInTransactionSeconds}s on ${primary.name}: ${who}`,
          'Anomaly',
        );
        this.deps.metrics?.action(
          db.metadata.namespace,
          db.metadata.name,
          Reasons.SessionsTerminated,
          activity.idleInTransaction.length,
        );
      }
    }
    const lags = (replication.instances ?? []).filter((i) => i.role === 'standby');
    const diverged = instances.flatMap((i) => {
      const d = i.terminating ? undefined : divergence(primary?.pg, i.pg);
      return d ? [{ name: i.name, divergence: d }] : [];
    });
    const signals = evaluateAnomalies(db, lags, activity, diverged);
    this.deps.metrics?.anomalies(db.metadata.namespace, db.metadata.name, signals, lags, activity);
    return { signals, fencing: fencingCondition(db, lastSelfFence(instances)) };
  }

  /**
   * `spec.autoscaling` (autoscaling.ts): `spec.replicas` follows the connections in use on the standbys. The write is
   * guarded by the resourceVersion read (a concurrent edit of the SampleDB wins; the next reconcile decides again);
   * the StatefulSet follows spec.replicas through the rest of the reconcile, like any other change of it.
   */
  private async ensureAutoscaling(
    a: Actions,
    instances: readonly Instance[],
    replication: ReplicationStatus,
  ): Promise<ScalingDecision> {
    const db = a.db;
    const replicas = db.spec.replicas ?? 1;
    const serving = (i: Instance) => i.pod && i.ready && !i.terminating && i.pg;
    const settled = !replication.targetPrimary && instances.every((i) => (i.ordinal < replicas ? serving(i) : false));
    const measured = (i: Instance): Reader[] =>
      i.pg?.connections !== undefined && i.pg.maxConnections !== undefined
        ? [{ name: i.name, connections: i.pg.connections, maxConnections: i.pg.maxConnections }]
        : [];
    const standbys = instances.filter((i) => serving(i) && i.pg?.recovery).flatMap(measured);
    const primary = instances.filter((i) => serving(i) && i.name === replication.currentPrimary).flatMap(measured);
    const decision = planScaling(db, { readers: standbys.length ? standbys : primary, settled }, new Date());
    const { namespace, name } = db.metadata;
    this.deps.metrics?.connectionUse(namespace, name, decision.usePercent);
    if (decision.scaleTo !== undefined) {
      await a.mergePatch(SAMPLEDB, name, {
        metadata: { resourceVersion: db.metadata.resourceVersion },
        spec: { replicas: decision.scaleTo },
      });
      a.event('Normal', Reasons.Autoscaled, decision.note ?? '', 'Scale');
      this.deps.metrics?.action(namespace, name, decision.scaleTo > replicas ? 'ScaledUp' : 'ScaledDown');
    }
    return decision;
  }

  /** `spec.storageAutoGrow` (autogrow.ts): the data claims grow with the database's use (measured either way). */
  private async ensureStorage(a: Actions, f: Findings, instances: readonly Instance[]): Promise<void> {
    const db = a.db;
    const claims = dataPvcs(this.deps.stores.pvcs, db.metadata.namespace, db.metadata.name)
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => {
        const requested = fieldAt(p, 'spec', 'resources', 'requests', 'storage');
        const capacity = fieldAt(p, 'status', 'capacity', 'storage');
        return {
          name: p.metadata.name,
          requested: quantityBytes(typeof requested === 'string' ? requested : undefined) ?? 0,
          capacity: quantityBytes(typeof capacity === 'string' ? capacity : undefined) ?? 0,
        };
      });
    const used = Math.max(0, ...instances.map((i) => i.pg?.usedBytes ?? 0));
    const plan = used > 0 ? planGrowth(db, claims, used) : undefined;
    const bound = claims.filter((c) => c.capacity > 0);
    if (!plan && used > 0 && bound.length) {
      // Without storageAutoGrow the use is still measured: the alert SampleDBVolumeNearlyFull reads it.
      this.deps.metrics?.volume(
        db.metadata.namespace,
        db.metadata.name,
        used,
        Math.min(...bound.map((c) => c.capacity)),
      );
    }
    if (!plan) return;
    f.storage = plan;
    this.deps.metrics?.volume(db.metadata.namespace, db.metadata.name, used, plan.capacity);
    for (const g of plan.grow) {
      await a.mergePatch(PVC, g.name, { spec: { resources: { requests: { storage: g.to } } } });
    }
    if (plan.grow.length) {
      a.event(
        'Normal',
        Reasons.VolumeGrown,
        `growing data volume claim(s) ${plan.grow.map((g) => g.name).join(', ')} to ${plan.grow[0].to}: the database uses ${plan.usedPercent}% of ${toMi(plan.capacity)} (trigger ${db.spec.storageAutoGrow?.trigger ?? DEFAULT_TRIGGER_PERCENT}%)`,
        'Storage',
      );
      this.deps.metrics?.action(db.metadata.namespace, db.metadata.name, Reasons.VolumeGrown);
    }
  }

  /**
   * `spec.postgresql` (derived settings, then the user's) written with ALTER SYSTEM on every instance that answers,
   * and a reload where anything changed (tuning.ts; no write when every instance already has them). The PostgreSQL
   * of a terminating pod is left alone: it restarts from its volume, and the next reconcile reaches it.
   */
  private async ensureParameters(
    a: Actions,
    instances: readonly Instance[],
    credentials: Credentials | undefined,
  ): Promise<TuningObservation> {
    const db = a.db;
    const parameters = desiredParameters(db);
    const changedOn: string[] = [];
    const changed = new Set<string>();
    let error: string | undefined;
    for (const i of instances) {
      if (!i.pg || !i.ip || i.terminating || !credentials) continue;
      this.deps.assertLeader?.(`SQL on instance ${i.name}`);
      const r = await this.instances
        .applyParameters(i.ip, credentials, parameters, OPERATOR_WRITTEN_PARAMETERS)
        .catch((err: unknown) => ({ changed: [], error: err instanceof Error ? err.message : String(err) }));
      if (r.changed.length) {
        changedOn.push(i.name);
        r.changed.forEach((n) => changed.add(n));
      }
      if (r.error) error ??= `${i.name}: ${r.error}`;
    }
    if (changedOn.length) {
      a.event(
        'Normal',
        Reasons.ParametersApplied,
        `applied ${[...changed].sort().join(', ')} on ${changedOn.join(', ')} (ALTER SYSTEM and a reload)`,
        'Tune',
      );
      this.deps.metrics?.action(db.metadata.namespace, db.metadata.name, Reasons.ParametersApplied);
    }
    if (error) {
      a.event(
        'Warning',
        Reasons.ParametersRefused,
        `PostgreSQL refused a setting of spec.postgresql: ${error}`,
        'Tune',
      );
    }
    const memory = tuningMemory(db);
    return {
      parameters,
      ...(memory !== undefined
        ? { tunedForMemory: db.spec.resources?.limits?.memory ?? db.spec.resources?.requests?.memory }
        : {}),
      restartPending: instances
        .filter((i) => !i.terminating && (i.pg?.pendingRestart?.length ?? 0) > 0)
        .map((i) => i.name),
      pendingSettings: [
        ...new Set(instances.flatMap((i) => (i.terminating ? [] : (i.pg?.pendingRestart ?? [])))),
      ].sort(),
      autoRestart: autoRestart(db),
      changed: [...changed].sort(),
      ...(error ? { error } : {}),
    };
  }

  /**
   * The credentials Secret, read by name without a cache: the operator has no list/watch on
   * Secrets (least privilege), so it can only read the Secrets it names.
   */
  private async ensureCredentials(a: Actions): Promise<KubeObject | undefined> {
    const name = names.secret(a.db.metadata.name);
    const secret = await a.getLive(SECRET, name);
    a.assertControlled(secret);
    if (!secret) {
      const created = newCredentialsSecret(a.db);
      if (await a.create(undefined, created)) {
        a.event('Normal', Reasons.CredentialsCreated, `created Secret ${name} with generated credentials`, 'Create');
      }
      return created;
    }
    const missing = missingCredentialData(secret);
    if (Object.keys(missing).length && (await a.mergePatch(SECRET, name, { data: missing }))) {
      a.event(
        'Warning',
        Reasons.CredentialsCreated,
        `Secret ${name} lacked key(s) ${Object.keys(missing).sort().join(', ')}; generated them`,
      );
      return { ...secret, data: { ...secretData(secret), ...missing } };
    }
    return secret;
  }

  private async ensureBackupVolume(a: Actions): Promise<void> {
    const c = this.deps.stores;
    const name = names.backupPvc(a.db.metadata.name);
    const live = a.cached(c.pvcs, name);
    if (live) {
      // Not owned (it outlives the SampleDB), so identify it by its instance label.
      if (live.metadata?.labels?.[LABEL_INSTANCE] !== a.db.metadata.name) {
        throw new ResourceExistsError('PersistentVolumeClaim', name);
      }
      return;
    }
    if (await a.create(c.pvcs, backupPvc(a.db), false)) {
      a.event('Normal', Reasons.BackupVolumeCreated, `created backup volume ${name}`, 'Create');
    }
  }

  private async ensureBackupSchedule(a: Actions, image: string): Promise<void> {
    const c = this.deps.stores;
    const name = names.backupCronJob(a.db.metadata.name);
    const desired = backupCronJob(a.db, image);
    if (desired) {
      if (await a.apply(c.cronjobs, desired, CRONJOB)) {
        a.event(
          'Normal',
          Reasons.BackupScheduleApplied,
          `backups of ${a.db.metadata.name} on schedule "${a.db.spec.backupSchedule}" by CronJob ${name}`,
          'Backup',
        );
      }
      return;
    }
    const live = a.cached(c.cronjobs, name);
    a.assertControlled(live);
    if (live && (await a.delete(CRONJOB, name, live.metadata.uid))) {
      a.event('Normal', Reasons.BackupScheduleRemoved, `deleted CronJob ${name}: no backupSchedule`, 'Backup');
    }
  }

  /**
   * Restore Jobs for `spec.restoreFrom` (a backup of any SampleDB in the namespace, deleted ones
   * included) and a major upgrade, once the primary is ready. A source whose backup volume does not
   * exist is reported at once; a backup file that does not exist fails its Job's only attempt,
   * whose message becomes the condition.
   */
  private async ensureRestores(
    a: Actions,
    f: Findings,
    sts: KubeObject | undefined,
    counts: ReturnType<typeof statefulSetCounts>,
    image: string,
  ): Promise<void> {
    const c = this.deps.stores;
    const own = a.db.metadata.name;
    const upgradeBackup = sts?.metadata?.annotations?.[ANNOTATION_UPGRADE_RESTORE];
    const requested = restoreSourceOf(a.db);
    const targets: { source: RestoreSource; upgrade: boolean }[] = [];
    if (upgradeBackup) targets.push({ source: { sampleDB: own, backup: upgradeBackup }, upgrade: true });
    if (requested && requested.backup !== upgradeBackup) targets.push({ source: requested, upgrade: false });
    for (const { source, upgrade } of targets) {
      const jobName = restoreJobName(a.db, source.backup);
      const job = a.cached(c.jobs, jobName);
      a.assertControlled(job);
      const state = jobState(job);
      if (state === 'Succeeded') continue;
      if (upgrade) f.upgrading = true;
      else f.restoring = true;
      const volume = names.backupPvc(source.sampleDB);
      if (state === 'Missing' && !a.cached(c.pvcs, volume)) {
        f.problems.push({
          reason: Reasons.RestoreSourceMissing,
          message: `cannot restore backup ${source.backup}: SampleDB ${source.sampleDB} has no backup volume ${volume} in namespace ${a.db.metadata.namespace}`,
        });
        continue;
      }
      if (state === 'Failed') {
        const why = this.terminationMessage(a.db, jobName);
        f.problems.push({
          reason: why ? Reasons.RestoreSourceMissing : Reasons.RestoreFailed,
          message: why
            ? `cannot restore: ${why}`
            : `restore Job ${jobName} of backup ${source.backup} failed (delete it to retry)`,
        });
        continue;
      }
      const ready = f.initialized && counts.settled && counts.ready >= 1;
      f.progress.push({
        reason: 'Restoring',
        message: ready
          ? `restoring backup ${source.backup} of ${source.sampleDB} (Job ${jobName})`
          : `waiting for the primary before restoring backup ${source.backup}`,
      });
      if (state === 'Missing' && ready && (await a.create(c.jobs, restoreJob(a.db, source, image)))) {
        a.event(
          'Normal',
          Reasons.RestoreStarted,
          `created restore Job ${jobName} for backup ${source.backup} of ${source.sampleDB}`,
          'Restore',
        );
      }
    }
  }

  /** What a finished Job's pod wrote to its termination log (e.g. "backup x not found in volume y"). */
  private terminationMessage(db: Database, jobName: string): string | undefined {
    for (const pod of this.deps.stores.pods.list(db.metadata.namespace)) {
      if (pod.metadata.labels?.['job-name'] !== jobName) continue;
      const statuses = pod.status?.containerStatuses ?? [];
      const message = statuses.map((s) => s.state?.terminated?.message?.trim()).find((m) => m);
      if (message) return message;
    }
    return undefined;
  }

  private async reconcileDeletion(a: Actions): Promise<Result | void> {
    const db = a.db;
    if (!(db.metadata.finalizers ?? []).includes(FINALIZER)) return;
    const r = await runDeletion(a, this.deps.stores, this.images);
    if (r.done) {
      await a.removeFinalizer(db, SAMPLEDB, FINALIZER);
      a.event('Normal', Reasons.FinalizerRemoved, `cleanup done; removed finalizer ${FINALIZER}`, 'Delete');
      this.deps.metrics?.forget(db.metadata.namespace, db.metadata.name);
      return;
    }
    const sts = a.cached(this.deps.stores.statefulsets, names.statefulSet(db.metadata.name));
    const findings: Findings = {
      statefulSet: sts,
      initialized: jobState(a.cached(this.deps.stores.jobs, names.initJob(db.metadata.name))) === 'Succeeded',
      upgrading: false,
      restoring: false,
      progress: r.progress ? [r.progress] : [],
      problems: r.problem ? [r.problem] : [],
    };
    // The final snapshot reads through <db>-rw: roles keep being reconciled until it is taken, or a database
    // deleted mid-failover (its target not yet labelled, so -rw leads nowhere) would wait for it forever.
    if (sts && !sts.metadata.deletionTimestamp) {
      const credentials = readCredentials(await a.getLive(SECRET, names.secret(db.metadata.name)));
      await this.ensureReplication(a, findings, credentials, sts.spec?.replicas ?? db.spec.replicas ?? 1);
    }
    await this.finish(a, findings, true);
    return { requeueAfter: Math.min(findings.requeueAfterMs ?? Infinity, this.deps.pollIntervalMs ?? 10_000) };
  }

  /** Status, transition events and metrics. */
  private async finish(a: Actions, f: Findings, deleting = false): Promise<void> {
    const fresh = this.latest(a.db);
    const status = this.observe(fresh, f, deleting);
    this.transitionEvents(a, fresh.status ?? {}, status);
    const latest = observeBackups(this.jobsOf(fresh)).latest;
    this.deps.metrics?.set(fresh.metadata.namespace, fresh.metadata.name, {
      desired: fresh.spec.replicas ?? 1,
      ready: status.readyReplicas ?? 0,
      backupFailed: latest ? !latest.succeeded : false,
      lastBackup: status.lastBackup?.completionTime,
      degraded: f.problems.length > 0,
      restartPending: f.tuning?.restartPending.length ?? fresh.status?.postgresql?.restartPending?.length ?? 0,
    });
    await this.writeStatus(fresh, status);
  }

  /** The newest stored version of `db` (a status write of this reconcile may have moved it on). */
  private latest(db: Database): Database {
    const stored = this.deps.stores.sampledbs.get(db.metadata);
    return (stored && databaseOf(stored)) ?? db;
  }

  private jobsOf(db: Database): Stored<Job>[] {
    return this.deps.stores.jobs
      .byIndex('label', `${LABEL_INSTANCE}=${db.metadata.name}`)
      .filter((j) => j.metadata.namespace === db.metadata.namespace);
  }

  private observe(db: Database, f: Findings, deleting: boolean): SampleDBStatus {
    const sts =
      f.statefulSet ??
      this.deps.stores.statefulsets.get({
        namespace: db.metadata.namespace,
        name: names.statefulSet(db.metadata.name),
      });
    const counts = statefulSetCounts(sts);
    const jobs = this.jobsOf(db);
    const restores = jobs
      .flatMap((j) => {
        const backup = j.metadata.labels?.[LABEL_RESTORE_FROM];
        return backup && jobState(j) === 'Succeeded' ? [{ backup, at: jobFinishedAt(j) ?? '' }] : [];
      })
      .sort((x, y) => x.at.localeCompare(y.at));
    // The version counts as current once the StatefulSet controller rolled it out.
    const running = runningVersion(sts);
    const current = counts.settled ? running : (db.status?.currentVersion ?? running);
    const observation: Observation = {
      statefulSetExists: !!sts,
      replicas: counts.replicas,
      readyReplicas: counts.ready,
      runningVersion: current,
      initialized: f.initialized,
      backups: observeBackups(jobs),
      restoredFrom: restores.length ? restores[restores.length - 1].backup : db.status?.restoredFrom,
      deleting,
      upgrading: f.upgrading || (!!current && !!running && current !== running),
      restoring: f.restoring,
      progress: f.progress,
      problems: f.problems,
      replication: f.replication ?? replicationStatusOf(db.status),
      tuning: f.tuning,
      storage: f.storage && { ...f.storage, limit: db.spec.storageAutoGrow?.limit ?? '' },
      anomalies: f.anomalies,
      autoscaling: f.autoscaling,
    };
    return computeStatus(db, observation);
  }

  /** Writes the status (no request when unchanged); returns once the store shows it (read-your-writes client). */
  private async writeStatus(db: Database, status: SampleDBStatus): Promise<void> {
    await updateStatus(
      this.deps.client,
      db,
      { ...status },
      { fieldManager: this.actionDeps.fieldManager, resource: SAMPLEDB },
    );
  }

  /** Events for steps observed through other controllers' status (Jobs finishing, rollouts). */
  private transitionEvents(a: Actions, old: SampleDBStatus, next: SampleDBStatus): void {
    const cond = (s: SampleDBStatus, t: string) => s.conditions?.find((x) => x.type === t);
    if (old.phase === 'Creating' && next.phase !== 'Creating' && next.phase !== 'Failed') {
      a.event('Normal', Reasons.Initialized, 'database initialized');
    }
    const ob = cond(old, 'BackupSucceeded');
    const nb = cond(next, 'BackupSucceeded');
    if (nb && nb.status !== 'Unknown' && (ob?.status !== nb.status || ob?.message !== nb.message)) {
      if (nb.status === 'True') {
        a.event(
          'Normal',
          next.lastBackup?.type === 'FinalSnapshot' ? Reasons.FinalSnapshotSucceeded : Reasons.BackupSucceeded,
          nb.message,
          'Backup',
        );
      } else {
        a.event('Warning', Reasons.BackupFailed, nb.message, 'Backup');
      }
    }
    if (old.currentVersion && next.currentVersion && old.currentVersion !== next.currentVersion) {
      a.event('Normal', Reasons.Upgraded, `now running ${next.currentVersion} (was ${old.currentVersion})`, 'Upgrade');
    }
    if (next.restoredFrom && next.restoredFrom !== old.restoredFrom) {
      a.event('Normal', Reasons.Restored, `restored backup ${next.restoredFrom}`, 'Restore');
    }
    // A self-fence is reported by the instance once it runs again (fencing.ts): one event per fence, from the status.
    const of = cond(old, 'IsolationFencing');
    const nf = cond(next, 'IsolationFencing');
    const fenceOf = (c: typeof nf) => (c?.reason === 'Fenced' ? c.message.split(' (')[0] : undefined);
    if (nf && fenceOf(nf) && fenceOf(nf) !== fenceOf(of)) {
      a.event('Warning', Reasons.PrimarySelfFenced, nf.message, 'Anomaly');
      this.deps.metrics?.action(a.db.metadata.namespace, a.db.metadata.name, Reasons.PrimarySelfFenced);
    }
    const od = cond(old, 'Degraded');
    const nd = cond(next, 'Degraded');
    if (nd?.status === 'True' && (od?.status !== 'True' || od.reason !== nd.reason)) {
      a.event('Warning', nd.reason, nd.message);
    }
  }
}

/** The value at a path of an object read from the cache, whatever its shape (undefined where the path breaks off). */
function fieldAt(value: unknown, ...path: string[]): unknown {
  return path.reduce<unknown>(
    (v, key) => (typeof v === 'object' && v !== null ? Reflect.get(v, key) : undefined),
    value,
  );
}
