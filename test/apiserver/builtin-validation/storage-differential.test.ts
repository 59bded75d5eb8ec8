import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** v1 PersistentVolumeClaim, storage.k8s.io/v1 StorageClass and CSIDriver: synth's verdict against the apiservers'. */

const claim = mutationOf(() => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
}));

const CLAIMS = [
  claim('claim: the base'),
  claim('claim: no accessModes', (o) => delete o.spec.accessModes),
  claim('claim: accessModes Bogus', (o) => (o.spec.accessModes = ['Bogus'])),
  claim(
    'claim: ReadWriteOncePod with ReadWriteOnce',
    (o) => (o.spec.accessModes = ['ReadWriteOncePod', 'ReadWriteOnce']),
  ),
  claim('claim: ReadWriteOncePod with Bogus', (o) => (o.spec.accessModes = ['ReadWriteOncePod', 'Bogus'])),
  claim('claim: ReadWriteOncePod, ReadOnlyMany, ReadWriteMany', (o) => (o.spec.accessModes = ['ReadWriteOncePod'])),
  claim('claim: no storage request', (o) => (o.spec.resources = {})),
  claim('claim: storage 0', (o) => (o.spec.resources.requests.storage = '0')),
  claim('claim: storage -1Gi', (o) => (o.spec.resources.requests.storage = '-1Gi')),
  // found by bench/builtin-differential.ts: 1.28 decodes `resources` as a ResourceRequirements (claims and all)
  claim('claim: storage x1, not a quantity', (o) => (o.spec.resources.requests.storage = 'x1')),
  claim('claim: resources with claims', (o) => (o.spec.resources.claims = [{ name: 'x' }])),
  claim('claim: storage limit below the request', (o) => (o.spec.resources.limits = { storage: '1Mi' })),
  claim('claim: a cpu request', (o) => (o.spec.resources.requests.cpu = '1')),
  claim('claim: storageClassName Bad_Name', (o) => (o.spec.storageClassName = 'Bad_Name')),
  claim('claim: storageClassName ""', (o) => (o.spec.storageClassName = '')),
  claim('claim: volumeMode Bogus', (o) => (o.spec.volumeMode = 'Bogus')),
  claim('claim: volumeMode Block', (o) => (o.spec.volumeMode = 'Block')),
  claim(
    'claim: selector operator Bogus',
    (o) => (o.spec.selector = { matchExpressions: [{ key: 'a', operator: 'Bogus' }] }),
  ),
  claim(
    'claim: dataSource a snapshot',
    (o) => (o.spec.dataSource = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' }),
  ),
  claim('claim: dataSource a claim', (o) => (o.spec.dataSource = { kind: 'PersistentVolumeClaim', name: 'p' })),
  claim('claim: dataSource kind Foo without group', (o) => (o.spec.dataSource = { kind: 'Foo', name: 'p' })),
  claim('claim: dataSource without name', (o) => (o.spec.dataSource = { kind: 'PersistentVolumeClaim' })),
  claim(
    'claim: dataSource apiGroup Bad_Group',
    (o) => (o.spec.dataSource = { apiGroup: 'Bad_Group', kind: 'X', name: 'p' }),
  ),
  claim(
    'claim: dataSourceRef apiGroup Bad_Group',
    (o) => (o.spec.dataSourceRef = { apiGroup: 'Bad_Group', kind: 'X', name: 'p' }),
  ),
  claim('claim: dataSourceRef a claim without name', (o) => (o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim' })),
  claim('claim: dataSource a snapshot, dataSourceRef a claim', (o) => {
    o.spec.dataSource = { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' };
    o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim', name: 's' };
  }),
  claim('claim: dataSourceRef kind Foo without group', (o) => (o.spec.dataSourceRef = { kind: 'Foo', name: 'p' })),
  claim('claim: dataSource and dataSourceRef differ', (o) => {
    o.spec.dataSource = { kind: 'PersistentVolumeClaim', name: 'p' };
    o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim', name: 'q' };
  }),
  claim(
    'claim: dataSourceRef with a namespace',
    (o) => (o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim', name: 'p', namespace: 'Bad_NS' }),
  ),
  // found by the additions differential: a dataSourceRef with a namespace is dropped whole (the gate is off)
  claim(
    'claim: dataSourceRef of a bad kind, with a namespace',
    (o) => (o.spec.dataSourceRef = { kind: '-1Gi', name: 'localhost', namespace: '@' }),
  ),
  claim('claim: dataSourceRef without name, with a namespace', (o) => {
    o.spec.dataSourceRef = { kind: 'PersistentVolumeClaim', namespace: 'other' };
  }),
  claim('claim: dataSourceRef of a bad kind, with an empty namespace', (o) => {
    o.spec.dataSourceRef = { kind: 'X', name: 'n', namespace: '' };
  }),
  claim('claim: dataSource beside a dataSourceRef with a namespace', (o) => {
    o.spec.dataSource = { kind: 'PersistentVolumeClaim', name: 'p' };
    o.spec.dataSourceRef = { kind: 'X', name: 'q', namespace: 'other' };
  }),
  claim('claim: volumeAttributesClassName Bad_Name', (o) => (o.spec.volumeAttributesClassName = 'Bad_Name')),
];

const storageClass = mutationOf(() => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'StorageClass',
  metadata: { name: 's' },
  provisioner: 'ebs.csi.aws.com',
}));

const CLASSES = [
  storageClass('class: the base'),
  storageClass('class: no provisioner', (o) => delete o.provisioner),
  storageClass('class: provisioner a b', (o) => (o.provisioner = 'a b')),
  storageClass('class: provisioner Upper/Case', (o) => (o.provisioner = 'Example.COM/Disk')),
  storageClass('class: reclaimPolicy Recycle', (o) => (o.reclaimPolicy = 'Recycle')),
  storageClass('class: reclaimPolicy Retain', (o) => (o.reclaimPolicy = 'Retain')),
  storageClass('class: volumeBindingMode Bogus', (o) => (o.volumeBindingMode = 'Bogus')),
  storageClass('class: volumeBindingMode WaitForFirstConsumer', (o) => (o.volumeBindingMode = 'WaitForFirstConsumer')),
  storageClass('class: parameters with an empty key', (o) => (o.parameters = { '': 'x' })),
  storageClass(
    'class: 513 parameters',
    (o) => (o.parameters = Object.fromEntries([...Array(513).keys()].map((i) => [`k${i}`, 'v']))),
  ),
  storageClass('class: parameters over 256 KiB', (o) => (o.parameters = { a: 'x'.repeat(256 * 1024) })),
  storageClass(
    'class: a topology',
    (o) => (o.allowedTopologies = [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }] }]),
  ),
  storageClass('class: an empty topology term', (o) => (o.allowedTopologies = [{}])),
  storageClass('class: two equal topology terms', (o) => {
    const term = { matchLabelExpressions: [{ key: 'zone', values: ['a', 'b'] }] };
    o.allowedTopologies = [term, { matchLabelExpressions: [{ key: 'zone', values: ['b', 'a'] }] }];
  }),
  storageClass(
    'class: topology without values',
    (o) => (o.allowedTopologies = [{ matchLabelExpressions: [{ key: 'zone' }] }]),
  ),
  storageClass('class: topology duplicate value and key', (o) => {
    o.allowedTopologies = [
      {
        matchLabelExpressions: [
          { key: 'a b', values: ['x', 'x'] },
          { key: 'a b', values: ['y'] },
        ],
      },
    ];
  }),
];

