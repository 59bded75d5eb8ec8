import { inMessage } from './differential-harness';
import { errorsOf } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { claimSpecIssues } from '../../../lib/apiserver/builtin-validation/storage-claims';

/** PersistentVolumeClaim, StorageClass and CSIDriver checks without an apiserver, versions between the measured ones. */

const lines = (object: object, version: KubernetesVersion) =>
  errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
const claim = (spec: object) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'c' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec },
});

test('a claim with a bogus access mode and no storage request, in the apiserver words', () => {
  expect(lines(claim({ accessModes: ['Bogus'], resources: {} }), '1.30')).toEqual([
    'spec.accessModes: Unsupported value: "Bogus": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"',
    'spec.resources[storage]: Required value',
  ]);
});

test('a zero storage request is shown in its canonical form', () => {
  expect(lines(claim({ resources: { requests: { storage: '0Gi' } } }), '1.32')).toEqual([
    'spec.resources[storage]: Invalid value: "0": must be greater than zero',
  ]);
});

test("a data source's API group is checked from 1.29 (kubernetes/kubernetes#119091), at both references", () => {
  const bad = claim({ dataSourceRef: { apiGroup: 'Bad_Group', kind: 'X', name: 'p' } });
  expect(lines(bad, '1.28')).toEqual([]);
  expect(lines(bad, '1.29').map((l) => l.split(': ')[0])).toEqual([
    'spec.dataSource.apiGroup',
    'spec.dataSourceRef.apiGroup',
  ]);
});

test('a dataSource other than a claim or a snapshot is dropped, not refused', () => {
  expect(lines(claim({ dataSource: { kind: 'Foo', name: 'p' } }), '1.36')).toEqual([]);
});

test('volumeAttributesClassName is checked where its gate is on (1.34)', () => {
  const bad = claim({ volumeAttributesClassName: 'Bad_Name' });
  expect(lines(bad, '1.33')).toEqual([]);
  expect(lines(bad, '1.34').map((l) => l.split(': ')[0])).toEqual(['spec.volumeAttributesClassName']);
});

test('the claim spec check works at any path, e.g. for a claim template', () => {
  const issues = claimSpecIssues({ accessModes: [] }, 'spec.volumeClaimTemplates[0].spec', '1.36');
  expect(issues.map((i) => i.path)).toEqual([
    'spec.volumeClaimTemplates[0].spec.accessModes',
    'spec.volumeClaimTemplates[0].spec.resources[storage]',
  ]);
});

test('a StorageClass: provisioner lower-cased, reclaim policy, binding mode, an empty topology term', () => {
  const sc = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: 's' },
    provisioner: 'A B',
    reclaimPolicy: 'Recycle',
    volumeBindingMode: 'Later',
    allowedTopologies: [{}],
  };
  expect(lines(sc, '1.33').map((l) => l.split(': ').slice(0, 3).join(': '))).toEqual([
    'provisioner: Invalid value: "a b"',
    'reclaimPolicy: Unsupported value: "Recycle"',
    'volumeBindingMode: Unsupported value: "Later"',
    'allowedTopologies[0].matchLabelExpressions: Duplicate value: ""',
  ]);
});

test('a CSIDriver: token request expirations', () => {
  const driver = {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'CSIDriver',
    metadata: { name: 'd' },
    spec: { tokenRequests: [{ audience: 'a', expirationSeconds: 60 }] },
  };
  expect(lines(driver, '1.30')).toEqual([
    'spec.tokenRequests[0].expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes',
  ]);
});

test("the differential harness's `…` stands for what synth does not print", () => {
  expect(
    inMessage('a: Invalid value: resource.Quantity{…}: x', 'p: [a: Invalid value: resource.Quantity{i:1}: x]'),
  ).toBe(true);
  expect(
    inMessage('a: Invalid value: resource.Quantity{…}: y', 'p: [a: Invalid value: resource.Quantity{i:1}: x]'),
  ).toBe(false);
});

const controller = (spec: object, labels?: object) => ({
  apiVersion: 'v1',
  kind: 'ReplicationController',
  metadata: { name: 'rc', ...(labels ? { labels } : {}) },
  spec: {
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
    ...spec,
  },
});

