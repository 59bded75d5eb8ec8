import { invalidValue } from './services-field-errors';
import { isObject } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion, since } from '../../apimachinery/kubernetes-versions';

/**
 * `ValidateReadOnlyPersistentDisks`: a GCE persistent disk mounts on several machines only read-only, so the pod
 * template of a controller that runs it on several nodes must say `readOnly: true`: a Deployment, ReplicaSet or
 * ReplicationController of more than one replica (after defaulting: a missing `replicas` is 1), and every DaemonSet.
 * Not StatefulSets or Jobs (measured). Only before `SkipReadOnlyValidationGCE` (1.28 here).
 *
 * @internal
 */
export function readOnlyDisksIssues(template: unknown, replicated: boolean, version: KubernetesVersion): Issue[] {
  if (!replicated || since(version, 'readOnlyGceDisksUnchecked')) return [];
  const volumes = isObject(template) && isObject(template.spec) ? template.spec.volumes : undefined;
  if (!Array.isArray(volumes)) return [];
  return volumes.flatMap((volume, i) =>
    isObject(volume) && isObject(volume.gcePersistentDisk) && volume.gcePersistentDisk.readOnly !== true
      ? invalidValue(
          `spec.template.spec.volumes[${i}].gcePersistentDisk.readOnly`,
          false,
          ['must be true for replicated pods > 1; GCE PD can only be mounted on multiple machines if it is read-only'],
          version,
        )
      : [],
  );
}

/** Whether a controller of `replicas` (missing: 1, as defaulted) runs more than one pod. @internal */
export function replicatedBy(replicas: unknown): boolean {
  return typeof replicas === 'number' && replicas > 1;
}