const driver = mutationOf(() => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIDriver',
  metadata: { name: 'd.example.com' },
  spec: {},
}));

const DRIVERS = [
  driver('driver: the base'),
  driver('driver: fsGroupPolicy Bogus', (o) => (o.spec.fsGroupPolicy = 'Bogus')),
  driver('driver: fsGroupPolicy File', (o) => (o.spec.fsGroupPolicy = 'File')),
  driver('driver: volumeLifecycleModes Bogus', (o) => (o.spec.volumeLifecycleModes = ['Ephemeral', 'Bogus'])),
  driver(
    'driver: tokenRequests duplicate audience',
    (o) => (o.spec.tokenRequests = [{ audience: 'a' }, { audience: 'a', expirationSeconds: 1 }]),
  ),
  driver(
    'driver: tokenRequests expiration 599',
    (o) => (o.spec.tokenRequests = [{ audience: '', expirationSeconds: 599 }]),
  ),
  driver(
    'driver: tokenRequests expiration 2^32+1',
    (o) => (o.spec.tokenRequests = [{ audience: 'x', expirationSeconds: 2 ** 32 + 1 }]),
  ),
  driver('driver: nodeAllocatableUpdatePeriodSeconds 5', (o) => (o.spec.nodeAllocatableUpdatePeriodSeconds = 5)),
];

