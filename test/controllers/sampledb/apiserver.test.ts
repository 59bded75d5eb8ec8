/**
 * The acceptance flow on a real kube-apiserver with kube-controller-manager: Job and StatefulSet status
 * come from the real job and statefulset controllers; a stand-in kubelet writes pod status (StatefulSet pods run
 * and are Ready; a Job's pod succeeds once the test releases that Job).
 */
import { API, sampleDbCrdManifest, startSampleDbManager, Started } from './harness';
import { ApiError, KubeClient, KubeObject } from '../../../runtime';
import { describeRealApiServer, StandInKubelet } from '../../envtest';
import { sleep, until } from '../../runtime/support';

const NS = 'default';
const SAMPLEDB = { apiVersion: API, kind: 'SampleDB', plural: 'sampledbs' };
const STS = { apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets' };
const JOB = { apiVersion: 'batch/v1', kind: 'Job', plural: 'jobs' };
const SECRET = { apiVersion: 'v1', kind: 'Secret', plural: 'secrets' };
const SERVICE = { apiVersion: 'v1', kind: 'Service', plural: 'services' };
const EVENTS = { apiVersion: 'events.k8s.io/v1', kind: 'Event', plural: 'events' };

async function tryGet(client: KubeClient, ref: typeof STS, name: string): Promise<KubeObject | undefined> {
  try {
    return await client.get(ref, name, NS);
  } catch (err) {
    if (err instanceof ApiError && err.code === 404) return undefined;
    throw err;
  }
}

describeRealApiServer(
  'SampleDB acceptance flow',
  (plane) => {
    let started: Started | undefined;
    let client: KubeClient;
    let kubelet: StandInKubelet | undefined;
    /** Jobs whose pods may succeed. */
    const released = new Set<string>();
    const completeJob = (name: string) => released.add(name);
    /** StatefulSet pods run once the init Job was released. */
    const podsRun = () => released.has('accept-init');

    beforeEach(() => {
      kubelet = new StandInKubelet(plane(), {
        namespace: NS,
        outcome: (pod) => {
          const job = pod.metadata.labels?.['batch.kubernetes.io/job-name'];
          if (!job) return podsRun() ? 'Running' : 'Pending';
          return released.has(job) ? 'Succeeded' : 'Pending';
        },
      }).start();
    });

    afterEach(async () => {
      kubelet?.stop();
      await started?.manager.stop();
      started = undefined;
    });

    test('create → owned objects and truthful status; scale; upgrade gated by its backup; delete gated by the snapshot', async () => {
      started = await startSampleDbManager(plane());
      client = started.manager.client;
      const get = (ref: typeof STS, name: string) => tryGet(client, ref, name);
      const db = () => client.get(SAMPLEDB, 'accept', NS) as Promise<any>;
      const cond = async (type: string) => ((await db()).status?.conditions ?? []).find((c: any) => c.type === type);

      await client.create({
        apiVersion: API,
        kind: 'SampleDB',
        metadata: { name: 'accept', namespace: NS },
        spec: { version: '16.4', replicas: 1, backupSchedule: '0 3 * * *' },
      });
      const created = await db();
      const ref = {
        apiVersion: API,
        kind: 'SampleDB',
        name: 'accept',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      for (const [r, name] of [
        [SECRET, 'accept-credentials'],
        [SERVICE, 'accept'],
        [SERVICE, 'accept-headless'],
        [STS, 'accept'],
        [JOB, 'accept-init'],
        [{ apiVersion: 'batch/v1', kind: 'CronJob', plural: 'cronjobs' }, 'accept-backup'],
      ] as const) {
        const obj = await until(`${r.kind} ${name}`, () => get(r, name), 15_000);
        expect([r.kind, obj.metadata!.ownerReferences]).toEqual([r.kind, [ref]]);
      }
      // The password, read while its Secret exists: once the SampleDB is gone, garbage collection deletes it.
      const password = Buffer.from(
        ((await get(SECRET, 'accept-credentials'))!.data as Record<string, string>).password,
        'base64',
      ).toString();
      expect(password.length).toBeGreaterThanOrEqual(16);
      await until('status Creating', async () => (await db()).status?.phase === 'Creating', 15_000);
      expect((await db()).status).toMatchObject({ readyReplicas: 0, currentVersion: '16.4' });
      expect(await cond('Ready')).toMatchObject({ status: 'False' });

      completeJob('accept-init');
      await until('Running', async () => (await db()).status?.phase === 'Running', 15_000);
      expect(await cond('Ready')).toMatchObject({ status: 'True', reason: 'AllReplicasReady' });

      // scale subresource → StatefulSet
      await client.patch(
        SAMPLEDB,
        'accept',
        NS,
        { type: 'merge', body: { spec: { replicas: 2 } } },
        { subresource: 'scale' },
      );
      await until('scaled', async () => ((await get(STS, 'accept'))?.spec as any)?.replicas === 2, 15_000);
      await until(
        'Running with 2',
        async () => (await db()).status?.readyReplicas === 2 && (await db()).status?.phase === 'Running',
        15_000,
      );

      // version bump: backup first, StatefulSet untouched until it succeeded
      const stsBefore = (await get(STS, 'accept'))!;
      await client.patch(SAMPLEDB, 'accept', NS, { type: 'merge', body: { spec: { version: '16.6' } } });
      await until('pre-upgrade backup job', () => get(JOB, 'accept-pre-upgrade-16-4-to-16-6'), 15_000);
      // the status follows the Job's create in the same reconcile: waited for, as a starved host writes it late
      await until('phase Upgrading', async () => (await db()).status?.phase === 'Upgrading', 15_000);
      await sleep(1000); // room for a write to the StatefulSet that must not come
      expect((await get(STS, 'accept'))!.metadata!.resourceVersion).toBe(stsBefore.metadata!.resourceVersion);
      expect((await db()).status?.phase).toBe('Upgrading');
      completeJob('accept-pre-upgrade-16-4-to-16-6');
      await until(
        'rolled to 16.6',
        async () =>
          ((await get(STS, 'accept'))?.spec as any)?.template?.spec?.containers?.[0]?.image === 'postgres:16.6',
        15_000,
      );
      await until(
        'current 16.6',
        async () => (await db()).status?.currentVersion === '16.6' && (await db()).status?.phase === 'Running',
        15_000,
      );

      // delete: the CR stays until the snapshot succeeded
      await client.delete(SAMPLEDB, 'accept', NS);
      await until('snapshot job', () => get(JOB, 'accept-final-snapshot'), 15_000);
      await sleep(1000);
      expect((await db()).metadata.deletionTimestamp).toBeDefined();
      expect(await get(STS, 'accept')).toBeDefined();
      completeJob('accept-final-snapshot');
      await until('sampledb gone', async () => !(await tryGet(client, SAMPLEDB as never, 'accept')), 15_000);
      await until('statefulset gone', async () => !(await get(STS, 'accept')), 15_000);

      // no credential in events or logs
      // Events are written asynchronously after the step they record (FinalizerRemoved after the
      // SampleDB is already gone): wait until they are all there, then check them.
      const expectedReasons = [
        'StatefulSetCreated',
        'PreUpgradeBackupStarted',
        'UpgradeStarted',
        'FinalSnapshotStarted',
        'StatefulSetDeleted',
        'FinalizerRemoved',
      ];
      const listEvents = async () => (await client.list(EVENTS, { namespace: NS })).items;
      await until(
        'an event for every step',
        async () => {
          const seen = (await listEvents()).map((e: any) => e.reason);
          return expectedReasons.every((r) => seen.includes(r));
        },
        15_000,
      ).catch(() => undefined); // the assertion below names what is missing
      const events = await listEvents();
      const reasons = events.map((e: any) => e.reason);
      expect(reasons).toEqual(expect.arrayContaining(expectedReasons));
      // Every write of the flow, the last finalizer's removal included, showed up in the cache (or the
      // object's deletion did) before the reconcile went on.
      expect(started.logs.join('\n')).not.toContain('did not reach the cache');
      expect(started.logs.length).toBeGreaterThan(0);
      expect(JSON.stringify(events)).not.toContain(password);
      expect(started.logs.join('\n')).not.toContain(password);
    }, 120_000);
  },
  { shared: true, crds: [sampleDbCrdManifest()], controllerManager: true },
);
