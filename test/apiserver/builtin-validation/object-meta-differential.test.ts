import { Compare, differences } from './object-meta-compare';
import { baseObject, KIND_BASES } from './object-meta-fixtures';
import { minorOf } from '../../../lib/apimachinery/kubernetes-versions';
import { describeEachApiServerVersion } from '../../envtest';

/**
 * ObjectMeta of built-in objects against the real apiservers of 1.28, 1.32 and 1.36: each kind's name function
 * (names each rule tells apart), then generateName, labels, annotations, namespace, finalizers, owner references on
 * a ConfigMap (and a ClusterRole, cluster-scoped). Dry-run creates only: nothing is stored.
 */

/** Names that tell the name functions apart: subdomain, RFC 1123 label, DNS-1035 label, path segment. */
const NAMES = [
  'x',
  'Bad_Name',
  'a.b',
  '1abc',
  'a..b',
  'system-x',
  'a'.repeat(64),
  'a'.repeat(254),
  'a:b',
  '.',
  '..',
  'a%b',
];

/**
 * Job and CronJob derive more from their names (a Job's pods are labelled with it, a CronJob's name is at most 52
 * characters), which batch's validation checks: here, the names whose only fault is ObjectMeta's.
 */
const BATCH_NAME_RULES: ReadonlySet<string> = new Set(['batch/v1/Job', 'batch/v1/CronJob']);

const withMeta = (kind: string, meta: Record<string, unknown>) => {
  const o = baseObject(kind);
  o.metadata = { ...o.metadata, ...meta };
  for (const k of Object.keys(meta)) if (meta[k] === undefined) delete o.metadata[k];
  return o;
};
const cm = (meta: Record<string, unknown>) => withMeta('v1/ConfigMap', meta);
const cr = (meta: Record<string, unknown>) => withMeta('rbac.authorization.k8s.io/v1/ClusterRole', meta);
const own = (o: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: '123', ...o });

/** Go's `%#v` of a set `controller` (1.28, 1.32) prints a pointer: wording not compared. */
const goStructs: Compare = { wording: false };

/** A name generated from a refused generateName ends with random characters: wording not compared. */
const random: Compare = { wording: false };

const CASES: ReadonlyArray<readonly [string, any, Compare?]> = [
  ['no name', cm({ name: undefined })],
  ['generateName', cm({ name: undefined, generateName: 'abc-' })],
  ['generateName refused, and the name made of it', cm({ name: undefined, generateName: 'Abc-' }), random],
  ['generateName too long', cm({ name: undefined, generateName: 'a'.repeat(300) })],
  ['generateName refused beside a name', cm({ generateName: 'Abc-' })],
  ['generateName ending in dashes', cm({ name: undefined, generateName: 'a--' })],
  [
    'Service generateName starting with a digit',
    withMeta('v1/Service', { name: undefined, generateName: '1a-' }),
    random,
  ],
  [
    'Role generateName with a slash',
    withMeta('rbac.authorization.k8s.io/v1/Role', { name: undefined, generateName: 'a/' }),
    random,
  ],
  ['Role generateName `.`', withMeta('rbac.authorization.k8s.io/v1/Role', { name: undefined, generateName: '.' })],
  [
    'PodDisruptionBudget generateName `.`',
    withMeta('policy/v1/PodDisruptionBudget', { name: undefined, generateName: '.' }),
  ],
  // 1.36 validates a ReplicationController's metadata declaratively: its generateName is not checked, only the name
  [
    'ReplicationController generateName upper-case beside a name',
    withMeta('v1/ReplicationController', { generateName: 'ABC' }),
  ],
  [
    'ReplicationController generateName of 300 characters beside a name',
    withMeta('v1/ReplicationController', { generateName: 'a'.repeat(300) }),
  ],
  [
    'ReplicationController generateName upper-case alone',
    withMeta('v1/ReplicationController', { name: undefined, generateName: 'ABC' }),
    random,
  ],
  ['label key a/b/c', cm({ labels: { 'a/b/c': 'x' } })],
  ['label key with an upper-case prefix', cm({ labels: { 'A.com/b': 'x' } })],
  ['label key empty', cm({ labels: { '': 'x' } })],
  ['label key name part too long', cm({ labels: { ['k'.repeat(64)]: 'x' } })],
  ['label key prefix empty', cm({ labels: { '/a': 'x' } })],
  ['label key fine', cm({ labels: { 'example.com/a_b.c-d': 'x' } })],
  ['label value with a space', cm({ labels: { a: 'bad value' } })],
  ['label value too long', cm({ labels: { a: 'a'.repeat(64) } })],
  ['label value empty', cm({ labels: { a: '' } })],
  ['annotation key with an upper-case prefix', cm({ annotations: { 'A.com/b': 'x' } })],
  ['annotation key with a space', cm({ annotations: { 'bad key': 'x' } })],
  ['annotation key a/b/c', cm({ annotations: { 'a/b/c': 'x' } })],
  ['annotations over 256 KiB', cm({ annotations: { a: 'x'.repeat(262144) } })],
  ['annotations of 256 KiB', cm({ annotations: { a: 'x'.repeat(262143) } })],
  [
    'namespace no namespace can have',
    cm({ namespace: 'Bad_NS' }),
    { namespace: 'Bad_NS', fields: false, wording: false },
  ],
  ['namespace given', cm({ namespace: 'default' })],
  ['namespace on a cluster-scoped kind', cr({ namespace: 'default' })],
  ['malformed namespace on a cluster-scoped kind', cr({ namespace: 'Bad_NS' })],
  ['finalizer qualified', cm({ finalizers: ['example.com/f'] })],
  ['finalizer neither standard nor qualified', cm({ finalizers: ['foo'] })],
  ['finalizer neither standard nor qualified, cluster-scoped', cr({ finalizers: ['foo'] })],
  ['finalizer kubernetes', cm({ finalizers: ['kubernetes'] })],
  ['finalizer orphan', cm({ finalizers: ['orphan'] })],
  ['finalizers orphan and foregroundDeletion', cm({ finalizers: ['orphan', 'foregroundDeletion'] })],
  ['finalizer twice', cm({ finalizers: ['example.com/f', 'example.com/f'] })],
  ['finalizer a/b/c', cm({ finalizers: ['a/b/c'] })],
  ['owner reference', cm({ ownerReferences: [own({})] })],
  ['owner reference without apiVersion', cm({ ownerReferences: [own({ apiVersion: '' })] })],
  ['owner reference apiVersion apps/', cm({ ownerReferences: [own({ apiVersion: 'apps/' })] })],
  ['owner reference apiVersion a/b/c', cm({ ownerReferences: [own({ apiVersion: 'a/b/c' })] })],
  ['owner reference without kind', cm({ ownerReferences: [own({ kind: '' })] })],
  ['owner reference without name', cm({ ownerReferences: [own({ name: '' })] })],
  ['owner reference without uid', cm({ ownerReferences: [own({ uid: '' })] })],
  ['owner reference to an Event', cm({ ownerReferences: [own({ kind: 'Event' })] })],
  [
    'owner reference to an events.k8s.io Event',
    cm({ ownerReferences: [own({ apiVersion: 'events.k8s.io/v1', kind: 'Event' })] }),
  ],
  [
    'two controller owner references',
    cm({ ownerReferences: [own({ controller: true }), own({ name: 'p', uid: '2', controller: true })] }),
    goStructs,
  ],
  [
    'two owner references, one controller',
    cm({ ownerReferences: [own({ controller: true }), own({ name: 'p', uid: '2' })] }),
  ],
  ['negative generation', cm({ generation: -1 })],
  ['Namespace named a:b (its name label too)', withMeta('v1/Namespace', { name: 'a:b' })],
  ['PriorityClass system-cluster-critical-x', withMeta('scheduling.k8s.io/v1/PriorityClass', { name: 'system-foo' })],
];

