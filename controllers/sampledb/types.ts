/**
 * The SampleDB API as the controller sees it (the hub, `database.example.com/v2`, plural `sampledbs`; v1
 * objects reach it converted by the operator's webhook, controllers/sampledb/conversion.ts), the
 * kinds it reads and writes, and the names and labels of everything it creates.
 */
import type { SampleDBSpec, SampleDBStatus } from '../../imports/database.example.com';
import { KubeObject, ObjectMeta, resourceRef, Stored, StoredMeta } from '../../runtime';

// spec and status come from the CRD itself (generated into imports/ by `npx projen import`).
export type { SampleDBSpec, SampleDBStatus };

/** A SampleDB object. */
export interface SampleDB extends KubeObject {
  spec: SampleDBSpec;
  status?: SampleDBStatus;
}

/**
 * A SampleDB as one reconcile sees it: as the apiserver stored it (name, uid, resourceVersion set),
 * in its namespace. Everything the reconciler builds is derived from it, so no name is ever missing.
 */
export type Database = Stored<SampleDB> & { readonly metadata: StoredMeta & { readonly namespace: string } };

/** The {@link Database} of a stored SampleDB; undefined without a namespace (a namespaced kind always has one). */
export function databaseOf(db: Stored<SampleDB>): Database | undefined {
  const namespace = db.metadata.namespace;
  return namespace === undefined ? undefined : { ...db, metadata: { ...db.metadata, namespace } };
}

/** An object the reconciler writes: kind, name and namespace always set. */
export interface Desired extends KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta & { name: string; namespace: string };
}

/** A Job condition (`Complete`, `Failed`) or a pod condition (`Ready`). */
export interface StatusCondition {
  readonly type: string;
  readonly status: string;
  readonly lastTransitionTime?: string;
}

// The built-in kinds with their Kubernetes API types (the runtime's typed references, from client-node's models).
export type { Job, Pod, Secret } from '../../runtime';

/** The parts of an apps/v1 StatefulSet the controller reads (tests build partial ones). */
export interface StatefulSet extends KubeObject {
  spec?: { replicas?: number };
  status?: {
    replicas?: number;
    readyReplicas?: number;
    observedGeneration?: number;
    currentRevision?: string;
    updateRevision?: string;
    updatedReplicas?: number;
  };
}

export const SAMPLEDB = resourceRef<SampleDB>({
  apiVersion: 'database.example.com/v2',
  kind: 'SampleDB',
  plural: 'sampledbs',
});
export { CRONJOB, JOB, PERSISTENTVOLUMECLAIM as PVC, POD, SECRET, SERVICE } from '../../runtime';
export const STATEFULSET = resourceRef<StatefulSet>({ apiVersion: 'apps/v1', kind: 'StatefulSet' });

/** Finalizer that takes the final snapshot before the database goes. */
export const FINALIZER = 'database.example.com/final-snapshot';

/** `status.lastBackup`. */
export type BackupRecord = NonNullable<SampleDBStatus['lastBackup']>;

/** What made a backup. */
export type BackupType = NonNullable<BackupRecord['type']>;

/** Labels on everything of one database (the StatefulSet copies them onto its PVCs). */
export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
/** The label the StatefulSet controller sets on each pod: the revision of the template it was created from. */
export const LABEL_POD_REVISION = 'controller-revision-hash';
/**
 * On database pods: `primary` or `replica`, set only by the operator. `<db>-rw` selects the
 * primary, `<db>-ro` the replicas; a pod the operator has not yet checked carries neither.
 */
export const LABEL_ROLE = 'database.example.com/role';
/** On backup Jobs: the {@link BackupType}. */
export const LABEL_BACKUP_TYPE = 'database.example.com/backup-type';
/** On the StatefulSet: the version it runs. */
export const ANNOTATION_VERSION = 'database.example.com/version';
/** On the StatefulSet after a major upgrade: the pre-upgrade backup to load into the new major. */
export const ANNOTATION_UPGRADE_RESTORE = 'database.example.com/upgrade-restore-from';

export const MANAGER_NAME = 'sampledb-operator';

/** The `application_name` of each instance's self-fencing loop (instance-script.ts): not a client's session. */
export const WATCHDOG_APPLICATION = 'sampledb-watchdog';

/** Pod selector labels of one database. */
export function selectorLabels(db: Database): Record<string, string> {
  return { [LABEL_NAME]: 'sampledb', [LABEL_INSTANCE]: db.metadata.name };
}

