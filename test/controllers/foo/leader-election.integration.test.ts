import { FakeApiServer } from '../../fake-apiserver';
import { Manager } from '../../../runtime/manager';
import { foo, NS, startFake, startFooManager } from './harness';
import { until } from '../../runtime/support';

const FAST_LEASE = { leaseName: 'foo-controller-leader', namespace: NS, leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 200 };

async function reconciles(m: Manager): Promise<number> {
  return m.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' });
}

describe('Foo controller with leader election', () => {
  let fake: FakeApiServer;
  let managers: Manager[] = [];

  afterEach(async () => {
    for (const m of managers) await m.stop();
    managers = [];
    await fake?.close();
  });

  test('only the leader reconciles; the other takes over quickly after the leader stops', async () => {
    fake = await startFake();
    const a = await startFooManager(fake, { leaderElection: { ...FAST_LEASE, identity: 'a' } });
    const b = await startFooManager(fake, { leaderElection: { ...FAST_LEASE, identity: 'b' } });
    managers = [a, b];
    const leader = await until('a leader', () => [a, b].find((m) => m.isRunningControllers));
    const follower = leader === a ? b : a;
    fake.put(foo('led'));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'led'));
    await until('leader reconciled', async () => (await reconciles(leader)) > 0);
    expect(await reconciles(follower)).toBe(0);
    expect(follower.isRunningControllers).toBe(false);
    expect(await leader.metrics.value('leader_election_master_status', { name: FAST_LEASE.leaseName })).toBe(1);
    expect(await follower.metrics.value('leader_election_master_status', { name: FAST_LEASE.leaseName })).toBe(0);
    const lease = fake.get('coordination.k8s.io/v1', 'Lease', NS, FAST_LEASE.leaseName);
    expect(lease.spec.holderIdentity).toBe(leader.identity);

    const stoppedAt = Date.now();
    await leader.stop(); // clean shutdown releases the lease
    await until('takeover', () => follower.isRunningControllers, 20_000);
    expect(Date.now() - stoppedAt).toBeLessThan(5000);
    fake.put(foo('after-failover'));
    await until('deployment after failover', () => fake.get('apps/v1', 'Deployment', NS, 'after-failover'));
    expect(fake.get('coordination.k8s.io/v1', 'Lease', NS, FAST_LEASE.leaseName).spec.holderIdentity).toBe(follower.identity);
  });

  test('a leader that cannot renew stops its controllers and reports the loss; the other takes over after expiry', async () => {
    fake = await startFake();
    let lost = 0;
    const a = await startFooManager(fake, { leaderElection: { ...FAST_LEASE, identity: 'a' }, onLeadershipLost: () => { lost++; } });
    await until('a leads', () => a.isRunningControllers);
    const b = await startFooManager(fake, { leaderElection: { ...FAST_LEASE, identity: 'b' } });
    managers = [a, b];
    fake.faults.failNext({ verb: 'update', resource: 'leases', count: 1_000_000 }, 500);
    await until('lease lost', () => lost === 1, 8000);
    expect(a.isRunningControllers).toBe(false);
    expect(await a.metrics.value('leader_election_master_status', { name: FAST_LEASE.leaseName })).toBe(0);
    fake.faults.clear();
    await until('b takes over', () => b.isRunningControllers, 20_000);
    fake.put(foo('after-loss'));
    await until('deployment', () => fake.get('apps/v1', 'Deployment', NS, 'after-loss'));
    expect(await reconciles(a)).toBe(0);
  });
});
