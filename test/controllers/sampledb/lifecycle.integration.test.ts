import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FakeApiServer } from '../../fake-apiserver';
import { sleep, until } from '../../runtime/support';
import {
  API, condition, controllerWrites, finishJob, getDb, NS, sampleDb, setStatefulSetReady, startFake, startSampleDbManager, Started,
} from './harness';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';

describe('SampleDB controller against the fake apiserver', () => {
  let fake: FakeApiServer;
  let started: Started | undefined;

  afterEach(async () => {
    await started?.manager.stop();
    started = undefined;
    await fake?.close();
  });

  async function start(gc = false): Promise<Started> {
    fake = await startFake({ gc });
    started = await startSampleDbManager(fake);
    return started;
  }

  /** Creates a database and drives it to Running (init Job done, StatefulSet ready). */
  async function running(name: string, spec: Record<string, unknown> = {}) {
    fake.put(sampleDb(name, spec));
    await until('statefulset', () => fake.get('apps/v1', 'StatefulSet', NS, name));
    await until('init job', () => fake.get('batch/v1', 'Job', NS, `${name}-init`));
    finishJob(fake, `${name}-init`);
    setStatefulSetReady(fake, name);
    await until('Running', () => getDb(fake, name)?.status?.phase === 'Running');
    return getDb(fake, name);
  }

  test('creates every owned object with a controller reference, reports truthful status, then writes nothing', async () => {
    const { logs } = await start();
    fake.put(sampleDb('orders', { replicas: 2, backupSchedule: '0 2 * * *', backupRetention: 7 }));
    await until('statefulset', () => fake.get('apps/v1', 'StatefulSet', NS, 'orders'));
    await until('init job', () => fake.get('batch/v1', 'Job', NS, 'orders-init'));
    const db = getDb(fake, 'orders');
    expect(db.metadata.finalizers).toEqual(['database.example.com/final-snapshot']);
    const ref = { apiVersion: API, kind: 'SampleDB', name: 'orders', uid: db.metadata.uid, controller: true, blockOwnerDeletion: true };
    const owned: Array<[string, string, string]> = [
      ['v1', 'Secret', 'orders-credentials'], ['v1', 'Service', 'orders'], ['v1', 'Service', 'orders-headless'],
      ['apps/v1', 'StatefulSet', 'orders'], ['batch/v1', 'Job', 'orders-init'], ['batch/v1', 'CronJob', 'orders-backup'],
    ];
    for (const [apiVersion, kind, name] of owned) {
      const obj = await until(`${kind} ${name}`, () => fake.get(apiVersion, kind, NS, name));
      expect([kind, obj.metadata.ownerReferences]).toEqual([kind, [ref]]);
    }
    // the backup volume outlives the database: labelled, not owned
    const backups = fake.get('v1', 'PersistentVolumeClaim', NS, 'orders-backups');
    expect(backups.metadata.ownerReferences).toBeUndefined();
    expect(backups.metadata.labels['app.kubernetes.io/instance']).toBe('orders');

    const sts = fake.get('apps/v1', 'StatefulSet', NS, 'orders');
    expect(sts.spec.replicas).toBe(2);
    expect(sts.spec.serviceName).toBe('orders-headless');
    expect(sts.spec.template.spec.containers[0].image).toBe('postgres:16.4');
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('1Gi');
    expect(sts.spec.template.spec.containers[0].env.find((e: any) => e.name === 'POSTGRES_PASSWORD').valueFrom.secretKeyRef).toEqual({ name: 'orders-credentials', key: 'password' });
    const cron = fake.get('batch/v1', 'CronJob', NS, 'orders-backup');
    expect(cron.spec.schedule).toBe('0 2 * * *');
    expect(cron.spec.jobTemplate.spec.template.spec.containers[0].env).toContainEqual({ name: 'RETENTION', value: '7' });

    // truthful while nothing runs
    await until('Creating status', () => getDb(fake, 'orders')?.status?.phase === 'Creating');
    let s = getDb(fake, 'orders').status;
    expect(s).toMatchObject({ replicas: 0, readyReplicas: 0, labelSelector: 'app.kubernetes.io/name=sampledb,app.kubernetes.io/instance=orders', currentVersion: '16.4' });
    expect(condition({ status: s }, 'Ready')).toMatchObject({ status: 'False', reason: 'Initializing' });
    expect(condition({ status: s }, 'Progressing')).toMatchObject({ status: 'True', reason: 'Initializing' });
    expect(condition({ status: s }, 'BackupSucceeded')).toMatchObject({ status: 'Unknown', reason: 'NoBackupYet' });

    finishJob(fake, 'orders-init');
    setStatefulSetReady(fake, 'orders', 1);
    await until('1 ready', () => getDb(fake, 'orders')?.status?.readyReplicas === 1);
    expect(condition(getDb(fake, 'orders'), 'Ready')).toMatchObject({ status: 'False', reason: 'ReplicasNotReady', message: '1/2 replicas ready' });
    setStatefulSetReady(fake, 'orders', 2);
    await until('Ready', () => condition(getDb(fake, 'orders'), 'Ready')?.status === 'True');
    s = getDb(fake, 'orders').status;
    expect(s).toMatchObject({ phase: 'Running', replicas: 2, readyReplicas: 2, observedGeneration: getDb(fake, 'orders').metadata.generation });
    expect(condition({ status: s }, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(condition({ status: s }, 'Progressing')).toMatchObject({ status: 'False', reason: 'Stable' });

    // steady state: resyncs, watch reconnects and re-reconciles make no writes at all
    await sleep(300);
    const before = fake.requests.length;
    fake.faults.dropWatches();
    await sleep(1500);
    expect(controllerWrites(fake, before)).toEqual([]);

    // lifecycle events were recorded; no credential anywhere
    const secret = fake.get('v1', 'Secret', NS, 'orders-credentials');
    const password = Buffer.from(secret.data.password, 'base64').toString('utf8');
    expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const events = await until('events', async () => {
      const r = await fetch(`${fake.url}/apis/events.k8s.io/v1/namespaces/${NS}/events`, { headers: { authorization: 'Bearer x' } });
      const list = await r.json() as { items: any[] };
      return list.items.length >= 5 ? list.items : undefined;
    });
    const reasons = events.map((e: any) => e.reason);
    expect(reasons).toEqual(expect.arrayContaining(['CredentialsCreated', 'ServicesApplied', 'StatefulSetCreated', 'InitJobCreated', 'BackupScheduleApplied', 'Initialized']));
    for (const text of [JSON.stringify(events), JSON.stringify(getDb(fake, 'orders')), logs.join('\n')]) {
      expect(text).not.toContain(password);
      expect(text).not.toContain(secret.data.password);
    }
    expect(logs.length).toBeGreaterThan(0);
  });

  test('kubectl scale reaches the StatefulSet; drift on it is reverted', async () => {
    await start();
    await running('scaled');
    if (existsSync(KUBECTL)) {
      const dir = mkdtempSync(join(tmpdir(), 'sampledb-kubectl-'));
      fake.writeKubeconfig(join(dir, 'kubeconfig'));
      try {
        await run(KUBECTL, ['--kubeconfig', join(dir, 'kubeconfig'), '--cache-dir', join(dir, 'cache'), 'scale', 'sampledb/scaled', '--replicas=3', '-n', NS], { timeout: 30_000 });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } else {
      const res = await fetch(`${fake.url}/apis/database.example.com/v1/namespaces/${NS}/sampledbs/scaled/scale`, {
        method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', authorization: 'Bearer x' }, body: JSON.stringify({ spec: { replicas: 3 } }),
      });
      expect(res.status).toBe(200);
    }
    expect(getDb(fake, 'scaled').spec.replicas).toBe(3);
    await until('statefulset scaled', () => fake.get('apps/v1', 'StatefulSet', NS, 'scaled')?.spec?.replicas === 3);
    await until('not ready while scaling', () => condition(getDb(fake, 'scaled'), 'Ready')?.status === 'False');
    setStatefulSetReady(fake, 'scaled');
    await until('ready with 3', () => getDb(fake, 'scaled')?.status?.readyReplicas === 3 && condition(getDb(fake, 'scaled'), 'Ready')?.status === 'True');

    // someone edits the StatefulSet directly: the single writer puts it back
    const sts = fake.get('apps/v1', 'StatefulSet', NS, 'scaled');
    fake.put({ ...sts, spec: { ...sts.spec, replicas: 1, template: { ...sts.spec.template, spec: { ...sts.spec.template.spec, containers: [{ ...sts.spec.template.spec.containers[0], image: 'postgres:latest' }] } } } });
    await until('drift reverted', () => {
      const now = fake.get('apps/v1', 'StatefulSet', NS, 'scaled');
      return now.spec.replicas === 3 && now.spec.template.spec.containers[0].image === 'postgres:16.4';
    });
  });

  test('a version bump backs up first and leaves the StatefulSet untouched until the backup succeeded', async () => {
    await start();
    await running('upg', { version: '16.4' });
    const stsBefore = fake.get('apps/v1', 'StatefulSet', NS, 'upg');
    const stsWrites = () => controllerWrites(fake).filter((r) => r.resource === 'statefulsets').length;
    const writesBefore = stsWrites();
    const db = getDb(fake, 'upg');
    fake.put({ ...db, spec: { ...db.spec, version: '17' } });
    const backup = await until('pre-upgrade backup job', () => fake.get('batch/v1', 'Job', NS, 'upg-pre-upgrade-16-4-to-17'));
    expect(backup.metadata.labels['database.example.com/backup-type']).toBe('PreUpgrade');
    expect(backup.spec.template.spec.containers[0].image).toBe('postgres:16.4');
    await until('Upgrading', () => getDb(fake, 'upg')?.status?.phase === 'Upgrading');
    expect(condition(getDb(fake, 'upg'), 'Progressing')).toMatchObject({ status: 'True', reason: 'PreUpgradeBackupRunning' });
    await sleep(500);
    const stsDuring = fake.get('apps/v1', 'StatefulSet', NS, 'upg');
    expect(stsDuring.metadata.resourceVersion).toBe(stsBefore.metadata.resourceVersion);
    expect(stsWrites()).toBe(writesBefore);

    finishJob(fake, 'upg-pre-upgrade-16-4-to-17', 'Complete', '2026-01-02T00:00:00Z');
    const rolled = await until('statefulset on 17', () => {
      const s = fake.get('apps/v1', 'StatefulSet', NS, 'upg');
      return s.spec.template.spec.containers[0].image === 'postgres:17.2' ? s : undefined;
    });
    expect(rolled.metadata.annotations['database.example.com/version']).toBe('17');
    expect(rolled.spec.template.spec.containers[0].env).toContainEqual({ name: 'PGDATA', value: '/var/lib/postgresql/data/pg17' });
    expect(rolled.metadata.annotations['database.example.com/upgrade-restore-from']).toBe('upg-pre-upgrade-16-4-to-17');
    await until('lastBackup', () => getDb(fake, 'upg').status.lastBackup);
    expect(getDb(fake, 'upg').status.lastBackup).toEqual({ name: 'upg-pre-upgrade-16-4-to-17', type: 'PreUpgrade', completionTime: '2026-01-02T00:00:00Z' });

    // major upgrade: after the rollout the new major loads the pre-upgrade dump
    setStatefulSetReady(fake, 'upg');
    const restore = await until('restore job', () => fake.get('batch/v1', 'Job', NS, 'upg-restore-upg-pre-upgrade-16-4-to-17'));
    expect(restore.spec.template.spec.containers[0].image).toBe('postgres:17.2');
    expect(restore.spec.template.spec.containers[0].env).toContainEqual({ name: 'RESTORE_FROM', value: 'upg-pre-upgrade-16-4-to-17' });
    finishJob(fake, 'upg-restore-upg-pre-upgrade-16-4-to-17');
    await until('Running on 17', () => {
      const s = getDb(fake, 'upg')?.status;
      return s?.phase === 'Running' && s.currentVersion === '17' && s.restoredFrom === 'upg-pre-upgrade-16-4-to-17';
    });
  });

  test('a failed pre-upgrade backup keeps the old version and reports Degraded', async () => {
    await start();
    await running('stuck', { version: '15' });
    const db = getDb(fake, 'stuck');
    fake.put({ ...db, spec: { ...db.spec, version: '16' } });
    await until('backup job', () => fake.get('batch/v1', 'Job', NS, 'stuck-pre-upgrade-15-to-16'));
    finishJob(fake, 'stuck-pre-upgrade-15-to-16', 'Failed');
    await until('Degraded', () => condition(getDb(fake, 'stuck'), 'Degraded')?.reason === 'PreUpgradeBackupFailed');
    expect(getDb(fake, 'stuck').status.phase).toBe('Failed');
    expect(condition(getDb(fake, 'stuck'), 'BackupSucceeded')).toMatchObject({ status: 'False', reason: 'BackupFailed' });
    expect(fake.get('apps/v1', 'StatefulSet', NS, 'stuck').spec.template.spec.containers[0].image).toBe('postgres:15.8');
  });

  test('the apiserver refuses a major downgrade (CEL transition rule)', async () => {
    await start();
    fake.put(sampleDb('down', { version: '16' }));
    const res = await fetch(`${fake.url}/apis/database.example.com/v1/namespaces/${NS}/sampledbs/down`, {
      method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json', authorization: 'Bearer x' }, body: JSON.stringify({ spec: { version: '15' } }),
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toContain('major version downgrades are not supported');
  });

  test('scheduled backups set status.lastBackup and BackupSucceeded; a failed one alerts through the metric', async () => {
    await start();
    await running('nightly', { backupSchedule: '0 2 * * *' });
    const cron = fake.get('batch/v1', 'CronJob', NS, 'nightly-backup');
    const fromCron = (name: string) => ({
      apiVersion: 'batch/v1', kind: 'Job',
      metadata: { name, namespace: NS, labels: cron.spec.jobTemplate.metadata.labels, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'CronJob', name: cron.metadata.name, uid: cron.metadata.uid, controller: true }] },
      spec: cron.spec.jobTemplate.spec,
    });
    fake.put(fromCron('nightly-backup-29000000'));
    finishJob(fake, 'nightly-backup-29000000', 'Complete', '2026-01-03T02:00:10Z');
    await until('lastBackup', () => getDb(fake, 'nightly')?.status?.lastBackup?.name === 'nightly-backup-29000000');
    expect(getDb(fake, 'nightly').status.lastBackup).toEqual({ name: 'nightly-backup-29000000', type: 'Scheduled', completionTime: '2026-01-03T02:00:10Z' });
    expect(condition(getDb(fake, 'nightly'), 'BackupSucceeded')).toMatchObject({ status: 'True', reason: 'BackupSucceeded' });

    fake.put(fromCron('nightly-backup-29001440'));
    finishJob(fake, 'nightly-backup-29001440', 'Failed', '2026-01-04T02:00:30Z');
    await until('BackupFailed', () => condition(getDb(fake, 'nightly'), 'BackupSucceeded')?.status === 'False');
    expect(getDb(fake, 'nightly').status.lastBackup.name).toBe('nightly-backup-29000000');
    const text = await started!.manager.metrics.registry.metrics();
    expect(text).toContain('sampledb_backup_failed{namespace="default",name="nightly"} 1');
    expect(text).toContain('sampledb_replicas_ready{namespace="default",name="nightly"} 1');

    // removing the schedule removes the CronJob
    const db = getDb(fake, 'nightly');
    fake.put({ ...db, spec: { version: db.spec.version, replicas: db.spec.replicas } });
    await until('cronjob deleted', () => !fake.get('batch/v1', 'CronJob', NS, 'nightly-backup'));
  });

  test('restoreFrom restores the named backup once the database is up', async () => {
    await start();
    fake.put(sampleDb('copy', { restoreFrom: 'orders-final-snapshot' }));
    await until('init job', () => fake.get('batch/v1', 'Job', NS, 'copy-init'));
    await sleep(300);
    expect(fake.get('batch/v1', 'Job', NS, 'copy-restore-orders-final-snapshot')).toBeUndefined(); // not before init + ready
    finishJob(fake, 'copy-init');
    setStatefulSetReady(fake, 'copy');
    await until('Restoring', () => getDb(fake, 'copy')?.status?.phase === 'Restoring');
    await until('restore job', () => fake.get('batch/v1', 'Job', NS, 'copy-restore-orders-final-snapshot'));
    finishJob(fake, 'copy-restore-orders-final-snapshot');
    await until('restored', () => getDb(fake, 'copy')?.status?.restoredFrom === 'orders-final-snapshot' && getDb(fake, 'copy').status.phase === 'Running');
  });

  test('delete keeps the database until the final snapshot succeeded, then removes the StatefulSet and data volumes', async () => {
    await start(true);
    await running('gone', { replicas: 2 });
    for (const i of [0, 1]) {
      fake.put({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: `data-gone-${i}`, namespace: NS, labels: { 'app.kubernetes.io/name': 'sampledb', 'app.kubernetes.io/instance': 'gone' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    }
    const res = await fetch(`${fake.url}/apis/database.example.com/v1/namespaces/${NS}/sampledbs/gone`, { method: 'DELETE', headers: { authorization: 'Bearer x' } });
    expect(res.status).toBe(200);
    const snapshot = await until('snapshot job', () => fake.get('batch/v1', 'Job', NS, 'gone-final-snapshot'));
    expect(snapshot.metadata.labels['database.example.com/backup-type']).toBe('FinalSnapshot');
    await until('Deleting', () => getDb(fake, 'gone')?.status?.phase === 'Deleting');
    await sleep(500);
    expect(getDb(fake, 'gone')).toBeDefined();
    expect(fake.get('apps/v1', 'StatefulSet', NS, 'gone')).toBeDefined();
    expect(fake.get('v1', 'PersistentVolumeClaim', NS, 'data-gone-0')).toBeDefined();
    expect(fake.requests.filter((r) => r.verb === 'delete' && ['statefulsets', 'persistentvolumeclaims'].includes(r.resource))).toEqual([]);

    finishJob(fake, 'gone-final-snapshot');
    await until('sampledb gone', () => !getDb(fake, 'gone'));
    await until('statefulset gone', () => !fake.get('apps/v1', 'StatefulSet', NS, 'gone'));
    await until('data volumes gone', () => !fake.get('v1', 'PersistentVolumeClaim', NS, 'data-gone-0') && !fake.get('v1', 'PersistentVolumeClaim', NS, 'data-gone-1'));
    // garbage collection removed what it owned; the backup volume with the snapshot stays
    await until('owned objects collected', () => !fake.get('v1', 'Secret', NS, 'gone-credentials') && !fake.get('v1', 'Service', NS, 'gone') && !fake.get('batch/v1', 'Job', NS, 'gone-init'));
    expect(fake.get('v1', 'PersistentVolumeClaim', NS, 'gone-backups')).toBeDefined();
  });

  test('volumeRetention Retain keeps the data volumes; a failed snapshot blocks deletion', async () => {
    await start(true);
    await running('keep', { volumeRetention: 'Retain' });
    fake.put({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-keep-0', namespace: NS, labels: { 'app.kubernetes.io/name': 'sampledb', 'app.kubernetes.io/instance': 'keep' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    await fetch(`${fake.url}/apis/database.example.com/v1/namespaces/${NS}/sampledbs/keep`, { method: 'DELETE', headers: { authorization: 'Bearer x' } });
    await until('snapshot job', () => fake.get('batch/v1', 'Job', NS, 'keep-final-snapshot'));
    finishJob(fake, 'keep-final-snapshot', 'Failed');
    await until('Degraded', () => condition(getDb(fake, 'keep'), 'Degraded')?.reason === 'FinalSnapshotFailed');
    await sleep(300);
    expect(fake.get('apps/v1', 'StatefulSet', NS, 'keep')).toBeDefined();
    // retry: delete the failed Job; a new one is created, and its success completes the deletion
    fake.remove('batch/v1', 'Job', NS, 'keep-final-snapshot');
    await until('new snapshot job', () => fake.get('batch/v1', 'Job', NS, 'keep-final-snapshot'));
    finishJob(fake, 'keep-final-snapshot');
    await until('sampledb gone', () => !getDb(fake, 'keep'));
    await until('statefulset gone', () => !fake.get('apps/v1', 'StatefulSet', NS, 'keep'));
    await sleep(200);
    expect(fake.get('v1', 'PersistentVolumeClaim', NS, 'data-keep-0')).toBeDefined();
  });

  test('a StatefulSet deleted by hand is let go and recreated; its volumes stay', async () => {
    await start(true);
    await running('manual');
    fake.put({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-manual-0', namespace: NS, labels: { 'app.kubernetes.io/name': 'sampledb', 'app.kubernetes.io/instance': 'manual' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    const old = fake.get('apps/v1', 'StatefulSet', NS, 'manual');
    const res = await fetch(`${fake.url}/apis/apps/v1/namespaces/${NS}/statefulsets/manual`, { method: 'DELETE', headers: { authorization: 'Bearer x' } });
    expect(res.status).toBe(200);
    await until('recreated', () => {
      const now = fake.get('apps/v1', 'StatefulSet', NS, 'manual');
      return now && now.metadata.uid !== old.metadata.uid && !now.metadata.deletionTimestamp;
    });
    expect(fake.get('v1', 'PersistentVolumeClaim', NS, 'data-manual-0')).toBeDefined();
  });

  test('without a StatefulSet there is no snapshot, and data volumes are never deleted', async () => {
    await start(true);
    fake.put({ ...sampleDb('nosts', { version: '12' }) }); // unsupported: no StatefulSet is ever created
    await until('Degraded', () => condition(getDb(fake, 'nosts'), 'Degraded')?.reason === 'UnsupportedVersion');
    expect(fake.get('apps/v1', 'StatefulSet', NS, 'nosts')).toBeUndefined();
    fake.put({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data-nosts-0', namespace: NS, labels: { 'app.kubernetes.io/name': 'sampledb', 'app.kubernetes.io/instance': 'nosts' } }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
    await fetch(`${fake.url}/apis/database.example.com/v1/namespaces/${NS}/sampledbs/nosts`, { method: 'DELETE', headers: { authorization: 'Bearer x' } });
    await until('sampledb gone', () => !getDb(fake, 'nosts'));
    expect(fake.get('batch/v1', 'Job', NS, 'nosts-final-snapshot')).toBeUndefined();
    expect(fake.get('v1', 'PersistentVolumeClaim', NS, 'data-nosts-0')).toBeDefined();
  });

  test('a name that cannot name its objects is reported, nothing is created', async () => {
    await start();
    fake.put(sampleDb('2fast'));
    await until('Degraded', () => condition(getDb(fake, '2fast'), 'Degraded')?.reason === 'InvalidName');
    expect(getDb(fake, '2fast').status.phase).toBe('Failed');
    expect(fake.get('v1', 'Secret', NS, '2fast-credentials')).toBeUndefined();
    expect(fake.get('apps/v1', 'StatefulSet', NS, '2fast')).toBeUndefined();
  });

  test('never adopts an object of its name that it does not control', async () => {
    await start();
    fake.put({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'taken', namespace: NS }, spec: { ports: [{ port: 80 }], selector: { app: 'other' } } });
    fake.put(sampleDb('taken'));
    await until('Degraded', () => condition(getDb(fake, 'taken'), 'Degraded')?.reason === 'ResourceExists');
    const svc = fake.get('v1', 'Service', NS, 'taken');
    expect(svc.spec.selector).toEqual({ app: 'other' });
    expect(svc.metadata.ownerReferences).toBeUndefined();
  });
});
