import { EventHandler } from '../../runtime/informer';
import { labelSelectorMatches, labelSelectorProblems } from '../../runtime/label-selector';
import { SharedInformer } from '../../runtime/namespaced-informers';
import { KubeObject } from '../../runtime/resource';
import { LabelSelectorIndex, SelectorIndex } from '../../runtime/selector-index';

describe('labelSelectorMatches (metav1.LabelSelector semantics)', () => {
  test.each([
    [{}, { a: '1' }, true],
    [{}, {}, true],
    [{ matchLabels: { a: '1' } }, { a: '1', b: '2' }, true],
    [{ matchLabels: { a: '1' } }, { a: '2' }, false],
    [{ matchLabels: { a: '1', b: '2' } }, { a: '1' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['1'] }] }, {}, false],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, { a: '1' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, { a: '' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, { a: '' }, false],
    [{ matchLabels: { a: '1' }, matchExpressions: [{ key: 'b', operator: 'Exists' }] }, { a: '1' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }] }, { a: '2' }, false],
  ])('%j selects %j: %s', (selector, labels, expected) => {
    expect(labelSelectorMatches(selector, labels)).toBe(expected);
  });

  test('a null or absent selector selects nothing', () => {
    expect(labelSelectorMatches(null, {})).toBe(false);
    expect(labelSelectorMatches(undefined, { a: '1' })).toBe(false);
  });

  test('problems name the path, the field and the bad value', () => {
    expect(
      labelSelectorProblems(
        {
          matchExpressions: [
            { key: 'a', operator: 'In' },
            { key: 'b', operator: 'Exists', values: ['x'] },
            { key: 'c', operator: 'Gt', values: ['1'] },
          ],
        },
        'spec.selector',
      ),
    ).toStrictEqual([
      'spec.selector.matchExpressions[0].values: must be non-empty when operator is In',
      'spec.selector.matchExpressions[1].values: must be empty when operator is Exists, got ["x"]',
      "spec.selector.matchExpressions[2].operator: must be In, NotIn, Exists or DoesNotExist, got 'Gt'",
    ]);
  });
});

describe('LabelSelectorIndex', () => {
  const selectors = {
    team: { matchLabels: { team: 'a' } },
    either: { matchExpressions: [{ key: 'team', operator: 'In', values: ['a', 'b'] }] },
    hasTier: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
    all: {},
    notA: { matchExpressions: [{ key: 'team', operator: 'NotIn', values: ['a'] }] },
    twoLabels: { matchLabels: { team: 'a', tier: 'web' } },
  };

  test('returns exactly the selectors a full scan finds, for every label set', () => {
    const index = new LabelSelectorIndex();
    for (const [id, s] of Object.entries(selectors)) index.set(id, s);
    const labelSets: Record<string, string>[] = [
      {},
      { team: 'a' },
      { team: 'b' },
      { team: 'c' },
      { tier: 'web' },
      { team: 'a', tier: 'web' },
      { team: 'a', tier: 'db' },
      { other: 'x' },
    ];
    for (const labels of labelSets) {
      const scan = Object.entries(selectors)
        .filter(([, s]) => labelSelectorMatches(s, labels))
        .map(([id]) => id)
        .sort();
      expect({ labels, ids: index.matching(labels) }).toStrictEqual({ labels, ids: scan });
    }
  });

  test('set replaces, null drops, delete removes', () => {
    const index = new LabelSelectorIndex();
    index.set('p', { matchLabels: { team: 'a' } });
    expect(index.matching({ team: 'a' })).toStrictEqual(['p']);
    index.set('p', { matchLabels: { team: 'b' } });
    expect(index.matching({ team: 'a' })).toStrictEqual([]);
    expect(index.matching({ team: 'b' })).toStrictEqual(['p']);
    index.set('p', null);
    expect(index.size).toBe(0);
    expect(index.matching({ team: 'b' })).toStrictEqual([]);
    index.set('q', {});
    index.delete('q');
    expect(index.matching({})).toStrictEqual([]);
  });

  test("a lookup evaluates only the selectors filed under the object's labels, not every selector", () => {
    const index = new LabelSelectorIndex();
    for (let i = 0; i < 1000; i++) index.set(`monitoring/p${i}`, { matchLabels: { team: `t${i}` } });
    expect(index.matching({ team: 't417', app: 'x' })).toStrictEqual(['monitoring/p417']);
    expect(index.evaluations).toBe(1);
  });
});

