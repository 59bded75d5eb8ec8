/**
 * The differential cases of the apps kinds' own fields: a valid base object of each kind and one mutation each,
 * keeping the pod template valid (its own checks are the pod spec suite's).
 */

export type Case = readonly [name: string, object: any];

const template = (labels: Record<string, string> = { app: 'web' }) => ({
  metadata: { labels },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
});

const deployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: template() },
});
const replicaSet = () => ({ ...deployment(), kind: 'ReplicaSet' });
const statefulSet = () => ({
  ...deployment(),
  kind: 'StatefulSet',
  spec: { ...deployment().spec, serviceName: 'web' },
});
const daemonSet = () => ({ ...deployment(), kind: 'DaemonSet' });

function variant(base: () => any, change: (o: any) => void): any {
  const o = base();
  change(o);
  return o;
}

/** Selector cases every apps kind shares. */
function selectorCases(kind: string, base: () => any): Case[] {
  const c = (name: string, change: (o: any) => void): Case => [`${kind}: ${name}`, variant(base, change)];
  return [
    [`${kind}: valid`, base()],
    c('no selector', (o) => delete o.spec.selector),
    c('empty selector', (o) => (o.spec.selector = {})),
    c('selector does not match template labels', (o) => (o.spec.selector.matchLabels = { app: 'api' })),
    c('template without labels', (o) => delete o.spec.template.metadata),
    c('bad matchLabels key', (o) => (o.spec.selector.matchLabels = { 'bad key': 'web' })),
    c('bad matchLabels value', (o) => (o.spec.selector.matchLabels = { app: 'web!' })),
    c(
      'In expression matching',
      (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'x'] }] }),
    ),
    c(
      'NotIn expression excluding the template',
      (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] }),
    ),
    c('Exists expression', (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'Exists' }] })),
    c(
      'DoesNotExist expression on the template label',
      (o) => (o.spec.selector = { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }),
    ),
    c(
      'In without values',
      (o) =>
        (o.spec.selector = {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'app', operator: 'In', values: [] }],
        }),
    ),
    c(
      'Exists with values',
      (o) =>
        (o.spec.selector = {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'app', operator: 'Exists', values: ['web'] }],
        }),
    ),
    c(
      'unknown operator',
      (o) =>
        (o.spec.selector = {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'app', operator: 'Equals', values: ['web'] }],
        }),
    ),
    c(
      'bad expression key',
      (o) =>
        (o.spec.selector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: '-app', operator: 'Exists' }] }),
    ),
    c(
      'bad expression value',
      (o) =>
        (o.spec.selector = {
          matchLabels: { app: 'web' },
          matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'a b'] }],
        }),
    ),
    c('extra template labels', (o) => (o.spec.template.metadata.labels = { app: 'web', tier: 'front' })),
    c('template activeDeadlineSeconds', (o) => (o.spec.template.spec.activeDeadlineSeconds = 10)),
    c('template restartPolicy ""', (o) => (o.spec.template.spec.restartPolicy = '')),
    c('prefixed selector key', (o) => {
      o.spec.selector.matchLabels = { 'example.com/app': 'web' };
      o.spec.template.metadata.labels = { 'example.com/app': 'web' };
    }),
  ];
}

function numberCases(kind: string, base: () => any, fields: readonly string[]): Case[] {
  return fields.flatMap((f) => [
    [`${kind}: ${f} -1`, variant(base, (o) => (o.spec[f] = -1))] as Case,
    [`${kind}: ${f} 0`, variant(base, (o) => (o.spec[f] = 0))] as Case,
  ]);
}

/**
 * A GCE persistent disk in the template, read-only or not, and `replicas` (1.28 refuses a writable one where the pods
 * run on several nodes: `ValidateReadOnlyPersistentDisks`; later versions skip the check).
 */
function gceDiskCases(kind: string, base: () => any): Case[] {
  const disk = (readOnly: boolean | undefined, replicas: number | undefined) =>
    variant(base, (o) => {
      if (replicas !== undefined) o.spec.replicas = replicas;
      o.spec.template.spec.volumes = [
        { name: 'disk', gcePersistentDisk: { pdName: 'd', ...(readOnly === undefined ? {} : { readOnly }) } },
      ];
    });
  const replicated = kind === 'DaemonSet' ? [undefined] : [undefined, 2];
  return replicated.flatMap((replicas) =>
    [undefined, false, true].map((readOnly): Case => [
      `${kind}: GCE disk readOnly ${readOnly}, replicas ${replicas ?? 'unset'}`,
      disk(readOnly, replicas),
    ]),
  );
}

