/**
 * Sharding with the apiserver's shard selector (`assignment: 'server'`, runtime/shard-ranges.ts) on the real
 * kube-apiserver: v1.36.3 with the feature gate `ShardedListAndWatch` (the server filters each member's lists and
 * watches by its hash ranges), and v1.32.13, which ignores the parameter (each member filters the whole stream).
 * Members reconcile 40 ConfigMaps; every list item and watch event each member receives is counted.
 */
import { KubeClient, ListOptions, ListResult, RestClient, WatchOptions, WatchStream } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { ControlPlane } from '../../runtime/envtest';
import { Manager } from '../../runtime/manager';
import { KubeObject, ResourceRef } from '../../runtime/resource';
import {
  bucketKey,
  bucketOf,
  fnv1a64,
  probeShardSelector,
  SHARD_BUCKETS,
  shardRangeSelector,
} from '../../runtime/shard-ranges';
import { rendezvousOwner } from '../../runtime/sharding';
import { describeApiServerVersion, describeRealApiServer } from '../envtest';
import { FAST_INFORMER, testLogger, until } from './support';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const N = 40;

/** A client counting the ConfigMaps its lists and watches deliver (names, per request kind). */
class CountingClient implements KubeClient {
  public readonly listed = new Set<string>();
  public readonly watched = new Set<string>();
  public readonly selectors: Array<string | undefined> = [];
  /** ConfigMap lists in flight. */
  public listing = 0;
  constructor(private readonly inner: RestClient) {}
  async list(ref: ResourceRef, options: ListOptions = {}): Promise<ListResult> {
    if (ref.kind !== 'ConfigMap') return this.inner.list(ref, options);
    this.selectors.push(options.shardSelector);
    const keep = (o: KubeObject) => {
      this.listed.add(o.metadata!.name!);
      return options.keep ? options.keep(o) : true;
    };
    this.listing++;
    try {
      return await this.inner.list(ref, { ...options, keep });
    } finally {
      this.listing--;
    }
  }
  async watch(ref: ResourceRef, options: WatchOptions): Promise<WatchStream> {
    const stream = await this.inner.watch(ref, options);
    if (ref.kind !== 'ConfigMap') return stream;
    const watched = this.watched;
    async function* events() {
      for await (const e of stream.events) {
        if (e.type !== 'BOOKMARK' && e.type !== 'ERROR') watched.add(e.object.metadata!.name!);
        yield e;
      }
    }
    return { events: events(), abort: () => stream.abort() };
  }
  get: KubeClient['get'] = (...a) => this.inner.get(...a);
  create: KubeClient['create'] = (...a) => this.inner.create(...a);
  replace: KubeClient['replace'] = (...a) => this.inner.replace(...a);
  replaceStatus: KubeClient['replaceStatus'] = (...a) => this.inner.replaceStatus(...a);
  patch: KubeClient['patch'] = (...a) => this.inner.patch(...a);
  delete: KubeClient['delete'] = (...a) => this.inner.delete(...a);
}