describeBuiltinDifferential('storage kinds: synth and the apiserver', [...CLAIMS, ...CLASSES, ...DRIVERS]);

const controller = mutationOf(() => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'rc' },
  spec: {
    selector: { app: 'web' },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  },
}));

const CONTROLLERS = [
  controller('controller: the base'),
  controller('controller: no selector (the template labels)', (o) => delete o.spec.selector),
  controller('controller: no selector, no template labels', (o) => {
    delete o.spec.selector;
    delete o.spec.template.metadata;
  }),
  controller('controller: selector does not match', (o) => (o.spec.selector = { app: 'api' })),
  controller('controller: selector matches a subset', (o) => (o.spec.template.metadata.labels.tier = 'x')),
  controller('controller: replicas -1', (o) => (o.spec.replicas = -1)),
  controller('controller: minReadySeconds -1', (o) => (o.spec.minReadySeconds = -1)),
  controller('controller: no template', (o) => delete o.spec.template),
  controller('controller: selector value x y', (o) => (o.spec.selector = { app: 'x y' })),
  // 1.28 refuses a writable GCE disk where the pods run on several nodes (ValidateReadOnlyPersistentDisks)
  ...[1, 2].flatMap((replicas) =>
    [false, true].map((readOnly) =>
      controller(`controller: GCE disk readOnly ${readOnly}, replicas ${replicas}`, (o) => {
        o.spec.replicas = replicas;
        o.spec.template.spec.volumes = [{ name: 'disk', gcePersistentDisk: { pdName: 'd', readOnly } }];
      }),
    ),
  ),
];

describeBuiltinDifferential('ReplicationController: synth and the apiserver', CONTROLLERS);

/** The pod template's checks are pod-spec.ts's (its messages print the value after them): verdict and fields. */
const CONTROLLER_TEMPLATES = [
  controller('controller template: restartPolicy OnFailure', (o) => (o.spec.template.spec.restartPolicy = 'OnFailure')),
  controller('controller template: activeDeadlineSeconds', (o) => (o.spec.template.spec.activeDeadlineSeconds = 10)),
  controller('controller template: no containers', (o) => (o.spec.template.spec.containers = [])),
  controller('controller template: label value x y', (o) => {
    o.spec.template.metadata.labels.bad = 'x y';
  }),
  // a backslash is no separator on the apiserver (validatePathNoBacksteps)
  controller('controller template: subPath a\\..\\b', (o) => {
    o.spec.template.spec.volumes = [{ name: 'v', emptyDir: {} }];
    o.spec.template.spec.containers[0].volumeMounts = [{ name: 'v', mountPath: '/m', subPath: 'a\\..\\b' }];
  }),
  controller('controller template: subPath a/../b', (o) => {
    o.spec.template.spec.volumes = [{ name: 'v', emptyDir: {} }];
    o.spec.template.spec.containers[0].volumeMounts = [{ name: 'v', mountPath: '/m', subPath: 'a/../b' }];
  }),
];

describeBuiltinDifferential('ReplicationController pod templates: synth and the apiserver', CONTROLLER_TEMPLATES, {
  verdictOnly: CONTROLLER_TEMPLATES.map(([name]) => name),
});

