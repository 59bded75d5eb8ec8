/**
 * Version changes. The StatefulSet's annotation says what runs; `spec.version` what is wanted.
 *
 * Expected flow for a change `live → wanted`:
 * 1. Lower major → refused: the StatefulSet keeps `live` (`DowngradeRefused`, Degraded).
 * 2. Otherwise the pre-upgrade backup Job `<db>-pre-upgrade-<live>-to-<wanted>` is created; while it
 *    runs the StatefulSet keeps `live` (no write at all: the desired object equals the live one).
 * 3. Only after that Job succeeded the StatefulSet gets `wanted` (rolling update). On a major change
 *    it also records the backup in {@link ANNOTATION_UPGRADE_RESTORE}, and restore.ts loads it into
 *    the new major's fresh data directory once the rollout settled.
 * 4. The Job failed → the StatefulSet keeps `live` (`PreUpgradeBackupFailed`, Degraded); deleting
 *    the failed Job retries.
 */
import { KubeObject } from '../../runtime';
import { jobName, JobState } from './pods';
import { ANNOTATION_UPGRADE_RESTORE, SampleDB } from './types';
import { compareVersions, majorOf, versionSlug } from './versions';

/** Where a version change stands. */
export type UpgradeState = 'None' | 'DowngradeRefused' | 'BackingUp' | 'BackupFailed' | 'Rolling';

/** Result of {@link planVersion}. */
export interface VersionPlan {
  readonly state: UpgradeState;
  /** The version to put on the StatefulSet. */
  readonly statefulSetVersion: string;
  /** The restore-after-major-upgrade annotation to put on the StatefulSet. */
  readonly upgradeRestoreFrom?: string;
  /** The pre-upgrade backup Job to ensure (name, and the version it runs with). */
  readonly preUpgradeBackup?: { readonly name: string; readonly version: string };
  /** The running version (before the change). */
  readonly from?: string;
}

/** Name of the pre-upgrade backup Job. */
export function preUpgradeBackupName(db: SampleDB, from: string, to: string): string {
  return jobName(db.metadata!.name!, 'pre-upgrade', versionSlug(from), 'to', versionSlug(to));
}

/**
 * Decides the StatefulSet's version. `sts` is the live StatefulSet (undefined before creation),
 * `backupState` the state of the pre-upgrade backup Job {@link preUpgradeBackupName} names.
 */
export function planVersion(db: SampleDB, sts: KubeObject | undefined, live: string | undefined, backupState: (name: string) => JobState): VersionPlan {
  const wanted = db.spec.version;
  const keepRestore = sts?.metadata?.annotations?.[ANNOTATION_UPGRADE_RESTORE];
  if (!live || live === wanted) return { state: 'None', statefulSetVersion: wanted, upgradeRestoreFrom: keepRestore, from: live };
  const keep = { statefulSetVersion: live, upgradeRestoreFrom: keepRestore, from: live };
  if (majorOf(wanted) < majorOf(live)) return { ...keep, state: 'DowngradeRefused' };
  if (compareVersions(wanted, live) < 0 && majorOf(wanted) === majorOf(live)) {
    // A minor downgrade keeps the on-disk format: allowed, no backup needed.
    return { state: 'None', statefulSetVersion: wanted, upgradeRestoreFrom: keepRestore, from: live };
  }
  const name = preUpgradeBackupName(db, live, wanted);
  const preUpgradeBackup = { name, version: live };
  switch (backupState(name)) {
    case 'Succeeded':
      return {
        state: 'Rolling',
        statefulSetVersion: wanted,
        upgradeRestoreFrom: majorOf(wanted) !== majorOf(live) ? name : keepRestore,
        preUpgradeBackup,
        from: live,
      };
    case 'Failed':
      return { ...keep, state: 'BackupFailed', preUpgradeBackup };
    default:
      return { ...keep, state: 'BackingUp', preUpgradeBackup };
  }
}
