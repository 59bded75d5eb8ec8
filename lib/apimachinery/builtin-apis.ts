/**
 * What the kube-apiserver serves of its built-in API groups, for the apiVersions and kinds an app emits that the
 * table of `served-apis.ts` does not name: which groups are built in, what every supported version serves, and what
 * replaced an API version they no longer serve (upstream's deprecated API migration guide,
 * https://kubernetes.io/docs/reference/using-api/deprecation-guide/).
 */

/**
 * The API groups of the kube-apiserver (its discovery on 1.28, 1.32 and 1.36, default flags or not) and historical
 * built-in groups no version serves any more (`extensions`, `settings.k8s.io`): an apiVersion of one of them is
 * built in, never a custom resource's. The aggregated `metrics.k8s.io` & co. are not the apiserver's.
 *
 * @internal
 */
export const BUILTIN_API_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'extensions',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'settings.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/**
 * `apiVersion/Kind` that 1.28.15, 1.32.13 and 1.36.3 all serve by default, from their discovery (checked against
 * each by test/apimachinery/served-apis.test.ts); with the ranges of `SERVED_API_RANGES`, everything of the built-in
 * groups that some supported version serves.
 *
 * @internal
 */
export const SERVED_BY_ALL: readonly string[] = [
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration',
  'apiextensions.k8s.io/v1/CustomResourceDefinition',
  'apiregistration.k8s.io/v1/APIService',
  'apps/v1/ControllerRevision',
  'apps/v1/DaemonSet',
  'apps/v1/Deployment',
  'apps/v1/ReplicaSet',
  'apps/v1/StatefulSet',
  'authentication.k8s.io/v1/SelfSubjectReview',
  'authentication.k8s.io/v1/TokenReview',
  'authorization.k8s.io/v1/LocalSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectAccessReview',
  'authorization.k8s.io/v1/SelfSubjectRulesReview',
  'authorization.k8s.io/v1/SubjectAccessReview',
  'autoscaling/v1/HorizontalPodAutoscaler',
  'autoscaling/v2/HorizontalPodAutoscaler',
  'batch/v1/CronJob',
  'batch/v1/Job',
  'certificates.k8s.io/v1/CertificateSigningRequest',
  'coordination.k8s.io/v1/Lease',
  'discovery.k8s.io/v1/EndpointSlice',
  'events.k8s.io/v1/Event',
  'networking.k8s.io/v1/Ingress',
  'networking.k8s.io/v1/IngressClass',
  'networking.k8s.io/v1/NetworkPolicy',
  'node.k8s.io/v1/RuntimeClass',
  'policy/v1/PodDisruptionBudget',
  'rbac.authorization.k8s.io/v1/ClusterRole',
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
  'rbac.authorization.k8s.io/v1/Role',
  'rbac.authorization.k8s.io/v1/RoleBinding',
  'scheduling.k8s.io/v1/PriorityClass',
  'storage.k8s.io/v1/CSIDriver',
  'storage.k8s.io/v1/CSINode',
  'storage.k8s.io/v1/CSIStorageCapacity',
  'storage.k8s.io/v1/StorageClass',
  'storage.k8s.io/v1/VolumeAttachment',
  'v1/Binding',
  'v1/ComponentStatus',
  'v1/ConfigMap',
  'v1/Endpoints',
  'v1/Event',
  'v1/LimitRange',
  'v1/Namespace',
  'v1/Node',
  'v1/PersistentVolume',
  'v1/PersistentVolumeClaim',
  'v1/Pod',
  'v1/PodTemplate',
  'v1/ReplicationController',
  'v1/ResourceQuota',
  'v1/Secret',
  'v1/Service',
  'v1/ServiceAccount',
];

const servedByAll = new Set(SERVED_BY_ALL);

/** The group of an apiVersion (`''` for the core group's `v1`). */
function groupOf(apiVersion: string): string {
  return apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
}

/** Whether `apiVersion` belongs to a built-in API group. @internal */
export function isBuiltinGroup(apiVersion: string): boolean {
  return BUILTIN_API_GROUPS.has(groupOf(apiVersion));
}

/** Whether every supported version serves `apiVersion` `kind` (a built-in one). @internal */
export function builtinKindServed(apiVersion: string, kind: string): boolean {
  return servedByAll.has(`${apiVersion}/${kind}`);
}

/**
 * API versions upstream removed, by `group/version/Kind` (a `*` kind: every kind of that group version): the release
 * that stopped serving it and its replacement (none for PodSecurityPolicy), from the deprecated API migration guide.
 */