const volume = mutationOf(() => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'v' },
  spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, hostPath: { path: '/data' } },
}));

const VOLUMES = [
  volume('volume: the base'),
  // found by bench/builtin-differential.ts: a hostPath source's path and type
  volume('volume: hostPath without a path', (o) => (o.spec.hostPath = {})),
  volume('volume: hostPath path with ..', (o) => (o.spec.hostPath.path = 'd/../e')),
  volume('volume: hostPath type a_b', (o) => (o.spec.hostPath.type = 'a_b')),
  volume('volume: hostPath type ""', (o) => (o.spec.hostPath.type = '')),
  // a backslash is no separator on the apiserver (validatePathNoBacksteps' filepath.ToSlash, on Linux)
  volume('volume: hostPath path a\\..\\b', (o) => (o.spec.hostPath.path = 'a\\..\\b')),
  volume('volume: hostPath second to a csi source, its path missing', (o) => {
    o.spec.hostPath = {};
    o.spec.csi = { driver: 'd.example.com', volumeHandle: 'h' };
  }),
  volume('volume: a csi source', (o) => {
    delete o.spec.hostPath;
    o.spec.csi = { driver: 'd.example.com', volumeHandle: 'h' };
  }),
  volume('volume: no accessModes', (o) => delete o.spec.accessModes),
  volume('volume: accessModes Bogus', (o) => (o.spec.accessModes = ['Bogus'])),
  volume(
    'volume: ReadWriteOncePod with ReadOnlyMany',
    (o) => (o.spec.accessModes = ['ReadWriteOncePod', 'ReadOnlyMany']),
  ),
  volume('volume: no capacity', (o) => delete o.spec.capacity),
  volume('volume: capacity cpu', (o) => (o.spec.capacity = { storage: '1Gi', cpu: '1' })),
  volume('volume: capacity 0', (o) => (o.spec.capacity.storage = '0')),
  volume('volume: capacity -1.5', (o) => (o.spec.capacity.storage = '-1.5')),
  volume('volume: storageClassName Bad_Name', (o) => (o.spec.storageClassName = 'Bad_Name')),
  volume('volume: volumeMode Bogus', (o) => (o.spec.volumeMode = 'Bogus')),
  volume('volume: reclaim policy Bogus', (o) => (o.spec.persistentVolumeReclaimPolicy = 'Bogus')),
  volume('volume: reclaim policy Recycle', (o) => (o.spec.persistentVolumeReclaimPolicy = 'Recycle')),
  volume('volume: no source', (o) => delete o.spec.hostPath),
  volume('volume: hostPath and nfs', (o) => (o.spec.nfs = { server: 'n', path: '/x' })),
  volume('volume: nfs and csi', (o) => {
    delete o.spec.hostPath;
    o.spec.nfs = { server: 'n', path: '/x' };
    o.spec.csi = { driver: 'd.example.com', volumeHandle: 'h' };
  }),
  // found by the additions differential: a flexVolume is counted but never refused as a second source
  volume('volume: hostPath and flexVolume', (o) => (o.spec.flexVolume = { driver: '010.0.0.1', fsType: 'a/b' })),
  volume('volume: hostPath and a flexVolume without driver', (o) => (o.spec.flexVolume = {})),
  volume('volume: flexVolume, then csi', (o) => {
    delete o.spec.hostPath;
    o.spec.flexVolume = { driver: 'd' };
    o.spec.csi = { driver: 'd.example.com', volumeHandle: 'h' };
  }),
  volume('volume: flexVolume options in reserved namespaces', (o) => {
    delete o.spec.hostPath;
    o.spec.flexVolume = { driver: 'd', options: { 'a.kubernetes.io/x': '1', 'K8S.IO': '2', 'example.com/y': '3' } };
  }),
  volume('volume: hostPath and cephfs', (o) => (o.spec.cephfs = { monitors: ['m'] })),
  // the sources' checks pod volumes share (pod-spec-volume-sources.ts)
  ...(
    [
      ['gcePersistentDisk', { partition: 256 }],
      ['awsElasticBlockStore', { volumeID: 'v', partition: 65535 }],
      ['flocker', { datasetName: 'a/b', datasetUUID: 'u' }],
      ['nfs', { server: 's', path: 'a' }],
      ['rbd', {}],
      ['quobyte', { registry: 'a,b:1', volume: 'v' }],
      ['cephfs', {}],
      ['fc', { targetWWNs: ['a'], lun: 300 }],
      ['vsphereVolume', {}],
      ['photonPersistentDisk', {}],
      ['portworxVolume', {}],
      ['azureDisk', { diskName: 'd', diskURI: 'x', kind: 'Managed', cachingMode: 'Foo' }],
      ['scaleIO', {}],
    ] as const
  ).map(([k, v]) =>
    volume(`volume: ${k} refused`, (o) => {
      delete o.spec.hostPath;
      o.spec[k] = v;
    }),
  ),
  volume('volume: a bad nfs second', (o) => (o.spec.nfs = { path: 'a' })),
  // volumeAttributesClassName: dropped before 1.34 (1.28: unknown), then checked, and only on a CSI volume
  volume('volume: volumeAttributesClassName a-', (o) => (o.spec.volumeAttributesClassName = 'a-')),
  volume('volume: volumeAttributesClassName ""', (o) => (o.spec.volumeAttributesClassName = '')),
  volume('volume: volumeAttributesClassName on a csi volume', (o) => {
    delete o.spec.hostPath;
    o.spec.csi = { driver: 'd.example.com', volumeHandle: 'h' };
    o.spec.volumeAttributesClassName = 'gold';
  }),
  volume('volume: volumeAttributesClassName Bad on a csi volume', (o) => {
    delete o.spec.hostPath;
    o.spec.csi = { driver: 'd.example.com', volumeHandle: 'h' };
    o.spec.volumeAttributesClassName = 'Bad';
  }),
];

