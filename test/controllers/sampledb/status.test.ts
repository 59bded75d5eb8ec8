import { computeStatus, Observation } from '../../../controllers/sampledb/status';
import { Database } from '../../../controllers/sampledb/types';

const observation = (backups: Observation['backups']): Observation => ({
  statefulSetExists: true,
  replicas: 1,
  readyReplicas: 1,
  initialized: true,
  backups,
  deleting: false,
  upgrading: false,
  restoring: false,
  progress: [],
  problems: [],
});
const db = (lastBackup?: { name: string; type: 'Scheduled'; completionTime: string }): Database =>
  ({
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'default', uid: 'u', resourceVersion: '1', generation: 1 },
    spec: { version: '16.4' },
    ...(lastBackup ? { status: { lastBackup } } : {}),
  }) as unknown as Database;

describe('SampleDB status: lastBackup', () => {
  const nightly = { name: 'db-backup-1', type: 'Scheduled' as const, completionTime: '2026-11-25T03:00:00Z' };
  test('is kept when the backup Jobs are gone (pruned, or garbage-collected with the CronJob): the dump is still on the volume', () => {
    expect(computeStatus(db(nightly), observation({})).lastBackup).toEqual(nightly);
  });
  test('follows a newer successful backup Job', () => {
    const newer = { name: 'db-backup-2', type: 'Scheduled' as const, completionTime: '2026-11-25T04:00:00Z' };
    expect(computeStatus(db(nightly), observation({ lastSuccess: newer })).lastBackup).toEqual(newer);
  });
  test('keeps the recorded one over an older Job still listed', () => {
    const older = { name: 'db-backup-0', type: 'Scheduled' as const, completionTime: '2026-11-25T02:00:00Z' };
    expect(computeStatus(db(nightly), observation({ lastSuccess: older })).lastBackup).toEqual(nightly);
  });
  test('is absent before any backup', () => {
    expect(computeStatus(db(), observation({})).lastBackup).toBeUndefined();
  });
});

describe('SampleDB status: postgresql settings and condition ParametersApplied', () => {
  const tuning = (o: Partial<NonNullable<Observation['tuning']>> = {}): NonNullable<Observation['tuning']> => ({
    parameters: { shared_buffers: '204MB', work_mem: '2591kB' },
    tunedForMemory: '1Gi',
    restartPending: [],
    pendingSettings: [],
    autoRestart: true,
    changed: [],
    ...o,
  });
  const cond = (s: ReturnType<typeof computeStatus>) => s.conditions?.find((c) => c.type === 'ParametersApplied');

  test('applied everywhere: True, the settings and the memory they come from in status.postgresql', () => {
    const s = computeStatus(db(), { ...observation({}), tuning: tuning() });
    expect(s.postgresql).toEqual({
      parameters: { shared_buffers: '204MB', work_mem: '2591kB' },
      tunedForMemory: '1Gi',
    });
    expect(cond(s)).toMatchObject({
      status: 'True',
      reason: 'Applied',
      message: '2 setting(s) applied on every instance, derived from 1Gi of memory',
    });
  });

  test('a restart pending: False, RestartInProgress (autoRestart) or RestartPending (off), naming instances and settings', () => {
    const pending = { restartPending: ['db-1', 'db-0'], pendingSettings: ['shared_buffers'] };
    const s = computeStatus(db(), { ...observation({}), tuning: tuning(pending) });
    expect(s.postgresql?.restartPending).toEqual(['db-1', 'db-0']);
    expect(cond(s)).toMatchObject({
      status: 'False',
      reason: 'RestartInProgress',
      message: expect.stringContaining('db-1, db-0 need a restart for shared_buffers: rolling restart'),
    });
    expect(
      cond(computeStatus(db(), { ...observation({}), tuning: tuning({ ...pending, autoRestart: false }) })),
    ).toMatchObject({
      status: 'False',
      reason: 'RestartPending',
      message: expect.stringContaining('autoRestart is false'),
    });
  });

  test('a value PostgreSQL refused: False, InvalidParameter with its message; without an observation the status keeps what it said', () => {
    const s = computeStatus(db(), {
      ...observation({}),
      tuning: tuning({ error: 'db-0: work_mem: invalid value for parameter "work_mem": "a lot"' }),
    });
    expect(cond(s)).toMatchObject({
      status: 'False',
      reason: 'InvalidParameter',
      message: expect.stringContaining('invalid value for parameter "work_mem"'),
    });
    const kept = computeStatus(
      { ...db(), status: { postgresql: { parameters: { work_mem: '1MB' } } } } as Database,
      observation({}),
    );
    expect(kept.postgresql).toEqual({ parameters: { work_mem: '1MB' } });
    expect(cond(kept)).toBeUndefined();
  });
});