/** Labels of one component of a database. */
export function labels(db: Database, component: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...selectorLabels(db), [LABEL_MANAGED_BY]: MANAGER_NAME, [LABEL_COMPONENT]: component, ...extra };
}

/** `status.labelSelector` (string form, for the scale subresource). */
export function labelSelectorString(db: Database): string {
  return Object.entries(selectorLabels(db))
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}

/** Object names of one database. */
export const names = {
  secret: (db: string) => `${db}-credentials`,
  headlessService: (db: string) => `${db}-headless`,
  clientService: (db: string) => db,
  /** The primary only (read-write). */
  primaryService: (db: string) => `${db}-rw`,
  /** Ready standbys only (read-only). */
  replicaService: (db: string) => `${db}-ro`,
  /** Pod `ordinal` of the StatefulSet. */
  pod: (db: string, ordinal: number) => `${db}-${ordinal}`,
  statefulSet: (db: string) => db,
  initJob: (db: string) => `${db}-init`,
  backupCronJob: (db: string) => `${db}-backup`,
  backupPvc: (db: string) => `${db}-backups`,
  finalSnapshotJob: (db: string) => `${db}-final-snapshot`,
  /** Data PVCs the StatefulSet controller creates from the `data` claim template. */
  dataPvcPrefix: (db: string) => `data-${db}-`,
} as const;

/** The reconcile's event reasons (one per lifecycle step). */
export const Reasons = {
  CredentialsCreated: 'CredentialsCreated',
  ServicesApplied: 'ServicesApplied',
  BackupVolumeCreated: 'BackupVolumeCreated',
  StatefulSetCreated: 'StatefulSetCreated',
  StatefulSetUpdated: 'StatefulSetUpdated',
  Scaled: 'Scaled',
  InitJobCreated: 'InitJobCreated',
  Initialized: 'Initialized',
  InitFailed: 'InitFailed',
  BackupScheduleApplied: 'BackupScheduleApplied',
  BackupScheduleRemoved: 'BackupScheduleRemoved',
  BackupSucceeded: 'BackupSucceeded',
  BackupFailed: 'BackupFailed',
  PreUpgradeBackupStarted: 'PreUpgradeBackupStarted',
  PreUpgradeBackupFailed: 'PreUpgradeBackupFailed',
  UpgradeStarted: 'UpgradeStarted',
  Upgraded: 'Upgraded',
  DowngradeRefused: 'DowngradeRefused',
  UnsupportedVersion: 'UnsupportedVersion',
  InvalidName: 'InvalidName',
  RestoreStarted: 'RestoreStarted',
  Restored: 'Restored',
  RestoreFailed: 'RestoreFailed',
  FinalSnapshotStarted: 'FinalSnapshotStarted',
  FinalSnapshotSucceeded: 'FinalSnapshotSucceeded',
  FinalSnapshotFailed: 'FinalSnapshotFailed',
  StatefulSetDeleted: 'StatefulSetDeleted',
  VolumesDeleted: 'VolumesDeleted',
  VolumesRetained: 'VolumesRetained',
  FinalizerRemoved: 'FinalizerRemoved',
  ResourceExists: 'ResourceExists',
  PrimaryLabelled: 'PrimaryLabelled',
  FailoverStarted: 'FailoverStarted',
  SwitchoverStarted: 'SwitchoverStarted',
  InstanceFenced: 'InstanceFenced',
  StandbyPromoted: 'StandbyPromoted',
  FailoverCompleted: 'FailoverCompleted',
  SwitchoverCompleted: 'SwitchoverCompleted',
  NoFailoverCandidate: 'NoFailoverCandidate',
  WaitingForSynchronousStandby: 'WaitingForSynchronousStandby',
  RestoreSourceMissing: 'RestoreSourceMissing',
  ParametersApplied: 'ParametersApplied',
  ParametersRefused: 'ParametersRefused',
  InstanceRestarted: 'InstanceRestarted',
  VolumeGrown: 'VolumeGrown',
  StandbyLagging: 'StandbyLagging',
  StandbyDiverged: 'StandbyDiverged',
  SessionsTerminated: 'SessionsTerminated',
  PrimarySelfFenced: 'PrimarySelfFenced',
  Autoscaled: 'Autoscaled',
} as const;