describeBuiltinDifferential('PersistentVolume: synth and the apiserver', VOLUMES);

/** A volume of source `kind` (the hostPath gone), mutated further. */
const withSource = (name: string, kind: string, source: unknown, more?: (o: any) => void) =>
  volume(name, (o) => {
    delete o.spec.hostPath;
    o.spec[kind] = source;
    more?.(o);
  });

const NODE_AFFINITY = {
  required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: ['v'] }] }] },
};

/** A node affinity whose one required term is `term`. */
const affinityOf = (term: unknown) => ({ required: { nodeSelectorTerms: [term] } });
const expression = (e: unknown) => affinityOf({ matchExpressions: [e] });

/** validateVolumeNodeAffinity (its requirements are a pod's required node affinity's, pod-spec-scheduling.ts). */
const NODE_AFFINITIES = [
  volume('volume nodeAffinity: a term', (o) => (o.spec.nodeAffinity = NODE_AFFINITY)),
  volume('volume nodeAffinity: null', (o) => (o.spec.nodeAffinity = null)),
  volume('volume nodeAffinity: {}', (o) => (o.spec.nodeAffinity = {})),
  volume('volume nodeAffinity: required null', (o) => (o.spec.nodeAffinity = { required: null })),
  volume('volume nodeAffinity: required without terms', (o) => (o.spec.nodeAffinity = { required: {} })),
  volume('volume nodeAffinity: an empty term', (o) => (o.spec.nodeAffinity = affinityOf({}))),
  volume('volume nodeAffinity: operator Bogus', (o) => {
    o.spec.nodeAffinity = expression({ key: 'k', operator: 'Bogus' });
  }),
  volume('volume nodeAffinity: no operator', (o) => (o.spec.nodeAffinity = expression({ key: 'k' }))),
  volume('volume nodeAffinity: In without values, key a b', (o) => {
    o.spec.nodeAffinity = expression({ key: 'a b', operator: 'In' });
  }),
  // the values are label values from 1.33 (refused by 1.36, accepted by 1.28 and 1.32)
  volume('volume nodeAffinity: value a b', (o) => {
    o.spec.nodeAffinity = expression({ key: 'k', operator: 'In', values: ['a b'] });
  }),
  volume('volume nodeAffinity: Exists with values', (o) => {
    o.spec.nodeAffinity = expression({ key: 'k', operator: 'Exists', values: ['1'] });
  }),
  volume('volume nodeAffinity: DoesNotExist', (o) => {
    o.spec.nodeAffinity = expression({ key: 'k', operator: 'DoesNotExist' });
  }),
  volume('volume nodeAffinity: Gt with two values', (o) => {
    o.spec.nodeAffinity = expression({ key: 'k', operator: 'Gt', values: ['1', '2'] });
  }),
  volume('volume nodeAffinity: Gt abc', (o) => {
    o.spec.nodeAffinity = expression({ key: 'k', operator: 'Gt', values: ['abc'] });
  }),
  volume('volume nodeAffinity: matchFields metadata.x with two values', (o) => {
    o.spec.nodeAffinity = affinityOf({ matchFields: [{ key: 'metadata.x', operator: 'In', values: ['a', 'b'] }] });
  }),
  volume('volume nodeAffinity: matchFields metadata.name A_B', (o) => {
    o.spec.nodeAffinity = affinityOf({ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['A_B'] }] });
  }),
  volume('volume nodeAffinity: matchFields metadata.name n1', (o) => {
    o.spec.nodeAffinity = affinityOf({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] });
  }),
  volume('volume nodeAffinity: a second term bad', (o) => {
    o.spec.nodeAffinity = {
      required: { nodeSelectorTerms: [{}, { matchExpressions: [{ key: 'k', operator: 'In' }] }] },
    };
  }),
];

