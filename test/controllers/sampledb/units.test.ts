import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Testing } from 'cdk8s';
import { SampleDbChart } from '../../../apps/sampledb/sampledb-chart';
import { backupCronJob, backupJob, observeBackups } from '../../../controllers/sampledb/backups';
import { byInstanceLabel } from '../../../controllers/sampledb/controller';
import { newCredentialsSecret, missingCredentialData } from '../../../controllers/sampledb/credentials';
import {
  ENV_POSTGRES_IMAGES,
  ENV_POSTGRES_REPOSITORY,
  ImageOverrideError,
  POSTGRES_IMAGES,
  PostgresImages,
} from '../../../controllers/sampledb/images';
import { initJob } from '../../../controllers/sampledb/init-job';
import { HEALTH_PATH, HEALTH_PORT } from '../../../controllers/sampledb/instance-script';
import { parseFlags } from '../../../controllers/sampledb/main';
import { jobName, jobState, preferVersionBinaries } from '../../../controllers/sampledb/pods';
import { checkName } from '../../../controllers/sampledb/reconciler';
import { restoreJob } from '../../../controllers/sampledb/restore';
import { desiredStatefulSet, statefulSetCounts, updateRevisionOf } from '../../../controllers/sampledb/statefulset';
import { Database, Job, SampleDB } from '../../../controllers/sampledb/types';
import { planVersion } from '../../../controllers/sampledb/upgrade';
import { compareVersions, UnsupportedVersionError } from '../../../controllers/sampledb/versions';
import { checkPodSecurityRestricted } from '../../../lib';

function db(spec: Partial<SampleDB['spec']> = {}): Database {
  return {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns', uid: 'u-1', resourceVersion: '1', generation: 1 },
    spec: { version: '16.4', ...spec },
  };
}

const job = (name: string, labels: Record<string, string>, status: Job['status']) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, namespace: 'ns', uid: `u-${name}`, resourceVersion: '1', labels },
  status,
});

describe('versions', () => {
  const imageFor = (version: string) => new PostgresImages().imageFor(version);
  test('a bare major maps to the pinned table entry, a minor pins itself, never latest', () => {
    expect(imageFor('16')).toBe('postgres:16.4');
    expect(imageFor('17')).toBe('postgres:17.2');
    expect(imageFor('15.3')).toBe('postgres:15.3');
    for (const image of Object.values(POSTGRES_IMAGES)) expect(image).toMatch(/^postgres:\d+\.\d+$/);
  });
  test('unknown majors and malformed versions are refused', () => {
    expect(() => imageFor('12')).toThrow(UnsupportedVersionError);
    expect(() => imageFor('12')).toThrow(/major version 12 is not supported/);
    expect(() => imageFor('latest')).toThrow(/got 'latest'/);
  });
  test('compares numerically', () => {
    expect(compareVersions('16.10', '16.9')).toBe(1);
    expect(compareVersions('16', '16.0')).toBe(0);
    expect(compareVersions('15.8', '16')).toBe(-1);
  });
});

describe('image overrides (mirrored registries)', () => {
  test('a repository moves every image, tags unchanged', () => {
    const images = PostgresImages.fromEnv({ [ENV_POSTGRES_REPOSITORY]: 'mirror.example.com:5000/library/postgres' });
    expect(images.imageFor('16')).toBe('mirror.example.com:5000/library/postgres:16.4');
    expect(images.imageFor('15.3')).toBe('mirror.example.com:5000/library/postgres:15.3');
  });
  test("an image per major serves the bare major; its repository serves that major's minors", () => {
    const images = PostgresImages.fromEnv({
      [ENV_POSTGRES_REPOSITORY]: 'mirror.example.com/postgres',
      [ENV_POSTGRES_IMAGES]: '16=registry.internal/db/pg16:16.4-hardened, 17=registry.internal/db/pg17:17.2',
    });
    expect(images.imageFor('16')).toBe('registry.internal/db/pg16:16.4-hardened');
    expect(images.imageFor('16.2')).toBe('registry.internal/db/pg16:16.2');
    expect(images.imageFor('17')).toBe('registry.internal/db/pg17:17.2');
    expect(images.imageFor('15')).toBe('mirror.example.com/postgres:15.8');
  });
  test('nothing set: the pinned official images', () => {
    expect(PostgresImages.fromEnv({}).imageFor('16')).toBe('postgres:16.4');
  });
  test('every malformed value is named at start-up, all in one error', () => {
    const env = {
      [ENV_POSTGRES_REPOSITORY]: 'Mirror/Postgres:16',
      [ENV_POSTGRES_IMAGES]: '16=mirror/pg,12=mirror/pg:12.1,17:mirror/pg:17,15=mirror/pg:latest',
    };
    let error: Error | undefined;
    try {
      PostgresImages.fromEnv(env);
    } catch (err) {
      error = err as Error;
    }
    expect(error).toBeInstanceOf(ImageOverrideError);
    const lines = error!.message.split('\n');
    expect(lines).toHaveLength(5);
    expect(error!.message).toContain("SAMPLEDB_POSTGRES_IMAGES: '17:mirror/pg:17' must look like <major>=<image>");
    expect(error!.message).toContain(
      "postgres repository 'Mirror/Postgres:16' must be an image name without tag or digest",
    );
    expect(error!.message).toContain(
      "postgres image for major 16: 'mirror/pg' must be pinned to a tag other than latest",
    );
    expect(error!.message).toContain("postgres image for major 15: 'mirror/pg:latest' must be pinned");
    expect(error!.message).toContain(
      'postgres image for major 12: the operator supports only majors 13, 14, 15, 16, 17',
    );
  });
});

