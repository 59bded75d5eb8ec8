/**
 * A member that joins while a dead member's Lease is still there (runtime/sharding.ts, `ShardRing.judged`), behind
 * the real kube-apiserver. A member judges a Lease dead only after seeing it unchanged for its duration on its own
 * clock, so a member that just started counts a dead member's Lease as live for a whole Lease duration after its
 * own start, and the ring cannot move to a view with it until then. Found on the real node
 * (test/node/suites/sharding.ts): after kill -9 of a member pod's process, its container restarted at once as a new
 * member, which held the ring (and the dead member's share) until its own judgement of the old Lease: 22 s after
 * the kill with a 15 s Lease. Now the joining member adopts the view the members it has seen renewing acknowledged,
 * which names it and leaves out only Leases it cannot judge yet: they judged those expired.
 */
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { Manager } from '../../runtime/manager';
import { SHARD_RING_LABEL } from '../../runtime/sharding';
import { microTime } from '../../runtime/status';
import { describeRealApiServer } from '../envtest';
import { ringMember, until } from './support';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
const RING = 'join';
/** The dead member's Lease duration: what a member that joins would otherwise wait from its own start. */
const DEAD_LEASE_S = 10;

describeRealApiServer(
  "a member joining beside a dead member's Lease",
  (plane) => {
    const members: Manager[] = [];
    let admin: RestClient;

    afterAll(async () => {
      for (const m of members) await m.stop();
      admin?.close();
    }, 60_000);

    test('acts with the others once they judged the dead Lease expired, without waiting for its own judgement', async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      const ns = await plane().createNamespace('join-');
      const member = async () => {
        const manager = ringMember({
          kubeConfig: plane().kubeConfig(),
          namespace: ns,
          sharding: { ring: RING, namespace: ns },
        });
        new ControllerBuilder(manager, { name: 'noop' }).for(CONFIGMAP).complete({ reconcile: async () => undefined });
        members.push(manager);
        return manager;
      };
      // A dead member: its Lease, renewed once and never again.
      const now = microTime(new Date());
      await admin.create({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: `${RING}-dead`, namespace: ns, labels: { [SHARD_RING_LABEL]: RING } },
        spec: { holderIdentity: 'dead', leaseDurationSeconds: DEAD_LEASE_S, acquireTime: now, renewTime: now },
      });
      const [a, b] = [await member(), await member()];
      await Promise.all([a.start(), b.start()]);
      await until(
        'the first two act on a view of the two (the dead Lease judged expired)',
        () => [a, b].every((m) => m.shard!.members.length === 2),
        DEAD_LEASE_S * 1000 + 20_000,
      );
      const joining = await member();
      const started = Date.now();
      await joining.start();
      await until(
        'all three act on the view of the three',
        () => [a, b, joining].every((m) => m.shard!.members.length === 3),
        DEAD_LEASE_S * 1000 + 20_000,
        50,
      );
      const seconds = (Date.now() - started) / 1000;
      expect(joining.shard!.members).not.toContain(`${RING}-dead`);
      // Its own judgement of the dead Lease would take DEAD_LEASE_S from its first sight of it, after `started`.
      expect(seconds).toBeLessThan(DEAD_LEASE_S);
      process.stdout.write(
        `sharding join: the joining member acted with the ring ${seconds.toFixed(1)} s after its start\n`,
      );
    }, 90_000);
  },
  { shared: true },
);