/** validateLocalVolumeSource, and the node affinity a local volume needs. */
const LOCALS = [
  withSource('volume local: with node affinity', 'local', { path: '/mnt/x' }, (o) => {
    o.spec.nodeAffinity = NODE_AFFINITY;
  }),
  withSource('volume local: without node affinity', 'local', { path: '/mnt/x' }),
  withSource('volume local: node affinity null', 'local', { path: '/mnt/x' }, (o) => (o.spec.nodeAffinity = null)),
  withSource('volume local: node affinity {}, no path', 'local', {}, (o) => (o.spec.nodeAffinity = {})),
  withSource('volume local: without path', 'local', { path: '' }, (o) => (o.spec.nodeAffinity = NODE_AFFINITY)),
  withSource('volume local: path a/../b', 'local', { path: 'a/../b' }, (o) => (o.spec.nodeAffinity = NODE_AFFINITY)),
  withSource('volume local: path relative', 'local', { path: 'rel' }, (o) => (o.spec.nodeAffinity = NODE_AFFINITY)),
  // a backslash is no separator on the apiserver (validatePathNoBacksteps' filepath.ToSlash, on Linux)
  withSource('volume local: path a\\..\\b', 'local', { path: 'a\\..\\b' }, (o) => {
    o.spec.nodeAffinity = NODE_AFFINITY;
  }),
  volume('volume local: second to hostPath, without node affinity', (o) => (o.spec.local = { path: '' })),
];

const IQN = 'iqn.2001-04.com.example:storage';
const EUI = 'eui.0123456789ABCDEF';

