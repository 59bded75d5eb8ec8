import { describeBuiltinDifferential, mutationOf } from './differential-harness';

/** policy/v1 PodDisruptionBudget: synth's verdict against the real apiservers'. */

const m = mutationOf(() => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name: 'p' },
  spec: { minAvailable: 1, selector: { matchLabels: { app: 'a' } } },
}));
const only = (o: any, maxUnavailable: unknown) => {
  delete o.spec.minAvailable;
  o.spec.maxUnavailable = maxUnavailable;
};
const expression = (o: any, e: object) => (o.spec.selector = { matchExpressions: [e] });

const CASES = [
  m('the base'),
  m('minAvailable and maxUnavailable', (o) => (o.spec.maxUnavailable = 1)),
  m('minAvailable and maxUnavailable, percents', (o) => {
    o.spec.minAvailable = '10%';
    o.spec.maxUnavailable = '10%';
  }),
  m('neither', (o) => delete o.spec.minAvailable),
  m('minAvailable -1', (o) => (o.spec.minAvailable = -1)),
  m('minAvailable 0', (o) => (o.spec.minAvailable = 0)),
  m('minAvailable 150%', (o) => (o.spec.minAvailable = '150%')),
  m('minAvailable 100%', (o) => (o.spec.minAvailable = '100%')),
  m('minAvailable 0%', (o) => (o.spec.minAvailable = '0%')),
  m('minAvailable -5%', (o) => (o.spec.minAvailable = '-5%')),
  m('minAvailable abc', (o) => (o.spec.minAvailable = 'abc')),
  m('minAvailable "5"', (o) => (o.spec.minAvailable = '5')),
  m('minAvailable %', (o) => (o.spec.minAvailable = '%')),
  m('minAvailable 1.5%', (o) => (o.spec.minAvailable = '1.5%')),
  m('maxUnavailable -1', (o) => only(o, -1)),
  m('maxUnavailable 101%', (o) => only(o, '101%')),
  m('maxUnavailable 0', (o) => only(o, 0)),
  m('maxUnavailable 25%', (o) => only(o, '25%')),
  m('no selector', (o) => delete o.spec.selector),
  m('an empty selector', (o) => (o.spec.selector = {})),
  m('selector operator Bogus', (o) => expression(o, { key: 'a', operator: 'Bogus', values: ['x'] })),
  m('selector In without values', (o) => expression(o, { key: 'a', operator: 'In' })),
  m('selector NotIn without values', (o) => expression(o, { key: 'a', operator: 'NotIn', values: [] })),
  m('selector Exists with values', (o) => expression(o, { key: 'a', operator: 'Exists', values: ['x'] })),
  m('selector DoesNotExist', (o) => expression(o, { key: 'a', operator: 'DoesNotExist' })),
  m('selector key a b', (o) => expression(o, { key: 'a b', operator: 'Exists' })),
  m('selector value x y', (o) => expression(o, { key: 'a', operator: 'In', values: ['ok', 'x y'] })),
  m('selector matchLabels value x y', (o) => (o.spec.selector = { matchLabels: { a: 'x y' } })),
  m('selector matchLabels key a b', (o) => (o.spec.selector = { matchLabels: { 'a b': 'x' } })),
  m(
    'selector matchLabels key with a long prefix',
    (o) => (o.spec.selector = { matchLabels: { [`${'a'.repeat(254)}/b`]: 'x' } }),
  ),
  m('unhealthyPodEvictionPolicy Bogus', (o) => (o.spec.unhealthyPodEvictionPolicy = 'Bogus')),
  m('unhealthyPodEvictionPolicy AlwaysAllow', (o) => (o.spec.unhealthyPodEvictionPolicy = 'AlwaysAllow')),
  m('unhealthyPodEvictionPolicy IfHealthyBudget', (o) => (o.spec.unhealthyPodEvictionPolicy = 'IfHealthyBudget')),
  m('selector values [null]', (o) => expression(o, { key: 'a', operator: 'In', values: [null] })),
  m('selector key ""', (o) => expression(o, { key: '', operator: 'Exists' })),
  m('selector operator ""', (o) => expression(o, { key: 'a', operator: '' })),
  m('selector matchExpressions [null]', (o) => (o.spec.selector = { matchExpressions: [null] })),
  m('minAvailable ""', (o) => (o.spec.minAvailable = '')),
  m('unhealthyPodEvictionPolicy ""', (o) => (o.spec.unhealthyPodEvictionPolicy = '')),
];

describeBuiltinDifferential('policy/v1 PodDisruptionBudget: synth and the apiserver', CASES, {
  verdictOnly: ['minAvailable and maxUnavailable', 'minAvailable and maxUnavailable, percents'],
});