/**
 * Kinds beside KIND_BASES whose ObjectMeta validation or create strategy differs (the generic ValidateObjectMeta, a
 * generation set on create), with the first minor of the three that serves them.
 */
const MORE_BASES: ReadonlyArray<readonly [number, any]> = [
  [
    28,
    {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.metrics.example.com' },
      spec: {
        group: 'metrics.example.com',
        version: 'v1',
        service: { namespace: 'default', name: 'metrics', port: 443 },
        groupPriorityMinimum: 100,
        versionPriority: 10,
      },
    },
  ],
  [
    28,
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'x' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' },
      reason: 'Why',
      type: 'Normal',
    },
  ],
  [
    32,
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'x' },
      spec: { validations: [{ expression: 'true' }] },
    },
  ],
  [
    32,
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingAdmissionPolicyBinding',
      metadata: { name: 'x' },
      spec: { policyName: 'p', validationActions: ['Deny'] },
    },
  ],
  [
    36,
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingAdmissionPolicyBinding',
      metadata: { name: 'x' },
      spec: { policyName: 'p' },
    },
  ],
  [36, { apiVersion: 'resource.k8s.io/v1', kind: 'DeviceClass', metadata: { name: 'x' }, spec: {} }],
];

describeEachApiServerVersion(
  'ObjectMeta of built-in objects against the apiserver',
  (plane, version) => {
    // one test per kind: every name of NAMES, so that a kind's name function is measured whole
    test.each(KIND_BASES.map(([k]) => k))('names of %s', async (kind) => {
      const found: string[] = [];
      // the first six are valid label values of at most 52 characters
      for (const name of BATCH_NAME_RULES.has(kind) ? NAMES.slice(0, 6) : NAMES) {
        const d = await differences(plane(), baseObject(kind, name), version);
        found.push(...d.map((x) => `${name.length > 20 ? `${name.length} characters` : name}: ${x}`));
      }
      expect(found).toStrictEqual([]);
    });

    // found by the additions differential: finalizer names core's ValidateObjectMeta refuses (the generic one takes
    // them), a negative generation (which the strategies that set it on create never see)
    const served = [
      ...KIND_BASES.map(([k]) => baseObject(k)),
      ...MORE_BASES.filter(([since]) => minorOf(version) >= since).map(([, o]) => o),
    ];
    test.each(served.map((o) => [`${o.apiVersion}/${o.kind}`, o]))(
      'finalizers foo and http, generation -1 of %s',
      async (_kind, base) => {
        const found: string[] = [];
        for (const meta of [{ finalizers: ['foo', 'http'] }, { generation: -1 }]) {
          const object = { ...base, metadata: { ...base.metadata, ...meta } };
          found.push(...(await differences(plane(), object, version)).map((d) => `${JSON.stringify(meta)}: ${d}`));
        }
        expect(found).toStrictEqual([]);
      },
    );

    // every row of three: jest would take a missing third argument for a `done` callback
    test.each(CASES.map(([n, o, c]) => [n, o, c ?? {}] as const))('%s', async (_name, object, compare) => {
      expect(await differences(plane(), object, version, compare)).toStrictEqual([]);
    });
  },
  { shared: true },
);