/** The sources a PersistentVolume checks its own way (storage-pv-sources.ts). */
const OWN_SOURCES = [
  withSource('volume glusterfs: with a namespace', 'glusterfs', {
    endpoints: 'e',
    path: 'p',
    endpointsNamespace: 'ns',
  }),
  withSource('volume glusterfs: empty', 'glusterfs', {}),
  withSource('volume glusterfs: namespace ""', 'glusterfs', { endpoints: 'e', path: 'p', endpointsNamespace: '' }),
  withSource('volume glusterfs: namespace Bad_NS', 'glusterfs', {
    endpoints: 'e',
    path: 'p',
    endpointsNamespace: 'Bad_NS',
  }),
  withSource('volume glusterfs: namespace null', 'glusterfs', { endpoints: 'e', path: 'p', endpointsNamespace: null }),
  withSource('volume glusterfs: bad, with a second nfs', 'glusterfs', { endpointsNamespace: '' }, (o) => {
    o.spec.nfs = { server: 's', path: '/x' };
  }),
  withSource('volume iscsi: the base', 'iscsi', { targetPortal: 't:3260', iqn: IQN, lun: 0 }),
  withSource('volume iscsi: empty', 'iscsi', {}),
  withSource('volume iscsi: iqn abc', 'iscsi', { targetPortal: 't', iqn: 'abc' }),
  withSource('volume iscsi: iqn iqn.x', 'iscsi', { targetPortal: 't', iqn: 'iqn.x' }),
  withSource('volume iscsi: lun 256', 'iscsi', { targetPortal: 't', iqn: EUI, lun: 256 }),
  withSource('volume iscsi: chap without secret', 'iscsi', { targetPortal: 't', iqn: EUI, chapAuthSession: true }),
  withSource('volume iscsi: secretRef without name', 'iscsi', { targetPortal: 't', iqn: EUI, secretRef: {} }),
  withSource('volume iscsi: initiator xyz', 'iscsi', { targetPortal: 't', iqn: EUI, initiatorName: 'xyz' }),
  withSource('volume iscsi: initiator naa.1', 'iscsi', { targetPortal: 't', iqn: EUI, initiatorName: 'naa.1' }),
  withSource('volume iscsi: initiator ""', 'iscsi', { targetPortal: 't', iqn: EUI, initiatorName: '' }),
  // `v:` and the portal: at most 64 bytes with an initiator name
  withSource('volume iscsi: portal of 63, an initiator', 'iscsi', {
    targetPortal: 'p'.repeat(63),
    iqn: EUI,
    initiatorName: IQN,
  }),
  withSource('volume iscsi: portal of 62, an initiator', 'iscsi', {
    targetPortal: 'p'.repeat(62),
    iqn: EUI,
    initiatorName: IQN,
  }),
  withSource('volume iscsi: portal of 63, no initiator', 'iscsi', { targetPortal: 'p'.repeat(63), iqn: EUI }),
  withSource('volume cinder: a secret', 'cinder', { volumeID: 'v', secretRef: { name: 'n', namespace: 'ns' } }),
  withSource('volume cinder: secretRef {}', 'cinder', { volumeID: 'v', secretRef: {} }),
  withSource('volume cinder: secret without namespace, no volumeID', 'cinder', { secretRef: { name: 'n' } }),
  withSource('volume cinder: no secret', 'cinder', { volumeID: 'v' }),
  withSource('volume storageos: a secret', 'storageos', {
    volumeName: 'v',
    volumeNamespace: 'ns',
    secretRef: { name: 'n', namespace: 'ns' },
  }),
  withSource('volume storageos: secretRef {}', 'storageos', { secretRef: {} }),
  withSource('volume storageos: bad names, secret without namespace', 'storageos', {
    volumeName: 'V_1',
    volumeNamespace: 'N_1',
    secretRef: { name: 'n' },
  }),
  withSource('volume storageos: secret without name', 'storageos', { volumeName: 'v', secretRef: { namespace: 'n' } }),
  withSource('volume azureFile: a namespace', 'azureFile', { secretName: 's', shareName: 'x', secretNamespace: 'ns' }),
  withSource('volume azureFile: namespace ""', 'azureFile', { secretNamespace: '' }),
  withSource('volume azureFile: namespace null', 'azureFile', {
    secretName: 's',
    shareName: 'x',
    secretNamespace: null,
  }),
];

const CSI = { driver: 'd.example.com', volumeHandle: 'h' };

