/**
 * The shard labeller after a conflicting label write (runtime/shard-labels.ts): the object is read again and
 * labelled if it still needs it. The race it covers was found by the Foo benchmark (4 members, labels, v1.36.3):
 * an assignment computed from the previous view won, the assigner's newer write (a stale resourceVersion from its
 * list) got 409, and the object sat labelled with a member that no longer owned it, reconciled by nobody.
 */
import { until } from './support';
import { KubeClient, PatchOptions } from '../../runtime/client';
import { ApiError } from '../../runtime/errors';
import { KubeObject, ResourceRef } from '../../runtime/resource';
import { ShardLabeller } from '../../runtime/shard-labels';
import { ShardRing } from '../../runtime/sharding';

const FOO: ResourceRef = { apiVersion: 'samplecontroller.k8s.io/v1alpha1', kind: 'Foo', plural: 'foos' };
const LABEL = 'shard.cdk8s-operator.io/foo';

/** A client whose first label write conflicts; `get` returns the object as another write left it. */
function conflictingClient(current: KubeObject) {
  const patches: Array<{ labels: Record<string, string>; resourceVersion: string }> = [];
  let gets = 0;
  const client = {
    async patch(_ref: ResourceRef, _name: string, _ns: string | undefined, patch: any, _o?: PatchOptions) {
      patches.push({ labels: patch.body.metadata.labels, resourceVersion: patch.body.metadata.resourceVersion });
      if (patches.length === 1) throw new ApiError(409, 'PATCH', '/foos/foo-12', { reason: 'Conflict' } as never);
      return current;
    },
    async get() {
      gets++;
      return current;
    },
  } as unknown as KubeClient;
  return { client, patches, gets: () => gets };
}

/** This member ('a') acting on the view [a, b], the latest view giving every object to `latestOwner`. */
function ring(latestOwner: string): ShardRing {
  return { ring: 'foo', member: 'a', members: ['a', 'b'], active: true, latestOwner: () => latestOwner } as never;
}

const foo = (resourceVersion: string, label?: string): KubeObject => ({
  apiVersion: FOO.apiVersion,
  kind: FOO.kind,
  metadata: {
    name: 'foo-12',
    namespace: 'default',
    uid: 'u-12',
    resourceVersion,
    ...(label ? { labels: { [LABEL]: label } } : {}),
  },
});

describe('ShardLabeller after a conflict', () => {
  test('a move that lost to an older write is computed again from the object as it is now', async () => {
    // Labelled 'a' by a write from the previous view (resourceVersion 1269); the latest view gives it to 'b'.
    const { client, patches, gets } = conflictingClient(foo('1269', 'a'));
    const labeller = new ShardLabeller({ client, ring: ring('b'), key: 'uid', kinds: () => [] });
    labeller.consider(FOO, foo('1200', 'a')); // an event of an older version: its write conflicts
    await until('the move written again', () => patches.length === 2);
    expect(gets()).toBe(1);
    expect(patches).toEqual([
      { labels: { [LABEL]: 'b' }, resourceVersion: '1200' },
      { labels: { [LABEL]: 'b' }, resourceVersion: '1269' },
    ]);
    await labeller.stop();
  });

  test('a label naming another member is left to that member; nothing more is written', async () => {
    const { client, patches, gets } = conflictingClient(foo('1300', 'b'));
    const labeller = new ShardLabeller({ client, ring: ring('b'), key: 'uid', kinds: () => [] });
    labeller.consider(FOO, foo('1200', 'a'));
    await until('the object read again', () => gets() === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(patches).toHaveLength(1);
    await labeller.stop();
  });
});

describe('ShardLabeller order', () => {
  const DEPLOYMENT: ResourceRef = { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments' };
  const obj = (kind: string, name: string): KubeObject => ({
    apiVersion: kind === 'Foo' ? FOO.apiVersion : DEPLOYMENT.apiVersion,
    kind,
    metadata: { name, namespace: 'default', uid: `u-${kind}-${name}`, resourceVersion: '1', labels: { [LABEL]: 'a' } },
  });

  test('the kinds take turns: one kind queued whole does not hold back the other', async () => {
    const sent: string[] = [];
    const client = {
      async patch(ref: ResourceRef, name: string) {
        sent.push(`${ref.kind}/${name}`);
        return {};
      },
    } as unknown as KubeClient;
    const labeller = new ShardLabeller({ client, ring: ring('b'), key: 'uid', kinds: () => [], concurrency: 1 });
    for (const n of ['d-1', 'd-2', 'd-3']) labeller.consider(DEPLOYMENT, obj('Deployment', n));
    for (const n of ['f-1', 'f-2', 'f-3']) labeller.consider(FOO, obj('Foo', n));
    await until('every move written', () => sent.length === 6);
    // The first Deployment was on its way before the Foos were queued; from then on one of each in turn.
    expect(sent).toEqual(['Deployment/d-1', 'Foo/f-1', 'Deployment/d-2', 'Foo/f-2', 'Deployment/d-3', 'Foo/f-3']);
    await labeller.stop();
  });
});
