/**
 * One valid object of each kind synth checks that the demo and cdk8s-plus do not write, with the optional fields that
 * give the mutations something to aim at: the built-in differential's seeds beside builtin-seeds.ts's.
 */
const meta = (name: string) => ({ name, labels: { app: 'seed' }, annotations: { note: 'seed' } });
const selector = { matchLabels: { app: 'seed' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a'] }] };

export const CATALOGUE: readonly any[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('cm'), data: { 'a.conf': 'x' }, binaryData: { b: 'eA==' } },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta('tls'),
    type: 'kubernetes.io/tls',
    stringData: { 'tls.crt': 'c', 'tls.key': 'k' },
  },
  {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: meta('basic'),
    type: 'kubernetes.io/basic-auth',
    stringData: { username: 'u', password: 'p' },
  },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('sa'), automountServiceAccountToken: false },
  { apiVersion: 'v1', kind: 'Namespace', metadata: meta('ns'), spec: { finalizers: ['kubernetes'] } },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('np'),
    spec: {
      type: 'NodePort',
      selector: { app: 'seed' },
      ports: [{ name: 'http', port: 80, targetPort: 'http', protocol: 'TCP', appProtocol: 'http' }],
      externalTrafficPolicy: 'Local',
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 300 } },
      externalIPs: ['192.0.2.10'],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('lb'),
    spec: {
      type: 'LoadBalancer',
      selector: { app: 'seed' },
      ports: [{ port: 443, targetPort: 8443 }],
      loadBalancerSourceRanges: ['10.0.0.0/8'],
      allocateLoadBalancerNodePorts: true,
      ipFamilyPolicy: 'SingleStack',
    },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('ext'),
    spec: { type: 'ExternalName', externalName: 'db.example.com' },
  },
  {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: meta('headless'),
    spec: { clusterIP: 'None', selector: { app: 'seed' }, ports: [{ port: 5432 }], publishNotReadyAddresses: true },
  },
  {
    apiVersion: 'v1',
    kind: 'ReplicationController',
    metadata: meta('rc'),
    spec: {
      replicas: 1,
      minReadySeconds: 5,
      template: { metadata: { labels: { app: 'seed' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: meta('pvc'),
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
      storageClassName: 'fast',
      volumeMode: 'Filesystem',
      selector,
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: meta('pv'),
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      storageClassName: 'fast',
      hostPath: { path: '/data', type: 'DirectoryOrCreate' },
    },
  },
  // the sources only a PersistentVolume has, so that additions reach their fields and the node affinity
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: meta('pv-local'),
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'local',
      local: { path: '/mnt/disks/a', fsType: 'ext4' },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n1'] }] },
          ],
        },
      },
    },
  },
  {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: meta('pv-csi'),
    spec: {
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteMany'],
      mountOptions: ['noatime'],
      csi: {
        driver: 'disk.csi.example.com',
        volumeHandle: 'vol-1',
        volumeAttributes: { tier: 'gold' },
        nodePublishSecretRef: { name: 'csi-secret', namespace: 'default' },
      },
    },
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: meta('fast'),
    provisioner: 'example.com/disk',
    parameters: { type: 'ssd' },
    reclaimPolicy: 'Delete',
    volumeBindingMode: 'WaitForFirstConsumer',
    allowVolumeExpansion: true,
    mountOptions: ['noatime'],
    allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a'] }] }],
  },
  {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: meta('disk.example.com'),
    spec: { attachRequired: true, podInfoOnMount: false, fsGroupPolicy: 'File', volumeLifecycleModes: ['Persistent'] },
  },
  {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: meta('limits'),
    spec: {
      limits: [
        {
          type: 'Container',
          max: { cpu: '2', memory: '1Gi' },
          min: { cpu: '10m', memory: '16Mi' },
          default: { cpu: '500m', memory: '256Mi' },
          defaultRequest: { cpu: '100m', memory: '64Mi' },
          maxLimitRequestRatio: { cpu: '10' },
        },
        { type: 'PersistentVolumeClaim', max: { storage: '10Gi' }, min: { storage: '1Gi' } },
      ],
    },
  },
  {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: meta('quota'),
    spec: {
      hard: { pods: '10', 'requests.cpu': '4', 'limits.memory': '8Gi', 'count/deployments.apps': '5' },
      scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] },
    },
  },
  {
    apiVersion: 'scheduling.k8s.io/v1',
    kind: 'PriorityClass',
    metadata: meta('high'),
    value: 1000,
    globalDefault: false,
    preemptionPolicy: 'PreemptLowerPriority',
    description: 'seed',
  },
  {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: meta('lease'),
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, leaseTransitions: 0 },
  },
  {
    apiVersion: 'apiregistration.k8s.io/v1',
    kind: 'APIService',
    metadata: meta('v1.metrics.example.com'),
    spec: {
      group: 'metrics.example.com',
      version: 'v1',
      service: { namespace: 'default', name: 'metrics', port: 443 },
      groupPriorityMinimum: 100,
      versionPriority: 10,
      insecureSkipTLSVerify: true,
    },
  },
  {
    apiVersion: 'node.k8s.io/v1',
    kind: 'RuntimeClass',
    metadata: meta('gvisor'),
    handler: 'runsc',
    overhead: { podFixed: { cpu: '100m', memory: '32Mi' } },
    scheduling: {
      nodeSelector: { sandbox: 'true' },
      tolerations: [{ key: 'sandbox', operator: 'Exists', effect: 'NoSchedule' }],
    },
  },
  {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: meta('slice'),
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.0.0.5'], conditions: { ready: true }, hostname: 'a', nodeName: 'node-1' }],
    ports: [{ name: 'http', port: 80, protocol: 'TCP', appProtocol: 'http' }],
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IngressClass',
    metadata: meta('nginx'),
    spec: {
      controller: 'example.com/ingress',
      parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p', scope: 'Namespace', namespace: 'default' },
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: meta('ing'),
    spec: {
      ingressClassName: 'nginx',
      tls: [{ hosts: ['a.example.com'], secretName: 'tls' }],
      defaultBackend: { service: { name: 'web', port: { name: 'http' } } },
      rules: [
        {
          host: '*.example.com',
          http: {
            paths: [{ path: '/api', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }],
          },
        },
      ],
    },
  },
  {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: meta('np'),
    spec: {
      podSelector: selector,
      policyTypes: ['Ingress', 'Egress'],
      ingress: [
        { from: [{ ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80, endPort: 90 }] },
      ],
      egress: [
        { to: [{ namespaceSelector: { matchLabels: { team: 'a' } } }], ports: [{ protocol: 'UDP', port: 'dns' }] },
      ],
    },
  },
  {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: meta('pdb'),
    spec: { maxUnavailable: '25%', selector, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
  },
  {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta('hpa'),
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      minReplicas: 1,
      maxReplicas: 5,
      metrics: [
        { type: 'Resource', resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '100Mi' } } },
        {
          type: 'Pods',
          pods: {
            metric: { name: 'qps', selector: { matchLabels: { a: 'b' } } },
            target: { type: 'AverageValue', averageValue: '10' },
          },
        },
      ],
      behavior: {
        scaleDown: {
          stabilizationWindowSeconds: 300,
          selectPolicy: 'Min',
          policies: [{ type: 'Percent', value: 50, periodSeconds: 60 }],
        },
      },
    },
  },
  {
    apiVersion: 'autoscaling/v1',
    kind: 'HorizontalPodAutoscaler',
    metadata: meta('hpa1'),
    spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 3, targetCPUUtilizationPercentage: 70 },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: meta('reader'),
    rules: [
      {
        apiGroups: ['apps'],
        resources: ['deployments', 'deployments/scale'],
        verbs: ['get', 'list'],
        resourceNames: ['web'],
      },
      { nonResourceURLs: ['/healthz', '/metrics/*'], verbs: ['get'] },
    ],
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: meta('aggregate'),
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.example.com/aggregate': 'true' } }] },
  },
  {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: meta('rb'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'reader' },
    subjects: [
      { kind: 'ServiceAccount', name: 'sa', namespace: 'default' },
      { kind: 'User', name: 'jane', apiGroup: 'rbac.authorization.k8s.io' },
      { kind: 'Group', name: 'devs', apiGroup: 'rbac.authorization.k8s.io' },
    ],
  },
  {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: meta('seed-level'),
    spec: {
      type: 'Limited',
      limited: {
        nominalConcurrencyShares: 10,
        lendablePercent: 50,
        borrowingLimitPercent: 100,
        limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 50 } },
      },
    },
  },
  {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'FlowSchema',
    metadata: meta('seed-flow'),
    spec: {
      priorityLevelConfiguration: { name: 'seed-level' },
      matchingPrecedence: 500,
      distinguisherMethod: { type: 'ByUser' },
      rules: [
        {
          subjects: [{ kind: 'ServiceAccount', serviceAccount: { name: 'sa', namespace: 'default' } }],
          resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'], namespaces: ['default'] }],
          nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }],
        },
      ],
    },
  },
];