test("a ReplicationController's selector that misses the template: the labels as Go (to 1.33) or JSON (from 1.34) print them", () => {
  expect(lines(controller({ selector: { app: 'api' } }), '1.33')).toEqual([
    'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
  ]);
  expect(lines(controller({ selector: { app: 'api' } }), '1.34')).toEqual([
    'spec.template.metadata.labels: Invalid value: {"app":"web"}: `selector` does not match template `labels`',
  ]);
});

test("a ReplicationController without labels takes the template's, and the checks that come with them", () => {
  const bad = controller({
    template: { metadata: { labels: { app: 'x y' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } },
  });
  expect(lines(bad, '1.30').map((l) => l.split(': ')[0])).toEqual(['metadata.labels', 'spec.template.labels']);
  expect(lines(controller({}, { own: 'yes' }), '1.30')).toEqual([]);
});

const volume = (spec: object) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name: 'v' },
  spec: { accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' }, ...spec },
});

test('a PersistentVolume needs one volume source exactly: the later ones in upstream order are forbidden', () => {
  expect(lines(volume({}), '1.31')).toEqual(['spec: Required value: must specify a volume type']);
  expect(lines(volume({ csi: { driver: 'd', volumeHandle: 'h' }, hostPath: { path: '/x' } }), '1.31')).toEqual([
    'spec.csi: Forbidden: may not specify more than 1 volume type',
  ]);
});

test("a PersistentVolume's capacity other than storage, printed as JSON from 1.34", () => {
  expect(lines(volume({ capacity: { cpu: '1000m' }, hostPath: { path: '/x' } }), '1.35')).toEqual([
    'spec.capacity: Unsupported value: {"cpu":"1"}: supported values: "storage"',
  ]);
});

test('a local PersistentVolume needs a node affinity, whose required terms have label values from 1.33', () => {
  expect(lines(volume({ local: { path: '/x' } }), '1.31')).toEqual([
    'spec.nodeAffinity: Required value: Local volume requires node affinity',
  ]);
  const values = (v: string) => ({
    required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'k', operator: 'In', values: [v] }] }] },
  });
  expect(lines(volume({ local: { path: '/x' }, nodeAffinity: values('a b') }), '1.32')).toEqual([]);
  expect(lines(volume({ local: { path: '/x' }, nodeAffinity: values('a b') }), '1.33')).toEqual([
    expect.stringMatching(
      /^spec\.nodeAffinity\.required\.nodeSelectorTerms\[0\]\.matchExpressions\[0\]\.values\[0\]: Invalid value: "a b": a valid label/,
    ),
  ]);
  // a local volume second to another is not counted: no node affinity needed
  expect(lines(volume({ hostPath: { path: '/x' }, local: { path: '/y' } }), '1.31')).toEqual([
    'spec.local: Forbidden: may not specify more than 1 volume type',
  ]);
});

test("a PersistentVolume's iSCSI name is its own: `<name>:<portal>` at most 64 bytes with an initiator", () => {
  const iscsi = (portal: string) => ({
    iscsi: { targetPortal: portal, iqn: 'eui.0123456789ABCDEF', initiatorName: 'eui.0123456789ABCDEF' },
  });
  expect(lines(volume(iscsi('p'.repeat(62))), '1.31')).toEqual([]);
  expect(lines(volume(iscsi('p'.repeat(63))), '1.31')).toEqual([
    expect.stringMatching(/^spec\.iscsi\.targetportal: Invalid value: "p+": Total length of <volume name>/),
  ]);
});

test("a csi PersistentVolume's empty driver: the subdomain's error too before 1.33", () => {
  const csi = { csi: { driver: '', volumeHandle: 'h' } };
  expect(lines(volume(csi), '1.32')).toHaveLength(2);
  expect(lines(volume(csi), '1.33')).toEqual(['spec.csi.driver: Required value']);
});

test('a hostPath PersistentVolume of `/` once cleaned may not be recycled', () => {
  const recycled = (path: string) => volume({ hostPath: { path }, persistentVolumeReclaimPolicy: 'Recycle' });
  const forbidden = "spec.persistentVolumeReclaimPolicy: Forbidden: may not be 'recycle' for a hostPath mount of '/'";
  expect(lines(recycled('//.'), '1.31')).toEqual([forbidden]);
  expect(lines(recycled('/x'), '1.31')).toEqual([]);
  expect(lines(recycled('.'), '1.31')).toEqual([]);
});
