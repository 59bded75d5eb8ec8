import type { Mutation } from './pod-spec-cases';

/**
 * Generic ephemeral volumes (validateEphemeralVolumeSource): a Pod's claim is named `<pod name>-<volume name>` and must
 * be a valid claim name (a template has no pod name: never checked there); the claim template's metadata may hold
 * labels and annotations only. And an image volume's reference, required in a Pod only (1.36; 1.32 drops image
 * volumes, 1.28 cannot decode them).
 */

const claimSpec = () => ({ accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } });
const ephemeral = (name: string, metadata?: Record<string, unknown>, spec: Record<string, unknown> = {}) => ({
  name,
  ephemeral: { volumeClaimTemplate: { ...(metadata ? { metadata } : {}), spec: { ...claimSpec(), ...spec } } },
});
/** The pod (or template) named `name`, with an ephemeral volume `vol`. */
const named =
  (name: string, volume: any = ephemeral('vol')): Mutation =>
  (s, t) => {
    t.metadata.name = name;
    s.volumes.push(volume);
  };
const withMeta =
  (metadata: Record<string, unknown>): Mutation =>
  (s) =>
    s.volumes.push(ephemeral('vol', metadata));

/** `[name, mutation]`, as POD_SPEC_CASES. */
export const POD_EPHEMERAL_CASES: ReadonlyArray<readonly [string, Mutation]> = [
  // the claim's name: pod name, '-', volume name, at most 253 characters
  ['ephemeral claim name of 252 characters', named('a'.repeat(248))],
  ['ephemeral claim name of 254 characters', named('a'.repeat(250))],
  ['ephemeral claim name with a dotted pod name', named('a.b')],
  ['ephemeral volume named Bad_Vol', named('p', ephemeral('Bad_Vol'))],
  ['ephemeral claim name too long and bad', named('a'.repeat(250), ephemeral('Bad_Vol'))],
  ['ephemeral volume without template, long claim name', named('a'.repeat(250), { name: 'vol', ephemeral: {} })],
  ['ephemeral volume named empty, long pod name', named('a'.repeat(253), ephemeral(''))],
  [
    'ephemeral claim of a generated pod name Foo-',
    (s, t) => {
      Object.assign(t.metadata, { name: '', generateName: 'Foo-' });
      s.volumes.push(ephemeral('vol'));
    },
  ],
  [
    'ephemeral claim of a generated pod name of 250 characters',
    (s, t) => {
      Object.assign(t.metadata, { name: '', generateName: 'a'.repeat(250) });
      s.volumes.push(ephemeral('v'.repeat(63)));
    },
  ],
  // the claim template's metadata: labels and annotations only
  ['ephemeral claim template labels and annotations', withMeta({ labels: { a: 'b' }, annotations: { c: 'd' } })],
  ['ephemeral claim template name', withMeta({ name: 'x' })],
  [
    'ephemeral claim template metadata fields',
    withMeta({
      generateName: 'g',
      namespace: 'n',
      selfLink: '/x',
      uid: 'u',
      resourceVersion: '1',
      generation: 1,
      creationTimestamp: '2020-01-01T00:00:00Z',
      deletionTimestamp: '2020-01-01T00:00:00Z',
      deletionGracePeriodSeconds: 1,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'x', uid: 'u' }],
      finalizers: ['example.com/f'],
      managedFields: [{ manager: 'm', operation: 'Apply', apiVersion: 'v1' }],
    }),
  ],
  [
    'ephemeral claim template metadata zero values',
    withMeta({ name: '', namespace: '', generation: 0, creationTimestamp: null, finalizers: null, labels: null }),
  ],
  ['ephemeral claim template empty finalizers', withMeta({ finalizers: [], ownerReferences: [] })],
  ['ephemeral claim template deletionGracePeriodSeconds 0', withMeta({ deletionGracePeriodSeconds: 0 })],
  ['ephemeral claim template zero creationTimestamp', withMeta({ creationTimestamp: '0001-01-01T00:00:00Z' })],
  [
    'ephemeral claim template bad labels beside a name',
    withMeta({ name: 'x', labels: { 'a b': 'c' }, annotations: { 'A B': 'x' } }),
  ],
  // the claim template's spec: checked as written (a claim's PrepareForCreate would drop the first three sources)
  ...(
    [
      ['a dataSourceRef namespace @', { dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'n', namespace: '@' } }],
      ['a dataSource of kind X', { dataSource: { kind: 'X', name: 'n' } }],
      [
        'a dataSource beside a dataSourceRef with a namespace',
        {
          dataSource: { kind: 'PersistentVolumeClaim', name: 'n' },
          dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'n', namespace: 'o' },
        },
      ],
      ['a dataSource of a claim', { dataSource: { kind: 'PersistentVolumeClaim', name: 'n' } }],
    ] as const
  ).map(([name, spec]): readonly [string, Mutation] => [
    `ephemeral claim template with ${name}`,
    (s) => s.volumes.push(ephemeral('vol', undefined, spec)),
  ]),
  // image volumes: a Pod's reference is required
  ['image volume without reference', (s) => s.volumes.push({ name: 'i', image: {} })],
  ['image volume with a reference', (s) => s.volumes.push({ name: 'i', image: { reference: 'busybox' } })],
];
