/**
 * Deleting a SampleDB (its finalizer {@link FINALIZER}, also set on the StatefulSet).
 *
 * Expected flow, each reconcile of a SampleDB with a deletionTimestamp:
 * 1. The final snapshot Job `<db>-final-snapshot` (a pg_dump to the backup volume, run with the
 *    version the StatefulSet runs) is created if missing. Until it succeeded nothing else happens:
 *    Progressing (`FinalSnapshotRunning`), or Degraded (`FinalSnapshotFailed`; delete the failed
 *    Job to retry). A SampleDB whose StatefulSet never existed (checked uncached) has nothing to
 *    snapshot; nor has one that never initialized (see {@link neverInitialized}): its snapshot Job
 *    would wait for a primary that may never come (an image that cannot be pulled, a pod that never
 *    schedules), and an operator never blocks its own deletion on data that does not exist.
 * 2. After it succeeded: the StatefulSet's finalizer is removed and the StatefulSet deleted; with
 *    `spec.volumeRetention: Delete` the data PVCs (`data-<db>-<n>`) are deleted, with `Retain`
 *    they stay. The backup volume always stays (it holds the snapshot). Without a StatefulSet (and
 *    so without a snapshot) data PVCs are never deleted.
 * 3. Then (reconciler.ts) the SampleDB's finalizer is removed; garbage collection removes the rest
 *    of what it owned (Secret, Services, Jobs, CronJob).
 *
 * Guarantees: the StatefulSet and the data PVCs are never deleted by this code before the snapshot
 * Job reported success, unless the database never initialized (then they follow `volumeRetention`). The StatefulSet's own PVC retention policy is always Retain, so deleting
 * the StatefulSet never deletes data by itself; the StatefulSet's finalizer keeps it (and its
 * pods) even when the garbage collector deletes dependents first.
 * Caveat: with `kubectl delete --cascade=foreground` the garbage collector also deletes the
 * Secret and Jobs at once, so the snapshot cannot run; use the default background deletion.
 * Caveat: idempotent steps; a crash between them repeats deletes that then find nothing.
 */
import { Actions } from './actions';
import { backupJob } from './backups';
import { PostgresImages } from './images';
import { jobState } from './pods';
import { runningVersion } from './statefulset';
import { Problem, Progress } from './status';
import {
  Database,
  FINALIZER,
  Job,
  LABEL_INSTANCE,
  LABEL_ROLE,
  names,
  PVC,
  Reasons,
  STATEFULSET,
  StatefulSet,
} from './types';
import { KubeObject, Store, Stored } from '../../runtime';

/** Stores the deletion reads. */
export interface DeletionStores {
  readonly statefulsets: Store<StatefulSet>;
  readonly jobs: Store<Job>;
  readonly pvcs: Store<KubeObject>;
  readonly pods: Store<KubeObject>;
}

/** Outcome of one {@link runDeletion}. */
export interface DeletionResult {
  /** Cleanup finished: the SampleDB's finalizer may go. */
  readonly done: boolean;
  readonly progress?: Progress;
  readonly problem?: Problem;
}

/** Data PVCs of a database in the cache. */
export function dataPvcs(pvcs: Store<KubeObject>, namespace: string, db: string): Stored<KubeObject>[] {
  return pvcs
    .byIndex('label', `${LABEL_INSTANCE}=${db}`)
    .filter((p) => p.metadata.namespace === namespace && p.metadata.name.startsWith(names.dataPvcPrefix(db)));
}

/**
 * Whether the database never held data a client could have written: no instance was ever seen as the
 * primary (`status.currentPrimary` unset, no pod labelled primary, so `<db>-rw` and `<db>` never had an
 * endpoint) and the init Job never succeeded. Each of these is set as soon as pod 0 answers as a primary.
 */
export function neverInitialized(db: Database, c: Pick<DeletionStores, 'jobs' | 'pods'>): boolean {
  const name = db.metadata.name;
  const namespace = db.metadata.namespace;
  if (db.status?.currentPrimary) return false;
  if (jobState(c.jobs.get({ namespace, name: names.initJob(name) })) === 'Succeeded') return false;
  return !c.pods
    .byIndex('label', `${LABEL_INSTANCE}=${name}`)
    .some((p) => p.metadata.namespace === namespace && p.metadata.labels?.[LABEL_ROLE] === 'primary');
}

/** One step of the deletion flow (see module docs). */
export async function runDeletion(a: Actions, c: DeletionStores, images: PostgresImages): Promise<DeletionResult> {
  const db = a.db;
  const name = db.metadata.name;
  const namespace = db.metadata.namespace;
  const snapshotName = names.finalSnapshotJob(name);
  const snapshot = a.cached(c.jobs, snapshotName);
  const state = jobState(snapshot);
  const sts =
    a.cached(c.statefulsets, names.statefulSet(name)) ?? (await a.getLive(STATEFULSET, names.statefulSet(name)));
  const empty = state !== 'Succeeded' && !!sts && neverInitialized(db, c);

  if (state !== 'Succeeded' && sts && !empty) {
    a.assertControlled(sts);
    if (state === 'Missing') {
      const version = runningVersion(sts) ?? db.spec.version;
      if (await a.create(c.jobs, backupJob(db, snapshotName, 'FinalSnapshot', images.imageFor(version)))) {
        a.event('Normal', Reasons.FinalSnapshotStarted, `created final snapshot Job ${snapshotName}`, 'Delete');
      }
    }
    if (state === 'Failed') {
      return {
        done: false,
        problem: {
          reason: Reasons.FinalSnapshotFailed,
          message: `final snapshot Job ${snapshotName} failed; delete it to retry`,
        },
      };
    }
    return {
      done: false,
      progress: { reason: 'FinalSnapshotRunning', message: `waiting for final snapshot Job ${snapshotName}` },
    };
  }
  if (sts) {
    a.assertControlled(sts);
    await a.removeFinalizer(sts, STATEFULSET, FINALIZER);
    const stsName = names.statefulSet(name);
    if (!sts.metadata?.deletionTimestamp && (await a.delete(STATEFULSET, stsName, sts.metadata?.uid))) {
      a.event(
        'Normal',
        Reasons.StatefulSetDeleted,
        empty
          ? `deleted StatefulSet ${stsName} without a final snapshot: the database never initialized (no instance ever answered as the primary), so it holds no data`
          : `deleted StatefulSet ${stsName} after final snapshot ${snapshotName}`,
        'Delete',
      );
    }
  }

  const pvcs = dataPvcs(c.pvcs, namespace, name).filter((p) => !p.metadata.deletionTimestamp);
  if (state !== 'Succeeded' && !empty) {
    // No StatefulSet, so no snapshot could be taken: volumes left from an earlier StatefulSet stay.
    if (pvcs.length) {
      a.event(
        'Warning',
        Reasons.VolumesRetained,
        `kept ${pvcs.length} data volume(s): no StatefulSet to take a final snapshot from`,
        'Delete',
      );
    }
  } else if ((db.spec.volumeRetention ?? 'Delete') === 'Delete') {
    let deleted = 0;
    for (const pvc of pvcs) if (await a.delete(PVC, pvc.metadata.name, pvc.metadata.uid)) deleted++;
    if (deleted) a.event('Normal', Reasons.VolumesDeleted, `deleted ${deleted} data volume(s)`, 'Delete');
  } else if (pvcs.length) {
    a.event(
      'Normal',
      Reasons.VolumesRetained,
      `kept ${pvcs.length} data volume(s) (volumeRetention: Retain)`,
      'Delete',
    );
  }
  return { done: true };
}
