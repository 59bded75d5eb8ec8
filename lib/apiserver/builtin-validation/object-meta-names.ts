import { KubernetesVersion, minorOf } from '../../apimachinery/kubernetes-versions';
import { isDns1035Label, isDns1123Label, isDns1123Subdomain } from '../../apimachinery/names';

/** The admission configuration kinds (`group/Kind`), which share their ObjectMeta rules. @internal */
export const ADMISSION_REGISTRATION_KINDS: readonly string[] = [
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
];

/**
 * The name function each built-in kind's validation gives ValidateObjectMeta (`nameFn(name, prefix)`): what its
 * `metadata.name` must be, and its `metadata.generateName` with `prefix`. Measured on 1.28, 1.32 and 1.36 for every
 * kind below (test/apiserver/builtin-validation/object-meta-differential.test.ts), Pod from upstream's source
 * (ValidatePodName: the differential plane has no ServiceAccount for a Pod to use).
 */
export type NameCheck = (name: string, prefix: boolean) => string[];

/** apimachinery's maskTrailingDash: a prefix may end with a dash, the random suffix follows it. */
function maskTrailingDash(name: string): string {
  return name.length > 1 && name.endsWith('-') ? `${name.slice(0, -2)}a` : name;
}

const subdomain: NameCheck = (name, prefix) => isDns1123Subdomain(prefix ? maskTrailingDash(name) : name);
const label: NameCheck = (name, prefix) => isDns1123Label(prefix ? maskTrailingDash(name) : name);
const dns1035: NameCheck = (name, prefix) => isDns1035Label(prefix ? maskTrailingDash(name) : name);

/**
 * RBAC's ValidateRBACName: path.IsValidPathSegmentName, for generateName too (it ignores `prefix`; measured: a Role's
 * generateName `.` is refused with `may not be '.'`).
 */
const rbacName: NameCheck = (name) => pathSegment(name, false);

/** path.IsValidPathSegmentName, IsValidPathSegmentPrefix for a prefix (a PodDisruptionBudget's generateName `.`). */
export const pathSegment: NameCheck = (name, prefix) => [
  ...(!prefix && (name === '.' || name === '..') ? [`may not be '${name}'`] : []),
  ...['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`),
];

/**
 * Service names: a DNS-1035 label, an RFC 1123 label from 1.35 (RelaxedServiceNameValidation, alpha in 1.34, on by
 * default since; measured: `1abc` refused by 1.28 and 1.32, accepted by 1.36).
 */
function serviceName(version: KubernetesVersion): NameCheck {
  return minorOf(version) >= 35 ? label : dns1035;
}

const always = (check: NameCheck) => () => check;

/**
 * A ReplicationController's name: validated declaratively on 1.36, whose length limit is worded in bytes and whose
 * `generateName` is not checked at all, only the name generated from it (measured: `ABC`, `a_b` or 300 characters
 * beside a name accepted by 1.36, refused by 1.28 and 1.32; 1.33 to 1.35 are taken as 1.32, their nearest measured
 * older version).
 */
function replicationControllerName(version: KubernetesVersion): NameCheck {
  if (minorOf(version) < 36) return subdomain;
  return (name, prefix) => (prefix ? [] : isDns1123Subdomain(name, 'bytes'));
}

/** `group/Kind` → its name function; kinds the table does not name get `pathSegment` (no false positive). */
const NAME_CHECKS: Readonly<Record<string, (version: KubernetesVersion) => NameCheck>> = {
  '/Namespace': always(label),
  '/Service': serviceName,
  '/ReplicationController': replicationControllerName,
  'apps/StatefulSet': always(label),
  'policy/PodDisruptionBudget': always(pathSegment),
  'rbac.authorization.k8s.io/Role': always(rbacName),
  'rbac.authorization.k8s.io/ClusterRole': always(rbacName),
  'rbac.authorization.k8s.io/RoleBinding': always(rbacName),
  'rbac.authorization.k8s.io/ClusterRoleBinding': always(rbacName),
  ...Object.fromEntries(
    [
      '/ConfigMap',
      '/Secret',
      '/ServiceAccount',
      '/Pod',
      '/PodTemplate',
      '/LimitRange',
      '/ResourceQuota',
      '/PersistentVolumeClaim',
      '/PersistentVolume',
      '/Endpoints',
      'apps/Deployment',
      'apps/DaemonSet',
      'apps/ReplicaSet',
      'apps/ControllerRevision',
      'batch/Job',
      'batch/CronJob',
      'networking.k8s.io/NetworkPolicy',
      'networking.k8s.io/Ingress',
      'networking.k8s.io/IngressClass',
      'autoscaling/HorizontalPodAutoscaler',
      ...ADMISSION_REGISTRATION_KINDS,
      'scheduling.k8s.io/PriorityClass',
      'coordination.k8s.io/Lease',
      'storage.k8s.io/StorageClass',
      'storage.k8s.io/CSIDriver',
      'storage.k8s.io/CSINode',
      'storage.k8s.io/VolumeAttachment',
      'storage.k8s.io/CSIStorageCapacity',
      'flowcontrol.apiserver.k8s.io/FlowSchema',
      'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
      'events.k8s.io/Event',
      'node.k8s.io/RuntimeClass',
      'discovery.k8s.io/EndpointSlice',
    ].map((k) => [k, always(subdomain)]),
  ),
};

/**
 * The name function of the kind `kind` of `group` on `version`.
 *
 * @internal
 */
export function nameCheckOf(group: string, kind: string, version: KubernetesVersion): NameCheck {
  return (NAME_CHECKS[`${group}/${kind}`] ?? always(pathSegment))(version);
}
