/**
 * Sharding with the apiserver's shard selector (`assignment: 'server'`, runtime/shard-ranges.ts) on the real
 * kube-apiserver: v1.36.3 with the feature gate `ShardedListAndWatch` (the server filters each member's lists and
 * watches by its hash ranges), and v1.32.13, which ignores the parameter (each member filters the whole stream).
 * Members reconcile 40 ConfigMaps; every list item and watch event each member receives is counted.
 * On v1.36.3, also the user's path: an `Operator` chart with `contract.sharding: { assignment: 'server' }`, its RBAC
 * applied, and members started by `startControllerBinary` with the Deployment's arguments under the chart's
 * ServiceAccount (no `patch` on the sharded kind).
 */
import { Chart, Testing } from 'cdk8s';
import { rangesSuite } from './shard-ranges-namespaces';
import { FAST_INFORMER, testLogger, until } from './support';
import { Operator } from '../../lib';
import { startControllerBinary } from '../../runtime/cli';
import { KubeClient, ListOptions, ListResult, RestClient, WatchOptions, WatchStream } from '../../runtime/client';
import { defineContract } from '../../runtime/contract';
import { ControllerBuilder } from '../../runtime/controller';
import { ControlPlane } from '../../runtime/envtest';
import { Manager } from '../../runtime/manager';
import { KubeObject, ResourceRef } from '../../runtime/resource';
import {
  bucketKey,
  bucketOf,
  bucketOwner,
  fnv1a64,
  probeShardSelector,
  SHARD_BUCKETS,
  shardRangeSelector,
} from '../../runtime/shard-ranges';
import { describeApiServerVersion, describeRealApiServer } from '../envtest';

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

  /** Which ConfigMaps each member should own: the ring's owner (bounded rendezvous) of the FNV-1a bucket of the UID. */
  function shares(): Map<string, Set<string>> {
    const names = members.map((m) => m.manager.shard!.member);
    const out = new Map(names.map((n) => [n, new Set<string>()]));
    for (const [name, uid] of uids) out.get(bucketOwner(bucketKey(bucketOf(uid)), names)!)!.add(name);
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
        (b) => bucketOwner(bucketKey(b), names) === m.manager.shard!.member,
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
    // Bounded rendezvous of the buckets: what the new member takes moves, and beside it only the few buckets the
    // changed bound moves between the other two (runtime/shard-ranges.ts; their number: shard-buckets.test.ts).
    const joined = expected.get(members[2].manager.shard!.member)!;
    const names = members.map((m) => m.manager.shard!.member);
    const movedBetweenOthers = (uid: string) => {
      const b = bucketKey(bucketOf(uid));
      const [was, is] = [bucketOwner(b, names.slice(0, 2)), bucketOwner(b, names)];
      return is !== names[2] && was !== is;
    };
    for (const [name, share] of before) {
      for (const n of share) {
        expect(expected.get(name)!.has(n) || joined.has(n) || movedBetweenOthers(uids.get(n)!)).toBe(true);
      }
    }
    expect(joined.size).toBeGreaterThan(0);
    await expectDelivered(expected);
  }, 90_000);

  test('fnv1a64 is the published 64-bit FNV-1a', () => {
    expect(fnv1a64('').toString(16)).toBe('cbf29ce484222325');
    expect(fnv1a64('a').toString(16)).toBe('af63dc4c8601ec8c');
  });
}

const SECRET = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' };
const CHART_NS = 'sharded-chart';
/** A controller of ConfigMaps (each gets a marker Secret it owns) whose contract shards by the server's selector. */
const SERVER_SHARDED = defineContract({
  watches: [CONFIGMAP],
  owns: [SECRET],
  sharding: { assignment: 'server' },
  watchNamespaces: [CHART_NS],
});

/**
 * The user's path for `assignment: 'server'`: the Operator chart's RBAC on the apiserver, two members started from
 * the Deployment's arguments under the chart's ServiceAccount. The RBAC grants no patch on ConfigMaps, and the members
 * still reconcile every ConfigMap exactly once, each its share of the server's ranges.
 */