const REMOVED: Readonly<Record<string, { readonly removed: string; readonly use?: string; readonly note?: string }>> = {
  'extensions/v1beta1/Deployment': { removed: '1.16', use: 'apps/v1' },
  'extensions/v1beta1/DaemonSet': { removed: '1.16', use: 'apps/v1' },
  'extensions/v1beta1/ReplicaSet': { removed: '1.16', use: 'apps/v1' },
  'extensions/v1beta1/NetworkPolicy': { removed: '1.16', use: 'networking.k8s.io/v1' },
  'extensions/v1beta1/PodSecurityPolicy': {
    removed: '1.16',
    note: 'PodSecurityPolicy was removed in 1.25: use Pod Security Admission',
  },
  'extensions/v1beta1/Ingress': { removed: '1.22', use: 'networking.k8s.io/v1' },
  'apps/v1beta1/*': { removed: '1.16', use: 'apps/v1' },
  'apps/v1beta2/*': { removed: '1.16', use: 'apps/v1' },
  'networking.k8s.io/v1beta1/Ingress': { removed: '1.22', use: 'networking.k8s.io/v1' },
  'networking.k8s.io/v1beta1/IngressClass': { removed: '1.22', use: 'networking.k8s.io/v1' },
  'admissionregistration.k8s.io/v1beta1/MutatingWebhookConfiguration': {
    removed: '1.22',
    use: 'admissionregistration.k8s.io/v1',
  },
  'admissionregistration.k8s.io/v1beta1/ValidatingWebhookConfiguration': {
    removed: '1.22',
    use: 'admissionregistration.k8s.io/v1',
  },
  'apiextensions.k8s.io/v1beta1/CustomResourceDefinition': { removed: '1.22', use: 'apiextensions.k8s.io/v1' },
  'apiregistration.k8s.io/v1beta1/APIService': { removed: '1.22', use: 'apiregistration.k8s.io/v1' },
  'authentication.k8s.io/v1beta1/TokenReview': { removed: '1.22', use: 'authentication.k8s.io/v1' },
  'authorization.k8s.io/v1beta1/*': { removed: '1.22', use: 'authorization.k8s.io/v1' },
  'certificates.k8s.io/v1beta1/CertificateSigningRequest': { removed: '1.22', use: 'certificates.k8s.io/v1' },
  'coordination.k8s.io/v1beta1/Lease': { removed: '1.22', use: 'coordination.k8s.io/v1' },
  'rbac.authorization.k8s.io/v1beta1/*': { removed: '1.22', use: 'rbac.authorization.k8s.io/v1' },
  'rbac.authorization.k8s.io/v1alpha1/*': { removed: '1.22', use: 'rbac.authorization.k8s.io/v1' },
  'scheduling.k8s.io/v1beta1/PriorityClass': { removed: '1.22', use: 'scheduling.k8s.io/v1' },
  'scheduling.k8s.io/v1alpha1/PriorityClass': { removed: '1.22', use: 'scheduling.k8s.io/v1' },
  'storage.k8s.io/v1beta1/CSIDriver': { removed: '1.22', use: 'storage.k8s.io/v1' },
  'storage.k8s.io/v1beta1/CSINode': { removed: '1.22', use: 'storage.k8s.io/v1' },
  'storage.k8s.io/v1beta1/StorageClass': { removed: '1.22', use: 'storage.k8s.io/v1' },
  'storage.k8s.io/v1beta1/VolumeAttachment': { removed: '1.22', use: 'storage.k8s.io/v1' },
  'storage.k8s.io/v1beta1/CSIStorageCapacity': { removed: '1.27', use: 'storage.k8s.io/v1' },
  'batch/v1beta1/CronJob': { removed: '1.25', use: 'batch/v1' },
  'discovery.k8s.io/v1beta1/EndpointSlice': { removed: '1.25', use: 'discovery.k8s.io/v1' },
  'events.k8s.io/v1beta1/Event': { removed: '1.25', use: 'events.k8s.io/v1 (or v1 Event)' },
  'autoscaling/v2beta1/HorizontalPodAutoscaler': { removed: '1.25', use: 'autoscaling/v2' },
  'autoscaling/v2beta2/HorizontalPodAutoscaler': { removed: '1.26', use: 'autoscaling/v2' },
  'policy/v1beta1/PodDisruptionBudget': { removed: '1.25', use: 'policy/v1' },
  'policy/v1beta1/PodSecurityPolicy': { removed: '1.25', note: 'use Pod Security Admission (namespace labels)' },
  'node.k8s.io/v1beta1/RuntimeClass': { removed: '1.25', use: 'node.k8s.io/v1' },
  'flowcontrol.apiserver.k8s.io/v1beta1/*': {
    removed: '1.26',
    use: 'flowcontrol.apiserver.k8s.io/v1 (1.29 and newer)',
  },
};

/**
 * Why no supported version serves the built-in `apiVersion` `kind`, for a problem line: kubectl's own words, when
 * upstream removed it and what to use instead (else where the kind is served, when some apiVersion serves it:
 * `v1 Deployment` is `apps/v1`). Undefined for what is served and for custom resources.
 *
 * @internal
 */
export function removedApi(apiVersion: string, kind: string): string | undefined {
  if (!isBuiltinGroup(apiVersion) || builtinKindServed(apiVersion, kind)) return undefined;
  const words = `no matches for kind "${kind}" in version "${apiVersion}"`;
  const removed = REMOVED[`${apiVersion}/${kind}`] ?? REMOVED[`${apiVersion}/*`];
  const elsewhere = SERVED_BY_ALL.filter((k) => k.endsWith(`/${kind}`)).map((k) => k.slice(0, k.lastIndexOf('/')));
  if (removed) {
    const use = removed.use ?? (elsewhere.length > 0 ? elsewhere.join(' or ') : undefined);
    return `${words}: removed in Kubernetes ${removed.removed}${use ? `, use ${use}` : ''}${removed.note ? `; ${removed.note}` : ''}`;
  }
  if (elsewhere.length > 0) return `${words}: ${kind} is served as ${elsewhere.join(' and ')}`;
  return `${words}: no supported Kubernetes version serves it by default`;
}
