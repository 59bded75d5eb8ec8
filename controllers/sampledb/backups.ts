/**
 * Backups: the backup volume `<db>-backups`, the CronJob `<db>-backup` for `spec.backupSchedule`,
 * one-shot backup Jobs (pre-upgrade, final snapshot), and reading the last backup back from Jobs.
 *
 * A backup is a `pg_dump -Fc` file `/backups/<job-name>.dump`, so a backup's name is the name of the
 * Job that wrote it (what `spec.restoreFrom` takes). Scheduled backups beyond `spec.backupRetention`
 * are pruned by the CronJob's own pod (oldest first).
 *
 * The backup volume has no ownerReference on purpose: it outlives the SampleDB so the final
 * snapshot can be restored into a new one.
 */
import { jobFinishedAt, jobFor, jobPodTemplate, jobState, withWaitForPrimary } from './pods';
import { storageClassOf } from './statefulset';
import { BackupRecord, BackupType, Database, Desired, Job, LABEL_BACKUP_TYPE, labels, names } from './types';
import { controllerReference, Stored } from '../../runtime';

const DUMP = 'f="/backups/${BACKUP_NAME}.dump"\npg_dump -Fc -f "$f.partial"\nmv "$f.partial" "$f"\necho "wrote $f"';
const PRUNE =
  'ls -1t /backups/"${CRONJOB_NAME}"-*.dump 2>/dev/null | tail -n +"$((RETENTION + 1))" | while read -r old; do rm -f -- "$old"; echo "pruned $old"; done';

/** The backup volume (created once, never owned). */
export function backupPvc(db: Database): Desired {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: names.backupPvc(db.metadata.name),
      namespace: db.metadata.namespace,
      labels: labels(db, 'backups'),
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      ...storageClassOf(db),
      resources: { requests: { storage: db.spec.backupStorage ?? '2Gi' } },
    },
  };
}

/** A one-shot backup Job named `name` (also the backup's name), run with the running version's `image`. */
export function backupJob(db: Database, name: string, type: BackupType, image: string): Desired {
  return jobFor(db, {
    name,
    component: 'backup',
    image,
    script: withWaitForPrimary(DUMP),
    env: [{ name: 'BACKUP_NAME', value: name }],
    backupVolume: true,
    extraLabels: { [LABEL_BACKUP_TYPE]: type },
  });
}

/** The backup CronJob for `spec.backupSchedule` (undefined without a schedule), run with the running version's `image`. */
export function backupCronJob(db: Database, image: string): Desired | undefined {
  if (!db.spec.backupSchedule) return undefined;
  const name = names.backupCronJob(db.metadata.name);
  const retention = db.spec.backupRetention;
  const script = withWaitForPrimary(retention ? `${DUMP}\n${PRUNE}` : DUMP);
  const env: Record<string, unknown>[] = [
    // The Job controller labels its pods with job-name: each run writes a file named after its Job.
    { name: 'BACKUP_NAME', valueFrom: { fieldRef: { fieldPath: "metadata.labels['job-name']" } } },
    { name: 'CRONJOB_NAME', value: name },
  ];
  if (retention) env.push({ name: 'RETENTION', value: String(retention) });
  const jobLabels = labels(db, 'backup', { [LABEL_BACKUP_TYPE]: 'Scheduled' });
  return {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      name,
      namespace: db.metadata.namespace,
      labels: labels(db, 'backup'),
      ownerReferences: [controllerReference(db)],
    },
    spec: {
      schedule: db.spec.backupSchedule,
      concurrencyPolicy: 'Forbid',
      successfulJobsHistoryLimit: 3,
      failedJobsHistoryLimit: 3,
      jobTemplate: {
        metadata: { labels: jobLabels },
        spec: {
          backoffLimit: 2,
          template: jobPodTemplate(db, {
            name,
            component: 'backup',
            image,
            script,
            env,
            backupVolume: true,
            extraLabels: { [LABEL_BACKUP_TYPE]: 'Scheduled' },
          }),
        },
      },
    },
  };
}

/** What the finished backup Jobs of a database say. */
export interface BackupObservation {
  /** The newest successful backup. */
  readonly lastSuccess?: BackupRecord;
  /** The newest finished backup Job and how it ended. */
  readonly latest?: { readonly name: string; readonly type: BackupType; readonly succeeded: boolean };
}

const BACKUP_TYPES: readonly BackupType[] = ['Scheduled', 'PreUpgrade', 'FinalSnapshot'];

/** The backup type a Job's label names, or undefined for a Job that is no backup. */
function backupTypeOf(job: Stored<Job>): BackupType | undefined {
  const label = job.metadata.labels?.[LABEL_BACKUP_TYPE];
  return BACKUP_TYPES.find((t) => t === label);
}

/** Reads backups from the database's Jobs (ours and the CronJob's). */
export function observeBackups(jobs: readonly Stored<Job>[]): BackupObservation {
  const finished = jobs
    .flatMap((job) => {
      const type = backupTypeOf(job);
      return type ? [{ job, name: job.metadata.name, type, state: jobState(job), at: jobFinishedAt(job) ?? '' }] : [];
    })
    .filter((x) => x.state === 'Succeeded' || x.state === 'Failed')
    .sort((a, b) => (a.at === b.at ? a.name.localeCompare(b.name) : a.at.localeCompare(b.at)));
  const last = finished[finished.length - 1];
  const ok = finished.filter((x) => x.state === 'Succeeded').pop();
  return {
    lastSuccess: ok ? { name: ok.name, type: ok.type, ...(ok.at ? { completionTime: ok.at } : {}) } : undefined,
    latest: last ? { name: last.name, type: last.type, succeeded: last.state === 'Succeeded' } : undefined,
  };
}
