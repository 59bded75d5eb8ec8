/**
 * The replication fields of a SampleDB status ({@link ReplicationStatus}), read from and merged
 * into the whole status, and the pod count they imply.
 */
import { ReplicationStatus } from './replication';
import { SampleDB, SampleDBStatus } from './types';

const KEYS = ['currentPrimary', 'targetPrimary', 'targetPrimarySince', 'primaryUnavailableSince', 'instances'] as const;

/** The replication fields of `status`. */
export function replicationStatusOf(status: SampleDBStatus | undefined): ReplicationStatus {
  const out: Record<string, unknown> = {};
  for (const k of KEYS) if ((status as Record<string, unknown> | undefined)?.[k] !== undefined) out[k] = (status as Record<string, unknown>)[k];
  return out as ReplicationStatus;
}

/** `status` with its replication fields replaced by `replication`'s (absent ones removed). */
export function withReplicationStatus(status: SampleDBStatus, replication: ReplicationStatus): SampleDBStatus {
  const out: Record<string, unknown> = { ...status };
  for (const k of KEYS) {
    const v = (replication as Record<string, unknown>)[k];
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out as SampleDBStatus;
}

/** The ordinal of pod `<db>-<n>`, or undefined. */
function ordinalOf(db: SampleDB, pod: string | undefined): number | undefined {
  const m = pod ? /-(\d+)$/.exec(pod) : null;
  return m && pod!.startsWith(`${db.metadata!.name}-`) ? Number(m[1]) : undefined;
}

/**
 * Pods the StatefulSet keeps: `wanted` instances (`spec.replicas`, fewer during a major upgrade),
 * or more while the primary (or the target of a change in flight) has an ordinal a scale-down would
 * remove: it is switched over first.
 */
export function podsToKeep(db: SampleDB, wanted: number = db.spec.replicas ?? 1): number {
  const want = wanted;
  const primary = ordinalOf(db, db.status?.targetPrimary ?? db.status?.currentPrimary);
  return Math.max(want, primary === undefined ? 0 : primary + 1);
}
