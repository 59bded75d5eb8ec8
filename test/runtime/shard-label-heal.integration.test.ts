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
import { configMapRing } from './configmap-ring';
import { sleep, until } from './support';
import { describeRealApiServer } from '../envtest';

/** The labeller's label writes in flight at most (its default). */
const IN_FLIGHT = 8;

describeRealApiServer(
  'shard label assignments of an old view',
  (plane) => {
    const { member, start, settled, settledLabelWrites, labelPatches } = configMapRing(plane, {
      ns: 'shard-heal',
      ring: 'heal',
      configMaps: 240,
    });

    test("a partition heals while the assigner's assignments for the view without the member wait: those are dropped", async () => {
      // The first by name assigns (it is first in every view here).
      const [assigner, partitioned] = [await member(), await member()].sort((a, b) => (a.name < b.name ? -1 : 1));
      for (const m of [assigner, partitioned]) await start(m);
      const members = [assigner, partitioned];
      const before = await settled(members);
      const share = [...before.values()].filter((owner) => owner === partitioned.name).length;
      // Far more than the writes in flight: most of the share waits in the assigner's queue.
      expect(share).toBeGreaterThan(4 * IN_FLIGHT);
      const writesBefore = await settledLabelWrites([assigner, partitioned]);

      // The partitioned member reaches no Lease: its own expires, the assigner assigns its share to itself. The first
      // of those writes are held for 6 s: the rest wait in its queue.
      assigner.proxy.delayNext({ verb: 'patch', resource: 'configmaps', count: IN_FLIGHT }, 6000);
      const from = assigner.proxy.requests.length;
      partitioned.proxy.failNext({ resource: 'leases', count: 1_000_000 }, 503);
      const patches = () => labelPatches(assigner, from);
      await until('the assigner sent its first assignments', () => patches().length >= IN_FLIGHT, 30_000);
      // The partition heals while they are held: the member's Lease is back, the view is the one before.
      partitioned.proxy.clear();
      expect(patches()).toHaveLength(IN_FLIGHT);
      await until('the held writes answered', () => patches().every((r) => r.code > 0), 30_000);
      // Had waiting assignments been kept, they would go out as soon as the held writes were answered: a second shows them.
      await sleep(1000);
      const after = await settled(members);
      expect([...after].filter(([n, owner]) => before.get(n) !== owner)).toStrictEqual([]);
      // Only the writes already in flight at the heal were written (then moved back): the waiting ones never were.
      // Kept, each would label an object of the healed member for the assigner, and a move would undo it.
      const writes = (await settledLabelWrites([assigner, partitioned])) - writesBefore;
      expect(writes).toBeLessThanOrEqual(2 * IN_FLIGHT);
    }, 180_000);
  },
  { shared: true },
);
