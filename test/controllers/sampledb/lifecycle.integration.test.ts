/**
 * The SampleDB lifecycle on a real kube-apiserver with kube-controller-manager: Job, StatefulSet and garbage
 * collection come from the real controllers; a stand-in kubelet lets pods run (or Jobs fail) when a test says so.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  API,
  condition,
  SampleDbNamespace,
  sampleDb,
  sampleDbCrdManifest,
  startSampleDbManager,
  Started,
  writeCount,
} from './harness';
import { ENV_POSTGRES_IMAGES, ENV_POSTGRES_REPOSITORY, PostgresImages } from '../../../controllers/sampledb/images';
import { describeRealApiServer, kubectl } from '../../envtest';
import { sleep, until } from '../../runtime/support';

const T = 30_000;

describeRealApiServer(
  'SampleDB controller',
  (plane) => {
    let env: SampleDbNamespace;
    let started: Started;

    beforeEach(async () => {
      env = await SampleDbNamespace.create(plane());
      started = await startSampleDbManager(plane());
    });

    afterEach(async () => {
      env?.stop();
      await started?.manager.stop();
    });

    const db = (name: string) => env.getDb(name);
    const get = (apiVersion: string, kind: string, name: string) => env.get(apiVersion, kind, name);

    /** Creates a database and drives it to Running (init Job done, every pod ready). */
    async function running(name: string, spec: Record<string, unknown> = {}) {
      await env.put(sampleDb(name, spec));
      await until('init job', () => get('batch/v1', 'Job', `${name}-init`), T);
      await env.finishJob(`${name}-init`);
      env.runPods(name, (spec.replicas as number | undefined) ?? 1);
      await until('Running', async () => (await db(name))?.status?.phase === 'Running', T);
      return db(name);
    }

    test('creates every owned object with a controller reference, reports truthful status, then writes nothing', async () => {
      const { logs } = started;
      await env.put(sampleDb('orders', { replicas: 2, backupSchedule: '0 2 * * *', backupRetention: 7 }));
      await until('statefulset', () => get('apps/v1', 'StatefulSet', 'orders'), T);
      await until('init job', () => get('batch/v1', 'Job', 'orders-init'), T);
      const created = await db('orders');
      expect(created.metadata.finalizers).toEqual(['database.example.com/final-snapshot']);
      const ref = {
        apiVersion: API,
        kind: 'SampleDB',
        name: 'orders',
        uid: created.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      };
      const owned: Array<[string, string, string]> = [
        ['v1', 'Secret', 'orders-credentials'],
        ['v1', 'Service', 'orders'],
        ['v1', 'Service', 'orders-headless'],
        ['apps/v1', 'StatefulSet', 'orders'],
        ['batch/v1', 'Job', 'orders-init'],
        ['batch/v1', 'CronJob', 'orders-backup'],
      ];
      for (const [apiVersion, kind, name] of owned) {
        const obj = await until(`${kind} ${name}`, () => get(apiVersion, kind, name), T);
        expect([kind, obj.metadata.ownerReferences]).toEqual([kind, [ref]]);
      }
      // the backup volume outlives the database: labelled, not owned
      const backups = await get('v1', 'PersistentVolumeClaim', 'orders-backups');
      expect(backups.metadata.ownerReferences).toBeUndefined();
      expect(backups.metadata.labels['app.kubernetes.io/instance']).toBe('orders');

      const sts = await get('apps/v1', 'StatefulSet', 'orders');
      expect(sts.spec.replicas).toBe(2);
      expect(sts.spec.serviceName).toBe('orders-headless');
      expect(sts.spec.template.spec.containers[0].image).toBe('postgres:16.4');
      expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('1Gi');
      expect(
        sts.spec.template.spec.containers[0].env.find((e: any) => e.name === 'POSTGRES_PASSWORD').valueFrom
          .secretKeyRef,
      ).toEqual({ name: 'orders-credentials', key: 'password' });
      const cron = await get('batch/v1', 'CronJob', 'orders-backup');
      expect(cron.spec.schedule).toBe('0 2 * * *');
      expect(cron.spec.jobTemplate.spec.template.spec.containers[0].env).toContainEqual({
        name: 'RETENTION',
        value: '7',
      });

      // truthful while nothing runs
      await until('Creating status', async () => (await db('orders'))?.status?.phase === 'Creating', T);
      let s = (await db('orders')).status;
      // the StatefulSet controller created the pods (podManagementPolicy Parallel), which do not run yet
      expect(s.replicas).toBeLessThanOrEqual(2);
      expect(s).toMatchObject({
        readyReplicas: 0,
        labelSelector: 'app.kubernetes.io/name=sampledb,app.kubernetes.io/instance=orders',
        currentVersion: '16.4',
      });
      expect(condition({ status: s }, 'Ready')).toMatchObject({ status: 'False', reason: 'Initializing' });
      expect(condition({ status: s }, 'Progressing')).toMatchObject({ status: 'True', reason: 'Initializing' });
      expect(condition({ status: s }, 'BackupSucceeded')).toMatchObject({ status: 'Unknown', reason: 'NoBackupYet' });

      await env.finishJob('orders-init');
      env.runPods('orders', 1);
      // the init Job completes (job controller) and one pod is ready (statefulset controller), in either order
      await until(
        '1 ready, initialized',
        async () => {
          const now = await db('orders');
          return now?.status?.readyReplicas === 1 && condition(now, 'Ready')?.reason !== 'Initializing';
        },
        T,
      );
      expect(condition(await db('orders'), 'Ready')).toMatchObject({
        status: 'False',
        reason: 'ReplicasNotReady',
        message: '1/2 replicas ready',
      });
      env.runPods('orders', 2);
      await until('Ready', async () => condition(await db('orders'), 'Ready')?.status === 'True', T);
      const ready = await db('orders');
      s = ready.status;
      expect(s).toMatchObject({
        phase: 'Running',
        replicas: 2,
        readyReplicas: 2,
        observedGeneration: ready.metadata.generation,
      });
      expect(condition({ status: s }, 'Degraded')).toMatchObject({ status: 'False', reason: 'AsExpected' });
      // The stand-in kubelet runs no PostgreSQL: no instance answers as the primary, so the operator
      // labels none and says so (replication itself is covered on the real node, test/node/).
      expect(condition({ status: s }, 'Progressing')).toMatchObject({ status: 'True', reason: 'WaitingForPrimary' });
      expect(s.currentPrimary).toBeUndefined();

      // steady state: an apiserver restart (every watch breaks, caches re-list) makes no writes at all
      await sleep(500);
      const before = await writeCount(started.manager);
      const rvBefore = ready.metadata.resourceVersion;
      await plane().restartApiServer();
      await sleep(2000);
      expect(await writeCount(started.manager)).toBe(before);
      expect((await db('orders')).metadata.resourceVersion).toBe(rvBefore);

      // lifecycle events were recorded; no credential anywhere
      const secret = await get('v1', 'Secret', 'orders-credentials');
      const password = Buffer.from(secret.data.password, 'base64').toString('utf8');
      expect(password).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const events = await until(
        'events',
        async () => {
          const items = await env.list('events.k8s.io/v1', 'Event');
          return items.length >= 5 ? items : undefined;
        },
        T,
      );
      const reasons = events.map((e: any) => e.reason);
      expect(reasons).toEqual(
        expect.arrayContaining([
          'CredentialsCreated',
          'ServicesApplied',
          'StatefulSetCreated',
          'InitJobCreated',
          'BackupScheduleApplied',
          'Initialized',
        ]),
      );
      for (const text of [JSON.stringify(events), JSON.stringify(await db('orders')), logs.join('\n')]) {
        expect(text).not.toContain(password);
        expect(text).not.toContain(secret.data.password);
      }
      expect(logs.length).toBeGreaterThan(0);
    }, 120_000);

    test('an apiserver restart in the middle of convergence: every database reaches Running with one of each owned object', async () => {
      // Sized so that the restart lands while the databases are converging, and asserted: one was Running before
      // the apiserver went down (counted before), not all by the time it was back (counted right after: no more
      // than that were Running when it went down).
      const N = 30;
      const names = Array.from({ length: N }, (_, i) => `mid-${i}`);
      for (const name of names) {
        await env.finishJob(`${name}-init`);
        env.runPods(name, 1);
      }
      for (const name of names) await env.put(sampleDb(name));
      const runningCount = async () =>
        (await env.list(API, 'SampleDB')).filter((d: any) => d.status?.phase === 'Running').length;
      await until('the first database Running', async () => (await runningCount()) > 0, 90_000, 20);
      const runningBefore = await runningCount();
      await plane().restartApiServer({ downMs: 500 });
      const runningAfter = await runningCount();
      expect({ runningBefore, runningAfter, midConvergence: runningBefore > 0 && runningAfter < N }).toStrictEqual({
        runningBefore,
        runningAfter,
        midConvergence: true,
      });
      await until(`all ${N} Running after the restart`, async () => (await runningCount()) === N, 120_000, 250);
      const owned = async (apiVersion: string, kind: string) =>
        (await env.list(apiVersion, kind)).map((o: any) => o.metadata.name).sort();
      expect(await owned('apps/v1', 'StatefulSet')).toEqual([...names].sort());
      expect(await owned('batch/v1', 'Job')).toEqual(names.map((n) => `${n}-init`).sort());
      expect(await owned('v1', 'Secret')).toEqual(names.map((n) => `${n}-credentials`).sort());
      expect(await owned('v1', 'Service')).toEqual(
        names.flatMap((n) => [n, `${n}-headless`, `${n}-ro`, `${n}-rw`]).sort(),
      );
    }, 300_000);

    test('kubectl scale reaches the StatefulSet; drift on it is reverted', async () => {
      await running('scaled');
      const dir = mkdtempSync(join(tmpdir(), 'sampledb-kubectl-'));
      try {
        plane().writeKubeconfig(join(dir, 'kubeconfig'));
        const r = await kubectl(join(dir, 'kubeconfig'), [
          '--cache-dir',
          join(dir, 'cache'),
          'scale',
          'sampledb/scaled',
          '--replicas=3',
          '-n',
          env.ns,
        ]);
        expect(r).toMatchObject({ code: 0, stderr: '' });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
      expect((await db('scaled')).spec.replicas).toBe(3);
      await until(
        'statefulset scaled',
        async () => (await get('apps/v1', 'StatefulSet', 'scaled'))?.spec?.replicas === 3,
        T,
      );
      await until('not ready while scaling', async () => condition(await db('scaled'), 'Ready')?.status === 'False', T);
      env.runPods('scaled', 3);
      await until(
        'ready with 3',
        async () => {
          const now = await db('scaled');
          return now?.status?.readyReplicas === 3 && condition(now, 'Ready')?.status === 'True';
        },
        T,
      );

      // someone edits the StatefulSet directly: the single writer puts it back
      const sts = await get('apps/v1', 'StatefulSet', 'scaled');
      await env.put({
        ...sts,
        spec: {
          ...sts.spec,
          replicas: 1,
          template: {
            ...sts.spec.template,
            spec: {
              ...sts.spec.template.spec,
              containers: [{ ...sts.spec.template.spec.containers[0], image: 'postgres:latest' }],
            },
          },
        },
      });
      await until(
        'drift reverted',
        async () => {
          const now = await get('apps/v1', 'StatefulSet', 'scaled');
          return now.spec.replicas === 3 && now.spec.template.spec.containers[0].image === 'postgres:16.4';
        },
        T,
      );
    }, 90_000);

    test('a version bump backs up first and leaves the StatefulSet untouched until the backup succeeded', async () => {
      await running('upg', { version: '16.4' });
      const stsBefore = await get('apps/v1', 'StatefulSet', 'upg');
      const current = await db('upg');
      await env.put({ ...current, spec: { ...current.spec, version: '17' } });
      const backup = await until(
        'pre-upgrade backup job',
        () => get('batch/v1', 'Job', 'upg-pre-upgrade-16-4-to-17'),
        T,
      );
      expect(backup.metadata.labels['database.example.com/backup-type']).toBe('PreUpgrade');
      expect(backup.spec.template.spec.containers[0].image).toBe('postgres:16.4');
      await until('Upgrading', async () => (await db('upg'))?.status?.phase === 'Upgrading', T);
      expect(condition(await db('upg'), 'Progressing')).toMatchObject({
        status: 'True',
        reason: 'PreUpgradeBackupRunning',
      });
      await sleep(500);
      expect((await get('apps/v1', 'StatefulSet', 'upg')).metadata.resourceVersion).toBe(
        stsBefore.metadata.resourceVersion,
      );

      await env.finishJob('upg-pre-upgrade-16-4-to-17');
      const rolled = await until(
        'statefulset on 17',
        async () => {
          const s = await get('apps/v1', 'StatefulSet', 'upg');
          return s.spec.template.spec.containers[0].image === 'postgres:17.2' ? s : undefined;
        },
        T,
      );
      expect(rolled.metadata.annotations['database.example.com/version']).toBe('17');
      expect(rolled.spec.template.spec.containers[0].env).toContainEqual({
        name: 'PGDATA',
        value: '/var/lib/postgresql/data/pg17',
      });
      expect(rolled.metadata.annotations['database.example.com/upgrade-restore-from']).toBe(
        'upg-pre-upgrade-16-4-to-17',
      );
      await until('lastBackup', async () => (await db('upg')).status.lastBackup, T);
      const job = await get('batch/v1', 'Job', 'upg-pre-upgrade-16-4-to-17');
      expect((await db('upg')).status.lastBackup).toEqual({
        name: 'upg-pre-upgrade-16-4-to-17',
        type: 'PreUpgrade',
        completionTime: job.status.completionTime,
      });

      // major upgrade: after the rollout (the StatefulSet controller replaces the pod) the new major loads the dump
      const restore = await until(
        'restore job',
        () => get('batch/v1', 'Job', 'upg-restore-upg-pre-upgrade-16-4-to-17'),
        T,
      );
      expect(restore.spec.template.spec.containers[0].image).toBe('postgres:17.2');
      expect(restore.spec.template.spec.containers[0].env).toContainEqual({
        name: 'RESTORE_FROM',
        value: 'upg-pre-upgrade-16-4-to-17',
      });
      await env.finishJob('upg-restore-upg-pre-upgrade-16-4-to-17');
      await until(
        'Running on 17',
        async () => {
          const s = (await db('upg'))?.status;
          return s?.phase === 'Running' && s.currentVersion === '17' && s.restoredFrom === 'upg-pre-upgrade-16-4-to-17';
        },
        T,
      );
    }, 120_000);

    test('a major upgrade with standbys: the primary alone moves to the new major, standbys come back after the restore', async () => {
      await running('multi', { version: '16.4', replicas: 3 });
      const current = await db('multi');
      await env.put({ ...current, spec: { ...current.spec, version: '17' } });
      await until('pre-upgrade backup job', () => get('batch/v1', 'Job', 'multi-pre-upgrade-16-4-to-17'), T);
      const sts = () => get('apps/v1', 'StatefulSet', 'multi');
      expect((await sts()).spec.replicas).toBe(3); // nothing moves before the backup succeeded
      await env.finishJob('multi-pre-upgrade-16-4-to-17');
      // shrink first, still on 16.4
      const shrunk = await until(
        'shrunk to one pod',
        async () => {
          const s = await sts();
          return s.spec.replicas === 1 ? s : undefined;
        },
        T,
      );
      expect(shrunk.metadata.annotations['database.example.com/version']).toBe('16.4');
      // then the lone pod moves to 17 (a new data directory), still alone
      const rolled = await until(
        'on 17, one pod',
        async () => {
          const s = await sts();
          return s.metadata.annotations['database.example.com/version'] === '17' ? s : undefined;
        },
        T,
      );
      expect(rolled.spec.replicas).toBe(1);
      expect(rolled.spec.template.spec.containers[0].env).toContainEqual({
        name: 'PGDATA',
        value: '/var/lib/postgresql/data/pg17',
      });
      await until('restore job', () => get('batch/v1', 'Job', 'multi-restore-multi-pre-upgrade-16-4-to-17'), T);
      await sleep(500);
      expect((await sts()).spec.replicas).toBe(1); // standbys wait for the restore
      await env.finishJob('multi-restore-multi-pre-upgrade-16-4-to-17');
      await until('3 replicas again', async () => (await sts()).spec.replicas === 3, T);
      await until(
        'Running on 17 with 3 replicas',
        async () => {
          const st = (await db('multi'))?.status;
          return st?.phase === 'Running' && st.currentVersion === '17' && st.readyReplicas === 3;
        },
        T,
      );
    }, 120_000);

    test("image overrides (a mirrored registry): every pod of a database runs the mirror's image of its version", async () => {
      await started.manager.stop();
      const images = PostgresImages.fromEnv({
        [ENV_POSTGRES_REPOSITORY]: 'mirror.example.com:5000/library/postgres',
        [ENV_POSTGRES_IMAGES]: '16=registry.internal/db/pg16:16.4-hardened',
      });
      started = await startSampleDbManager(plane(), {}, { images });
      const image = (obj: any) => (obj.spec.jobTemplate?.spec ?? obj.spec).template.spec.containers[0].image;
      await running('mirrored', { version: '16', backupSchedule: '0 2 * * *' });
      expect(image(await get('apps/v1', 'StatefulSet', 'mirrored'))).toBe('registry.internal/db/pg16:16.4-hardened');
      expect(image(await get('batch/v1', 'Job', 'mirrored-init'))).toBe('registry.internal/db/pg16:16.4-hardened');
      expect(image(await get('batch/v1', 'CronJob', 'mirrored-backup'))).toBe(
        'registry.internal/db/pg16:16.4-hardened',
      );
      // a minor version: the per-major override's repository with the version's tag, after the pre-upgrade backup
      const current = await db('mirrored');
      await env.put({ ...current, spec: { ...current.spec, version: '16.6' } });
      const backup = await until(
        'pre-upgrade backup job',
        () => get('batch/v1', 'Job', 'mirrored-pre-upgrade-16-to-16-6'),
        T,
      );
      expect(image(backup)).toBe('registry.internal/db/pg16:16.4-hardened');
      await env.finishJob('mirrored-pre-upgrade-16-to-16-6');
      await until(
        'StatefulSet on 16.6',
        async () => image(await get('apps/v1', 'StatefulSet', 'mirrored')) === 'registry.internal/db/pg16:16.6',
        T,
      );
      await until(
        'CronJob on 16.6',
        async () => image(await get('batch/v1', 'CronJob', 'mirrored-backup')) === 'registry.internal/db/pg16:16.6',
        T,
      );
      // another major without its own override: the mirrored repository with the pinned tag
      await running('other-major', { version: '15' });
      expect(image(await get('apps/v1', 'StatefulSet', 'other-major'))).toBe(
        'mirror.example.com:5000/library/postgres:15.8',
      );
    }, 120_000);

    test('a failed pre-upgrade backup keeps the old version and reports Degraded', async () => {
      await running('stuck', { version: '15' });
      const current = await db('stuck');
      await env.put({ ...current, spec: { ...current.spec, version: '16' } });
      await until('backup job', () => get('batch/v1', 'Job', 'stuck-pre-upgrade-15-to-16'), T);
      await env.finishJob('stuck-pre-upgrade-15-to-16', 'Failed');
      await until(
        'Degraded',
        async () => condition(await db('stuck'), 'Degraded')?.reason === 'PreUpgradeBackupFailed',
        T,
      );
      expect((await db('stuck')).status.phase).toBe('Failed');
      expect(condition(await db('stuck'), 'BackupSucceeded')).toMatchObject({
        status: 'False',
        reason: 'BackupFailed',
      });
      expect((await get('apps/v1', 'StatefulSet', 'stuck')).spec.template.spec.containers[0].image).toBe(
        'postgres:15.8',
      );
    }, 90_000);

    test('the apiserver refuses a major downgrade (CEL transition rule)', async () => {
      await env.put(sampleDb('down', { version: '16' }));
      const res = await env.mergePatch(API, 'SampleDB', 'down', { spec: { version: '15' } });
      expect(res.code).toBe(422);
      expect(res.body.message).toContain('major version downgrades are not supported');
    });

    test('scheduled backups set status.lastBackup and BackupSucceeded; a failed one alerts through the metric', async () => {
      await running('nightly', { backupSchedule: '0 2 * * *' });
      const cron = await get('batch/v1', 'CronJob', 'nightly-backup');
      // a Job as the CronJob controller creates it at the schedule
      const fromCron = (name: string) => ({
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: {
          name,
          labels: cron.spec.jobTemplate.metadata.labels,
          ownerReferences: [
            {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              name: cron.metadata.name,
              uid: cron.metadata.uid,
              controller: true,
            },
          ],
        },
        spec: cron.spec.jobTemplate.spec,
      });
      await env.put(fromCron('nightly-backup-29000000'));
      await env.finishJob('nightly-backup-29000000');
      await until(
        'lastBackup',
        async () => (await db('nightly'))?.status?.lastBackup?.name === 'nightly-backup-29000000',
        T,
      );
      const done = await get('batch/v1', 'Job', 'nightly-backup-29000000');
      expect((await db('nightly')).status.lastBackup).toEqual({
        name: 'nightly-backup-29000000',
        type: 'Scheduled',
        completionTime: done.status.completionTime,
      });
      expect(condition(await db('nightly'), 'BackupSucceeded')).toMatchObject({
        status: 'True',
        reason: 'BackupSucceeded',
      });

      await sleep(1100); // the next Job finishes in a later second than the first
      await env.put(fromCron('nightly-backup-29001440'));
      await env.finishJob('nightly-backup-29001440', 'Failed');
      await until('BackupFailed', async () => condition(await db('nightly'), 'BackupSucceeded')?.status === 'False', T);
      expect((await db('nightly')).status.lastBackup.name).toBe('nightly-backup-29000000');
      const text = await started.manager.metrics.registry.metrics();
      expect(text).toContain(`sampledb_backup_failed{namespace="${env.ns}",name="nightly"} 1`);
      expect(text).toContain(`sampledb_replicas_ready{namespace="${env.ns}",name="nightly"} 1`);

      // removing the schedule removes the CronJob
      const current = await db('nightly');
      await env.put({ ...current, spec: { version: current.spec.version, replicas: current.spec.replicas } });
      await until('cronjob deleted', async () => !(await get('batch/v1', 'CronJob', 'nightly-backup')), T);
    }, 90_000);

    test('restoreFrom restores a backup of another SampleDB once the database is up', async () => {
      // the source database's backup volume is what the restore reads
      await env.put(sampleDb('orders'));
      await until('orders-backups', () => get('v1', 'PersistentVolumeClaim', 'orders-backups'), T);
      await env.put(sampleDb('copy', { restoreFrom: { sampleDB: 'orders', backup: 'orders-final-snapshot' } }));
      await until('init job', () => get('batch/v1', 'Job', 'copy-init'), T);
      await sleep(300);
      expect(await get('batch/v1', 'Job', 'copy-restore-orders-final-snapshot')).toBeUndefined(); // not before init + ready
      await env.finishJob('copy-init');
      env.runPods('copy', 1);
      await until('Restoring', async () => (await db('copy'))?.status?.phase === 'Restoring', T);
      await until('restore job', () => get('batch/v1', 'Job', 'copy-restore-orders-final-snapshot'), T);
      await env.finishJob('copy-restore-orders-final-snapshot');
      await until(
        'restored',
        async () => {
          const now = await db('copy');
          return now?.status?.restoredFrom === 'orders-final-snapshot' && now.status.phase === 'Running';
        },
        T,
      );
    }, 90_000);

    test('a restore from a SampleDB without a backup volume is a clear condition at once, and no Job', async () => {
      await env.put(
        sampleDb('orphan', { restoreFrom: { sampleDB: 'never-existed', backup: 'never-existed-final-snapshot' } }),
      );
      await until(
        'Degraded RestoreSourceMissing',
        async () => condition(await db('orphan'), 'Degraded')?.reason === 'RestoreSourceMissing',
        T,
      );
      expect(condition(await db('orphan'), 'Degraded')?.message).toMatch(
        /^cannot restore backup never-existed-final-snapshot: SampleDB never-existed has no backup volume never-existed-backups in namespace /,
      );
      await env.finishJob('orphan-init');
      env.runPods('orphan', 1);
      await sleep(1000);
      expect(await get('batch/v1', 'Job', 'orphan-restore-never-existed-final-snapshot')).toBeUndefined();
    }, 90_000);

    test('delete keeps the database until the final snapshot succeeded, then removes the StatefulSet and data volumes', async () => {
      await running('gone', { replicas: 2 });
      // the StatefulSet controller created the data volumes from the claim template
      for (const i of [0, 1]) {
        await until(`data-gone-${i}`, () => get('v1', 'PersistentVolumeClaim', `data-gone-${i}`), T);
      }
      expect(await env.remove(API, 'SampleDB', 'gone')).toBe(200);
      const snapshot = await until('snapshot job', () => get('batch/v1', 'Job', 'gone-final-snapshot'), T);
      expect(snapshot.metadata.labels['database.example.com/backup-type']).toBe('FinalSnapshot');
      await until('Deleting', async () => (await db('gone'))?.status?.phase === 'Deleting', T);
      await sleep(500);
      expect(await db('gone')).toBeDefined();
      for (const [apiVersion, kind, name] of [
        ['apps/v1', 'StatefulSet', 'gone'],
        ['v1', 'PersistentVolumeClaim', 'data-gone-0'],
      ]) {
        const obj = await get(apiVersion, kind, name);
        expect([kind, obj?.metadata?.deletionTimestamp]).toEqual([kind, undefined]);
      }

      await env.finishJob('gone-final-snapshot');
      await until('sampledb gone', async () => !(await db('gone')), T);
      await until('statefulset gone', async () => !(await get('apps/v1', 'StatefulSet', 'gone')), T);
      await until(
        'data volumes gone',
        async () =>
          !(await get('v1', 'PersistentVolumeClaim', 'data-gone-0')) &&
          !(await get('v1', 'PersistentVolumeClaim', 'data-gone-1')),
        T,
      );
      // garbage collection removed what it owned; the backup volume with the snapshot stays
      await until(
        'owned objects collected',
        async () =>
          !(await get('v1', 'Secret', 'gone-credentials')) &&
          !(await get('v1', 'Service', 'gone')) &&
          !(await get('batch/v1', 'Job', 'gone-init')),
        T,
      );
      expect(await get('v1', 'PersistentVolumeClaim', 'gone-backups')).toBeDefined();
    }, 120_000);

    test('volumeRetention Retain keeps the data volumes; a failed snapshot blocks deletion', async () => {
      await running('keep', { volumeRetention: 'Retain' });
      await until('data-keep-0', () => get('v1', 'PersistentVolumeClaim', 'data-keep-0'), T);
      await env.remove(API, 'SampleDB', 'keep');
      await until('snapshot job', () => get('batch/v1', 'Job', 'keep-final-snapshot'), T);
      await env.finishJob('keep-final-snapshot', 'Failed');
      await until('Degraded', async () => condition(await db('keep'), 'Degraded')?.reason === 'FinalSnapshotFailed', T);
      await sleep(300);
      expect(await get('apps/v1', 'StatefulSet', 'keep')).toBeDefined();
      // retry: delete the failed Job; a new one is created, and its success completes the deletion
      const failed = await get('batch/v1', 'Job', 'keep-final-snapshot');
      env.holdJob('keep-final-snapshot');
      await env.remove('batch/v1', 'Job', 'keep-final-snapshot');
      await until(
        'new snapshot job',
        async () => {
          const j = await get('batch/v1', 'Job', 'keep-final-snapshot');
          return j && j.metadata.uid !== failed.metadata.uid;
        },
        T,
      );
      await env.finishJob('keep-final-snapshot');
      await until('sampledb gone', async () => !(await db('keep')), T);
      await until('statefulset gone', async () => !(await get('apps/v1', 'StatefulSet', 'keep')), T);
      await sleep(500);
      const pvc = await get('v1', 'PersistentVolumeClaim', 'data-keep-0');
      expect(pvc?.metadata?.deletionTimestamp).toBeUndefined();
      expect(pvc).toBeDefined();
    }, 120_000);

    test('a StatefulSet deleted by hand is let go and recreated; its volumes stay', async () => {
      await running('manual');
      await until('data-manual-0', () => get('v1', 'PersistentVolumeClaim', 'data-manual-0'), T);
      const old = await get('apps/v1', 'StatefulSet', 'manual');
      expect(await env.remove('apps/v1', 'StatefulSet', 'manual')).toBe(200);
      await until(
        'recreated',
        async () => {
          const now = await get('apps/v1', 'StatefulSet', 'manual');
          return now && now.metadata.uid !== old.metadata.uid && !now.metadata.deletionTimestamp;
        },
        T,
      );
      expect((await get('v1', 'PersistentVolumeClaim', 'data-manual-0'))?.metadata?.deletionTimestamp).toBeUndefined();
    }, 90_000);

    test('without a StatefulSet there is no snapshot, and data volumes are never deleted', async () => {
      await env.put(sampleDb('nosts', { version: '12' })); // unsupported: no StatefulSet is ever created
      await until('Degraded', async () => condition(await db('nosts'), 'Degraded')?.reason === 'UnsupportedVersion', T);
      expect(await get('apps/v1', 'StatefulSet', 'nosts')).toBeUndefined();
      await env.put({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: {
          name: 'data-nosts-0',
          labels: { 'app.kubernetes.io/name': 'sampledb', 'app.kubernetes.io/instance': 'nosts' },
        },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      });
      await env.remove(API, 'SampleDB', 'nosts');
      await until('sampledb gone', async () => !(await db('nosts')), T);
      expect(await get('batch/v1', 'Job', 'nosts-final-snapshot')).toBeUndefined();
      expect((await get('v1', 'PersistentVolumeClaim', 'data-nosts-0'))?.metadata?.deletionTimestamp).toBeUndefined();
    }, 60_000);

    // Found on the real node: the demo's scratch-db (postgres 17, an image the node did not have) deleted before
    // its pod ever ran stayed Deleting for good, its snapshot Job waiting for a primary that could never come.
    test('a database deleted before it ever initialized (no pod ever ran) goes without a final snapshot; its empty volumes follow volumeRetention', async () => {
      await env.put(sampleDb('never', { replicas: 2 }));
      await until('init job', () => get('batch/v1', 'Job', 'never-init'), T);
      for (const i of [0, 1]) {
        await until(`data-never-${i}`, () => get('v1', 'PersistentVolumeClaim', `data-never-${i}`), T);
      }
      expect((await db('never'))?.status?.currentPrimary).toBeUndefined();
      expect(await env.remove(API, 'SampleDB', 'never')).toBe(200);
      await until('sampledb gone', async () => !(await db('never')), T);
      await until('statefulset gone', async () => !(await get('apps/v1', 'StatefulSet', 'never')), T);
      await until(
        'data volumes gone',
        async () =>
          !(await get('v1', 'PersistentVolumeClaim', 'data-never-0')) &&
          !(await get('v1', 'PersistentVolumeClaim', 'data-never-1')),
        T,
      );
      expect(await get('batch/v1', 'Job', 'never-final-snapshot')).toBeUndefined();
      const events = (await plane().request('GET', `/api/v1/namespaces/${env.ns}/events`)).body.items as any[];
      expect(events.map((e) => e.message)).toContain(
        'deleted StatefulSet never without a final snapshot: the database never initialized (no instance ever answered as the primary), so it holds no data',
      );
    }, 90_000);

    test('a name that cannot name its objects is reported, nothing is created', async () => {
      await env.put(sampleDb('2fast'));
      await until('Degraded', async () => condition(await db('2fast'), 'Degraded')?.reason === 'InvalidName', T);
      expect((await db('2fast')).status.phase).toBe('Failed');
      expect(await get('v1', 'Secret', '2fast-credentials')).toBeUndefined();
      expect(await get('apps/v1', 'StatefulSet', '2fast')).toBeUndefined();
    });

    test('never adopts an object of its name that it does not control', async () => {
      await env.put({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'taken' },
        spec: { ports: [{ port: 80 }], selector: { app: 'other' } },
      });
      await env.put(sampleDb('taken'));
      await until('Degraded', async () => condition(await db('taken'), 'Degraded')?.reason === 'ResourceExists', T);
      const svc = await get('v1', 'Service', 'taken');
      expect(svc.spec.selector).toEqual({ app: 'other' });
      expect(svc.metadata.ownerReferences).toBeUndefined();
    });
  },
  { crds: [sampleDbCrdManifest()], controllerManager: true },
);