/** validateCSIPersistentVolumeSource. */
const CSI_SOURCES = [
  withSource('volume csi: every field', 'csi', {
    ...CSI,
    fsType: 'ext4',
    readOnly: true,
    volumeAttributes: { a: 'b' },
  }),
  // an empty driver: 1.28 and 1.32 add the subdomain's error, 1.36 not
  withSource('volume csi: empty', 'csi', {}),
  withSource('volume csi: driver of 64', 'csi', { ...CSI, driver: 'a'.repeat(64) }),
  withSource('volume csi: driver Example.COM', 'csi', { ...CSI, driver: 'Example.COM' }),
  withSource('volume csi: driver a_b', 'csi', { ...CSI, driver: 'a_b' }),
  withSource('volume csi: no volumeHandle', 'csi', { driver: 'd' }),
  ...['controllerPublishSecretRef', 'controllerExpandSecretRef', 'nodePublishSecretRef', 'nodeExpandSecretRef'].flatMap(
    (ref) => [
      withSource(`volume csi: ${ref} {}`, 'csi', { ...CSI, [ref]: {} }),
      withSource(`volume csi: ${ref} A_B in Bad_NS`, 'csi', { ...CSI, [ref]: { name: 'A_B', namespace: 'Bad_NS' } }),
      withSource(`volume csi: ${ref} a.b in ns`, 'csi', { ...CSI, [ref]: { name: 'a.b', namespace: 'ns' } }),
    ],
  ),
  withSource('volume csi: nodeStageSecretRef {}', 'csi', { ...CSI, nodeStageSecretRef: {} }),
  withSource('volume csi: secret namespace of 64', 'csi', {
    ...CSI,
    nodePublishSecretRef: { name: 'a', namespace: 'a'.repeat(64) },
  }),
];

/** The reclaim policy of a hostPath of `/`, and the strategy's mount options annotation. */
const RECYCLE_AND_MOUNT_OPTIONS = [
  volume('volume recycle: hostPath /', (o) => {
    o.spec.hostPath.path = '/';
    o.spec.persistentVolumeReclaimPolicy = 'Recycle';
  }),
  volume('volume recycle: hostPath /a/..', (o) => {
    o.spec.hostPath.path = '/a/..';
    o.spec.persistentVolumeReclaimPolicy = 'Recycle';
  }),
  volume('volume recycle: hostPath /x', (o) => (o.spec.persistentVolumeReclaimPolicy = 'Recycle')),
  volume('volume recycle: hostPath / deleted', (o) => {
    o.spec.hostPath.path = '/';
    o.spec.persistentVolumeReclaimPolicy = 'Delete';
  }),
  withSource('volume recycle: hostPath / second to csi', 'csi', CSI, (o) => {
    o.spec.hostPath = { path: '//' };
    o.spec.persistentVolumeReclaimPolicy = 'Recycle';
  }),
  ...(
    [
      ['hostPath', undefined],
      ['nfs', { server: 's', path: '/x' }],
      ['csi', CSI],
      ['flexVolume', { driver: 'd' }],
      ['storageos', { volumeName: 'v' }],
    ] as const
  ).map(([kind, source]) =>
    volume(`volume mount options annotation: ${kind}`, (o) => {
      o.metadata.annotations = { 'volume.beta.kubernetes.io/mount-options': 'ro' };
      if (source === undefined) return;
      delete o.spec.hostPath;
      o.spec[kind] = source;
    }),
  ),
  withSource('volume mount options annotation: local', 'local', { path: '/x' }, (o) => {
    o.metadata.annotations = { 'volume.beta.kubernetes.io/mount-options': '' };
    o.spec.nodeAffinity = NODE_AFFINITY;
  }),
  volume('volume mount options annotation: hostPath and nfs', (o) => {
    o.metadata.annotations = { 'volume.beta.kubernetes.io/mount-options': 'ro' };
    o.spec.nfs = { server: 's', path: '/x' };
  }),
  volume('volume mountOptions: hostPath', (o) => (o.spec.mountOptions = ['ro'])),
];

describeBuiltinDifferential('PersistentVolume node affinity and own sources: synth and the apiserver', [
  ...NODE_AFFINITIES,
  ...LOCALS,
  ...OWN_SOURCES,
  ...CSI_SOURCES,
  ...RECYCLE_AND_MOUNT_OPTIONS,
]);
