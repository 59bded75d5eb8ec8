import { errorsOf } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import {
  canonicalQuantity,
  quantityMilliValue,
  quantityValue,
} from '../../../lib/apiserver/builtin-validation/resource-policy-quantity';

/** LimitRange and ResourceQuota checks without an apiserver: quantities as Go prints them, versions between. */

const lines = (object: object, version: KubernetesVersion) =>
  errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);
const limitRange = (item: object) => ({
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: { name: 'l' },
  spec: { limits: [item] },
});
const quota = (spec: object) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q' }, spec });

test.each([
  ['2', '2'],
  ['2048Mi', '2Gi'],
  ['1000m', '1'],
  ['1.5', '1500m'],
  ['0.5Ki', '512'],
  ['1500Mi', '1500Mi'],
  ['1.5Gi', '1536Mi'],
  ['100M', '100M'],
  ['0.1', '100m'],
  ['1e3', '1e3'],
  ['12e2', '1200'],
  ['0.0000000001', '1n'],
  ['-1Gi', '-1Gi'],
  ['0Gi', '0'],
  ['1100k', '1100k'],
])('Quantity.String() of %s is %s', (text, canonical) => {
  expect(canonicalQuantity(text)).toBe(canonical);
});

test('Value() and MilliValue() round up', () => {
  expect(quantityValue('1.2')).toBe(2n);
  expect(quantityMilliValue('1.2345')).toBe(1235n);
  expect(quantityMilliValue('2Ki')).toBe(2048000n);
});

test('min above max in a Container item: also against the defaults they make (SetDefaults_LimitRangeItem)', () => {
  expect(lines(limitRange({ type: 'Container', max: { memory: '1Gi' }, min: { memory: '2048Mi' } }), '1.34')).toEqual([
    'spec.limits[0].min[memory]: Invalid value: "2Gi": min value 2Gi is greater than max value 1Gi',
    'spec.limits[0].defaultRequest[memory]: Invalid value: "1Gi": min value 2Gi is greater than default request value 1Gi',
    'spec.limits[0].default[memory]: Invalid value: "2Gi": min value 2Gi is greater than default value 1Gi',
  ]);
});

test('before 1.34 the quantity is a Go struct the message does not reproduce', () => {
  expect(lines(limitRange({ type: 'Pod', max: { cpu: '1' }, min: { cpu: '2' } }), '1.33')).toEqual([
    'spec.limits[0].min[cpu]: Invalid value: resource.Quantity{…}: min value 2 is greater than max value 1',
  ]);
});

test('a ratio above max/min, printed with %f', () => {
  const item = { type: 'Pod', max: { cpu: '1' }, min: { cpu: '300m' }, maxLimitRequestRatio: { cpu: '4' } };
  expect(lines(limitRange(item), '1.36')).toEqual([
    'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "4": ratio 4 is greater than max/min = 3.333333',
  ]);
});

test('resource names print bare from 1.30 to 1.33 (a fmt.Stringer), quoted before and after', () => {
  const q = quota({ hard: { storage: '1' } });
  expect(lines(q, '1.29')).toEqual([
    'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
  ]);
  expect(lines(q, '1.30')).toEqual([
    'spec.hard[storage]: Invalid value: storage: must be a standard resource for quota',
  ]);
  expect(lines(q, '1.34')).toEqual([
    'spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota',
  ]);
});

test('the VolumeAttributesClass scope is known from 1.34, and applies to storage only', () => {
  const vac = (hard: object) =>
    quota({
      hard,
      scopeSelector: { matchExpressions: [{ scopeName: 'VolumeAttributesClass', operator: 'In', values: ['g'] }] },
    });
  expect(lines(vac({ 'requests.storage': '1Gi' }), '1.33')).toEqual([
    'spec.scopeSelector.matchExpressions.scopeName: Invalid value: "VolumeAttributesClass": unsupported scope',
  ]);
  expect(lines(vac({ 'requests.storage': '1Gi' }), '1.34')).toEqual([]);
  expect(lines(vac({ 'requests.cpu': '1' }), '1.37')).toEqual([
    'spec.scopeSelector.matchExpressions: Invalid value: {"MatchExpressions":[{"ScopeName":"VolumeAttributesClass","Operator":"In","Values":["g"]}]}: unsupported scope applied to resource',
  ]);
});

test('conflicting scopes and an object count that is no integer', () => {
  expect(lines(quota({ hard: { pods: '1.5' }, scopes: ['BestEffort', 'NotBestEffort'] }), '1.30')).toEqual([
    'spec.hard[pods]: Invalid value: resource.Quantity{…}: must be an integer',
    'spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes',
  ]);
});

test("the scope selector's operator wording: `Exist` up to 1.30, `Exists` from 1.31 (kubernetes/kubernetes#124053)", () => {
  const q = quota({
    hard: { pods: '1' },
    scopeSelector: { matchExpressions: [{ scopeName: 'BestEffort', operator: 'In', values: ['x'] }] },
  });
  expect(lines(q, '1.30')[0]).toContain("must be 'Exist' when scope is any of");
  expect(lines(q, '1.31')[0]).toContain("must be 'Exists' when scope is any of");
});
