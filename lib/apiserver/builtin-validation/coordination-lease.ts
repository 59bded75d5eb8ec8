import { invalidValue, isRecord } from './services-field-errors';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * The apiserver's create-time validation of a coordination.k8s.io/v1 Lease (pkg/apis/coordination/validation's
 * ValidateLeaseSpec). Measured on 1.28, 1.32 and 1.36 (cluster-differential): `holderIdentity` is free text;
 * `strategy` and `preferredHolder` (from 1.31) are dropped on create while the CoordinatedLeaderElection gate is off,
 * which it is by default on every measured version, so their rules never apply.
 */

/** @internal */
export function leaseIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) {
    issues.push(...invalidValue('spec.leaseDurationSeconds', duration, ['must be greater than 0'], version));
  }
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    issues.push(...invalidValue('spec.leaseTransitions', transitions, ['must be greater than or equal to 0'], version));
  }
  return issues;
}
