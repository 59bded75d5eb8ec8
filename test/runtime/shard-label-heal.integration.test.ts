/**
 * Assignments computed for a view the ring has left are dropped (runtime/shard-labels.ts, `onViewChanged`), on the
 * real apiserver. Found in the long fault run (`npm run chaos:sharded`): after a partition healed, the survivor went
 * on relabelling the healed member's objects to itself for 45 s (assignments it had queued while the member was
 * gone), then waited to move them back.
 *
 * Here a member is cut from its Lease (a fault proxy fails its Lease requests) until the assigner assigns its share to
 * itself, and the partition heals while those writes wait (the proxy holds the assigner's first label writes, the
 * ones in flight). The waiting ones must never be sent: in the view after the heal every object is its old owner's
 * again, and only the writes already in flight are made (and moved back).
 */
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { Manager } from '../../runtime/manager';
import { shardLabel } from '../../runtime/shard-labels';
import { memberLeaseName, rendezvousOwner } from '../../runtime/sharding';
import { describeRealApiServer, FaultProxy } from '../envtest';
import { ringMember, until } from './support';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const RING = 'heal';
const N = 240;
const LABEL = shardLabel(RING);
/** The labeller's label writes in flight at most (its default). */
const IN_FLIGHT = 8;

describeRealApiServer(
  'shard label assignments of an old view',
  (plane) => {
    const ns = 'shard-heal';
    let admin: RestClient;
    const uids = new Map<string, string>();
    const proxies: FaultProxy[] = [];
    const started: Manager[] = [];

    beforeAll(async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      for (let i = 0; i < N; i++) {
        const cm = await admin.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `cm-${i}`, namespace: ns },
        });
        uids.set(cm.metadata!.name!, cm.metadata!.uid!);
      }
    }, 120_000);
    afterAll(async () => {
      for (const m of started) await m.stop();
      for (const p of proxies) await p.close();
      admin?.close();
    }, 60_000);

    async function member(): Promise<{ manager: Manager; proxy: FaultProxy; name: string }> {
      const proxy = await FaultProxy.start(plane());
      proxies.push(proxy);
      const manager = ringMember({
        kubeConfig: proxy.kubeConfig(),
        namespace: ns,
        sharding: { ring: RING, namespace: ns },
      });
      new ControllerBuilder(manager, { name: 'noop' }).for(CONFIGMAP).complete({ reconcile: async () => undefined });
      return { manager, proxy, name: memberLeaseName(RING, manager.identity) };
    }

    async function labels(): Promise<Map<string, string | undefined>> {
      const items = (await admin.list(CONFIGMAP, { namespace: ns })).items.filter((o) => uids.has(o.metadata!.name!));
      return new Map(items.map((o) => [o.metadata!.name!, o.metadata?.labels?.[LABEL]]));
    }

    async function settled(names: string[]): Promise<Map<string, string | undefined>> {
      return until(
        `every ConfigMap labelled with its owner among ${names.length} members`,
        async () => {
          const now = await labels();
          return [...uids].every(([n, uid]) => now.get(n) === rendezvousOwner(uid, names)) ? now : undefined;
        },
        60_000,
        200,
      );
    }

    async function labelWrites(members: Array<{ manager: Manager }>): Promise<number> {
      let total = 0;
      for (const m of members) {
        for (const reason of ['assign', 'move']) {
          total += await m.manager.metrics.value('controller_runtime_shard_label_writes_total', { ring: RING, reason });
        }
      }
      return total;
    }

    test("a partition heals while the assigner's assignments for the view without the member wait: those are dropped", async () => {
      // The first by name assigns (it is first in every view here).
      const [assigner, partitioned] = [await member(), await member()].sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const m of [assigner, partitioned]) {
        started.push(m.manager);
        await m.manager.start();
      }
      const members = [assigner.name, partitioned.name];
      const before = await settled(members);
      const share = [...before.values()].filter((owner) => owner === partitioned.name).length;
      // Far more than the writes in flight: most of the share waits in the assigner's queue.
      expect(share).toBeGreaterThan(4 * IN_FLIGHT);
      const writesBefore = await labelWrites([assigner, partitioned]);

      // The partitioned member reaches no Lease: its own expires, the assigner assigns its share to itself. The first
      // of those writes are held for 6 s: the rest wait in its queue.
      assigner.proxy.delayNext({ verb: 'patch', resource: 'configmaps', count: IN_FLIGHT }, 6000);
      const from = assigner.proxy.requests.length;
      partitioned.proxy.failNext({ resource: 'leases', count: 1_000_000 }, 503);
      const patches = () =>
        assigner.proxy.requests.slice(from).filter((r) => r.verb === 'patch' && r.resource === 'configmaps');
      await until('the assigner sent its first assignments', () => patches().length >= IN_FLIGHT, 30_000);
      // The partition heals while they are held: the member's Lease is back, the view is the one before.
      partitioned.proxy.clear();
      expect(patches()).toHaveLength(IN_FLIGHT);
      await until('the held writes answered', () => patches().every((r) => r.code > 0), 30_000);
      await new Promise((r) => setTimeout(r, 1000));
      const after = await settled(members);
      expect([...after].filter(([n, owner]) => before.get(n) !== owner)).toStrictEqual([]);
      // Only the writes already in flight at the heal were written (then moved back): the waiting ones never were.
      // Kept, each would label an object of the healed member for the assigner, and a move would undo it.
      const writes = (await labelWrites([assigner, partitioned])) - writesBefore;
      expect(writes).toBeLessThanOrEqual(2 * IN_FLIGHT);
    }, 180_000);
  },
  { shared: true },
);
