import { foo, FooNamespace, startFooManager } from './harness';
import { Manager } from '../../../runtime/manager';
import { describeRealApiServer, FaultProxy } from '../../envtest';
import { fooCrd, hostSlackMs, until } from '../../runtime/support';

const T = 30_000;

async function reconciles(m: Manager): Promise<number> {
  return m.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' });
}

describeRealApiServer(
  'Foo controller with leader election',
  (plane) => {
    let proxy: FaultProxy;
    let env: FooNamespace;
    let managers: Manager[] = [];
    const closeAfter: FaultProxy[] = [];
    const lease = () => ({
      leaseName: 'foo-controller-leader',
      namespace: env.ns,
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 200,
    });

    beforeEach(async () => {
      proxy = await FaultProxy.start(plane());
      env = await FooNamespace.create(plane(), false);
    });

    afterEach(async () => {
      for (const m of managers) await m.stop();
      managers = [];
      env.stop();
      await proxy.close();
      for (const p of closeAfter.splice(0)) await p.close();
    });

    test('only the leader reconciles; the other takes over quickly after the leader stops', async () => {
      const a = await startFooManager(proxy.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'a' },
      });
      const b = await startFooManager(proxy.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'b' },
      });
      managers = [a, b];
      const leader = await until('a leader', () => [a, b].find((m) => m.isRunningControllers), T);
      const follower = leader === a ? b : a;
      await env.put(foo('led'));
      await until('deployment', () => env.getDeployment('led'), T);
      await until('leader reconciled', async () => (await reconciles(leader)) > 0, T);
      expect(await reconciles(follower)).toBe(0);
      expect(follower.isRunningControllers).toBe(false);
      expect(await leader.metrics.value('leader_election_master_status', { name: 'foo-controller-leader' })).toBe(1);
      expect(await follower.metrics.value('leader_election_master_status', { name: 'foo-controller-leader' })).toBe(0);
      expect((await env.get('coordination.k8s.io/v1', 'Lease', 'foo-controller-leader')).spec.holderIdentity).toBe(
        leader.identity,
      );

      const stoppedAt = Date.now();
      await leader.stop(); // clean shutdown releases the lease
      await until('takeover', () => follower.isRunningControllers, 20_000);
      expect(Date.now() - stoppedAt).toBeLessThan(hostSlackMs(5000)); // a starved follower retries late
      await env.put(foo('after-failover'));
      await until('deployment after failover', () => env.getDeployment('after-failover'), T);
      expect((await env.get('coordination.k8s.io/v1', 'Lease', 'foo-controller-leader')).spec.holderIdentity).toBe(
        follower.identity,
      );
    }, 60_000);

    test('a leader that cannot renew stops its controllers and reports the loss; the other takes over after expiry', async () => {
      let lost = 0;
      const a = await startFooManager(proxy.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'a' },
        onLeadershipLost: () => {
          lost++;
        },
      });
      await until('a leads', () => a.isRunningControllers, T);
      // b through its own proxy: only a's lease updates fail.
      const own = await FaultProxy.start(plane());
      const b = await startFooManager(own.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'b' },
      });
      managers = [a, b];
      closeAfter.push(own);
      proxy.failNext({ verb: 'update', resource: 'leases', count: 1_000_000 }, 500);
      await until('lease lost', () => lost === 1, 8000);
      expect(a.isRunningControllers).toBe(false);
      expect(await a.metrics.value('leader_election_master_status', { name: 'foo-controller-leader' })).toBe(0);
      // Until b holds it: a campaigns again at once and, with the apiserver answering, would take back its own lease.
      await until('b takes over', () => b.isRunningControllers, 20_000);
      proxy.clear();
      expect(lost).toBe(1); // a campaigns again (no exit), but b holds the lease now
      await env.put(foo('after-loss'));
      await until('deployment', () => env.getDeployment('after-loss'), T);
      expect(await reconciles(a)).toBe(0);
    }, 60_000);
  },
  { shared: true, crds: [fooCrd()] },
);
