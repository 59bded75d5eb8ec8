/**
 * Restores: `pg_restore` of `/backups/<backup>.dump` into the primary, by the Job
 * `<db>-restore-<backup>` (one Job per backup name, so each restore runs once).
 *
 * Two things ask for a restore: `spec.restoreFrom`, and a major upgrade (the new major starts with
 * an empty data directory and loads the pre-upgrade backup). Either waits until the database is
 * initialized and its StatefulSet has settled with a ready primary.
 */
import { jobFor, jobName, withWaitForPrimary } from './pods';
import { Database, Desired, names } from './types';

/** A backup to restore: its name and the SampleDB whose backup volume holds it. */
export interface RestoreSource {
  readonly sampleDB: string;
  readonly backup: string;
}

/** `spec.restoreFrom` with its default (this database) applied. */
export function restoreSourceOf(db: Database): RestoreSource | undefined {
  const r = db.spec.restoreFrom;
  return r ? { sampleDB: r.sampleDB ?? db.metadata.name, backup: r.backup } : undefined;
}

/** Label on restore Jobs: the backup they restore. */
export const LABEL_RESTORE_FROM = 'database.example.com/restore-from';

// A missing file ends the Job at once (backoffLimit 0) with its reason as the termination message.
const RESTORE =
  'f="/backups/${RESTORE_FROM}.dump"\ntest -f "$f" || { echo "backup ${RESTORE_FROM} not found in volume ${SOURCE_VOLUME}" | tee /dev/termination-log; exit 2; }\npg_restore --clean --if-exists --no-owner -d "$PGDATABASE" "$f"\necho "restored $f"';

/** The name of the Job restoring `backup`. */
export function restoreJobName(db: Database, backup: string): string {
  return jobName(db.metadata.name, 'restore', backup);
}

/** The restore Job for `source` (read-only mount of the source database's backup volume), run with the running version's `image`. */
export function restoreJob(db: Database, source: RestoreSource, image: string): Desired {
  return jobFor(db, {
    name: restoreJobName(db, source.backup),
    component: 'restore',
    image,
    script: withWaitForPrimary(RESTORE),
    env: [
      { name: 'RESTORE_FROM', value: source.backup },
      { name: 'SOURCE_VOLUME', value: names.backupPvc(source.sampleDB) },
    ],
    backupVolume: names.backupPvc(source.sampleDB),
    extraLabels: { [LABEL_RESTORE_FROM]: source.backup },
    backoffLimit: 0,
  });
}
