/**
 * The status the Prometheus Operator writes on its workload kinds (Prometheus, Alertmanager): replica counts
 * of the StatefulSet it runs, an `Available` condition from them and a `Reconciled` condition saying whether
 * (and why not) the spec was turned into children. One function so both kinds report the same way.
 */
import type { StatefulSet, WorkloadStatus } from './types';
import { setCondition } from '../../runtime';

/** What the reconcile of the object concluded (the `Reconciled` condition). */
export interface ReconciledCondition {
  readonly status: 'True' | 'False';
  readonly reason: string;
  readonly message: string;
}

/** The new status of an object with `desired` replicas run by `statefulSet` (absent: not created yet). */
export function workloadStatus(
  previous: WorkloadStatus | undefined,
  statefulSet: StatefulSet | undefined,
  desired: number,
  reconciled: ReconciledCondition,
  generation: number | undefined,
): WorkloadStatus {
  const available = statefulSet?.status?.availableReplicas ?? statefulSet?.status?.readyReplicas ?? 0;
  let conditions = setCondition(previous?.conditions, {
    type: 'Available',
    status: available >= desired ? 'True' : 'False',
    reason: available >= desired ? 'AllReplicasAvailable' : 'ReplicasUnavailable',
    message: `${available} of ${desired} replicas available`,
    observedGeneration: generation,
  });
  conditions = setCondition(conditions, { type: 'Reconciled', ...reconciled, observedGeneration: generation });
  return {
    ...(previous ?? {}),
    replicas: statefulSet?.status?.replicas ?? 0,
    availableReplicas: available,
    updatedReplicas: statefulSet?.status?.updatedReplicas ?? 0,
    unavailableReplicas: Math.max(0, desired - available),
    paused: false,
    conditions,
  };
}