describe('planVersion', () => {
  const sts = (version: string, restore?: string, replicas = 1) => ({
    metadata: {
      generation: 1,
      annotations: {
        'database.example.com/version': version,
        ...(restore ? { 'database.example.com/upgrade-restore-from': restore } : {}),
      },
    },
    spec: { replicas },
    status: { replicas, readyReplicas: replicas, observedGeneration: 1 },
  });
  test('no StatefulSet yet or same version: run the spec version', () => {
    expect(planVersion(db(), undefined, undefined, () => 'Missing')).toMatchObject({
      state: 'None',
      statefulSetVersion: '16.4',
    });
    expect(planVersion(db(), sts('16.4', 'x'), '16.4', () => 'Missing')).toMatchObject({
      state: 'None',
      statefulSetVersion: '16.4',
      upgradeRestoreFrom: 'x',
    });
  });
  test('an upgrade keeps the running version until the pre-upgrade backup succeeded', () => {
    const d = db({ version: '17' });
    expect(planVersion(d, sts('16.4'), '16.4', () => 'Missing')).toMatchObject({
      state: 'BackingUp',
      statefulSetVersion: '16.4',
      preUpgradeBackup: { name: 'db-pre-upgrade-16-4-to-17', version: '16.4' },
    });
    expect(planVersion(d, sts('16.4'), '16.4', () => 'Running')).toMatchObject({
      state: 'BackingUp',
      statefulSetVersion: '16.4',
    });
    expect(planVersion(d, sts('16.4'), '16.4', () => 'Failed')).toMatchObject({
      state: 'BackupFailed',
      statefulSetVersion: '16.4',
    });
    expect(planVersion(d, sts('16.4'), '16.4', () => 'Succeeded')).toMatchObject({
      state: 'Rolling',
      statefulSetVersion: '17',
      upgradeRestoreFrom: 'db-pre-upgrade-16-4-to-17',
    });
  });
  test('a major upgrade with standbys: shrink to the primary on pod 0, roll it alone, standbys only after the restore', () => {
    const d = (primary: string, replicas = 3) => ({
      ...db({ version: '17', replicas }),
      status: { currentPrimary: primary },
    });
    const backup = 'db-pre-upgrade-16-4-to-17';
    const restore = 'db-restore-db-pre-upgrade-16-4-to-17';
    const jobs = (states: Record<string, 'Succeeded' | 'Running'>) => (name: string) => states[name] ?? 'Missing';
    // three pods: shrink first, the StatefulSet stays on 16.4
    expect(planVersion(d('db-0'), sts('16.4', undefined, 3), '16.4', jobs({ [backup]: 'Succeeded' }))).toMatchObject({
      state: 'Shrinking',
      statefulSetVersion: '16.4',
      instances: 1,
    });
    // one pod, but the primary is still db-1 (a switchover to db-0 comes first)
    expect(planVersion(d('db-1'), sts('16.4', undefined, 1), '16.4', jobs({ [backup]: 'Succeeded' }))).toMatchObject({
      state: 'Shrinking',
      instances: 1,
    });
    // the primary alone on db-0: roll it to 17, still alone
    expect(planVersion(d('db-0'), sts('16.4', undefined, 1), '16.4', jobs({ [backup]: 'Succeeded' }))).toMatchObject({
      state: 'Rolling',
      statefulSetVersion: '17',
      upgradeRestoreFrom: backup,
      instances: 1,
    });
    // rolled: alone until the restore succeeded, then spec.replicas again
    expect(
      planVersion(d('db-0'), sts('17', backup, 1), '17', jobs({ [backup]: 'Succeeded', [restore]: 'Running' })),
    ).toMatchObject({ state: 'None', instances: 1 });
    expect(
      planVersion(d('db-0'), sts('17', backup, 1), '17', jobs({ [backup]: 'Succeeded', [restore]: 'Succeeded' }))
        .instances,
    ).toBeUndefined();
  });
  test('a minor upgrade also backs up first but needs no restore', () => {
    expect(planVersion(db({ version: '16.6' }), sts('16.4'), '16.4', () => 'Succeeded')).toMatchObject({
      state: 'Rolling',
      statefulSetVersion: '16.6',
      upgradeRestoreFrom: undefined,
    });
  });
  test('a major downgrade is refused, a minor one allowed', () => {
    expect(planVersion(db({ version: '15' }), sts('16.4'), '16.4', () => 'Succeeded')).toMatchObject({
      state: 'DowngradeRefused',
      statefulSetVersion: '16.4',
    });
    expect(planVersion(db({ version: '16.2' }), sts('16.4'), '16.4', () => 'Missing')).toMatchObject({
      state: 'None',
      statefulSetVersion: '16.2',
    });
  });
});

