/**
 * A leader that loses its lease survives in-process (runtime/manager.ts): it stops its controllers, never
 * acts while it does not hold the lease, campaigns again and reconciles once re-elected — on the real
 * apiserver, with the lease lost to an apiserver restart, to a hanging renewal, and to another candidate.
 * Before this, the manager exited (code 1) on every loss, and in a Pod the kubelet's CrashLoop back-off
 * made each recovery slower than the last (seen in the chaos runs' apiserver-restart faults).
 */
import { controllerWrites, foo, FooNamespace, startFooManager } from './harness';
import { ControllerBuilder } from '../../../runtime/controller';
import { NotLeaderError } from '../../../runtime/leader-guard';
import { Manager } from '../../../runtime/manager';
import { describeRealApiServer, FaultProxy } from '../../envtest';
import { fooCrd, hostSlackMs, until } from '../../runtime/support';

const T = 30_000;
const LEASE = 'foo-controller-leader';

async function reconciles(m: Manager): Promise<number> {
  return m.metrics.value('controller_runtime_reconcile_total', { controller: 'foo' });
}

describeRealApiServer(
  'Foo controller: lease loss survived in-process',
  (plane) => {
    let proxies: FaultProxy[] = [];
    let env: FooNamespace;
    let managers: Manager[] = [];
    let exit: jest.SpyInstance;
    // `slack` stretches the lease for a test whose second candidate must keep it on a starved host
    const lease = (slack = 1) => ({
      leaseName: LEASE,
      namespace: env.ns,
      leaseDurationMs: 2000 * slack,
      renewDeadlineMs: 1500 * slack,
      retryPeriodMs: 200 * slack,
    });
    const leaseSpec = async () => (await env.get('coordination.k8s.io/v1', 'Lease', LEASE)).spec;
    const proxy = async () => {
      const p = await FaultProxy.start(plane());
      proxies.push(p);
      return p;
    };

    beforeEach(async () => {
      env = await FooNamespace.create(plane(), false);
      // The old manager called process.exit(1) on a lost lease: recorded instead of ending jest.
      exit = jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
        throw new Error(`process.exit(${code}) called`);
      }) as never);
    });

    afterEach(async () => {
      for (const m of managers) await m.stop();
      managers = [];
      exit.mockRestore();
      env.stop();
      for (const p of proxies) await p.close();
      proxies = [];
    });

    test('an apiserver restart: the leader stops its controllers, refuses writes, stays up, re-acquires the same lease and reconciles again', async () => {
      const p = await proxy();
      const a = await startFooManager(p.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'a' },
      });
      managers = [a];
      await until('a leads', () => a.isRunningControllers, T);
      await env.put(foo('before'));
      await until('deployment before', () => env.getDeployment('before'), T);
      const transitions = (await leaseSpec()).leaseTransitions;

      // Down for longer than the renew deadline: the lease is lost while the apiserver is away.
      const restarted = plane().restartApiServer({ downMs: 4000 });
      await until('controllers stopped', () => !a.isRunningControllers && !a.isLeader, 10_000);
      const writesAtLoss = controllerWrites(p, env.ns).length;
      expect(await a.metrics.value('leader_election_master_status', { name: LEASE })).toBe(0);
      // An in-flight reconcile's write would be refused before reaching the apiserver.
      await expect(
        a.readYourWritesClient.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: 'late', namespace: env.ns },
        }),
      ).rejects.toThrow(NotLeaderError);
      expect(() => a.assertLeader('promote')).toThrow(NotLeaderError);
      await restarted;

      await until('a leads again', () => a.isRunningControllers, T);
      // Nothing written between the loss and the re-election (the re-elected reconcile of 'before' is a no-op).
      expect(controllerWrites(p, env.ns).length).toBe(writesAtLoss);
      expect(exit).not.toHaveBeenCalled();
      const spec = await leaseSpec();
      expect(spec.holderIdentity).toBe(a.identity);
      // Nobody else held it meanwhile: the same identity taking it back is no transition (client-go's IsLeader case).
      expect(spec.leaseTransitions).toBe(transitions);
      expect(writesAtLoss).toBeGreaterThan(0);

      await env.put(foo('after'));
      await until('deployment after re-election', () => env.getDeployment('after'), T);
      expect(controllerWrites(p, env.ns, { name: 'after' }).length).toBeGreaterThan(0);
      expect(exit).not.toHaveBeenCalled();
    }, 90_000);

    test('a renewal hanging on the apiserver: leadership is given up at the renew deadline, before another candidate can take the lease', async () => {
      const pa = await proxy();
      const pb = await proxy();
      let aLostAt = 0;
      let bStartedAt = 0;
      const a = await startFooManager(pa.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'a' },
        onLeadershipLost: () => {
          aLostAt ||= Date.now();
        },
      });
      managers = [a];
      await until('a leads', () => a.isRunningControllers, T);
      const b = await startFooManager(pb.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'b' },
      });
      managers = [a, b];
      void b.elected.then(() => {
        bStartedAt = Date.now();
      });

      // a's renewals reach the apiserver 15 s late (the request hangs, it does not fail).
      pa.delayNext({ verb: 'update', resource: 'leases', count: 1_000_000 }, 15_000);
      await until('b leads', () => bStartedAt > 0, T);
      // a stopped acting when its renew deadline passed, which is before b could see the lease expire.
      expect(aLostAt).toBeGreaterThan(0);
      expect(aLostAt).toBeLessThan(bStartedAt);
      expect(a.isLeader).toBe(false);
      expect(a.isRunningControllers).toBe(false);
      pa.clear();
      expect(exit).not.toHaveBeenCalled();
    }, 90_000);

    test('the lease taken by another candidate: the old leader makes no write while the other leads, and takes over again after it stops', async () => {
      const pa = await proxy();
      const pb = await proxy();
      let lost = 0;
      // b must hold the lease through the whole window: a starved b that misses its renew deadline hands it back to
      // a, whose reconciles are then legitimate (seen beside the node suites: a reconciled 'first' and 'while-b')
      const slack = hostSlackMs(1);
      const a = await startFooManager(pa.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(slack), identity: 'a' },
        onLeadershipLost: () => {
          lost++;
        },
      });
      managers = [a];
      await until('a leads', () => a.isRunningControllers, T);
      await env.put(foo('first'));
      await until('deployment first', () => env.getDeployment('first'), T);
      expect((await leaseSpec()).leaseTransitions).toBe(0);
      const b = await startFooManager(pb.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(slack), identity: 'b' },
      });
      managers = [a, b];

      // a cannot renew (its lease updates fail); b takes the expired lease.
      pa.failNext({ verb: 'update', resource: 'leases', count: 1_000_000 }, 500);
      await until('a lost the lease', () => lost === 1, 10_000);
      expect(a.isRunningControllers).toBe(false);
      await until('b leads', () => b.isRunningControllers, T);
      pa.clear(); // a campaigns again, but b holds the lease
      const aReconciles = await reconciles(a);
      const aWrites = controllerWrites(pa, env.ns).length;
      expect((await leaseSpec()).holderIdentity).toBe(b.identity);
      expect((await leaseSpec()).leaseTransitions).toBe(1);

      await env.put(foo('while-b'));
      await until('deployment by b', () => env.getDeployment('while-b'), T);
      await new Promise((r) => setTimeout(r, 1500)); // a's informers saw the Foo too: time for a wrong reconcile to show
      expect((await leaseSpec()).leaseTransitions).toBe(1); // b held the lease throughout
      expect(await reconciles(a)).toBe(aReconciles);
      expect(controllerWrites(pa, env.ns).length).toBe(aWrites);
      expect(a.isRunningControllers).toBe(false);

      await b.stop(); // releases the lease
      managers = [a];
      await until('a leads again', () => a.isRunningControllers, T);
      expect((await leaseSpec()).holderIdentity).toBe(a.identity);
      expect((await leaseSpec()).leaseTransitions).toBe(2);
      await env.put(foo('back-to-a'));
      await until('deployment after a is back', () => env.getDeployment('back-to-a'), T);
      expect(await reconciles(a)).toBeGreaterThan(aReconciles);
      expect(controllerWrites(pa, env.ns, { name: 'back-to-a' }).length).toBeGreaterThan(0);
      expect(lost).toBe(1);
      expect(exit).not.toHaveBeenCalled();
    }, 90_000);

    // Found by the chaos suite on the real node: after an apiserver restart a reconcile stayed in flight for the
    // whole 30 s shutdown grace, and only then did the operator campaign again (then that reconcile, 83 s late,
    // tried to label a pod: refused only because the manager had not been re-elected yet).
    test("a reconcile hanging when the lease is lost: the manager campaigns again at once and reconciles in a new term; the old term's late write is refused", async () => {
      const p = await proxy();
      let release!: () => void;
      const gate = new Promise<void>((r) => {
        release = r;
      });
      const outcomes: string[] = [];
      let calls = 0;
      // Stretched on a starved host: a renewal missed after the re-election loses the lease a second time and the
      // last check sees no leader (stop 75's CI on 9231445)
      const a = await startFooManager(
        p.kubeConfig(),
        {
          namespace: env.ns,
          leaderElection: { ...lease(hostSlackMs(1)), identity: 'a' },
          gracefulShutdownTimeoutMs: 20_000,
        },
        false,
      );
      managers = [a];
      const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps' };
      // A second controller on ConfigMaps: its first reconcile of 'trigger' hangs (a database that stopped
      // answering, an apiserver gone) until the test releases it, then writes.
      new ControllerBuilder(a, { name: 'gated' }).for(CONFIGMAP).complete({
        reconcile: async (req) => {
          if (req.name !== 'trigger') return;
          const n = ++calls;
          if (n === 1) await gate;
          try {
            await a.readYourWritesClient.create({
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: `written-by-${n}`, namespace: env.ns },
            });
            outcomes.push(`${n}: written`);
          } catch (err) {
            outcomes.push(`${n}: ${(err as Error).name}`);
          }
        },
      });
      await a.start();
      await until('a leads', () => a.isRunningControllers, T);
      await env.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'trigger' } });
      await until('the first reconcile is in flight', () => calls === 1, T);

      p.failNext({ verb: 'update', resource: 'leases', count: 1_000_000 }, 500);
      await until('lease lost', () => !a.isLeader, 10_000);
      p.clear();
      // Re-elected while the old reconcile still hangs (before: only after it ended or the 20 s grace passed).
      await until(
        'a leads again while the old reconcile still hangs',
        () => a.isRunningControllers && a.isLeader,
        6000,
      );
      // The new term reconciles the trigger again and writes.
      await until('the new term wrote', () => outcomes.includes('2: written'), T);
      expect(await env.get('v1', 'ConfigMap', 'written-by-2')).toBeDefined();

      // The old term's reconcile resumes after the re-election: its write is refused without being sent.
      release();
      await until('the old reconcile finished', () => outcomes.some((o) => o.startsWith('1:')), T);
      expect(outcomes).toContain('1: NotLeaderError');
      // Through the manager's proxy, one ConfigMap create only: the new term's.
      expect(p.requests.filter((r) => r.verb === 'create' && r.resource === 'configmaps').length).toBe(1);
      expect(await env.get('v1', 'ConfigMap', 'written-by-1')).toBeUndefined();
      expect(a.isLeader).toBe(true);
      expect(exit).not.toHaveBeenCalled();
    }, 90_000);

    test("a Lease request hanging on the apiserver: the elector gives up on it after max(1 s, renewDeadline / 2) and tries again (client-go's leader-election client timeout)", async () => {
      const p = await proxy();
      // The first read of the Lease hangs for 25 s (a connection to an apiserver that went away).
      p.delayNext({ verb: 'get', resource: 'leases', count: 1 }, 25_000);
      const started = Date.now();
      const a = await startFooManager(p.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'a' },
      });
      managers = [a];
      await until('a leads', () => a.isRunningControllers, 8000);
      // within 8 s (a starved host's allowance on top), and always well before the hanging read would have answered
      expect(Date.now() - started).toBeLessThan(Math.min(hostSlackMs(8000), 20_000));
      expect(p.requests.filter((r) => r.verb === 'get' && r.resource === 'leases').length).toBeGreaterThan(1);
    }, 60_000);

    test('exitOnLoss: true keeps the old behaviour, exit(1) once the controllers stopped', async () => {
      const p = await proxy();
      const exits: number[] = [];
      exit.mockImplementation(((code?: number) => {
        exits.push(code ?? 0);
      }) as never);
      const a = await startFooManager(p.kubeConfig(), {
        namespace: env.ns,
        leaderElection: { ...lease(), identity: 'a', exitOnLoss: true },
      });
      managers = [a];
      await until('a leads', () => a.isRunningControllers, T);
      p.failNext({ verb: 'update', resource: 'leases', count: 1_000_000 }, 500);
      await until('exit(1)', () => exits.length > 0, 10_000);
      expect(exits).toEqual([1]);
      expect(a.isRunningControllers).toBe(false);
      p.clear();
      await new Promise((r) => setTimeout(r, 1000));
      expect(a.isRunningControllers).toBe(false); // no campaign after the exit
    }, 60_000);
  },
  { crds: [fooCrd()] },
);
