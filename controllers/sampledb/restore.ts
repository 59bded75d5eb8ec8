/**
 * Restores: `pg_restore` of `/backups/<backup>.dump` into the primary, by the Job
 * `<db>-restore-<backup>` (one Job per backup name, so each restore runs once).
 *
 * Two things ask for a restore: `spec.restoreFrom`, and a major upgrade (the new major starts with
 * an empty data directory and loads the pre-upgrade backup). Either waits until the database is
 * initialized and its StatefulSet has settled with a ready primary.
 */
import { KubeObject } from '../../runtime';
import { jobFor, jobName, withWaitForPrimary } from './pods';
import { SampleDB } from './types';
import { imageFor } from './versions';

/** Label on restore Jobs: the backup they restore. */
export const LABEL_RESTORE_FROM = 'database.example.com/restore-from';

const RESTORE = 'f="/backups/${RESTORE_FROM}.dump"\ntest -f "$f" || { echo "backup $f not found"; exit 1; }\npg_restore --clean --if-exists --no-owner -d "$PGDATABASE" "$f"\necho "restored $f"';

/** The name of the Job restoring `backup`. */
export function restoreJobName(db: SampleDB, backup: string): string {
  return jobName(db.metadata!.name!, 'restore', backup);
}

/** The restore Job for `backup`. */
export function restoreJob(db: SampleDB, backup: string, version: string): KubeObject {
  return jobFor(db, {
    name: restoreJobName(db, backup),
    component: 'restore',
    image: imageFor(version),
    script: withWaitForPrimary(RESTORE),
    env: [{ name: 'RESTORE_FROM', value: backup }],
    backupVolume: true,
    extraLabels: { [LABEL_RESTORE_FROM]: backup },
  });
}
