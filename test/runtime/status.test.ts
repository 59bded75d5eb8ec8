import { MemoryClient } from './memory-client';
import { findCondition, metaTime, microTime, removeCondition, setCondition, updateStatus } from '../../runtime/status';

const T0 = new Date('2026-01-01T00:00:00.123Z');
const T1 = new Date('2026-01-01T01:00:00Z');

describe('conditions', () => {
  test('a new condition gets lastTransitionTime = now (seconds precision)', () => {
    const list = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'waiting', observedGeneration: 1 },
      T0,
    );
    expect(list).toStrictEqual([
      {
        type: 'Ready',
        status: 'False',
        observedGeneration: 1,
        lastTransitionTime: '2026-01-01T00:00:00Z',
        reason: 'Pending',
        message: 'waiting',
      },
    ]);
  });

  test('lastTransitionTime stays when only reason, message or observedGeneration change', () => {
    const first = setCondition(
      undefined,
      { type: 'Ready', status: 'False', reason: 'Pending', message: 'a', observedGeneration: 1 },
      T0,
    );
    const second = setCondition(
      first,
      { type: 'Ready', status: 'False', reason: 'StillPending', message: 'b', observedGeneration: 2 },
      T1,
    );
    expect(second[0].lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(second[0]).toMatchObject({ reason: 'StillPending', message: 'b', observedGeneration: 2 });
  });

  test('lastTransitionTime changes when status changes', () => {
    const first = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'Pending', message: '' }, T0);
    const second = setCondition(first, { type: 'Ready', status: 'True', reason: 'Available', message: '' }, T1);
    expect(second[0].lastTransitionTime).toBe('2026-01-01T01:00:00Z');
  });

  test('other conditions keep their order; the input list is not mutated', () => {
    const base = setCondition(
      setCondition(undefined, { type: 'A', status: 'True', reason: 'R', message: '' }, T0),
      { type: 'B', status: 'True', reason: 'R', message: '' },
      T0,
    );
    const frozen = Object.freeze([...base]);
    const next = setCondition(frozen, { type: 'A', status: 'False', reason: 'R', message: '' }, T1);
    expect(next.map((c) => c.type)).toEqual(['A', 'B']);
    expect(frozen[0].status).toBe('True');
    expect(findCondition(next, 'A')!.status).toBe('False');
    expect(removeCondition(next, 'A').map((c) => c.type)).toEqual(['B']);
  });

  test('fails for a bad type or status', () => {
    expect(() => setCondition([], { type: 'not ok', status: 'True', reason: 'R', message: '' })).toThrow(
      /condition type must be CamelCase, got 'not ok'/,
    );
    expect(() => setCondition([], { type: 'Ready', status: 'yes' as any, reason: 'R', message: '' })).toThrow(
      /got 'yes'/,
    );
  });

  test('time formats', () => {
    expect(metaTime(T0)).toBe('2026-01-01T00:00:00Z');
    expect(microTime(T0)).toBe('2026-01-01T00:00:00.123000Z');
  });
});

describe('updateStatus', () => {
  const FOO = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };

  test('no request at all when the status is already as desired (key order ignored)', async () => {
    const client = new MemoryClient();
    const live = client.seed({
      apiVersion: FOO.apiVersion,
      kind: 'Foo',
      metadata: { namespace: 'ns', name: 'a' },
      status: { b: 1, a: { x: [1, 2] } },
    });
    expect(await updateStatus(client, live, { a: { x: [1, 2] }, b: 1 }, { resource: FOO })).toBeUndefined();
    expect(client.calls).toEqual([]);
  });

  test('writes a minimal merge patch to /status, nulling removed fields', async () => {
    const client = new MemoryClient();
    const live = client.seed({
      apiVersion: FOO.apiVersion,
      kind: 'Foo',
      metadata: { namespace: 'ns', name: 'a' },
      spec: { replicas: 1 },
      status: { availableReplicas: 1, old: 'x', keep: 'k' },
    });
    const updated = await updateStatus(
      client,
      live,
      { availableReplicas: 2, keep: 'k' },
      { resource: FOO, fieldManager: 'foo' },
    );
    expect(client.writes()).toStrictEqual([
      {
        verb: 'patch',
        kind: 'Foo',
        key: 'ns/a',
        patchType: 'merge',
        subresource: 'status',
        body: { status: { availableReplicas: 2, old: null } },
      },
    ]);
    expect(updated!.status).toEqual({ availableReplicas: 2, keep: 'k' });
  });
});