const d = (name: string, change: (o: any) => void): Case => [`Deployment: ${name}`, variant(deployment, change)];
const s = (name: string, change: (o: any) => void): Case => [`StatefulSet: ${name}`, variant(statefulSet, change)];
const ds = (name: string, change: (o: any) => void): Case => [`DaemonSet: ${name}`, variant(daemonSet, change)];

const DEPLOYMENT: Case[] = [
  ...selectorCases('Deployment', deployment),
  ...gceDiskCases('Deployment', deployment),
  ...numberCases('Deployment', deployment, [
    'replicas',
    'minReadySeconds',
    'revisionHistoryLimit',
    'progressDeadlineSeconds',
  ]),
  d('minReadySeconds beyond the default progress deadline', (o) => (o.spec.minReadySeconds = 600)),
  d('progressDeadlineSeconds equal to minReadySeconds', (o) =>
    Object.assign(o.spec, { minReadySeconds: 30, progressDeadlineSeconds: 30 }),
  ),
  d('progressDeadlineSeconds above minReadySeconds', (o) =>
    Object.assign(o.spec, { minReadySeconds: 30, progressDeadlineSeconds: 31 }),
  ),
  d('Recreate', (o) => (o.spec.strategy = { type: 'Recreate' })),
  d('Recreate with rollingUpdate', (o) => (o.spec.strategy = { type: 'Recreate', rollingUpdate: { maxSurge: 1 } })),
  d('unknown strategy type', (o) => (o.spec.strategy = { type: 'BlueGreen' })),
  d('empty strategy type', (o) => (o.spec.strategy = { type: '' })),
  d('rollingUpdate without type', (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } })),
  d('both 0', (o) => (o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } })),
  d(
    'both 0%',
    (o) => (o.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '0%', maxUnavailable: '0%' } }),
  ),
  d('maxUnavailable 0 with default surge', (o) => (o.spec.strategy = { rollingUpdate: { maxUnavailable: 0 } })),
  d('maxSurge 0 with default unavailable', (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: 0 } })),
  d('maxUnavailable 101%', (o) => (o.spec.strategy = { rollingUpdate: { maxUnavailable: '101%' } })),
  d('maxUnavailable 100%', (o) => (o.spec.strategy = { rollingUpdate: { maxUnavailable: '100%' } })),
  d('maxSurge 200%', (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: '200%' } })),
  d('maxSurge -1', (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: -1 } })),
  d('maxSurge "abc"', (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: 'abc' } })),
  d('maxSurge "5" (no percent)', (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: '5' } })),
  d(
    'maxSurge "abc" and maxUnavailable 0',
    (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: 'abc', maxUnavailable: 0 } }),
  ),
  d(
    'maxSurge "5" and maxUnavailable 0',
    (o) => (o.spec.strategy = { rollingUpdate: { maxSurge: '5', maxUnavailable: 0 } }),
  ),
  d('maxUnavailable "-5%"', (o) => (o.spec.strategy = { rollingUpdate: { maxUnavailable: '-5%' } })),
  d('replicas 0 and everything set', (o) =>
    Object.assign(o.spec, {
      replicas: 0,
      minReadySeconds: 5,
      revisionHistoryLimit: 0,
      progressDeadlineSeconds: 6,
      paused: true,
    }),
  ),
];

const REPLICA_SET: Case[] = [
  ...selectorCases('ReplicaSet', replicaSet),
  ...numberCases('ReplicaSet', replicaSet, ['replicas', 'minReadySeconds']),
  ...gceDiskCases('ReplicaSet', replicaSet),
];

