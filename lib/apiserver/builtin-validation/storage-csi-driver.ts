import {
  duplicateValue,
  invalidValue,
  isRecord,
  recordsOf,
  stringsOf,
  unsupportedValue,
} from './services-field-errors';
import { child, index } from '../../apimachinery/field';
import { Issue } from '../../apimachinery/issue';
import { KubernetesVersion } from '../../apimachinery/kubernetes-versions';

/*
 * A storage.k8s.io/v1 CSIDriver's spec as the apiserver checks it on create (pkg/apis/storage/validation's
 * validateCSIDriverSpec), after its defaults (attachRequired true, podInfoOnMount, storageCapacity and seLinuxMount
 * false, fsGroupPolicy ReadWriteOnceWithFSType, volumeLifecycleModes [Persistent]: the required ones are never
 * missing). Measured on 1.28, 1.32 and 1.36 (storage-differential.test.ts).
 */

const FS_GROUP_POLICIES = ['File', 'None', 'ReadWriteOnceWithFSType'] as const;
const LIFECYCLE_MODES = ['Persistent', 'Ephemeral'] as const;
const MIN_EXPIRATION = 600;
const MAX_EXPIRATION = 2 ** 32;

function csiDriverIssues(object: any, version: KubernetesVersion): Issue[] {
  const spec = isRecord(object?.spec) ? object.spec : {};
  const issues: Issue[] = [];
  const policy = spec.fsGroupPolicy;
  if (typeof policy === 'string' && !(FS_GROUP_POLICIES as readonly string[]).includes(policy)) {
    issues.push(unsupportedValue('spec.fsGroupPolicy', policy, FS_GROUP_POLICIES, version));
  }
  issues.push(...tokenRequestsIssues(spec.tokenRequests, version));
  for (const mode of stringsOf(spec.volumeLifecycleModes)) {
    if (!(LIFECYCLE_MODES as readonly unknown[]).includes(mode)) {
      issues.push(unsupportedValue('spec.volumeLifecycleModes', mode, LIFECYCLE_MODES, version));
    }
  }
  const period = spec.nodeAllocatableUpdatePeriodSeconds;
  if (typeof period === 'number' && period < 10) {
    issues.push(
      ...invalidValue(
        'spec.nodeAllocatableUpdatePeriodSeconds',
        period,
        ['must be greater than or equal to 10 seconds'],
        version,
      ),
    );
  }
  return issues;
}

/** validateTokenRequests: audiences unique (a duplicate is not checked further), expirations of 10 min to 2^32 s. */
function tokenRequestsIssues(value: unknown, version: KubernetesVersion): Issue[] {
  const issues: Issue[] = [];
  const audiences = new Set<string>();
  recordsOf(value).forEach((request, i) => {
    const at = index('spec.tokenRequests', i);
    const audience = typeof request.audience === 'string' ? request.audience : '';
    if (audiences.has(audience)) {
      issues.push(duplicateValue(child(at, 'audience'), audience, version));
      return;
    }
    audiences.add(audience);
    const seconds = request.expirationSeconds;
    if (typeof seconds !== 'number') return;
    const path = child(at, 'expirationSeconds');
    if (seconds < MIN_EXPIRATION) {
      issues.push(...invalidValue(path, seconds, ['may not specify a duration less than 10 minutes'], version));
    }
    if (seconds > MAX_EXPIRATION) {
      issues.push(...invalidValue(path, seconds, ['may not specify a duration larger than 2^32 seconds'], version));
    }
  });
  return issues;
}

/** @internal */
export const CSI_DRIVER_VALIDATORS = {
  'storage.k8s.io/v1/CSIDriver': csiDriverIssues,
} as const;