/** An informer stand-in: the index only needs addEventHandler. */
function fakeInformer(): { informer: SharedInformer; handler: () => EventHandler } {
  let h: EventHandler | undefined;
  const informer = {
    addEventHandler: (handler: EventHandler) => {
      h = handler;
      return () => {
        h = undefined;
      };
    },
  } as unknown as SharedInformer;
  return { informer, handler: () => h! };
}

function prometheus(name: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'Prometheus',
    metadata: { name, namespace: 'monitoring' },
    spec,
  } as KubeObject;
}

describe('SelectorIndex', () => {
  const options = {
    selectors: (p: KubeObject) => {
      const spec = (p as any).spec ?? {};
      return {
        serviceMonitors: spec.serviceMonitorSelector,
        serviceMonitorNamespaces: spec.serviceMonitorNamespaceSelector ?? {
          matchLabels: { 'kubernetes.io/metadata.name': p.metadata!.namespace! },
        },
      };
    },
  };

  test('follows adds, updates and deletes of the selecting kind', () => {
    const { informer, handler } = fakeInformer();
    const index = new SelectorIndex(informer, options);
    const main = prometheus('main', {
      serviceMonitorSelector: { matchLabels: { release: 'main' } },
      serviceMonitorNamespaceSelector: { matchLabels: { monitored: 'true' } },
    });
    handler().onAdd!(main);
    expect(
      index.matchingAll({ serviceMonitors: { release: 'main' }, serviceMonitorNamespaces: { monitored: 'true' } }),
    ).toStrictEqual([{ namespace: 'monitoring', name: 'main' }]);
    expect(
      index.matchingAll({ serviceMonitors: { release: 'main' }, serviceMonitorNamespaces: { monitored: 'false' } }),
    ).toStrictEqual([]);
    expect(index.matching('serviceMonitorNamespaces', { monitored: 'true' })).toStrictEqual([
      { namespace: 'monitoring', name: 'main' },
    ]);

    const moved = prometheus('main', { serviceMonitorSelector: { matchLabels: { release: 'other' } } });
    handler().onUpdate!(main, moved);
    expect(index.matching('serviceMonitors', { release: 'main' })).toStrictEqual([]);
    // No namespace selector: only its own namespace.
    expect(index.matching('serviceMonitorNamespaces', { monitored: 'true' })).toStrictEqual([]);
    expect(index.matching('serviceMonitorNamespaces', { 'kubernetes.io/metadata.name': 'monitoring' })).toStrictEqual([
      { namespace: 'monitoring', name: 'main' },
    ]);

    handler().onDelete!(moved);
    expect(index.matching('serviceMonitors', { release: 'other' })).toStrictEqual([]);
    expect(index.matching('serviceMonitorNamespaces', { 'kubernetes.io/metadata.name': 'monitoring' })).toStrictEqual(
      [],
    );
  });

  test('a slot that an update no longer returns is dropped', () => {
    const { informer, handler } = fakeInformer();
    const index = new SelectorIndex(informer, {
      selectors: (o) => ((o as any).spec.sel ? { a: (o as any).spec.sel } : {}),
    });
    const o = prometheus('x', { sel: {} });
    handler().onAdd!(o);
    expect(index.matching('a', {})).toHaveLength(1);
    handler().onUpdate!(o, prometheus('x', {}));
    expect(index.matching('a', {})).toStrictEqual([]);
    index.stop();
    expect(() => handler().onAdd).toThrow();
  });
});
