/**
 * Where a kind lives in the API: what RBAC rules need (group + plural) and what the watch scope
 * needs (namespaced or cluster-scoped).
 */
export interface KindInfo {
  /** API group, `''` for the core group. */
  readonly group: string;
  /** Preferred version, e.g. `v1`. */
  readonly version: string;
  readonly kind: string;
  /** Resource name as used in RBAC rules and URLs, e.g. `deployments`. */
  readonly plural: string;
  /** Whether objects of this kind live in a namespace. */
  readonly namespaced: boolean;
}

type Row = [apiVersion: string, kind: string, plural: string, namespaced: boolean];

// The built-in kinds an operator plausibly watches or owns (Kubernetes 1.28+).
// Custom kinds come from the CustomResourceDefinitions the operator is given.
const ROWS: Row[] = [
  ['v1', 'Pod', 'pods', true],
  ['v1', 'Service', 'services', true],
  ['v1', 'ConfigMap', 'configmaps', true],
  ['v1', 'Secret', 'secrets', true],
  ['v1', 'ServiceAccount', 'serviceaccounts', true],
  ['v1', 'Endpoints', 'endpoints', true],
  ['v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true],
  ['v1', 'Event', 'events', true],
  ['v1', 'LimitRange', 'limitranges', true],
  ['v1', 'ResourceQuota', 'resourcequotas', true],
  ['v1', 'ReplicationController', 'replicationcontrollers', true],
  ['v1', 'PodTemplate', 'podtemplates', true],
  ['v1', 'Namespace', 'namespaces', false],
  ['v1', 'Node', 'nodes', false],
  ['v1', 'PersistentVolume', 'persistentvolumes', false],
  ['apps/v1', 'Deployment', 'deployments', true],
  ['apps/v1', 'StatefulSet', 'statefulsets', true],
  ['apps/v1', 'DaemonSet', 'daemonsets', true],
  ['apps/v1', 'ReplicaSet', 'replicasets', true],
  ['apps/v1', 'ControllerRevision', 'controllerrevisions', true],
  ['batch/v1', 'Job', 'jobs', true],
  ['batch/v1', 'CronJob', 'cronjobs', true],
  ['autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true],
  ['policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true],
  ['networking.k8s.io/v1', 'Ingress', 'ingresses', true],
  ['networking.k8s.io/v1', 'NetworkPolicy', 'networkpolicies', true],
  ['networking.k8s.io/v1', 'IngressClass', 'ingressclasses', false],
  ['discovery.k8s.io/v1', 'EndpointSlice', 'endpointslices', true],
  ['coordination.k8s.io/v1', 'Lease', 'leases', true],
  ['events.k8s.io/v1', 'Event', 'events', true],
  ['rbac.authorization.k8s.io/v1', 'Role', 'roles', true],
  ['rbac.authorization.k8s.io/v1', 'RoleBinding', 'rolebindings', true],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole', 'clusterroles', false],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false],
  ['storage.k8s.io/v1', 'StorageClass', 'storageclasses', false],
  ['scheduling.k8s.io/v1', 'PriorityClass', 'priorityclasses', false],
  ['apiextensions.k8s.io/v1', 'CustomResourceDefinition', 'customresourcedefinitions', false],
  ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
  ['certificates.k8s.io/v1', 'CertificateSigningRequest', 'certificatesigningrequests', false],
];

/**
 * Splits `apps/v1` into `{ group: 'apps', version: 'v1' }` and `v1` into `{ group: '', version: 'v1' }`, without
 * checking (the runtime's hot path splits what the apiserver sent). @internal
 */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** `splitApiVersion` for values a user wrote: throws unless it is `<version>` or `<group>/<version>`. @internal */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const parts = splitApiVersion(apiVersion);
  if (!parts.version || parts.version.includes('/') || (apiVersion.includes('/') && !parts.group)) {
    throw new Error(`apiVersion must be '<version>' or '<group>/<version>', got '${apiVersion}'`);
  }
  return parts;
}

/** `apps/v1/Deployment`: the key of a kind by apiVersion, as the runtime looks plurals up. @internal */
export function apiVersionKindKey(info: Pick<KindInfo, 'group' | 'version' | 'kind'>): string {
  return `${info.group ? `${info.group}/` : ''}${info.version}/${info.kind}`;
}

const TABLE = new Map<string, KindInfo>();
for (const [apiVersion, kind, plural, namespaced] of ROWS) {
  const { group, version } = parseApiVersion(apiVersion);
  TABLE.set(`${group}/${kind}`, { group, version, kind, plural, namespaced });
}

/**
 * The built-in kind `kind` in `group`, or undefined when the table does not know it.
 * Versions are not compared: RBAC rules name groups and resources, never versions.
 *
 * @internal
 */
export function knownKind(group: string, kind: string): KindInfo | undefined {
  return TABLE.get(`${group}/${kind}`);
}

/** Every built-in kind the table knows, e.g. for docs. @internal */
export function knownKinds(): KindInfo[] {
  return [...TABLE.values()];
}
