/**
 * A handover waits for the writes already on their way. Member `a` owns every ConfigMap and its patches take 1.5 s
 * to reach the apiserver, counted from the second member's Lease at the earliest (a fault proxy holds each one: a
 * loaded host's slow write, made certain); the second member joins while they are in flight. `a` refuses the writes
 * of the objects it gives away from the view change on, but the ones it sent before still land: `b` may start on its
 * share only once they did, or two members write one object at once (a CI rehearsal on a loaded host saw a 400 ms
 * patch of the old owner land after the new owner's).
 */
import { LEASE } from '../../runtime/builtins';
import { RestClient } from '../../runtime/client';
import { ControllerBuilder } from '../../runtime/controller';
import { isNotFound } from '../../runtime/errors';
import { NotLeaderError } from '../../runtime/leader-guard';
import { Manager } from '../../runtime/manager';
import { describeRealApiServer, FaultProxy } from '../envtest';
import { CONFIGMAP, overlappingWrites, ShardWrite } from './shard-writes';
import { FAST_INFORMER, testLogger, until } from './support';

const N = 24;
const WRITE_DELAY_MS = 1500;

describeRealApiServer(
  'sharded controllers: writes in flight at a handover',
  (plane) => {
    const ns = 'in-flight';
    const writes: ShardWrite[] = [];
    const managers: Manager[] = [];
    let admin: RestClient;
    let proxy: FaultProxy;

    beforeAll(async () => {
      admin = RestClient.fromKubeConfig(plane().kubeConfig());
      proxy = await FaultProxy.start(plane());
      await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
      for (let i = 0; i < N; i++) {
        await admin.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}`, namespace: ns } });
      }
    }, 60_000);
    afterAll(async () => {
      for (const m of managers) await m.stop();
      await proxy?.close();
      admin?.close();
    }, 60_000);

    /** A member that marks each ConfigMap with the version it saw, recording the span of each reconcile that wrote. */
    async function member(kubeConfig: ReturnType<FaultProxy['kubeConfig']>): Promise<Manager> {
      const manager = new Manager({
        kubeConfig,
        namespace: ns,
        logger: testLogger(),
        informer: FAST_INFORMER,
        gracefulShutdownTimeoutMs: 5000,
        leaderElection: undefined,
        sharding: {
          ring: 'inflight',
          key: 'uid',
          // no assignment labels to write: with labels, the old owner's label patches (held in the proxy as well)
          // would keep the objects from the new owner until its earlier patches landed anyway
          assignment: 'hash',
          namespace: ns,
          leaseDurationMs: 3000,
          renewDeadlineMs: 2000,
          retryPeriodMs: 300,
        },
      });
      const store = manager.getInformer(CONFIGMAP).cache;
      new ControllerBuilder(manager, { name: 'marker' })
        .for(CONFIGMAP)
        .withConcurrency(8)
        .complete({
          reconcile: async ({ namespace, name }, ctx) => {
            const me = manager.shard!.member;
            const v = (store.get(`${namespace}/${name}`)?.data as Record<string, string> | undefined)?.v;
            if (v === undefined) return;
            const cm = store.get(`${namespace}/${name}`)!;
            if (cm.metadata?.annotations?.seen === v && cm.metadata?.annotations?.by === me) return;
            const start = Date.now();
            try {
              await ctx!.client.patch(CONFIGMAP, name!, namespace, {
                type: 'merge',
                body: { metadata: { annotations: { seen: v, by: me } } },
              });
              writes.push({ member: me, key: name!, start, end: Date.now() });
            } catch (err) {
              if (!(err instanceof NotLeaderError) && !isNotFound(err)) throw err;
            }
          },
        });
      await manager.start();
      managers.push(manager);
      return manager;
    }

    async function touchAll(version: string): Promise<void> {
      for (let i = 0; i < N; i++) {
        await admin.patch(CONFIGMAP, `cm-${i}`, ns, { type: 'merge', body: { data: { v: version } } });
      }
    }

    async function markedFor(version: string): Promise<Map<string, string>> {
      return until(
        `every ConfigMap marked for ${version}`,
        async () => {
          const items = (await admin.list(CONFIGMAP, { namespace: ns })).items;
          const done = items.filter((o) => o.metadata?.annotations?.seen === version);
          return done.length === N
            ? new Map(done.map((o) => [o.metadata!.name!, o.metadata!.annotations!.by]))
            : undefined;
        },
        60_000,
        200,
      );
    }

    test('the new owner writes an object only after writes the old owner sent before the handover landed', async () => {
      const a = await member(proxy.kubeConfig());
      await until('a acts alone', () => a.shard!.members.length === 1, 20_000);
      await touchAll('1');
      await markedFor('1');

      // From now on each of a's patches reaches the apiserver 1.5 s after it was sent, and not before 1.5 s after b's
      // Lease exists: on a slow host b's start can take longer than all of a's delayed writes, and b would then find
      // nothing left to write (a CI run on a host at a load of 40 saw that). Not held until b's start has returned:
      // that waits for the view, which a acknowledges only once these writes were answered.
      let bAnnounced!: () => void;
      const announced = new Promise<void>((resolve) => (bAnnounced = resolve));
      proxy.delayNext({ verb: 'patch', resource: 'configmaps', count: 10_000 }, WRITE_DELAY_MS, {
        notBefore: announced,
      });
      await touchAll('2');
      const pending = () => proxy.requests.filter((r) => r.verb === 'patch' && r.resource === 'configmaps' && !r.code);
      await until('patches of a on their way', () => pending().length >= 4, 20_000, 10);
      const joined = Date.now();
      const starting = member(plane().kubeConfig());
      await until(
        'the Leases of a and b',
        async () => (await admin.list(LEASE, { namespace: ns })).items.length >= 2,
        60_000,
        50,
      ).finally(bAnnounced);
      const b = await starting;
      await until('a and b act on a 2-member view', () => [a, b].every((m) => m.shard!.members.length === 2), 20_000);
      const owners = await markedFor('2');

      const bWrites = writes.filter((w) => w.member === b.shard!.member && w.start >= joined);
      // The precondition: b took over a share, and a's writes were in flight when it joined.
      expect(bWrites.length).toBeGreaterThan(0);
      expect([...owners.values()]).toContain(b.shard!.member);
      const aLate = writes.filter((w) => w.member === a.shard!.member && w.start < joined && w.end > joined);
      expect(aLate.length).toBeGreaterThan(0);
      // No object written by both at once: every write of b to an object starts after a's last write to it ended.
      expect(overlappingWrites(writes)).toEqual([]);
    }, 120_000);
  },
  { shared: true },
);
