/**
 * (No Pod: the differential planes run no ServiceAccount controller, so the admission of any Pod fails first.)
 * A valid object of each built-in kind an operator app emits, as the real apiservers of 1.28, 1.32 and 1.36 accept
 * it on create: the bases the ObjectMeta suites mutate.
 */

const labels = { app: 'x' };
const podSpec = { containers: [{ name: 'c', image: 'busybox' }] };
const template = { metadata: { labels }, spec: podSpec };

/** `[apiVersion/Kind, spec-ish fields without metadata]`. */
export const KIND_BASES: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ['v1/ConfigMap', { data: { a: 'b' } }],
  ['v1/Secret', { stringData: { a: 'b' } }],
  ['v1/ServiceAccount', {}],
  ['v1/Namespace', {}],
  ['v1/Service', { spec: { ports: [{ port: 80 }] } }],
  ['v1/LimitRange', { spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } }],
  ['v1/ResourceQuota', { spec: { hard: { pods: '10' } } }],
  [
    'v1/PersistentVolumeClaim',
    { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  ],
  ['v1/Endpoints', {}],
  ['apps/v1/Deployment', { spec: { selector: { matchLabels: labels }, template } }],
  ['apps/v1/StatefulSet', { spec: { selector: { matchLabels: labels }, serviceName: 's', template } }],
  ['apps/v1/DaemonSet', { spec: { selector: { matchLabels: labels }, template } }],
  ['apps/v1/ReplicaSet', { spec: { selector: { matchLabels: labels }, template } }],
  ['batch/v1/Job', { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } }],
  [
    'batch/v1/CronJob',
    {
      spec: {
        schedule: '* * * * *',
        jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
      },
    },
  ],
  ['policy/v1/PodDisruptionBudget', { spec: { minAvailable: 1, selector: { matchLabels: labels } } }],
  ['networking.k8s.io/v1/NetworkPolicy', { spec: { podSelector: {} } }],
  ['networking.k8s.io/v1/Ingress', { spec: { defaultBackend: { service: { name: 's', port: { number: 80 } } } } }],
  ['networking.k8s.io/v1/IngressClass', { spec: { controller: 'example.com/ingress' } }],
  [
    'autoscaling/v2/HorizontalPodAutoscaler',
    { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
  ],
  ['rbac.authorization.k8s.io/v1/Role', { rules: [] }],
  ['rbac.authorization.k8s.io/v1/ClusterRole', { rules: [] }],
  [
    'rbac.authorization.k8s.io/v1/RoleBinding',
    { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' } },
  ],
  [
    'rbac.authorization.k8s.io/v1/ClusterRoleBinding',
    { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' } },
  ],
  ['admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration', {}],
  ['admissionregistration.k8s.io/v1/MutatingWebhookConfiguration', {}],
  ['scheduling.k8s.io/v1/PriorityClass', { value: 1000 }],
  ['coordination.k8s.io/v1/Lease', {}],
  ['storage.k8s.io/v1/StorageClass', { provisioner: 'example.com/p' }],
  ['node.k8s.io/v1/RuntimeClass', { handler: 'runc' }],
  ['apps/v1/ControllerRevision', { revision: 1, data: {} }],
  ['v1/PodTemplate', { template }],
  [
    'v1/PersistentVolume',
    { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/x' } } },
  ],
  ['discovery.k8s.io/v1/EndpointSlice', { addressType: 'IPv4', endpoints: [] }],
  // found by bench/builtin-differential.ts: named as DNS subdomains, which synth did not check
  ['v1/ReplicationController', { spec: { template } }],
  ['storage.k8s.io/v1/CSIDriver', { spec: {} }],
  ['storage.k8s.io/v1/CSINode', { spec: { drivers: [] } }],
  [
    'storage.k8s.io/v1/VolumeAttachment',
    { spec: { attacher: 'disk.example.com', nodeName: 'n', source: { persistentVolumeName: 'p' } } },
  ],
  ['storage.k8s.io/v1/CSIStorageCapacity', { storageClassName: 's' }],
  [
    'events.k8s.io/v1/Event',
    {
      eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'example.com/c',
      reportingInstance: 'i',
      action: 'Act',
      reason: 'Why',
      type: 'Normal',
      regarding: { kind: 'Pod', name: 'p', namespace: 'default' },
    },
  ],
];

/** The kind's valid object named `name` (in no namespace: the request's). */
export function baseObject(apiVersionKind: string, name = 'x'): any {
  const [, fields] = KIND_BASES.find(([k]) => k === apiVersionKind)!;
  const kind = apiVersionKind.slice(apiVersionKind.lastIndexOf('/') + 1);
  const apiVersion = apiVersionKind.slice(0, apiVersionKind.lastIndexOf('/'));
  return structuredClone({ apiVersion, kind, metadata: { name }, ...fields });
}
