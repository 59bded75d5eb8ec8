/**
 * Replica auto-scaling acting on the real apiserver (with kube-controller-manager: the StatefulSet controller
 * creates and removes the pods): connections in use on the standby raise `spec.replicas` and a third pod comes;
 * the load gone, one instance goes after the stabilisation window, never below minReplicas; each scaling an event,
 * a condition, a metric; steady state writes nothing. A stand-in kubelet runs the pods (each its own IP); PostgreSQL
 * is a stand-in InstanceClient that answers by pod with the connections the test sets.
 */
import {
  API,
  condition,
  sampleDbCrdManifest,
  startSampleDbManager,
  Started,
  writeCount,
  StandInInstances,
} from './harness';
import { PgState } from '../../../controllers/sampledb/instances';
import { describeRealApiServer, StandInKubelet } from '../../envtest';
import { until } from '../../runtime/support';

const T = 60_000;
// Only the storage version is used: no conversion webhook runs here.
const crd = { ...(sampleDbCrdManifest() as any) };
crd.spec = { ...crd.spec, conversion: { strategy: 'None' } };

/** `as-0` the primary, the others standbys; each with the client connections in `connections` (of 100). */
class LoadedPostgres extends StandInInstances {
  readonly connections = new Map<string, number>();

  async state(ip: string): Promise<PgState | undefined> {
    const pod = await this.podOf(ip);
    if (!pod) return undefined;
    return {
      recovery: pod !== 'as-0',
      lsn: 1000n,
      replayLsn: 1000n,
      timeline: 1,
      checkpointTimeline: 1,
      synchronousStandbyNames: '',
      connections: this.connections.get(pod) ?? 0,
      maxConnections: 100,
    };
  }

  async promote(): Promise<void> {
    throw new Error('no failover in this test');
  }
}