function suite(plane: () => ControlPlane, served: boolean): void {
  const ns = 'shard-selector';
  const members: Array<{ manager: Manager; client: CountingClient }> = [];
  let admin: RestClient;
  let uids: Map<string, string>;

  beforeAll(async () => {
    admin = RestClient.fromKubeConfig(plane().kubeConfig());
    await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (let i = 0; i < N; i++) {
      await admin.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: ns } });
    }
    const items = (await admin.list(CONFIGMAP, { namespace: ns })).items.filter((o) =>
      o.metadata!.name!.startsWith('cm-'),
    );
    uids = new Map(items.map((o) => [o.metadata!.name!, o.metadata!.uid!]));
  }, 60_000);
  afterAll(async () => {
    for (const m of members) await m.manager.stop();
    admin?.close();
  }, 60_000);

  async function member(): Promise<{ manager: Manager; client: CountingClient }> {
    const client = new CountingClient(RestClient.fromKubeConfig(plane().kubeConfig()));
    const manager = new Manager({
      client,
      namespace: ns,
      logger: testLogger(),
      informer: FAST_INFORMER,
      gracefulShutdownTimeoutMs: 5000,
      sharding: {
        ring: 'sel',
        key: 'uid',
        namespace: ns,
        assignment: 'server',
        leaseDurationMs: 3000,
        renewDeadlineMs: 2000,
        retryPeriodMs: 300,
      },
    });
    const store = manager.getInformer(CONFIGMAP).cache;
    new ControllerBuilder(manager, { name: 'marker' }).for(CONFIGMAP).complete({
      reconcile: async ({ namespace, name }, ctx) => {
        const cm = store.get(`${namespace}/${name}`);
        const by = manager.shard!.member;
        if (!cm || cm.metadata?.annotations?.by === by) return;
        await ctx!.client.patch(CONFIGMAP, name!, namespace, {
          type: 'merge',
          body: { metadata: { annotations: { by } } },
        });
      },
    });
    await manager.start();
    const m = { manager, client };
    members.push(m);
    return m;
  }

  /** Which ConfigMaps each member should own: rendezvous hashing of the FNV-1a bucket of the UID. */
  function shares(): Map<string, Set<string>> {
    const names = members.map((m) => m.manager.shard!.member);
    const out = new Map(names.map((n) => [n, new Set<string>()]));
    for (const [name, uid] of uids) out.get(rendezvousOwner(bucketKey(bucketOf(uid)), names)!)!.add(name);
    return out;
  }

  /** Every member acts on the full ring, caches exactly its share, and every ConfigMap is marked by its owner. */
  async function expectShares(): Promise<Map<string, Set<string>>> {
    await until(
      'every member acting on the same ring',
      () => members.every((m) => m.manager.shard!.members.length === members.length),
      30_000,
      50,
    );
    const expected = shares();
    await until(
      'each cache holding exactly its share',
      () =>
        members.every((m) => {
          const cached = m.manager
            .getInformer(CONFIGMAP)
            .cache.list()
            .map((o) => o.metadata!.name!);
          const share = expected.get(m.manager.shard!.member)!;
          return (
            cached.filter((n) => n.startsWith('cm-')).length === share.size &&
            cached.every((n) => !n.startsWith('cm-') || share.has(n))
          );
        }),
      30_000,
      50,
    );
    await until(
      'every ConfigMap marked by its owner',
      async () => {
        const items = (await admin.list(CONFIGMAP, { namespace: ns })).items.filter((o) =>
          o.metadata!.name!.startsWith('cm-'),
        );
        return items.every((o) => expected.get(o.metadata!.annotations?.by ?? '')?.has(o.metadata!.name!));
      },
      30_000,
      100,
    );
    return expected;
  }

  test(`the probe says the server ${served ? 'applies' : 'ignores'} shard selectors`, async () => {
    expect(await probeShardSelector(admin, ns)).toBe(served);
  });

  /**
   * After a touch of every ConfigMap, each member's watch delivers its share only (served) or every ConfigMap
   * (not served: it filters them itself).
   */
  async function expectDelivered(expected: Map<string, Set<string>>): Promise<void> {
    // Each member's last list asked for its share (served), and none is in flight.
    const names = members.map((m) => m.manager.shard!.member);
    for (const m of members) {
      const mine = [...Array(SHARD_BUCKETS).keys()].filter(
        (b) => rendezvousOwner(bucketKey(b), names) === m.manager.shard!.member,
      );
      const selector = served ? shardRangeSelector('object.metadata.uid', mine) : undefined;
      await until(
        "the last list with the member's ranges done",
        () => m.client.listing === 0 && m.client.selectors.at(-1) === selector,
        30_000,
        20,
      );
      m.client.listed.clear();
      m.client.watched.clear();
    }
    await Promise.all(
      [...uids.keys()].map((name) =>
        admin.patch(CONFIGMAP, name, ns, { type: 'merge', body: { data: { touched: String(Date.now()) } } }),
      ),
    );
    for (const m of members) {
      const share = expected.get(m.manager.shard!.member)!;
      const want = served ? share.size : N;
      // A list (a relist) or the watch delivers each touched ConfigMap.
      const delivered = () =>
        [...new Set([...m.client.listed, ...m.client.watched])].filter((n) => n.startsWith('cm-'));
      await until(`${want} ConfigMaps delivered to a member`, () => delivered().length >= want, 30_000, 50);
      if (served) {
        // The server's FNV-1a ranges and the ring's buckets agree object by object: nothing outside the share came.
        expect(new Set(delivered())).toEqual(share);
      }
    }
  }

  test(`two members: each caches its share; the server sends each ${served ? 'only its share' : 'everything'}`, async () => {
    await member();
    await member();
    const expected = await expectShares();
    expect([...expected.values()].map((s) => s.size).sort()).toHaveLength(2);
    expect([...expected.values()].every((s) => s.size > 0)).toBe(true);
    await expectDelivered(expected);
    const selectors = members.flatMap((m) => m.client.selectors);
    if (served) expect(selectors.every((s) => s?.startsWith('shardRange(object.metadata.uid, '))).toBe(true);
    else expect(selectors.every((s) => s === undefined)).toBe(true);
  }, 90_000);

  test('a third member joins: the others re-list with their new ranges and the shares move', async () => {
    const before = shares();
    await member();
    const expected = await expectShares();
    // Rendezvous hashing of the buckets: only what the new member takes moves.
    const joined = expected.get(members[2].manager.shard!.member)!;
    for (const [name, share] of before) {
      for (const n of share) expect(expected.get(name)!.has(n) || joined.has(n)).toBe(true);
    }
    await expectDelivered(expected);
  }, 90_000);

  test('fnv1a64 is the published 64-bit FNV-1a', () => {
    expect(fnv1a64('').toString(16)).toBe('cbf29ce484222325');
    expect(fnv1a64('a').toString(16)).toBe('af63dc4c8601ec8c');
  });
}

describeApiServerVersion('sharding by the apiserver shard selector', '1.36', (plane) => suite(plane, true), {
  apiServerFlags: ['--feature-gates=ShardedListAndWatch=true'],
  controllerManager: false,
});

describeRealApiServer('sharding by the apiserver shard selector, fallback [v1.32]', (plane) => suite(plane, false), {
  shared: true,
});
