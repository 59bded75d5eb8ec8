import { MemoryClient } from './memory-client';
import { canonicalJson, hashJson } from '../../runtime/_json';
import { APPLIED_HASH_ANNOTATION, applyOwned, isApplied } from '../../runtime/apply';
import {
  controllerReference,
  getControllerOf,
  isControlledBy,
  setControllerReference,
} from '../../runtime/owner-references';

const owner = {
  apiVersion: 'samplecontroller.k8s.io/v1alpha1',
  kind: 'Foo',
  metadata: { namespace: 'ns', name: 'foo', uid: 'u-foo' },
};
const desired = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns', ownerReferences: [controllerReference(owner)] },
  spec: { replicas: 2, template: { spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] } } },
};

describe('applyOwned', () => {
  test('creates with server-side apply (field manager, force), then skips while the live object matches', async () => {
    const client = new MemoryClient();
    const first = await applyOwned(client, desired, { fieldManager: 'foo' });
    expect(first.changed).toBe(true);
    expect(client.writes()).toHaveLength(1);
    expect(client.writes()[0]).toMatchObject({ verb: 'patch', patchType: 'apply' });
    // the server adds defaults: still counts as applied
    const live = client.seed({
      ...first.object,
      spec: {
        ...(first.object.spec as object),
        progressDeadlineSeconds: 600,
        template: { spec: { containers: [{ name: 'nginx', image: 'nginx:latest', imagePullPolicy: 'Always' }] } },
      },
    });
    const second = await applyOwned(client, desired, { fieldManager: 'foo', live });
    expect(second.changed).toBe(false);
    expect(client.writes()).toHaveLength(1);
  });

  test('applies again when a desired field differs or was removed', async () => {
    const client = new MemoryClient();
    const { object } = await applyOwned(client, desired, { fieldManager: 'foo' });
    expect(isApplied({ ...desired, spec: { ...desired.spec, replicas: 3 } }, object)).toBe(false);
    const { replicas: _r, ...withoutReplicas } = desired.spec;
    // replicas is still present live, so only the hash annotation reveals the removal
    expect(isApplied({ ...desired, spec: withoutReplicas }, object)).toBe(false);
    expect(object.metadata!.annotations![APPLIED_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
  });

  test('createWhenAbsent: no live object in the cache → one POST; a 409 AlreadyExists (cache lag) → server-side apply', async () => {
    const client = new MemoryClient();
    const created = await applyOwned(client, desired, { fieldManager: 'foo', createWhenAbsent: true });
    expect(created.changed).toBe(true);
    expect(client.writes().map((w) => w.verb)).toEqual(['create']);
    expect(created.object.metadata!.annotations![APPLIED_HASH_ANNOTATION]).toMatch(/^[0-9a-f]{16}$/);
    expect(isApplied(desired, created.object)).toBe(true);

    const changed = { ...desired, spec: { ...desired.spec, replicas: 3 } };
    const lagging = await applyOwned(client, changed, { fieldManager: 'foo', createWhenAbsent: true });
    expect(client.writes().map((w) => [w.verb, w.patchType])).toEqual([
      ['create', undefined],
      ['create', undefined],
      ['patch', 'apply'],
    ]);
    expect((lagging.object.spec as { replicas: number }).replicas).toBe(3);
  });

  test('fails for an object without a name', async () => {
    await expect(
      applyOwned(new MemoryClient(), { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, { fieldManager: 'x' }),
    ).rejects.toThrow(/needs apiVersion, kind and metadata.name/);
  });
});

describe('applied hash', () => {
  // Live objects carry this hash: a change of the serialisation would rewrite every owned object once.
  test('is stable: keys sorted, undefined members left out, undefined array elements as null', () => {
    const unsorted = {
      kind: 'Deployment',
      apiVersion: 'apps/v1',
      metadata: { name: 'foo-1', labels: { b: '2', a: '1' }, gone: undefined },
      spec: { replicas: 1, list: [2, 'x', null, undefined, { z: true, é: 1.5 }] },
    };
    expect(canonicalJson(unsorted)).toBe(
      '{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"a":"1","b":"2"},"name":"foo-1"},"spec":{"list":[2,"x",null,null,{"z":true,"é":1.5}],"replicas":1}}',
    );
    expect(hashJson(unsorted)).toBe('6596ea9aaa4f275c');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson([])).toBe('[]');
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });
});

describe('owner references', () => {
  test('controller reference has controller and blockOwnerDeletion', () => {
    expect(controllerReference(owner)).toStrictEqual({
      apiVersion: owner.apiVersion,
      kind: 'Foo',
      name: 'foo',
      uid: 'u-foo',
      controller: true,
      blockOwnerDeletion: true,
    });
  });

  test('setControllerReference refuses a second controller', () => {
    const obj = setControllerReference(owner, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns' },
    });
    expect(isControlledBy(obj, owner)).toBe(true);
    expect(getControllerOf(obj, { apiVersion: 'samplecontroller.k8s.io/v2', kind: 'Foo' })?.uid).toBe('u-foo');
    expect(getControllerOf(obj, { apiVersion: 'apps/v1', kind: 'Foo' })).toBeUndefined();
    const other = { ...owner, metadata: { ...owner.metadata, name: 'other', uid: 'u-other' } };
    expect(() => setControllerReference(other, obj)).toThrow(/already controlled by Foo foo/);
  });
});