describe('desired objects', () => {
  test('every pod template passes Pod Security "restricted"', () => {
    const d = db({ backupSchedule: '0 2 * * *', backupRetention: 3 });
    const manifests = [
      desiredStatefulSet(d, { version: '16.4', image: 'postgres:16.4' }),
      initJob(d, 'postgres:16.4'),
      backupJob(d, 'db-final-snapshot', 'FinalSnapshot', 'postgres:16.4'),
      restoreJob(d, { sampleDB: 'db', backup: 'b1' }, 'postgres:16.4'),
      restoreJob(d, { sampleDB: 'other', backup: 'b1' }, 'postgres:16.4'),
      backupCronJob(d, 'postgres:16.4')!,
    ];
    expect(checkPodSecurityRestricted(manifests)).toEqual([]);
    // the check can fail: a privileged container is reported
    const bad = desiredStatefulSet(d, { version: '16.4', image: 'postgres:16.4' }) as any;
    bad.spec.template.spec.containers[0].securityContext = { privileged: true };
    expect(checkPodSecurityRestricted([bad]).length).toBeGreaterThan(0);
  });
  test("the database pods' probes may take 5 s (the kubelet's default 1 s made the liveness probe kill healthy PostgreSQL at a load average of 30: chaos suite)", () => {
    const c = (desiredStatefulSet(db(), { version: '16.4', image: 'postgres:16.4' }) as any).spec.template.spec
      .containers[0];
    for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe]) expect(probe.timeoutSeconds).toBe(5);
  });
  test("the database pods' probes ask the instance's health endpoint over HTTP, on the port the container declares (no exec probe)", () => {
    const c = (desiredStatefulSet(db(), { version: '16.4', image: 'postgres:16.4' }) as any).spec.template.spec
      .containers[0];
    for (const probe of [c.startupProbe, c.readinessProbe, c.livenessProbe]) {
      expect(probe.exec).toBeUndefined();
      expect(probe.httpGet).toStrictEqual({ path: HEALTH_PATH, port: 'health' });
    }
    expect(c.ports).toContainEqual({ name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' });
    expect(c.command[2]).toContain(`SAMPLEDB_HEALTH_PORT:=${HEALTH_PORT}`);
  });
  test("the instance script and the Jobs run the image's versioned PostgreSQL binaries, not Debian's Perl pg_wrapper", () => {
    const c = (desiredStatefulSet(db(), { version: '16.4', image: 'postgres:16.4' }) as any).spec.template.spec
      .containers[0];
    const scripts = [c.command[2], (initJob(db(), 'postgres:16.4') as any).spec.template.spec.containers[0].command[2]];
    for (const script of scripts) expect(script).toContain(preferVersionBinaries());
  });
  test.each([
    ['15', 'the versioned binary'],
    [undefined, 'the wrapper'],
    ['16', 'the wrapper'], // no such folder in this image
  ])('PG_MAJOR=%s: sh finds %s first', (major, found) => {
    const root = mkdtempSync(join(tmpdir(), 'pg-path-'));
    try {
      for (const [folder, says] of [
        ['lib/15/bin', 'the versioned binary'],
        ['usr-bin', 'the wrapper'],
      ]) {
        mkdirSync(join(root, folder), { recursive: true });
        writeFileSync(join(root, folder, 'pg_isready'), `#!/bin/sh\necho ${says}\n`, { mode: 0o755 });
      }
      const out = execFileSync('/bin/sh', ['-c', `${preferVersionBinaries(join(root, 'lib'))}; exec pg_isready`], {
        env: { PATH: `${join(root, 'usr-bin')}:/usr/bin:/bin`, ...(major ? { PG_MAJOR: major } : {}) },
        encoding: 'utf8',
      });
      expect(out.trim()).toBe(found);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
  test('a restore from another SampleDB mounts its backup volume read-only and runs once', () => {
    const restore = restoreJob(db(), { sampleDB: 'orders', backup: 'orders-final-snapshot' }, 'postgres:16.4') as any;
    expect(restore.spec.backoffLimit).toBe(0);
    expect(restore.spec.template.spec.volumes).toContainEqual({
      name: 'backups',
      persistentVolumeClaim: { claimName: 'orders-backups', readOnly: true },
    });
    expect(restore.spec.template.spec.containers[0].env).toContainEqual({
      name: 'RESTORE_FROM',
      value: 'orders-final-snapshot',
    });
  });
  test('the StatefulSet follows spec.replicas, storage and volumeRetention', () => {
    const sts = desiredStatefulSet(db({ replicas: 3, storage: '5Gi', volumeRetention: 'Retain' }), {
      version: '16.4',
      image: 'postgres:16.4',
    }) as any;
    expect(sts.spec.replicas).toBe(3);
    expect(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toBe('5Gi');
    // always Retain: only the finalizer deletes volumes, after the snapshot
    expect(sts.spec.persistentVolumeClaimRetentionPolicy).toEqual({ whenDeleted: 'Retain', whenScaled: 'Retain' });
    expect(
      (desiredStatefulSet(db({ volumeRetention: 'Delete' }), { version: '16.4', image: 'postgres:16.4' }) as any).spec
        .persistentVolumeClaimRetentionPolicy.whenDeleted,
    ).toBe('Retain');
    expect(sts.metadata.finalizers).toEqual(['database.example.com/final-snapshot']);
    // the operator replaces pods of a new template itself: standbys first, the primary through a switchover
    expect(sts.spec.updateStrategy).toEqual({ type: 'OnDelete' });
  });
  test('no CronJob without a schedule; pruning only with a retention', () => {
    expect(backupCronJob(db(), 'postgres:16.4')).toBeUndefined();
    const noRetention = JSON.stringify(backupCronJob(db({ backupSchedule: '@daily' }), 'postgres:16.4'));
    expect(noRetention).not.toContain('RETENTION');
    expect(
      JSON.stringify(backupCronJob(db({ backupSchedule: '@daily', backupRetention: 2 }), 'postgres:16.4')),
    ).toContain('{"name":"RETENTION","value":"2"}');
  });
  test('credentials: user, replication user, a fresh random password each time, only missing keys refilled', () => {
    const a = newCredentialsSecret(db()) as any;
    const b = newCredentialsSecret(db()) as any;
    expect(Object.keys(a.data).sort()).toEqual([
      'database',
      'password',
      'replicationPassword',
      'replicationUsername',
      'username',
    ]);
    expect(a.data.replicationPassword).not.toBe(a.data.password);
    expect(a.data.password).not.toBe(b.data.password);
    expect(missingCredentialData(a)).toEqual({});
    expect(Object.keys(missingCredentialData({ data: { username: 'eA==' } }))).toEqual([
      'password',
      'database',
      'replicationUsername',
      'replicationPassword',
    ]);
  });
  test('job names stay DNS labels', () => {
    const long = jobName('a'.repeat(40), 'restore', 'b'.repeat(40));
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
    expect(jobName('a'.repeat(40), 'restore', 'b'.repeat(40))).toBe(long);
    expect(jobName('a'.repeat(40), 'restore', 'c'.repeat(40))).not.toBe(long);
  });
});

describe('database names', () => {
  test('must make valid Service, CronJob and Job names', () => {
    expect(checkName('orders')).toBeUndefined();
    expect(checkName('a'.repeat(40))).toBeUndefined();
    expect(checkName('a'.repeat(41))).toMatch(/longer than 40/);
    expect(checkName('1db')).toMatch(/must start with a letter/);
    expect(checkName('my.db')).toMatch(/'my.db'/);
  });
});

describe('observations', () => {
  test('jobState reads conditions and counts', () => {
    expect(jobState(undefined)).toBe('Missing');
    expect(jobState({ status: {} })).toBe('Running');
    expect(jobState({ status: { succeeded: 1 } })).toBe('Succeeded');
    expect(jobState({ status: { conditions: [{ type: 'Failed', status: 'True' }] } })).toBe('Failed');
  });
  test('the newest finished backup decides success; the newest success is lastBackup', () => {
    const t = 'database.example.com/backup-type';
    const jobs = [
      job('s1', { [t]: 'Scheduled' }, { succeeded: 1, completionTime: '2026-01-01T02:00:00Z' }),
      job(
        's2',
        { [t]: 'Scheduled' },
        { conditions: [{ type: 'Failed', status: 'True', lastTransitionTime: '2026-01-02T02:00:00Z' }] },
      ),
      job('s3', { [t]: 'Scheduled' }, {}),
      job('init', {}, { succeeded: 1, completionTime: '2026-01-05T00:00:00Z' }),
    ];
    expect(observeBackups(jobs)).toEqual({
      lastSuccess: { name: 's1', type: 'Scheduled', completionTime: '2026-01-01T02:00:00Z' },
      latest: { name: 's2', type: 'Scheduled', succeeded: false },
    });
    expect(observeBackups([])).toEqual({ lastSuccess: undefined, latest: undefined });
  });
  test('a StatefulSet counts as settled only when its controller observed and rolled out the spec', () => {
    expect(statefulSetCounts(undefined).settled).toBe(false);
    expect(statefulSetCounts({ metadata: { generation: 2 }, status: { observedGeneration: 1 } }).settled).toBe(false);
    expect(
      statefulSetCounts({
        metadata: { generation: 2 },
        status: { observedGeneration: 2, currentRevision: 'a', updateRevision: 'b' },
      }).settled,
    ).toBe(false);
    expect(
      statefulSetCounts({
        metadata: { generation: 2 },
        status: { observedGeneration: 2, currentRevision: 'b', updateRevision: 'b', readyReplicas: 1 },
      }),
    ).toEqual({ replicas: 0, ready: 1, settled: true });
    // OnDelete: currentRevision stays behind (kubernetes#106055); every pod at the update revision is what counts
    const onDelete = (updatedReplicas: number) =>
      statefulSetCounts({
        metadata: { generation: 3 },
        status: { observedGeneration: 3, currentRevision: 'a', updateRevision: 'b', replicas: 2, updatedReplicas },
      }).settled;
    expect(onDelete(1)).toBe(false);
    expect(onDelete(2)).toBe(true);
    expect(
      updateRevisionOf({ metadata: { generation: 3 }, status: { observedGeneration: 2, updateRevision: 'b' } }),
    ).toBe(undefined);
    expect(
      updateRevisionOf({ metadata: { generation: 3 }, status: { observedGeneration: 3, updateRevision: 'b' } }),
    ).toBe('b');
  });
  test('Jobs and PVCs map to their database by the instance label', () => {
    expect(
      byInstanceLabel({
        metadata: {
          namespace: 'ns',
          labels: { 'app.kubernetes.io/name': 'sampledb', 'app.kubernetes.io/instance': 'db' },
        },
      }),
    ).toEqual([{ namespace: 'ns', name: 'db' }]);
    expect(byInstanceLabel({ metadata: { namespace: 'ns', labels: { 'app.kubernetes.io/instance': 'db' } } })).toEqual(
      [],
    );
  });
});

describe('binary flags', () => {
  test('the chart Deployment args parse', () => {
    const manifests = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb'));
    const args = manifests.find((m) => m.kind === 'Deployment').spec.template.spec.containers[0].args;
    expect(parseFlags(args, {})).toEqual({
      leaderElect: true,
      leaderElectionNamespace: undefined,
      metricsBindAddress: ':8080',
      healthProbeBindAddress: ':8081',
      webhookBindAddress: ':9443',
      concurrency: 8,
      namespaces: undefined,
      shardingRing: undefined,
      shardingKey: 'uid',
      shardingLabelWebhook: false,
    });
  });
  test('unknown flags and bad values are refused', () => {
    expect(() => parseFlags(['--verbose'])).toThrow(/unknown flag '--verbose'/);
    expect(() => parseFlags(['--concurrency=0'])).toThrow(/positive integer, got '0'/);
  });
});
