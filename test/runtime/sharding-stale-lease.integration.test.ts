/**
 * The Lease a kill -9 leaves behind (runtime/sharding.ts): nobody renews it, nobody deleted it. A member that starts
 * later measures its expiry on its own clock from the moment it first sees it, so it would count the dead member in
 * its view for a whole Lease duration, and the ring could not act on the view it joins with until then (found in the
 * long fault run: every join after the kill -9 waited 15 s for its barrier, the objects moving to the new member
 * reconciled by nobody meanwhile). The members delete a Lease once it expired on their clock, at the version they saw
 * expire. Asserted on the real apiserver, by what happened rather than by how long it took: the dead member's Lease is
 * deleted, and a member that joins afterwards acknowledges one view only, the live one.
 */
import { ringMember, until } from './support';
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { isNotFound } from '../../runtime/errors';
import { Manager } from '../../runtime/manager';
import { memberLeaseName, SHARD_RING_LABEL } from '../../runtime/sharding';
import { microTime } from '../../runtime/status';
import { describeRealApiServer } from '../envtest';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' };
const RING = 'stale';

describeRealApiServer(
  'the Lease of a member gone',
  (plane) => {
    const ns = 'shard-stale';
    let admin: RestClient;
    const started: Manager[] = [];

    beforeAll(async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }, 60_000);
    afterAll(async () => {
      for (const m of started) await m.stop();
      admin?.close();
    }, 60_000);

    async function member(ring = RING, collectExpiredLeases?: boolean): Promise<Manager> {
      const manager = ringMember({
        kubeConfig: plane().kubeConfig(),
        namespace: ns,
        sharding: { ring, collectExpiredLeases, namespace: ns },
      });
      new ControllerBuilder(manager, { name: 'noop' }).for(CONFIGMAP).complete({ reconcile: async () => undefined });
      started.push(manager);
      await manager.start();
      return manager;
    }

    /** What a member killed a minute ago left: its Lease, last renewed then. */
    async function ghostLease(ring: string): Promise<string> {
      const ghost = memberLeaseName(ring, 'killed-member');
      await admin.create({
        apiVersion: LEASE.apiVersion,
        kind: LEASE.kind,
        metadata: { name: ghost, namespace: ns, labels: { [SHARD_RING_LABEL]: ring } },
        spec: {
          holderIdentity: 'killed-member',
          leaseDurationSeconds: 3,
          renewTime: microTime(new Date(Date.now() - 60_000)),
        },
      });
      return ghost;
    }

    test('the members delete it once it expired; a member joining later never counts it', async () => {
      const ghost = await ghostLease(RING);
      const a = await member();
      const b = await member();
      await until(
        'the Lease of the member gone deleted',
        async () => {
          try {
            await admin.get(LEASE, ghost, ns);
            return false;
          } catch (err) {
            if (isNotFound(err)) return true;
            throw err;
          }
        },
        30_000,
        200,
      );
      let collected = 0;
      for (const m of [a, b]) {
        collected += await m.metrics.value('controller_runtime_shard_leases_collected_total', { ring: RING });
      }
      expect(collected).toBeGreaterThanOrEqual(1);
      await until('a and b act on a view of two', () => a.shard!.members.length === 2 && b.shard!.members.length === 2);

      const c = await member();
      await until('the three act on one view', () => [a, b, c].every((m) => m.shard!.members.length === 3), 20_000);
      // c acknowledged the live view only: never one with the member gone in it.
      expect(await c.metrics.value('controller_runtime_shard_view_changes_total', { ring: RING })).toBe(1);
      // One Event about it, by the member whose request deleted it (the others' got 404 or 409).
      const events = async () =>
        (
          await admin.list({ apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events' }, { namespace: ns })
        ).items.filter((e: any) => e.regarding?.name === ghost && e.reason === 'ShardMemberGone');
      await until('the Event about the Lease deleted', async () => (await events()).length > 0, 10_000, 100);
      const [event, ...more] = await events();
      expect(more).toEqual([]);
      expect(event).toMatchObject({
        type: 'Normal',
        action: 'DeleteLease',
        reportingController: `sharding.cdk8s-operator.io/${RING}`,
        note: `member killed-member of ring ${RING} did not renew its Lease for 3 s: deleted, so that members joining later do not count it`,
      });
    }, 90_000);

    test('collectExpiredLeases: false keeps it (the members judge it dead all the same)', async () => {
      const ring = 'stale-kept';
      const ghost = await ghostLease(ring);
      const [a, b] = [await member(ring, false), await member(ring, false)];
      // Each judged it expired (the view of two) before it would have asked to delete it
      await until(
        'a and b act on a view of two',
        () => a.shard!.members.length === 2 && b.shard!.members.length === 2,
        20_000,
      );
      expect((await admin.get(LEASE, ghost, ns)).metadata?.name).toBe(ghost);
      for (const m of [a, b]) {
        expect(await m.metrics.value('controller_runtime_shard_leases_collected_total', { ring })).toBe(0);
      }
    }, 60_000);
  },
  { shared: true },
);