describeRealApiServer(
  'SampleDB replica auto-scaling',
  (plane) => {
    let started: Started | undefined;
    let kubelet: StandInKubelet | undefined;

    afterEach(async () => {
      kubelet?.stop();
      await started?.manager.stop();
      started = undefined;
    });

    test('spec.autoscaling on kube-apiserver: defaults filled, minReplicas above maxReplicas refused naming the field', async () => {
      const ns = await plane().createNamespace('autoscale-crd-');
      const create = (name: string, autoscaling: object) =>
        plane().request('POST', `/apis/database.example.com/v2/namespaces/${ns}/sampledbs`, {
          apiVersion: API,
          kind: 'SampleDB',
          metadata: { name },
          spec: { version: '16.4', autoscaling },
        });
      const ok = await create('dflt', { minReplicas: 2, maxReplicas: 4 });
      expect(ok.code).toBe(201);
      expect(ok.body.spec.autoscaling).toEqual({
        enabled: true,
        minReplicas: 2,
        maxReplicas: 4,
        targetConnectionUsePercent: 75,
        stabilizationWindowSeconds: 300,
        cooldownSeconds: 60,
      });
      const bad = await create('bad', { minReplicas: 4, maxReplicas: 2 });
      expect(bad.code).toBe(422);
      expect(JSON.stringify(bad.body)).toContain('spec.autoscaling: Invalid value');
      expect(JSON.stringify(bad.body)).toContain('minReplicas must not exceed maxReplicas');
      const missing = await create('nomax', { minReplicas: 2 });
      expect(missing.code).toBe(422);
      expect(JSON.stringify(missing.body)).toContain('spec.autoscaling.maxReplicas: Required value');
    });

    test('load on the standby scales out (a pod comes); without load it scales in after the window, down to minReplicas only', async () => {
      const ns = await plane().createNamespace('autoscale-');
      kubelet = new StandInKubelet(plane(), { namespace: ns, confirmDeletionsAfterMs: 200 }).start();
      const pods = async () =>
        ((await plane().request('GET', `/api/v1/namespaces/${ns}/pods`)).body.items as any[]).filter(
          (p) => !p.metadata.deletionTimestamp && !p.metadata.labels?.['batch.kubernetes.io/job-name'],
        );
      const pg = new LoadedPostgres(async (ip) => (await pods()).find((p) => p.status?.podIP === ip)?.metadata.name);
      started = await startSampleDbManager(plane(), {}, { instances: pg, pollIntervalMs: 500 });
      const SAMPLEDB = { apiVersion: API, kind: 'SampleDB', plural: 'sampledbs' };
      const db = async () => (await started!.manager.client.get(SAMPLEDB, 'as', ns)) as any;
      const events = async () =>
        ((await plane().request('GET', `/api/v1/namespaces/${ns}/events`)).body.items as any[])
          .filter((e) => e.reason === 'Autoscaled')
          .map((e) => e.message as string);
      const actions = async (action: string) =>
        (await started!.metrics.autopilotActions.get()).values.find(
          (v) => v.labels.action === action && v.labels.name === 'as',
        )?.value ?? 0;

      await started.manager.client.create({
        apiVersion: API,
        kind: 'SampleDB',
        metadata: { name: 'as', namespace: ns },
        spec: {
          version: '16.4',
          replicas: 2,
          anomalies: { isolationFenceSeconds: 0 },
          autoscaling: {
            minReplicas: 2,
            maxReplicas: 3,
            targetConnectionUsePercent: 50,
            stabilizationWindowSeconds: 3,
            cooldownSeconds: 0,
          },
        },
      });
      await until(
        'running on 2 instances, within the target',
        async () => {
          const d = await db();
          return (
            d.status?.currentPrimary === 'as-0' &&
            condition(d, 'Ready')?.status === 'True' &&
            condition(d, 'Autoscaling')?.reason === 'WithinTarget'
          );
        },
        T,
      );
      expect((await pods()).map((p) => p.metadata.name).sort()).toEqual(['as-0', 'as-1']);
      expect(condition(await db(), 'Autoscaling')).toMatchObject({
        status: 'True',
        message: '2 replicas (2-3 replicas, target 50% connection use)',
      });

      // Steady state: no write while the load stays within the target.
      const before = await writeCount(started.manager);
      await new Promise((r) => setTimeout(r, 2000)); // four polls
      expect(await writeCount(started.manager)).toBe(before);

      // 90 % of the standby's connections in use: 1 × 90 / 50 → 2 standbys, 3 instances.
      pg.connections.set('as-1', 90);
      await until(
        'spec.replicas 3 and pod as-2',
        async () => (await db()).spec.replicas === 3 && (await pods()).length === 3,
        T,
      );
      expect(await events()).toContain('scaled from 2 to 3 replicas: connection use 90% > target 50% on as-1');
      expect(await actions('ScaledUp')).toBe(1);
      expect((await db()).status.autoscaling.lastScaleTime).toBeDefined();

      // At maxReplicas with the load still above the target: False AtMaximum, no further write of spec.replicas.
      pg.connections.set('as-2', 90);
      await until('AtMaximum', async () => condition(await db(), 'Autoscaling')?.reason === 'AtMaximum', T);
      expect(condition(await db(), 'Autoscaling').status).toBe('False');
      expect((await db()).spec.replicas).toBe(3);

      // The load gone: below the target, scale-in after the 3 s window, by one, to 2, and no further.
      pg.connections.clear();
      await until(
        'spec.replicas 2 and pod as-2 gone',
        async () => (await db()).spec.replicas === 2 && (await pods()).length === 2,
        T,
      );
      expect(
        (await events()).some((e) => e.startsWith('scaled from 3 to 2 replicas: connection use 0% < target 50% since')),
      ).toBe(true);
      expect(await actions('ScaledDown')).toBe(1);
      expect((await pods()).map((p) => p.metadata.name).sort()).toEqual(['as-0', 'as-1']); // the primary stays
      await until(
        'settled at minReplicas',
        async () => condition(await db(), 'Autoscaling')?.reason === 'WithinTarget',
        T,
      );
      await new Promise((r) => setTimeout(r, 4000)); // longer than the window: still 2
      expect((await db()).spec.replicas).toBe(2);
      expect(await actions('ScaledDown')).toBe(1);

      // Switched off: spec.replicas is left as written (the /scale subresource's value), even under load.
      await started.manager.client.patch(SAMPLEDB, 'as', ns, {
        type: 'merge',
        body: { spec: { autoscaling: { enabled: false } } },
      });
      pg.connections.set('as-1', 100);
      await until('condition Disabled', async () => condition(await db(), 'Autoscaling')?.reason === 'Disabled', T);
      await new Promise((r) => setTimeout(r, 1500));
      expect((await db()).spec.replicas).toBe(2);
      expect(await actions('ScaledUp')).toBe(1);
    }, 120_000);
  },
  { crds: [crd], controllerManager: true, shared: true },
);
