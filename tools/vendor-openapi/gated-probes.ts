/**
 * Fields the apiserver knows (they are in its OpenAPI) but drops on create while their feature gate is off by
 * default: each probe sets one such field on an object, creates it (dry run, unknown fields ignored) and reads
 * whether the field survived. The candidates are the fields whose descriptions mention an alpha feature or a
 * feature gate in some version from 1.28 to 1.36 and that the project's constructs or users may set on workloads.
 * tools/vendor-openapi/gated-fields.ts writes the verdicts of 1.28, 1.32 and 1.36 into
 * lib/apiserver/admission-policy/gated-fields-by-version.ts; test/apiserver/admission-policy/gated-fields.test.ts
 * runs the probes again on each apiserver and compares.
 */

/** One gated field: the schema and property it is, and an object setting it. */
export interface GatedFieldProbe {
  /** The OpenAPI schema holding the property (`io.k8s.api.core.v1.PodSpec`). */
  readonly schema: string;
  readonly property: string;
  /** The feature gate that keeps it (from upstream's descriptions and kube_features.go). */
  readonly gate: string;
  /** An object that sets it (namespace `default`), and where the value is read back. */
  readonly object: any;
  readonly read: (created: any) => unknown;
}

const deployment = (name: string, podSpec: object, container: object = {}) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'default' },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1', ...container }], ...podSpec },
    },
  },
});
const job = (name: string, spec: object) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'default' },
  spec: {
    template: { spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'registry.example.com/app:1' }] } },
    ...spec,
  },
});
const pod = (o: any) => o.spec.template.spec;

export const GATED_FIELD_PROBES: readonly GatedFieldProbe[] = [
  {
    schema: 'io.k8s.api.core.v1.PodSpec',
    property: 'hostUsers',
    gate: 'UserNamespacesSupport',
    object: deployment('host-users', { hostUsers: false }),
    read: (o) => pod(o).hostUsers,
  },
  {
    schema: 'io.k8s.api.core.v1.PodSpec',
    property: 'resources',
    gate: 'PodLevelResources',
    object: deployment('pod-resources', { resources: { limits: { cpu: '1' } } }),
    read: (o) => pod(o).resources,
  },
  {
    schema: 'io.k8s.api.core.v1.PodSpec',
    property: 'resourceClaims',
    gate: 'DynamicResourceAllocation',
    object: deployment('resource-claims', { resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu' }] }),
    read: (o) => pod(o).resourceClaims,
  },
  {
    schema: 'io.k8s.api.core.v1.Container',
    property: 'restartPolicy',
    gate: 'SidecarContainers',
    object: deployment('sidecar', {
      initContainers: [{ name: 'proxy', image: 'registry.example.com/proxy:1', restartPolicy: 'Always' }],
    }),
    read: (o) => pod(o).initContainers?.[0]?.restartPolicy,
  },
  {
    schema: 'io.k8s.api.core.v1.Container',
    property: 'resizePolicy',
    gate: 'InPlacePodVerticalScaling',
    object: deployment('resize', {}, { resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }] }),
    read: (o) => pod(o).containers[0].resizePolicy,
  },
  {
    schema: 'io.k8s.api.core.v1.PodSecurityContext',
    property: 'supplementalGroupsPolicy',
    gate: 'SupplementalGroupsPolicy',
    object: deployment('groups-policy', { securityContext: { supplementalGroupsPolicy: 'Strict' } }),
    read: (o) => pod(o).securityContext?.supplementalGroupsPolicy,
  },
  {
    schema: 'io.k8s.api.core.v1.PodSecurityContext',
    property: 'seLinuxChangePolicy',
    gate: 'SELinuxChangePolicy',
    object: deployment('selinux-policy', { securityContext: { seLinuxChangePolicy: 'Recursive' } }),
    read: (o) => pod(o).securityContext?.seLinuxChangePolicy,
  },
  {
    schema: 'io.k8s.api.core.v1.ServiceSpec',
    property: 'trafficDistribution',
    gate: 'ServiceTrafficDistribution',
    object: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'traffic', namespace: 'default' },
      spec: { ports: [{ port: 80 }], trafficDistribution: 'PreferClose' },
    },
    read: (o) => o.spec.trafficDistribution,
  },
  {
    schema: 'io.k8s.api.batch.v1.JobSpec',
    property: 'managedBy',
    gate: 'JobManagedBy',
    object: job('managed-by', { managedBy: 'example.com/controller' }),
    read: (o) => o.spec.managedBy,
  },
  {
    schema: 'io.k8s.api.batch.v1.JobSpec',
    property: 'backoffLimitPerIndex',
    gate: 'JobBackoffLimitPerIndex',
    object: job('per-index', { completionMode: 'Indexed', completions: 2, parallelism: 2, backoffLimitPerIndex: 1 }),
    read: (o) => o.spec.backoffLimitPerIndex,
  },
  {
    schema: 'io.k8s.api.batch.v1.JobSpec',
    property: 'successPolicy',
    gate: 'JobSuccessPolicy',
    object: job('success-policy', {
      completionMode: 'Indexed',
      completions: 2,
      parallelism: 2,
      successPolicy: { rules: [{ succeededCount: 1 }] },
    }),
    read: (o) => o.spec.successPolicy,
  },
  {
    schema: 'io.k8s.api.core.v1.PersistentVolumeClaimSpec',
    property: 'volumeAttributesClassName',
    gate: 'VolumeAttributesClass',
    object: {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'vac', namespace: 'default' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        volumeAttributesClassName: 'fast',
      },
    },
    read: (o) => o.spec.volumeAttributesClassName,
  },
];

/** The collection path of a probe's object. */
export function probePath(object: any): string {
  const plural = {
    Deployment: 'deployments',
    Service: 'services',
    Job: 'jobs',
    PersistentVolumeClaim: 'persistentvolumeclaims',
  }[object.kind as string];
  if (!plural) throw new Error(`no collection for ${object.kind}`);
  const base = object.apiVersion === 'v1' ? '/api/v1' : `/apis/${object.apiVersion}`;
  return `${base}/namespaces/${object.metadata.namespace}/${plural}`;
}

/** What a version does with a probe's field: keeps it, drops it, refuses the object, or does not know the field. */
export type GatedFieldVerdict = 'kept' | 'dropped' | 'refused' | 'unknown';

/** Runs one probe against an apiserver (`request` as ControlPlane.request). */
export async function runProbe(
  probe: GatedFieldProbe,
  request: (method: string, path: string, body?: unknown) => Promise<{ code: number; body: any }>,
): Promise<GatedFieldVerdict> {
  const strict = await request('POST', `${probePath(probe.object)}?dryRun=All&fieldValidation=Strict`, probe.object);
  if (strict.code === 400 && /unknown field/.test(strict.body?.message ?? '')) return 'unknown';
  if (strict.code !== 201) return 'refused';
  return probe.read(strict.body) === undefined ? 'dropped' : 'kept';
}
