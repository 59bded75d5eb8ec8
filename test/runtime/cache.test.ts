import { ObjectCache, resourceVersionReached } from '../../runtime/cache';
import { KubeObject } from '../../runtime/resource';

function obj(ns: string, name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: ns, name, resourceVersion: rv, ...extra } };
}

describe('ObjectCache', () => {
  test('indexes by namespace, owner uid and label, and re-indexes on update', () => {
    const cache = new ObjectCache();
    cache.upsert(
      obj('a', 'x', '1', {
        labels: { app: 'web' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'Foo', name: 'o', uid: 'u1', controller: true }],
      }),
    );
    cache.upsert(obj('b', 'y', '2', { labels: { app: 'db' } }));
    expect(cache.byIndex('namespace', 'a').map((o) => o.metadata!.name)).toEqual(['x']);
    expect(cache.byIndex('ownerUid', 'u1').map((o) => o.metadata!.name)).toEqual(['x']);
    expect(cache.byIndex('label', 'app=db').map((o) => o.metadata!.name)).toEqual(['y']);
    cache.upsert(obj('a', 'x', '3', { labels: { app: 'db' } }));
    expect(cache.byIndex('ownerUid', 'u1')).toEqual([]);
    expect(
      cache
        .byIndex('label', 'app=db')
        .map((o) => o.metadata!.name)
        .sort(),
    ).toEqual(['x', 'y']);
    cache.delete('a/x');
    expect(cache.byIndex('label', 'app=db').map((o) => o.metadata!.name)).toEqual(['y']);
    expect(() => cache.byIndex('nope', 'x')).toThrow(/unknown indexer 'nope'/);
  });

  test('custom indexers index existing objects', () => {
    const cache = new ObjectCache();
    cache.upsert({ ...obj('a', 'x', '1'), spec: { deploymentName: 'd1' } });
    cache.addIndexer('deploymentName', (o) => [String((o.spec as { deploymentName: string }).deploymentName)]);
    expect(cache.byIndex('deploymentName', 'd1')).toHaveLength(1);
    expect(() => cache.addIndexer('deploymentName', () => [])).toThrow(/already exists/);
  });

  test('hands out frozen objects and mutable copies', () => {
    const cache = new ObjectCache();
    cache.upsert(obj('a', 'x', '1', { labels: { a: '1' } }));
    const frozen = cache.get('a/x')!;
    expect(() => {
      frozen.metadata!.labels!.a = '2';
    }).toThrow(TypeError);
    const copy = cache.getCopy('a/x')!;
    copy.metadata!.labels!.a = '2';
    expect(cache.get('a/x')!.metadata!.labels!.a).toBe('1');
  });

  test('replace reports added, updated (new resourceVersion only) and deleted objects', () => {
    const cache = new ObjectCache();
    cache.upsert(obj('a', 'keep', '1'));
    cache.upsert(obj('a', 'change', '1'));
    cache.upsert(obj('a', 'gone', '1'));
    const diff = cache.replace([obj('a', 'keep', '1'), obj('a', 'change', '2'), obj('a', 'new', '3')]);
    expect(diff.added.map((o) => o.metadata!.name)).toEqual(['new']);
    expect(
      diff.updated.map((u) => [u.oldObject.metadata!.resourceVersion, u.newObject.metadata!.resourceVersion]),
    ).toEqual([['1', '2']]);
    expect(diff.deleted.map((o) => o.metadata!.name)).toEqual(['gone']);
    expect(cache.keys().sort()).toEqual(['a/change', 'a/keep', 'a/new']);
  });

  test('waitForResourceVersion resolves when the write shows up and times out otherwise', async () => {
    const cache = new ObjectCache();
    cache.upsert(obj('a', 'x', '5'));
    await expect(cache.waitForResourceVersion('a/x', '5', 10)).resolves.toBe(true);
    const waiting = cache.waitForResourceVersion('a/x', '7', 1000);
    cache.upsert(obj('a', 'x', '6'));
    cache.upsert(obj('a', 'x', '8'));
    await expect(waiting).resolves.toBe(true);
    await expect(cache.waitForResourceVersion('a/x', '9', 20)).resolves.toBe(false);
  });

  test('waitForResourceVersion resolves when the object is deleted (a write that removed its last finalizer)', async () => {
    const cache = new ObjectCache();
    cache.upsert(obj('a', 'x', '5', { deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['f'] }));
    // The patch removing the finalizer returned rv 6; the apiserver then deletes the object, so the
    // cache sees a delete, never rv 6.
    const waiting = cache.waitForResourceVersion('a/x', '6', 5000);
    const other = cache.waitForResourceVersion('a/y', '1', 30);
    cache.delete('a/x');
    await expect(waiting).resolves.toBe(true);
    await expect(other).resolves.toBe(false);
  });

  test('resourceVersionReached compares numerically only for integers', () => {
    expect(resourceVersionReached('10', '9')).toBe(true);
    expect(resourceVersionReached('9', '10')).toBe(false);
    expect(resourceVersionReached('abc', 'abd')).toBe(false);
    expect(resourceVersionReached(undefined, '1')).toBe(false);
  });
});
