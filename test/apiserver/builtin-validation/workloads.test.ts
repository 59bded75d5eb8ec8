import { formatIssue } from '../../../lib/apimachinery/issue';
import { builtinObjectIssues } from '../../../lib/apiserver/builtin-validation';
import { intOrPercentValue } from '../../../lib/apiserver/builtin-validation/workloads-numbers';
import { selectorMatches } from '../../../lib/apiserver/builtin-validation/workloads-selector';

const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
const object = (kind: string, spec: any = {}) => ({
  apiVersion: 'apps/v1',
  kind,
  metadata: { name: 'web' },
  spec: { selector: { matchLabels: { app: 'web' } }, template, ...spec },
});
const lines = (o: any, version: '1.28' | '1.32' | '1.36' = '1.32') => builtinObjectIssues(o, version).map(formatIssue);

describe('apps workloads: their own fields', () => {
  test('a valid object of each kind has no issue', () => {
    for (const kind of ['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet']) {
      expect(lines(object(kind))).toStrictEqual([]);
    }
  });

  test('a selector that does not select the template names the labels, in the apiserver words', () => {
    expect(lines(object('Deployment', { selector: { matchLabels: { app: 'api' } } }))).toStrictEqual([
      'spec.template.metadata.labels: Invalid value: `selector` does not match template `labels` (got {"app":"web"})',
    ]);
  });

  test('a missing selector is required and selects nothing; a DaemonSet only fails the match', () => {
    const { selector: _s, ...spec } = object('Deployment').spec;
    expect(lines({ ...object('Deployment'), spec }).map((l) => l.split(':')[0])).toStrictEqual([
      'spec.selector',
      'spec.template.metadata.labels',
    ]);
    expect(lines({ ...object('DaemonSet'), spec }).map((l) => l.split(':')[0])).toStrictEqual([
      'spec.template.metadata.labels',
    ]);
  });

  test('an empty selector is refused, and selects everything (no match error)', () => {
    expect(lines(object('StatefulSet', { selector: {} }))).toStrictEqual([
      'spec.selector: Invalid value: empty selector is invalid for statefulset (got {})',
    ]);
  });

  test('an unconvertible selector skips the template match', () => {
    const bad = { matchExpressions: [{ key: 'app', operator: 'Equals', values: ['web'] }] };
    expect(lines(object('ReplicaSet', { selector: bad })).map((l) => l.split(': ')[0])).toStrictEqual([
      'spec.selector.matchExpressions[0].operator',
      'spec.selector',
    ]);
  });

  test('a Deployment is validated as defaulted: progressDeadlineSeconds 600 against minReadySeconds', () => {
    expect(lines(object('Deployment', { minReadySeconds: 600 }))).toStrictEqual([
      'spec.progressDeadlineSeconds: Invalid value: must be greater than minReadySeconds (got 600)',
    ]);
    expect(lines(object('Deployment', { strategy: { rollingUpdate: { maxUnavailable: 0 } } }))).toStrictEqual([]);
    expect(
      lines(object('Deployment', { strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } })),
    ).toStrictEqual([
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: may not be 0 when `maxSurge` is 0 (got "0%")',
    ]);
  });

  test('a DaemonSet surge needs maxUnavailable 0 (it defaults to 1)', () => {
    expect(lines(object('DaemonSet', { updateStrategy: { rollingUpdate: { maxSurge: 1 } } }))).toStrictEqual([
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: may not be set when maxUnavailable is non-zero (got 1)',
    ]);
    expect(
      lines(object('DaemonSet', { updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } })),
    ).toStrictEqual([]);
  });

  test("a StatefulSet's claim templates and serviceName are checked from 1.36 only", () => {
    const sts = object('StatefulSet', {
      serviceName: 'Bad_Name',
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { resources: { requests: { storage: '1Gi' } } } }],
    });
    expect(lines(sts, '1.32')).toStrictEqual([]);
    expect(lines(sts, '1.36').map((l) => l.split(': ')[0])).toStrictEqual([
      'spec.serviceName',
      'spec.volumeClaimTemplates[0].spec.accessModes',
    ]);
  });

  test("a StatefulSet's restart policy is its own check before 1.36", () => {
    const sts = object('StatefulSet', {
      template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } },
    });
    expect(lines(sts, '1.28')).toStrictEqual([
      'spec.template.spec.restartPolicy: Unsupported value: supported values: "Always" (got "Never")',
    ]);
  });
});

describe('selector and int-or-percent helpers', () => {
  test.each([
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['x'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['x'] }] }, {}, false],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: '' }, false],
    [{ matchLabels: { a: '' } }, { a: '' }, true],
    [undefined, { a: 'x' }, false],
  ])('%j selects %j: %s', (selector, labels, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });

  test.each([
    ['25%', 25],
    ['5', 5],
    ['abc', 0],
    [3, 3],
  ] as const)('%j counts as %d', (value, expected) => {
    expect(intOrPercentValue(value)).toBe(expected);
  });
});
