import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** v1 LimitRange and ResourceQuota: synth's verdict against the real apiservers'. */

const limits = (item: object) =>
  mutationOf(() => ({
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'l' },
    spec: { limits: [structuredClone(item)] },
  }));
const container = limits({ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '100m' } });
const pod = limits({ type: 'Pod', max: { cpu: '4' } });
const pvc = limits({ type: 'PersistentVolumeClaim', max: { storage: '10Gi' } });

const LIMIT_RANGES = [
  container('limits: a Container item'),
  // found by bench/builtin-differential.ts: the apiserver names a LimitRange without a name itself (a UUID)
  container('limits: no name', (o) => delete o.metadata.name),
  container('limits: neither name nor generateName, a bad label', (o) => {
    delete o.metadata.name;
    o.metadata.labels = { a: '-x' };
  }),
  container('limits: min above max', (o) => (o.spec.limits[0].min.cpu = '3')),
  container('limits: min above max, in other units', (o) => (o.spec.limits[0].min.memory = '2048Mi')),
  container('limits: default above max', (o) => (o.spec.limits[0].default = { cpu: '2500m' })),
  container('limits: defaultRequest above default', (o) => {
    o.spec.limits[0].default = { cpu: '1' };
    o.spec.limits[0].defaultRequest = { cpu: '1.5' };
  }),
  container('limits: defaultRequest below min', (o) => (o.spec.limits[0].defaultRequest = { cpu: '50m' })),
  container('limits: maxLimitRequestRatio 0.5', (o) => (o.spec.limits[0].maxLimitRequestRatio = { cpu: '0.5' })),
  container(
    'limits: maxLimitRequestRatio above max/min',
    (o) => (o.spec.limits[0].maxLimitRequestRatio = { cpu: '30' }),
  ),
  container('limits: maxLimitRequestRatio 20', (o) => (o.spec.limits[0].maxLimitRequestRatio = { cpu: '20' })),
  container('limits: resource storage', (o) => (o.spec.limits[0].max.storage = '1Gi')),
  container('limits: resource foo', (o) => (o.spec.limits[0].max.foo = '1')),
  container('limits: resource example.com/gpu', (o) => (o.spec.limits[0].max['example.com/gpu'] = '1')),
  container('limits: hugepages default and defaultRequest differ', (o) => {
    o.spec.limits[0].default = { 'hugepages-2Mi': '4Mi' };
    o.spec.limits[0].defaultRequest = { 'hugepages-2Mi': '2Mi' };
  }),
  container('limits: type Bogus', (o) => (o.spec.limits[0].type = 'Bogus')),
  container('limits: type ""', (o) => (o.spec.limits[0].type = '')),
  container('limits: type example.com/thing', (o) => (o.spec.limits[0].type = 'example.com/thing')),
  container('limits: two Container items', (o) => o.spec.limits.push({ type: 'Container' })),
  pod('limits: a Pod item'),
  pod('limits: a Pod item with default', (o) => (o.spec.limits[0].default = { cpu: '1' })),
  pod('limits: a Pod item with defaultRequest', (o) => (o.spec.limits[0].defaultRequest = { cpu: '1' })),
  pod('limits: a Pod item with min above max', (o) => (o.spec.limits[0].min = { cpu: '5' })),
  pvc('limits: a PersistentVolumeClaim item'),
  pvc('limits: a PersistentVolumeClaim item without storage', (o) => (o.spec.limits[0].max = { cpu: '1' })),
  pvc('limits: a PersistentVolumeClaim item min above max', (o) => (o.spec.limits[0].min = { storage: '20Gi' })),
];

const quota = mutationOf(() => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name: 'q' },
  spec: { hard: { pods: '10', 'requests.cpu': '4' } },
}));
const selector = (o: any, ...matchExpressions: object[]) => (o.spec.scopeSelector = { matchExpressions });

const QUOTAS = [
  quota('quota: the base'),
  quota('quota: pods -1', (o) => (o.spec.hard.pods = '-1')),
  quota('quota: pods 1.5', (o) => (o.spec.hard.pods = '1.5')),
  quota('quota: requests.cpu 0.5', (o) => (o.spec.hard['requests.cpu'] = '0.5')),
  quota('quota: resource storage', (o) => (o.spec.hard.storage = '1Gi')),
  quota('quota: resource foo', (o) => (o.spec.hard.foo = '1')),
  quota('quota: count/deployments.apps', (o) => (o.spec.hard['count/deployments.apps'] = '2')),
  quota('quota: requests.example.com/gpu 1.5', (o) => (o.spec.hard['requests.example.com/gpu'] = '1.5')),
  quota('quota: example.com/gpu 1.5', (o) => (o.spec.hard['example.com/gpu'] = '1.5')),
  quota('quota: requests.hugepages-2Mi', (o) => (o.spec.hard['requests.hugepages-2Mi'] = '1Gi')),
  quota('quota: scope Bogus', (o) => (o.spec.scopes = ['Bogus'])),
  quota('quota: scope BestEffort with cpu', (o) => (o.spec.scopes = ['BestEffort'])),
  quota('quota: scope NotTerminating', (o) => (o.spec.scopes = ['NotTerminating'])),
  quota('quota: scope Terminating with secrets', (o) => {
    o.spec.scopes = ['Terminating'];
    o.spec.hard.secrets = '3';
  }),
  quota('quota: scopes Terminating and NotTerminating', (o) => (o.spec.scopes = ['Terminating', 'NotTerminating'])),
  quota('quota: scope VolumeAttributesClass', (o) => {
    o.spec.hard = { 'requests.storage': '1Gi' };
    selector(o, { scopeName: 'VolumeAttributesClass', operator: 'In', values: ['gold'] });
  }),
  quota('quota: selector PriorityClass In', (o) =>
    selector(o, { scopeName: 'PriorityClass', operator: 'In', values: ['high'] }),
  ),
  quota('quota: selector PriorityClass In without values', (o) =>
    selector(o, { scopeName: 'PriorityClass', operator: 'In' }),
  ),
  quota('quota: selector Exists with values', (o) =>
    selector(o, { scopeName: 'PriorityClass', operator: 'Exists', values: ['x'] }),
  ),
  quota('quota: selector operator Bogus', (o) => selector(o, { scopeName: 'PriorityClass', operator: 'Bogus' })),
  quota('quota: selector BestEffort In', (o) => {
    o.spec.hard = { pods: '1' };
    selector(o, { scopeName: 'BestEffort', operator: 'In', values: ['x'] });
  }),
  quota('quota: selector scope Bogus', (o) => selector(o, { scopeName: 'Bogus', operator: 'Exists' })),
  quota('quota: selector BestEffort with cpu', (o) => selector(o, { scopeName: 'BestEffort', operator: 'Exists' })),
  quota('quota: selector BestEffort and NotBestEffort', (o) => {
    o.spec.hard = { pods: '1' };
    selector(o, { scopeName: 'BestEffort', operator: 'Exists' }, { scopeName: 'NotBestEffort', operator: 'Exists' });
  }),
];

describeBuiltinDifferential('resource policies: synth and the apiserver', [...LIMIT_RANGES, ...QUOTAS]);
