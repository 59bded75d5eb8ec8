/**
 * Version changes. The StatefulSet's annotation says what runs; `spec.version` what is wanted.
 *
 * Expected flow for a change `live → wanted`:
 * 1. Lower major → refused: the StatefulSet keeps `live` (`DowngradeRefused`, Degraded).
 * 2. Otherwise the pre-upgrade backup Job `<db>-pre-upgrade-<live>-to-<wanted>` is created; while it
 *    runs the StatefulSet keeps `live` (no write at all: the desired object equals the live one).
 * 3. Only after that Job succeeded the StatefulSet gets `wanted`:
 *    - a minor change rolls every pod onto the new image over the same data directory (standbys
 *      first: the StatefulSet controller replaces pods from the highest ordinal down);
 *    - a major change needs a new data directory, which standbys cannot stream into from an old
 *      major. So the database first shrinks to its primary on pod 0 (`Shrinking`: a switchover to
 *      pod 0 if needed, then one pod), then pod 0 alone moves to `wanted` and initializes a fresh
 *      data directory, restore.ts loads the pre-upgrade backup ({@link ANNOTATION_UPGRADE_RESTORE})
 *      into it, and only once that restore succeeded the standbys come back and re-clone from the
 *      upgraded primary ({@link VersionPlan.instances} says how many pods to run meanwhile).
 * 4. The Job failed → the StatefulSet keeps `live` (`PreUpgradeBackupFailed`, Degraded); deleting
 *    the failed Job retries.
 */
import { jobName, JobState } from './pods';
import { restoreJobName } from './restore';
import { statefulSetCounts } from './statefulset';
import { ANNOTATION_UPGRADE_RESTORE, Database, names, StatefulSet } from './types';
import { compareVersions, majorOf, versionSlug } from './versions';

/** Where a version change stands. */
export type UpgradeState = 'None' | 'DowngradeRefused' | 'BackingUp' | 'BackupFailed' | 'Shrinking' | 'Rolling';

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
  /**
   * Instances to run while a major upgrade is in flight (1: the primary alone, from the shrink
   * until the pre-upgrade backup is restored into the new major).
   * @default - spec.replicas
   */
  readonly instances?: number;
}

/** Name of the pre-upgrade backup Job. */
export function preUpgradeBackupName(db: Database, from: string, to: string): string {
  return jobName(db.metadata.name, 'pre-upgrade', versionSlug(from), 'to', versionSlug(to));
}

/**
 * Decides the StatefulSet's version. `sts` is the live StatefulSet (undefined before creation),
 * `jobState` the state of a Job of the database by name (the pre-upgrade backup
 * {@link preUpgradeBackupName} names, the restore of a major upgrade).
 */
export function planVersion(
  db: Database,
  sts: StatefulSet | undefined,
  live: string | undefined,
  jobState: (name: string) => JobState,
): VersionPlan {
  const wanted = db.spec.version;
  const keepRestore = sts?.metadata?.annotations?.[ANNOTATION_UPGRADE_RESTORE];
  if (!live || live === wanted) {
    // After a major upgrade's rollout: the primary alone until the pre-upgrade backup is restored.
    const restorePending = !!keepRestore && jobState(restoreJobName(db, keepRestore)) !== 'Succeeded';
    return {
      state: 'None',
      statefulSetVersion: wanted,
      upgradeRestoreFrom: keepRestore,
      from: live,
      ...(restorePending ? { instances: 1 } : {}),
    };
  }
  const keep = { statefulSetVersion: live, upgradeRestoreFrom: keepRestore, from: live };
  if (majorOf(wanted) < majorOf(live)) return { ...keep, state: 'DowngradeRefused' };
  if (compareVersions(wanted, live) < 0 && majorOf(wanted) === majorOf(live)) {
    // A minor downgrade keeps the on-disk format: allowed, no backup needed.
    return { state: 'None', statefulSetVersion: wanted, upgradeRestoreFrom: keepRestore, from: live };
  }
  const name = preUpgradeBackupName(db, live, wanted);
  const preUpgradeBackup = { name, version: live };
  switch (jobState(name)) {
    case 'Succeeded': {
      const major = majorOf(wanted) !== majorOf(live);
      if (major && !primaryAloneOnPodZero(db, sts)) {
        return { ...keep, state: 'Shrinking', preUpgradeBackup, instances: 1 };
      }
      return {
        state: 'Rolling',
        statefulSetVersion: wanted,
        upgradeRestoreFrom: major ? name : keepRestore,
        preUpgradeBackup,
        from: live,
        ...(major ? { instances: 1 } : {}),
      };
    }
    case 'Failed':
      return { ...keep, state: 'BackupFailed', preUpgradeBackup };
    default:
      return { ...keep, state: 'BackingUp', preUpgradeBackup };
  }
}

/**
 * True once the StatefulSet runs one pod, pod 0, and it is the primary (or no primary was ever
 * recorded: then pod 0 is all there is): a major upgrade may replace it.
 */
function primaryAloneOnPodZero(db: Database, sts: StatefulSet | undefined): boolean {
  const counts = statefulSetCounts(sts);
  const specReplicas = sts?.spec?.replicas;
  const podZero = names.pod(db.metadata.name, 0);
  return (
    specReplicas === 1 && counts.settled && counts.replicas === 1 && (db.status?.currentPrimary ?? podZero) === podZero
  );
}