function chartSuite(plane: () => ControlPlane): void {
  describe('an Operator chart with assignment server', () => {
    const members: Manager[] = [];
    let admin: RestClient;
    let objects: any[];
    afterAll(async () => {
      for (const m of members) await m.stop();
      admin?.close();
    }, 60_000);

    test("its RBAC has no patch on the sharded kind; members started with the Deployment's arguments reconcile each its share", async () => {
      const chart = new Chart(Testing.app(), 'cms');
      new Operator(chart, 'cm-operator', {
        image: 'ghcr.io/acme/cm-operator:0.1.0',
        contract: SERVER_SHARDED,
        sharding: { replicas: 2 },
      });
      objects = Testing.synth(chart);
      const rbacKinds = ['Namespace', 'ServiceAccount', 'Role', 'RoleBinding', 'ClusterRole', 'ClusterRoleBinding'];
      await plane().applyObjects(objects.filter((o) => rbacKinds.includes(o.kind)));
      const identity = await plane().operatorIdentity(objects);
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      // The apiserver's own verdict on the chart's ServiceAccount: it may not patch ConfigMaps.
      const review = await plane().request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        spec: {
          user: identity.user,
          groups: ['system:serviceaccounts', 'system:authenticated'],
          resourceAttributes: { namespace: CHART_NS, verb: 'patch', resource: 'configmaps' },
        },
      });
      expect(review.body.status.allowed).toBe(false);
      const uids = new Map<string, string>();
      for (let i = 0; i < 20; i++) {
        const cm = await admin.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `c-${i}`, namespace: CHART_NS },
        });
        uids.set(cm.metadata!.name!, cm.metadata!.uid!);
      }

      const deployment = objects.find((o) => o.kind === 'Deployment');
      const args: string[] = deployment.spec.template.spec.containers[0].args;
      expect(args).toEqual(expect.arrayContaining(['--sharding-ring=cm-operator', '--sharding-assignment=server']));
      const argv = [
        ...args.filter((a) => !/^--(metrics|health-probe)-bind-address=/.test(a)),
        '--metrics-bind-address=0',
        '--health-probe-bind-address=0',
        `--leader-election-namespace=${deployment.metadata.namespace}`,
      ];
      for (let i = 0; i < 2; i++) {
        members.push(
          await startControllerBinary(
            {
              name: 'cm',
              leaseName: 'cm-operator',
              contract: SERVER_SHARDED,
              managerOptions: () => ({ kubeConfig: plane().kubeConfig(identity), logger: testLogger() }),
              setup: (manager) => {
                const store = manager.getInformer(CONFIGMAP).cache;
                new ControllerBuilder(manager, { name: 'marker' })
                  .for(CONFIGMAP)
                  .owns(SECRET)
                  .complete({
                    reconcile: async ({ namespace, name }, ctx) => {
                      const cm = store.get(`${namespace}/${name}`);
                      if (!cm) return;
                      const by = manager.shard!.member;
                      const marker = manager.getInformer(SECRET).cache.get(`${namespace}/${name}-marker`);
                      if (marker?.metadata?.annotations?.by === by) return;
                      if (marker) {
                        // taken over from the member that held it while the ring had one member
                        await ctx!.client.patch(SECRET, `${name}-marker`, namespace, {
                          type: 'merge',
                          body: { metadata: { annotations: { by } } },
                        });
                        return;
                      }
                      await ctx!.client.create({
                        apiVersion: 'v1',
                        kind: 'Secret',
                        metadata: {
                          name: `${name}-marker`,
                          namespace,
                          annotations: { by },
                          ownerReferences: [
                            {
                              apiVersion: 'v1',
                              kind: 'ConfigMap',
                              name: name!,
                              uid: cm.metadata!.uid!,
                              controller: true,
                            },
                          ],
                        },
                      });
                    },
                  });
              },
            },
            argv,
          ),
        );
      }
      expect(members.map((m) => m.shardAssignment)).toEqual(['server', 'server']);
      const selection = await members[0].metrics.shardServerSelection.get();
      expect(selection.values.find((v) => v.labels.ring === 'cm-operator')?.value).toBe(1);

      await until(
        'both members acting on the same ring',
        () => members.every((m) => m.shard!.members.length === 2),
        30_000,
        50,
      );
      const names = members.map((m) => m.shard!.member);
      const owner = (uid: string) => bucketOwner(bucketKey(bucketOf(uid)), names)!;
      // Each marker ends up written by the member the server's ranges and the ring give its ConfigMap.
      const markedBy = async () =>
        new Map(
          (await admin.list(SECRET, { namespace: CHART_NS })).items
            .filter((o) => o.metadata!.name!.endsWith('-marker'))
            .map((o) => [o.metadata!.name!.replace(/-marker$/, ''), o.metadata!.annotations!.by]),
        );
      const expected = new Map([...uids].map(([cm, uid]) => [cm, owner(uid)]));
      await until(
        'every ConfigMap marked by its owner',
        async () => JSON.stringify([...(await markedBy())].sort()) === JSON.stringify([...expected].sort()),
        60_000,
        100,
      );
      expect(new Set(expected.values()).size).toBe(2);
      // Each member caches exactly its share, and no ConfigMap carries a shard label (nothing was written on them).
      for (const m of members) {
        const cached = m
          .getInformer(CONFIGMAP)
          .cache.list()
          .map((o) => o.metadata!.name!)
          .sort();
        const share = [...uids]
          .filter(([, uid]) => owner(uid) === m.shard!.member)
          .map(([n]) => n)
          .sort();
        expect(cached).toEqual(share);
      }
      const cms = (await admin.list(CONFIGMAP, { namespace: CHART_NS })).items;
      expect(cms.filter((o) => Object.keys(o.metadata!.labels ?? {}).some((k) => k.startsWith('shard.'))).length).toBe(
        0,
      );
    }, 120_000);
  });
}

describeApiServerVersion(
  'sharding by the apiserver shard selector',
  '1.36',
  (plane) => {
    chartSuite(plane);
    suite(plane, true);
    rangesSuite(plane);
  },
  {
    apiServerFlags: ['--feature-gates=ShardedListAndWatch=true'],
    controllerManager: false,
  },
);

describeRealApiServer('sharding by the apiserver shard selector, fallback [v1.32]', (plane) => suite(plane, false), {
  shared: true,
});
