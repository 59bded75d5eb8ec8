import { MemoryClient } from './memory-client';
import { isInvalid } from '../../runtime/errors';
import { addFinalizer, finalizer, removeFinalizer } from '../../runtime/finalizer';

const NAME = 'example.com/cleanup';
const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'ns', name: 'a' } };

describe('finalizer', () => {
  test('adds the finalizer with a JSON-Patch test guard, then applies', async () => {
    const client = new MemoryClient();
    const obj = client.seed(base);
    const seen: string[][] = [];
    await finalizer(client, NAME, obj, {
      apply: async (o) => {
        seen.push(o.metadata!.finalizers!);
      },
      cleanup: async () => undefined,
    });
    expect(seen).toEqual([[NAME]]);
    const [write] = client.writes();
    expect(write.patchType).toBe('json');
    expect(write.body).toEqual([
      { op: 'test', path: '/metadata/resourceVersion', value: obj.metadata!.resourceVersion },
      { op: 'add', path: '/metadata/finalizers', value: [NAME] },
    ]);
  });

  test("keeps other controllers' finalizers and fails instead of overwriting a concurrent change", async () => {
    const client = new MemoryClient();
    const obj = client.seed({ ...base, metadata: { ...base.metadata, finalizers: ['other/x'] } });
    const stale = structuredClone(obj);
    // another controller adds its finalizer meanwhile
    client.seed({ ...obj, metadata: { ...obj.metadata, finalizers: ['other/x', 'third/y'] } });
    const err = await addFinalizer(client, stale, NAME).catch((e) => e);
    expect(isInvalid(err)).toBe(true);
    expect(client.stored('ConfigMap', 'ns/a')!.metadata!.finalizers).toEqual(['other/x', 'third/y']);
    const fresh = client.stored('ConfigMap', 'ns/a')!;
    await addFinalizer(client, fresh, NAME);
    expect(client.stored('ConfigMap', 'ns/a')!.metadata!.finalizers).toEqual(['other/x', 'third/y', NAME]);
  });

  test('on deletion runs cleanup, then removes only its own finalizer', async () => {
    const client = new MemoryClient();
    const obj = client.seed({
      ...base,
      metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other/x', NAME] },
    });
    let cleaned = 0;
    await finalizer(client, NAME, obj, {
      apply: async () => {
        throw new Error('must not apply');
      },
      cleanup: async () => {
        cleaned++;
      },
    });
    expect(cleaned).toBe(1);
    expect(client.stored('ConfigMap', 'ns/a')!.metadata!.finalizers).toEqual(['other/x']);
    expect(client.writes()[0].body).toEqual([
      { op: 'test', path: '/metadata/finalizers/1', value: NAME },
      { op: 'remove', path: '/metadata/finalizers/1' },
    ]);
  });

  test('keeps the finalizer when cleanup fails', async () => {
    const client = new MemoryClient();
    const obj = client.seed({
      ...base,
      metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: [NAME] },
    });
    await expect(
      finalizer(client, NAME, obj, {
        apply: async () => undefined,
        cleanup: async () => {
          throw new Error('external api down');
        },
      }),
    ).rejects.toThrow(/external api down/);
    expect(client.writes()).toEqual([]);
    expect(client.stored('ConfigMap', 'ns/a')!.metadata!.finalizers).toEqual([NAME]);
  });

  test('removing a finalizer that moved fails the test op', async () => {
    const client = new MemoryClient();
    const obj = client.seed({ ...base, metadata: { ...base.metadata, finalizers: ['a/x', NAME] } });
    const stale = structuredClone(obj);
    client.seed({ ...obj, metadata: { ...obj.metadata, finalizers: [NAME] } });
    await expect(removeFinalizer(client, stale, NAME)).rejects.toMatchObject({ code: 422 });
    expect(client.stored('ConfigMap', 'ns/a')!.metadata!.finalizers).toEqual([NAME]);
  });

  test('being deleted without our finalizer does nothing', async () => {
    const client = new MemoryClient();
    const obj = client.seed({
      ...base,
      metadata: { ...base.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['other/x'] },
    });
    await finalizer(client, NAME, obj, {
      apply: async () => {
        throw new Error('no');
      },
      cleanup: async () => {
        throw new Error('no');
      },
    });
    expect(client.writes()).toEqual([]);
  });
});
