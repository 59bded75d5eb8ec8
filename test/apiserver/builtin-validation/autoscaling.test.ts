import { errorsOf } from '../../../lib/apimachinery/issue';
import { KubernetesVersion } from '../../../lib/apimachinery/kubernetes-versions';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';

/** HorizontalPodAutoscaler checks without an apiserver: defaults and the versions between the measured ones. */

const hpa = (spec: object) => ({
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'h' },
  spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3, ...spec },
});
const lines = (object: object, version: KubernetesVersion) =>
  errorsOf(builtinObjectIssues(object, version)).map((i) => `${i.path}: ${i.message}`);

test('minReplicas defaults to 1: maxReplicas 0 is below it', () => {
  expect(lines(hpa({ maxReplicas: 0 }), '1.35')).toEqual([
    'spec.maxReplicas: Invalid value: 0: must be greater than 0',
    'spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`',
  ]);
  expect(lines(hpa({ maxReplicas: 0 }), '1.36')[0]).toBe(
    'spec.maxReplicas: Required value: must be set and greater than 0',
  );
});

test('a scaling rule without policies is defaulted; an empty list is refused', () => {
  expect(lines(hpa({ behavior: { scaleUp: { selectPolicy: 'Max' } } }), '1.32')).toEqual([]);
  expect(lines(hpa({ behavior: { scaleUp: { policies: [] } } }), '1.32')).toEqual([
    'spec.behavior.scaleUp.policies: Required value: must specify at least one Policy',
  ]);
});

test('a negative tolerance: checked from 1.35 (before, unknown or dropped)', () => {
  const negative = hpa({ behavior: { scaleDown: { tolerance: '-0.1' } } });
  expect(lines(negative, '1.34')).toEqual([]);
  expect(lines(negative, '1.35')).toEqual([
    'spec.behavior.scaleDown.tolerance: Invalid value: "-0.1": must be greater than or equal to 0',
  ]);
});

test('a quantity target: Go %#v of resource.Quantity up to 1.33, the string from 1.34', () => {
  const zero = hpa({
    metrics: [{ type: 'Pods', pods: { metric: { name: 'q' }, target: { type: 'AverageValue', averageValue: '0' } } }],
  });
  expect(lines(zero, '1.33')[0]).toContain('Invalid value: resource.Quantity{i:resource.int64Amount{value:0, scale:0}');
  expect(lines(zero, '1.34')).toEqual([
    'spec.metrics[0].pods.target.averageValue: Invalid value: "0": must be positive',
  ]);
});

test('a scaleTargetRef without a group: accepted up to 1.33, refused from 1.34 (kubernetes/kubernetes#132537)', () => {
  const coreGroup = hpa({ scaleTargetRef: { apiVersion: 'v1', kind: 'Deployment', name: 'd' } });
  expect(lines(coreGroup, '1.33')).toEqual([]);
  expect(lines(coreGroup, '1.34')).toEqual([
    'spec.scaleTargetRef.apiVersion: Invalid value: "v1": apiVersion must specify API group',
  ]);
  expect(lines(hpa({ scaleTargetRef: { kind: 'ReplicationController', name: 'rc' } }), '1.37')).toEqual([]);
});
