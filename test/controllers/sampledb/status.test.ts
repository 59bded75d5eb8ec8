import { computeStatus, Observation } from '../../../controllers/sampledb/status';
import { Database } from '../../../controllers/sampledb/types';

const observation = (backups: Observation['backups']): Observation => ({
  statefulSetExists: true, replicas: 1, readyReplicas: 1, initialized: true, backups,
  deleting: false, upgrading: false, restoring: false, progress: [], problems: [],
});
const db = (lastBackup?: { name: string; type: 'Scheduled'; completionTime: string }): Database => ({
  apiVersion: 'database.example.com/v2', kind: 'SampleDB',
  metadata: { name: 'db', namespace: 'default', uid: 'u', resourceVersion: '1', generation: 1 },
  spec: { version: '16.4' },
  ...(lastBackup ? { status: { lastBackup } } : {}),
} as unknown as Database);

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
