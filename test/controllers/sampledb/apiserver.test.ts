/**
 * The acceptance flow against the fake apiserver and, through the envtest harness, a real
 * kube-apiserver (no kubelet, no controller-manager: Job and StatefulSet status are set by the
 * test through their /status subresources, as the job and statefulset controllers would).
 * Only API calls, no fake-only shortcuts, so both servers run the same steps.
 */
import { ApiError, KubeClient, KubeObject } from '../../../runtime';
import { forEachApiServer } from '../../envtest';
import { sleep, until } from '../../runtime/support';
import { API, NS, sampleDbCrdManifest, startSampleDbManager, Started } from './harness';

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

/** Marks a Job complete through /status, the way the job controller does (strict 1.32 rules first). */
async function completeJob(client: KubeClient, name: string): Promise<void> {
  const at = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const strict = {
    active: 0, ready: 0, succeeded: 1, startTime: at, completionTime: at, uncountedTerminatedPods: {},
    conditions: [
      { type: 'SuccessCriteriaMet', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at },
      { type: 'Complete', status: 'True', reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods', lastProbeTime: at, lastTransitionTime: at },
    ],
  };
  try {
    await client.patch(JOB, name, NS, { type: 'merge', body: { status: strict } }, { subresource: 'status' });
  } catch (err) {
    if (!(err instanceof ApiError) || err.code !== 422) throw err;
    await client.patch(JOB, name, NS, { type: 'merge', body: { status: { startTime: at, succeeded: 1 } } }, { subresource: 'status' });
  }
}

/** Sets the StatefulSet status the statefulset controller would report with every pod ready. */
async function statefulSetReady(client: KubeClient, name: string): Promise<void> {
  const sts = await client.get(STS, name, NS);
  const replicas = (sts.spec as { replicas: number }).replicas;
  const rev = `${name}-${sts.metadata!.generation}`;
  await client.patch(STS, name, NS, { type: 'merge', body: { status: {
    observedGeneration: sts.metadata!.generation, replicas, readyReplicas: replicas, availableReplicas: replicas,
    currentReplicas: replicas, updatedReplicas: replicas, currentRevision: rev, updateRevision: rev,
  } } }, { subresource: 'status' });
}

forEachApiServer('SampleDB acceptance flow', (ctx) => {
  let started: Started | undefined;
  let client: KubeClient;

  afterEach(async () => {
    await started?.manager.stop();
    started = undefined;
  });

  test('create → owned objects and truthful status; scale; upgrade gated by its backup; delete gated by the snapshot', async () => {
    started = await startSampleDbManager(ctx().server);
    client = started.manager.client;
    const get = (ref: typeof STS, name: string) => tryGet(client, ref, name);
    const db = () => client.get(SAMPLEDB, 'accept', NS) as Promise<any>;
    const cond = async (type: string) => ((await db()).status?.conditions ?? []).find((c: any) => c.type === type);

    await client.create({ apiVersion: API, kind: 'SampleDB', metadata: { name: 'accept', namespace: NS }, spec: { version: '16.4', replicas: 1, backupSchedule: '0 3 * * *' } });
    const created = await db();
    const ref = { apiVersion: API, kind: 'SampleDB', name: 'accept', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true };
    for (const [r, name] of [[SECRET, 'accept-credentials'], [SERVICE, 'accept'], [SERVICE, 'accept-headless'], [STS, 'accept'], [JOB, 'accept-init'],
      [{ apiVersion: 'batch/v1', kind: 'CronJob', plural: 'cronjobs' }, 'accept-backup']] as const) {
      const obj = await until(`${r.kind} ${name}`, () => get(r, name), 15_000);
      expect([r.kind, obj.metadata!.ownerReferences]).toEqual([r.kind, [ref]]);
    }
    await until('status Creating', async () => (await db()).status?.phase === 'Creating', 15_000);
    expect((await db()).status).toMatchObject({ replicas: 0, readyReplicas: 0, currentVersion: '16.4' });
    expect(await cond('Ready')).toMatchObject({ status: 'False' });

    await completeJob(client, 'accept-init');
    await statefulSetReady(client, 'accept');
    await until('Running', async () => (await db()).status?.phase === 'Running', 15_000);
    expect(await cond('Ready')).toMatchObject({ status: 'True', reason: 'AllReplicasReady' });

    // scale subresource → StatefulSet
    await client.patch(SAMPLEDB, 'accept', NS, { type: 'merge', body: { spec: { replicas: 2 } } }, { subresource: 'scale' });
    await until('scaled', async () => ((await get(STS, 'accept'))?.spec as any)?.replicas === 2, 15_000);
    await statefulSetReady(client, 'accept');
    await until('Running with 2', async () => (await db()).status?.readyReplicas === 2 && (await db()).status?.phase === 'Running', 15_000);

    // version bump: backup first, StatefulSet untouched until it succeeded
    const stsBefore = (await get(STS, 'accept'))!;
    await client.patch(SAMPLEDB, 'accept', NS, { type: 'merge', body: { spec: { version: '16.6' } } });
    await until('pre-upgrade backup job', () => get(JOB, 'accept-pre-upgrade-16-4-to-16-6'), 15_000);
    await sleep(1000);
    expect((await get(STS, 'accept'))!.metadata!.resourceVersion).toBe(stsBefore.metadata!.resourceVersion);
    expect((await db()).status?.phase).toBe('Upgrading');
    await completeJob(client, 'accept-pre-upgrade-16-4-to-16-6');
    await until('rolled to 16.6', async () => ((await get(STS, 'accept'))?.spec as any)?.template?.spec?.containers?.[0]?.image === 'postgres:16.6', 15_000);
    await statefulSetReady(client, 'accept');
    await until('current 16.6', async () => (await db()).status?.currentVersion === '16.6' && (await db()).status?.phase === 'Running', 15_000);

    // delete: the CR stays until the snapshot succeeded
    await client.delete(SAMPLEDB, 'accept', NS);
    await until('snapshot job', () => get(JOB, 'accept-final-snapshot'), 15_000);
    await sleep(1000);
    expect((await db()).metadata.deletionTimestamp).toBeDefined();
    expect(await get(STS, 'accept')).toBeDefined();
    await completeJob(client, 'accept-final-snapshot');
    await until('sampledb gone', async () => !(await tryGet(client, SAMPLEDB as never, 'accept')), 15_000);
    await until('statefulset gone', async () => !(await get(STS, 'accept')), 15_000);

    // no credential in events or logs
    const secret = (await get(SECRET, 'accept-credentials'))?.data as Record<string, string> | undefined;
    const events = await client.list(EVENTS, { namespace: NS });
    const reasons = events.items.map((e: any) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['StatefulSetCreated', 'PreUpgradeBackupStarted', 'UpgradeStarted', 'FinalSnapshotStarted', 'StatefulSetDeleted', 'FinalizerRemoved']));
    if (secret) {
      const password = Buffer.from(secret.password, 'base64').toString();
      expect(JSON.stringify(events.items)).not.toContain(password);
      expect(started.logs.join('\n')).not.toContain(password);
    }
  }, 120_000);
}, { crds: [sampleDbCrdManifest()] });