const STATEFUL_SET: Case[] = [
  ...selectorCases('StatefulSet', statefulSet),
  ...numberCases('StatefulSet', statefulSet, ['replicas', 'minReadySeconds', 'revisionHistoryLimit']),
  ...gceDiskCases('StatefulSet', statefulSet),
  s('no serviceName', (o) => delete o.spec.serviceName),
  s('bad serviceName', (o) => (o.spec.serviceName = 'Bad_Name')),
  s('Parallel', (o) => (o.spec.podManagementPolicy = 'Parallel')),
  s('unknown podManagementPolicy', (o) => (o.spec.podManagementPolicy = 'Random')),
  s('OnDelete', (o) => (o.spec.updateStrategy = { type: 'OnDelete' })),
  s(
    'OnDelete with rollingUpdate',
    (o) => (o.spec.updateStrategy = { type: 'OnDelete', rollingUpdate: { partition: 1 } }),
  ),
  s('unknown updateStrategy', (o) => (o.spec.updateStrategy = { type: 'Recreate' })),
  s('partition -1', (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: -1 } })),
  s('partition 3', (o) => (o.spec.updateStrategy = { rollingUpdate: { partition: 3 } })),
  s('maxUnavailable 0', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 0 } })),
  s('maxUnavailable 2', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 2 } })),
  s('maxUnavailable 150%', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: '150%' } })),
  s('serviceName with dots', (o) => (o.spec.serviceName = 'web.example')),
  s('empty serviceName', (o) => (o.spec.serviceName = '')),
  s('maxUnavailable "x"', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 'x' } })),
  s(
    'retention Delete/Delete',
    (o) => (o.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Delete', whenScaled: 'Delete' }),
  ),
  s('retention unknown whenDeleted', (o) => (o.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Keep' })),
  s('retention unknown whenScaled', (o) => (o.spec.persistentVolumeClaimRetentionPolicy = { whenScaled: 'delete' })),
  s('retention empty', (o) => (o.spec.persistentVolumeClaimRetentionPolicy = {})),
  s('ordinals.start 2', (o) => (o.spec.ordinals = { start: 2 })),
  s('ordinals.start -1', (o) => (o.spec.ordinals = { start: -1 })),
  s('ordinals empty', (o) => (o.spec.ordinals = {})),
  s(
    'volumeClaimTemplate valid',
    (o) =>
      (o.spec.volumeClaimTemplates = [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ]),
  ),
  s(
    'volumeClaimTemplate without accessModes',
    (o) =>
      (o.spec.volumeClaimTemplates = [
        { metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } },
      ]),
  ),
  s(
    'volumeClaimTemplate without storage',
    (o) => (o.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }]),
  ),
  s(
    'volumeClaimTemplate bad access mode',
    (o) =>
      (o.spec.volumeClaimTemplates = [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteSometimes'], resources: { requests: { storage: '1Gi' } } },
        },
      ]),
  ),
  ...[
    ['storage 0', { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '0' } } }],
    ['storage -1Gi', { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '-1Gi' } } }],
    [
      'ReadWriteOncePod with another mode',
      { accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    ],
    ['two modes', { accessModes: ['ReadWriteOnce', 'ReadOnlyMany'], resources: { requests: { storage: '1Gi' } } }],
    ['a limit only', { accessModes: ['ReadWriteOnce'], resources: { limits: { storage: '1Gi' } } }],
    ['no spec', undefined],
    // found by the additions differential: 1.36 checks the whole claim spec, as written (no claim's PrepareForCreate)
    ...(
      [
        ['volumeAttributesClassName /a', { volumeAttributesClassName: '/a' }],
        ['storageClassName Bad_Class', { storageClassName: 'Bad_Class' }],
        ['volumeMode Raw', { volumeMode: 'Raw' }],
        ['selector key a b', { selector: { matchLabels: { 'a b': 'x' } } }],
        ['dataSourceRef of kind X', { dataSourceRef: { kind: 'X', name: 'n' } }],
        [
          'dataSourceRef with namespace @',
          { dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'n', namespace: '@' } },
        ],
        ['dataSourceRef apiGroup Bad_G', { dataSourceRef: { kind: 'X', apiGroup: 'Bad_G', name: 'n' } }],
        ['dataSource without name', { dataSource: { kind: 'PersistentVolumeClaim' } }],
        ['dataSource of kind X', { dataSource: { kind: 'X', name: 'n' } }],
        ['dataSource of kind X in example.com', { dataSource: { kind: 'X', apiGroup: 'example.com', name: 'n' } }],
        [
          'dataSource beside a dataSourceRef with a namespace',
          {
            dataSource: { kind: 'PersistentVolumeClaim', name: 'n' },
            dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'n', namespace: 'o' },
          },
        ],
        [
          'dataSource and dataSourceRef differ',
          {
            dataSource: { kind: 'PersistentVolumeClaim', name: 'n' },
            dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'm' },
          },
        ],
      ] as const
    ).map(([name, more]) => [
      name,
      { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...more },
    ]),
  ].map(([name, spec]) =>
    s(
      `volumeClaimTemplate ${name}`,
      (o) => (o.spec.volumeClaimTemplates = [{ metadata: { name: 'data' }, ...(spec ? { spec } : {}) }]),
    ),
  ),
  // measured: no version checks a claim template's metadata (but its name, as a volume's, from 1.36), nor does 1.28
  // or 1.32 check its spec (the cases above: all accepted there)
  ...(
    [
      ['metadata namespace, generateName and finalizers', { namespace: 'x', generateName: 'g', finalizers: ['a/b'] }],
      ['metadata label key a b', { labels: { 'a b': 'x' } }],
    ] as const
  ).map(([name, meta]) =>
    s(
      `volumeClaimTemplate ${name} (not validated)`,
      (o) =>
        (o.spec.volumeClaimTemplates = [
          {
            metadata: { name: 'data', ...meta },
            spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
          },
        ]),
    ),
  ),
  s('two volumeClaimTemplates of one name (not validated)', (o) => {
    const claim = {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
    };
    o.spec.volumeClaimTemplates = [claim, claim];
  }),
  s('a container mounts a claim', (o) => {
    o.spec.volumeClaimTemplates = [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ];
    o.spec.template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
  }),
  s('a claim and a template volume of one name', (o) => {
    o.spec.volumeClaimTemplates = [
      {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      },
    ];
    o.spec.template.spec.volumes = [{ name: 'data', emptyDir: {} }];
    o.spec.template.spec.containers[0].volumeMounts = [{ name: 'data', mountPath: '/data' }];
  }),
  s('template annotation key upper-case', (o) => (o.spec.template.metadata.annotations = { 'Example.COM/Key': 'x' })),
];

