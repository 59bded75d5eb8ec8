import { nodeSelectorIssues } from './pod-spec-scheduling';
import { required } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * A PersistentVolume's nodeAffinity (ValidatePersistentVolumeSpec's validateVolumeNodeAffinity): when set (not null),
 * a `required` node selector, checked as a pod's required node affinity (pod-spec-scheduling.ts's ValidateNodeSelector:
 * at least one term, each requirement's operator, values and key, the label values from 1.33; on create
 * AllowInvalidLabelValueInRequiredNodeAffinity is off). A local volume, when it is the counted source, needs one. Issues
 * in the pod spec's words (storage-volumes.ts prints the value inside). Measured on 1.28, 1.32 and 1.36
 * (storage-differential.test.ts): `a b` as a value accepted by 1.28 and 1.32, refused by 1.36; an empty term accepted.
 */

/** validateVolumeNodeAffinity, and the local source's need of it (`local`: the counted source is a local one). */
export function volumeNodeAffinityIssues(
  spec: Record<string, any>,
  local: boolean,
  version: KubernetesVersion,
): Issue[] {
  const affinity = spec.nodeAffinity;
  if (affinity == null) return local ? [required('spec.nodeAffinity', 'Local volume requires node affinity')] : [];
  const at = 'spec.nodeAffinity.required';
  if (affinity.required == null) return [required(at, 'must specify required node constraints')];
  return nodeSelectorIssues(at, affinity.required, version);
}
