/**
 * The order of the shard label writes through a ring change on the real apiserver (runtime/shard-labels.ts): a member
 * joins, and while the members still move objects to it, another leaves. Found in the long fault run
 * (`npm run chaos:sharded`), where the share of a member that left was relabelled late:
 * - the assigner acted on the old view until every member had acknowledged the new one, so the objects the others
 *   had already moved to the joining member (a label naming no member of the old view) were in its stream: it
 *   labelled them back to their old owners, who moved them again;
 * - the assigner's own label writes shared one queue: the share of the member gone waited behind its moves.
 *
 * The test makes the slow parts of that run certain instead of likely, with a fault proxy per member: the joining
 * member's acknowledgements arrive late (the others move objects to it before it acknowledged), and the assigner's
 * label writes are forwarded late (its moves are still waiting when the other member leaves). It asserts causality,
 * not time: every ConfigMap whose label changed was labelled exactly once (no write undone by another), and the
 * assigner wrote the last label of the share of the member gone before the last of its own moves.
 */
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { Manager } from '../../runtime/manager';
import { shardLabel } from '../../runtime/shard-labels';
import { memberLeaseName, rendezvousOwner } from '../../runtime/sharding';
import { describeRealApiServer, FaultProxy } from '../envtest';
import { ringMember, until } from './support';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const RING = 'order';
const N = 320;
const LABEL = shardLabel(RING);

describeRealApiServer(
  'shard label order through a ring change',
  (plane) => {
    const ns = 'shard-order';
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

    /** A member reaching the apiserver through its own fault proxy; it reconciles nothing (only its labels count). */
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

    /** Every ConfigMap labelled with its owner among `members`, and each member caching exactly its share. */
    async function settled(
      members: Array<{ manager: Manager; name: string }>,
    ): Promise<Map<string, string | undefined>> {
      const names = members.map((m) => m.name);
      const labelled = await until(
        `every ConfigMap labelled with its owner among ${names.length} members`,
        async () => {
          const now = await labels();
          return [...uids].every(([n, uid]) => now.get(n) === rendezvousOwner(uid, names)) ? now : undefined;
        },
        60_000,
        200,
      );
      for (const m of members) {
        const mine = [...labelled].filter(([, owner]) => owner === m.name).length;
        await until(
          `${m.name} caches exactly its share`,
          () => m.manager.getInformer(CONFIGMAP).cache.size === mine,
          20_000,
        );
      }
      return labelled;
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

    test("a member joins and another leaves while objects move: each relabelled once, the leaver's share before the remaining moves", async () => {
      // Four members; the first by name assigns (it is first in every view here), the last by name joins later.
      const all = [await member(), await member(), await member(), await member()].sort((a, b) =>
        a.name < b.name ? -1 : 1,
      );
      const [assigner, leaver, stayer, joiner] = all;
      for (const m of [assigner, leaver, stayer]) {
        started.push(m.manager);
        await m.manager.start();
      }
      const before = await settled([assigner, leaver, stayer]);
      const writesBefore = await labelWrites([assigner, leaver, stayer]);

      // The joiner acknowledges late: the others move objects to it while the ring still acts on three members.
      joiner.proxy.delayNext({ verb: 'update', resource: 'leases', count: 3 }, 2000);
      // The assigner's label writes arrive late: its moves to the joiner are still waiting when the leaver leaves.
      const moves = [...uids].filter(
        ([n, uid]) =>
          before.get(n) === assigner.name && rendezvousOwner(uid, [...all.map((m) => m.name)]) === joiner.name,
      ).length;
      expect(moves).toBeGreaterThanOrEqual(12); // more than its 8 label writes in flight: some wait
      assigner.proxy.delayNext({ verb: 'patch', resource: 'configmaps', count: N }, 1000);
      const from = assigner.proxy.requests.length;
      started.push(joiner.manager);
      await joiner.manager.start();
      await until('the assigner sent its first move', () =>
        assigner.proxy.requests.slice(from).some((r) => r.verb === 'patch' && r.resource === 'configmaps'),
      );
      await leaver.manager.stop();

      const after = await settled([assigner, stayer, joiner]);
      // Each ConfigMap whose label changed was written once: no assignment undid a move, no move undid an assignment.
      const changed = [...after].filter(([n, l]) => before.get(n) !== l).length;
      expect((await labelWrites([assigner, leaver, stayer, joiner])) - writesBefore).toBe(changed);
      // The assigner's label writes in the order it sent them: a move is of its own objects, an assignment of the
      // others' (the leaver's share): the last assignment came before its last move.
      const own = (r: { name?: string }) => before.get(r.name!) === assigner.name;
      const sent = assigner.proxy.requests
        .slice(from)
        .filter((r) => r.verb === 'patch' && r.resource === 'configmaps' && r.code < 300);
      const lastOrphan = sent.map((r) => !own(r)).lastIndexOf(true);
      const lastMove = sent.map(own).lastIndexOf(true);
      expect(lastOrphan).toBeGreaterThanOrEqual(0);
      expect(lastOrphan).toBeLessThan(lastMove);
    }, 180_000);
  },
  { shared: true },
);