const DAEMON_SET: Case[] = [
  ...selectorCases('DaemonSet', daemonSet),
  ...numberCases('DaemonSet', daemonSet, ['minReadySeconds', 'revisionHistoryLimit']),
  ...gceDiskCases('DaemonSet', daemonSet),
  ds('OnDelete', (o) => (o.spec.updateStrategy = { type: 'OnDelete' })),
  ds(
    'OnDelete with rollingUpdate',
    (o) => (o.spec.updateStrategy = { type: 'OnDelete', rollingUpdate: { maxSurge: 1 } }),
  ),
  ds('unknown updateStrategy', (o) => (o.spec.updateStrategy = { type: 'Recreate' })),
  ds('maxSurge 1 with default unavailable', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxSurge: 1 } })),
  ds(
    'maxSurge 1, maxUnavailable 0',
    (o) => (o.spec.updateStrategy = { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } }),
  ),
  ds(
    'maxSurge 10%, maxUnavailable 0%',
    (o) => (o.spec.updateStrategy = { rollingUpdate: { maxSurge: '10%', maxUnavailable: '0%' } }),
  ),
  ds('maxUnavailable 0', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 0 } })),
  ds(
    'both 0',
    (o) => (o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } }),
  ),
  ds('maxUnavailable 150%', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: '150%' } })),
  ds(
    'maxSurge 150%, maxUnavailable 0',
    (o) => (o.spec.updateStrategy = { rollingUpdate: { maxSurge: '150%', maxUnavailable: 0 } }),
  ),
  ds('maxUnavailable -1', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: -1 } })),
  ds('maxUnavailable "x"', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: 'x' } })),
  ds('maxUnavailable 100%', (o) => (o.spec.updateStrategy = { rollingUpdate: { maxUnavailable: '100%' } })),
];

/**
 * Cases of a StatefulSet's pod template on the versions that do not validate its pod spec (1.28, 1.32): only the
 * kind's own checks refuse them there; on 1.36 the pod spec's checks (`podTemplateIssues`) refuse them too (twice for
 * the labels and annotations, and the claim's name as a volume's), so they join the 1.36 cases with those checks.
 */
export const STATEFUL_TEMPLATE_CASES: readonly Case[] = [
  s('template restartPolicy Never', (o) => (o.spec.template.spec.restartPolicy = 'Never')),
  s('template restartPolicy Bogus', (o) => (o.spec.template.spec.restartPolicy = 'Bogus')),
  s('template label key "bad key"', (o) => (o.spec.template.metadata.labels = { app: 'web', 'bad key': 'x' })),
  s('template annotation key "bad key"', (o) => (o.spec.template.metadata.annotations = { 'bad key': 'x' })),
  s(
    'volumeClaimTemplate named Bad_Name',
    (o) =>
      (o.spec.volumeClaimTemplates = [
        {
          metadata: { name: 'Bad_Name' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ]),
  ),
  s('template container Bad_Name (not validated)', (o) => (o.spec.template.spec.containers[0].name = 'Bad_Name')),
  // 1.36 validates the pod spec but not its hostname and subdomain (found by the additions differential)
  s('template hostname -a (not validated)', (o) => (o.spec.template.spec.hostname = '-a')),
  s('template subdomain SCTP (not validated)', (o) => (o.spec.template.spec.subdomain = 'SCTP')),
  s(
    'template mounts an unknown volume (not validated)',
    (o) => (o.spec.template.spec.containers[0].volumeMounts = [{ name: 'nothing', mountPath: '/data' }]),
  ),
];

/** @internal */
export const WORKLOAD_CASES: readonly Case[] = [...DEPLOYMENT, ...REPLICA_SET, ...STATEFUL_SET, ...DAEMON_SET];
