/**
 * The Lease record our LeaderElector writes, compared field by field with what client-go's
 * leaderelection.go writes for the same history (tryAcquireOrRenew / release), on the real apiserver.
 */
import { RestClient } from '../../runtime/client';
import { LeaderElector } from '../../runtime/leader-election';
import { describeRealApiServer } from '../envtest';
import { until } from './support';

const LEASE = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases' };

describeRealApiServer(
  'LeaderElector Lease record',
  (plane) => {
    let client: RestClient;
    const namespace = 'default';
    const electors: LeaderElector[] = [];

    beforeAll(async () => {
      client = RestClient.fromKubeConfig(plane().kubeConfig());
    });
    afterAll(async () => {
      for (const e of electors) await e.stop();
      client.close();
    });

    function elector(identity: string): LeaderElector {
      const e = new LeaderElector({
        client,
        leaseName: 'transitions',
        namespace: namespace,
        identity,
        leaseDurationMs: 2000,
        renewDeadlineMs: 1500,
        retryPeriodMs: 100,
        onStartedLeading: () => undefined,
        onStoppedLeading: () => undefined,
      });
      electors.push(e);
      void e.start();
      return e;
    }
    const lease = async () => (await client.get(LEASE, 'transitions', namespace)).spec as Record<string, unknown>;

    test('leaseTransitions: 0 on create, unchanged on renewal and release, +1 when a released lease is acquired', async () => {
      const a = elector('a');
      await until('a leads', () => a.isLeader, 20_000);
      const created = await lease();
      expect(created).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
      // renewals keep the count and the acquire time
      await until('a renewed', async () => (await lease()).renewTime !== created.renewTime, 20_000);
      expect(await lease()).toMatchObject({
        holderIdentity: 'a',
        leaseTransitions: 0,
        acquireTime: created.acquireTime,
      });

      await a.stop();
      expect(await lease()).toMatchObject({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 0 });

      // client-go: the candidate is not the observed holder, so LeaderTransitions = old + 1
      const b = elector('b');
      await until('b leads', () => b.isLeader, 20_000);
      const taken = await lease();
      expect(taken).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
      expect(taken.acquireTime).not.toBe(created.acquireTime);
    }, 60_000);
  },
  { shared: true },
);
