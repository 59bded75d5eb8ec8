import { planGrowth, toMi } from '../../../controllers/sampledb/autogrow';
import { computeStatus, Observation } from '../../../controllers/sampledb/status';
import { Database, SampleDB } from '../../../controllers/sampledb/types';

const Mi = 2 ** 20;
const Gi = 2 ** 30;
function db(spec: Partial<SampleDB['spec']> = {}): Database {
  return {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns', uid: 'u', resourceVersion: '1', generation: 1 },
    spec: { version: '16.4', ...spec },
  };
}
const claim = (ordinal: number, requested: number, capacity = requested) => ({
  name: `data-db-${ordinal}`,
  requested,
  capacity,
});
const grow = (o: Partial<NonNullable<SampleDB['spec']['storageAutoGrow']>> = {}) =>
  db({ storageAutoGrow: { limit: '3Gi', ...o } });

describe('storage auto-grow (planner)', () => {
  test('absent spec.storageAutoGrow: no plan, volumes never grow', () => {
    expect(planGrowth(db(), [claim(0, Gi)], 0.9 * Gi)).toBeUndefined();
  });

  test('below the trigger (75 % by default): nothing grows', () => {
    expect(planGrowth(grow(), [claim(0, Gi), claim(1, Gi)], 0.74 * Gi)).toMatchObject({
      usedPercent: 74,
      grow: [],
      limitReached: false,
    });
  });

  test('at the trigger: every claim grows by the step (50 % by default), in whole Mi', () => {
    expect(planGrowth(grow(), [claim(0, Gi), claim(1, Gi)], 0.75 * Gi)).toMatchObject({
      usedPercent: 75,
      grow: [
        { name: 'data-db-0', to: '1536Mi' },
        { name: 'data-db-1', to: '1536Mi' },
      ],
    });
    expect(planGrowth(grow({ trigger: 50, step: 10 }), [claim(0, Gi)], 0.5 * Gi)!.grow).toEqual([
      { name: 'data-db-0', to: '1127Mi' },
    ]);
  });

  test("one growth at a time: while a claim's capacity lags its request (resizing), no further growth", () => {
    const plan = planGrowth(grow(), [claim(0, 1536 * Mi, Gi), claim(1, 1536 * Mi, 1536 * Mi)], 0.9 * Gi)!;
    expect(plan).toMatchObject({ resizing: true, grow: [], capacity: Gi });
  });

  test('capped at the limit; at the limit and over the trigger: LimitReached, nothing grows', () => {
    expect(planGrowth(grow({ limit: '1200Mi' }), [claim(0, Gi)], 0.8 * Gi)!.grow).toEqual([
      { name: 'data-db-0', to: '1200Mi' },
    ]);
    expect(planGrowth(grow({ limit: '1200Mi' }), [claim(0, 1200 * Mi)], 1100 * Mi)).toMatchObject({
      grow: [],
      limitReached: true,
    });
    expect(planGrowth(grow({ limit: '1200Mi' }), [claim(0, 1200 * Mi)], 100 * Mi)).toMatchObject({
      grow: [],
      limitReached: false,
    });
  });

  test("a claim created later from the template (a scale-up) is raised to the others' size", () => {
    expect(planGrowth(grow(), [claim(0, 1536 * Mi), claim(1, 1536 * Mi), claim(2, Gi)], 0.1 * Gi)!.grow).toEqual([
      { name: 'data-db-2', to: '1536Mi' },
    ]);
  });

  test('toMi rounds up', () => {
    expect(toMi(Gi)).toBe('1024Mi');
    expect(toMi(Gi + 1)).toBe('1025Mi');
  });
});

describe('storage auto-grow (status)', () => {
  const base: Observation = {
    statefulSetExists: true,
    replicas: 1,
    readyReplicas: 1,
    initialized: true,
    backups: {},
    deleting: false,
    upgrading: false,
    restoring: false,
    progress: [],
    problems: [],
  };
  const cond = (s: ReturnType<typeof computeStatus>) => s.conditions?.find((c) => c.type === 'StorageAutoGrow');
  test('WithinLimit, Growing, LimitReached; status.storage in whole percent', () => {
    const plan = planGrowth(grow(), [claim(0, Gi)], 0.5 * Gi)!;
    const s = computeStatus(grow(), { ...base, storage: { ...plan, limit: '3Gi' } });
    expect(s.storage).toEqual({ capacity: '1024Mi', usedPercent: 50 });
    expect(cond(s)).toMatchObject({ status: 'True', reason: 'WithinLimit' });
    expect(
      cond(
        computeStatus(grow(), { ...base, storage: { ...planGrowth(grow(), [claim(0, Gi)], 0.8 * Gi)!, limit: '3Gi' } }),
      ),
    ).toMatchObject({ status: 'True', reason: 'Growing' });
    const full = planGrowth(grow({ limit: '1Gi' }), [claim(0, Gi)], 0.8 * Gi)!;
    expect(cond(computeStatus(grow(), { ...base, storage: { ...full, limit: '1Gi' } }))).toMatchObject({
      status: 'False',
      reason: 'LimitReached',
      message: expect.stringContaining('raise storageAutoGrow.limit'),
    });
  });
});
