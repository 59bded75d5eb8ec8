import { errorsOf } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';

/** PodDisruptionBudget checks without an apiserver: the wording of the versions between the measured ones. */

const pdb = (spec: object) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'p' }, spec });
const lines = (object: object, version: KubernetesVersion) =>
  errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);

test('a percent over 100%: Go %#v of the IntOrString up to 1.33, the string from 1.34', () => {
  expect(lines(pdb({ minAvailable: '150%' }), '1.33')).toEqual([
    'spec.minAvailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%',
  ]);
  expect(lines(pdb({ minAvailable: '150%' }), '1.34')).toEqual([
    'spec.minAvailable: Invalid value: "150%": must not be greater than 100%',
  ]);
});

test('both minAvailable and maxUnavailable, whatever their values', () => {
  expect(lines(pdb({ minAvailable: 0, maxUnavailable: '0%' }), '1.37')).toEqual([
    'spec: Invalid value: {"MinAvailable":0,"Selector":null,"MaxUnavailable":"0%","UnhealthyPodEvictionPolicy":null}: minAvailable and maxUnavailable cannot be both set',
  ]);
});

test('selector values and operators on every version', () => {
  const bad = pdb({
    maxUnavailable: 1,
    selector: { matchExpressions: [{ key: 'a', operator: 'in', values: ['x y'] }] },
  });
  expect(lines(bad, '1.30').map((l) => l.split(': ')[0])).toEqual([
    'spec.selector.matchExpressions[0].operator',
    'spec.selector.matchExpressions[0].values[0]',
  ]);
});

test("an empty label key: both of the apiserver's messages", () => {
  const empty = pdb({ maxUnavailable: 1, selector: { matchLabels: { 'example.com/': 'x' } } });
  expect(lines(empty, '1.32')).toEqual([
    'spec.selector.matchLabels: Invalid value: "example.com/": name part must be non-empty',
    expect.stringContaining(
      'spec.selector.matchLabels: Invalid value: "example.com/": name part must consist of alphanumeric characters',
    ),
  ]);
});
