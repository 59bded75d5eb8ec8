/**
 * The replication fields of a SampleDB status ({@link ReplicationStatus}), read from and merged
 * into the whole status, and the pod count they imply.
 */
import { ReplicationStatus } from './replication';
import { Database, SampleDBStatus } from './types';

/** The replication fields of `status` (absent ones left out). */
export function replicationStatusOf(status: SampleDBStatus | undefined): ReplicationStatus {
  const s = status ?? {};
  return {
    ...(s.currentPrimary !== undefined ? { currentPrimary: s.currentPrimary } : {}),
    ...(s.targetPrimary !== undefined ? { targetPrimary: s.targetPrimary } : {}),
    ...(s.targetPrimarySince !== undefined ? { targetPrimarySince: s.targetPrimarySince } : {}),
    ...(s.primaryUnavailableSince !== undefined ? { primaryUnavailableSince: s.primaryUnavailableSince } : {}),
    ...(s.timeline !== undefined ? { timeline: s.timeline } : {}),
    ...(s.synchronousStandbys !== undefined ? { synchronousStandbys: s.synchronousStandbys } : {}),
    ...(s.instances !== undefined ? { instances: s.instances } : {}),
  };
}

/** `status` with its replication fields replaced by `replication`'s (absent ones removed). */
export function withReplicationStatus(status: SampleDBStatus, replication: ReplicationStatus): SampleDBStatus {
  // The replication fields are taken out of `status` and only `replication`'s present ones put back.
  const {
    currentPrimary,
    targetPrimary,
    targetPrimarySince,
    primaryUnavailableSince,
    timeline,
    synchronousStandbys,
    instances,
    ...rest
  } = status;
  return { ...rest, ...replicationStatusOf(replication) };
}

/** The ordinal of pod `<db>-<n>`, or undefined. */
function ordinalOf(db: Database, pod: string | undefined): number | undefined {
  if (!pod?.startsWith(`${db.metadata.name}-`)) return undefined;
  const m = /-(\d+)$/.exec(pod);
  return m ? Number(m[1]) : undefined;
}

/**
 * Pods the StatefulSet keeps: `wanted` instances (`spec.replicas`, fewer during a major upgrade),
 * or more while the primary (or the target of a change in flight) has an ordinal a scale-down would
 * remove: it is switched over first.
 */
export function podsToKeep(db: Database, wanted: number = db.spec.replicas ?? 1): number {
  const want = wanted;
  const primary = ordinalOf(db, db.status?.targetPrimary ?? db.status?.currentPrimary);
  return Math.max(want, primary === undefined ? 0 : primary + 1);
}
