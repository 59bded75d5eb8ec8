import { planScaling, Reader, ScalingInput } from '../../../controllers/sampledb/autoscaling';
import { computeStatus, Observation } from '../../../controllers/sampledb/status';
import { Database, SampleDB, SampleDBStatus } from '../../../controllers/sampledb/types';

type Autoscaling = NonNullable<SampleDB['spec']['autoscaling']>;
const NOW = new Date('2026-01-01T12:00:00Z');
const ago = (s: number) => new Date(NOW.getTime() - s * 1000).toISOString();

function db(
  replicas: number,
  autoscaling: Partial<Autoscaling> | null = {},
  status: SampleDBStatus = {},
  spec: Partial<SampleDB['spec']> = {},
): Database {
  return {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns', uid: 'u', resourceVersion: '1', generation: 1 },
    spec: {
      version: '16.4',
      replicas,
      ...(autoscaling ? { autoscaling: { minReplicas: 2, maxReplicas: 5, ...autoscaling } } : {}),
      ...spec,
    },
    status,
  };
}
/** `count` standbys each using `percent` of 100 connections. */
const standbys = (count: number, percent: number): Reader[] =>
  Array.from({ length: count }, (_, i) => ({ name: `db-${i + 1}`, connections: percent, maxConnections: 100 }));
const load = (count: number, percent: number, settled = true): ScalingInput => ({
  readers: standbys(count, percent),
  settled,
});

describe('replica auto-scaling (planner)', () => {
  test('absent spec.autoscaling, or enabled false: never scales, condition Disabled', () => {
    for (const d of [db(2, null), db(2, { enabled: false })]) {
      const r = planScaling(d, load(1, 100), NOW);
      expect(r.scaleTo).toBeUndefined();
      expect(r.status).toBeUndefined();
      expect(r.condition).toMatchObject({ status: 'False', reason: 'Disabled' });
    }
  });

  test('above the target (75 % by default) beyond the 10 % tolerance: scales out to ceil(standbys × use / target) + 1 at once', () => {
    const r = planScaling(db(3), load(2, 90), NOW); // 2 × 90 / 75 = 2.4 → 3 standbys
    expect(r.scaleTo).toBe(4);
    expect(r.status).toEqual({ lastScaleTime: NOW.toISOString() });
    expect(r.condition).toMatchObject({ status: 'True', reason: 'ScaledUp' });
    expect(r.note).toBe('scaled from 3 to 4 replicas: connection use 90% > target 75% on db-1, db-2');
  });

  test('within the tolerance (use/target in 0.9-1.1): no change either way, nothing pending', () => {
    for (const percent of [68, 75, 82]) {
      const r = planScaling(db(3, {}, { autoscaling: { belowTargetSince: ago(10) } }), load(2, percent), NOW);
      expect(r.scaleTo).toBeUndefined();
      expect(r.condition.reason).toBe('WithinTarget');
      expect(r.status).toEqual({}); // a dip that ended clears belowTargetSince
    }
  });

  test('never above maxReplicas: condition False AtMaximum', () => {
    expect(planScaling(db(3, { maxReplicas: 4 }), load(2, 100), NOW).scaleTo).toBe(4);
    const r = planScaling(db(4, { maxReplicas: 4 }), load(3, 100), NOW);
    expect(r.scaleTo).toBeUndefined();
    expect(r.condition).toMatchObject({ status: 'False', reason: 'AtMaximum' });
  });

  test('a database of one instance measures its primary; its first standby takes the reads', () => {
    const d = db(1, { minReplicas: 1 });
    const primary = { readers: [{ name: 'db-0', connections: 90, maxConnections: 100 }], settled: true };
    expect(planScaling(d, primary, NOW).scaleTo).toBe(2); // ceil(0.9 / 0.75) = 2 readers: the primary's and one standby
  });

  test('scale-out waits for the cooldown after the last scaling', () => {
    const recent = db(3, { cooldownSeconds: 60 }, { autoscaling: { lastScaleTime: ago(30) } });
    const r = planScaling(recent, load(2, 100), NOW);
    expect(r.scaleTo).toBeUndefined();
    expect(r.condition.reason).toBe('CoolingDown');
    expect(r.condition.message).toContain(ago(-30));
    const later = db(3, { cooldownSeconds: 60 }, { autoscaling: { lastScaleTime: ago(61) } });
    expect(planScaling(later, load(2, 100), NOW).scaleTo).toBe(4);
  });

  test('scale-in only after the use stayed below the target for the whole window, by one instance', () => {
    // first time below: remembered, nothing removed
    const first = planScaling(db(4), load(3, 10), NOW);
    expect(first.scaleTo).toBeUndefined();
    expect(first.status).toEqual({ belowTargetSince: NOW.toISOString() });
    expect(first.condition).toMatchObject({ status: 'True', reason: 'ScaleInPending' });
    // still below, within the 300 s window: kept (the same status: no write)
    const during = planScaling(
      db(4, {}, { autoscaling: first.status }),
      load(3, 10),
      new Date(NOW.getTime() + 299_000),
    );
    expect(during.scaleTo).toBeUndefined();
    expect(during.status).toEqual(first.status);
    expect(during.condition).toEqual(first.condition);
    // after the window: one instance less (not straight to the 10 % the load would allow)
    const after = planScaling(db(4, {}, { autoscaling: first.status }), load(3, 10), new Date(NOW.getTime() + 300_000));
    expect(after.scaleTo).toBe(3);
    expect(after.condition.reason).toBe('ScaledDown');
  });

  test('no scale-in while fewer standbys would be above the target (the connections stay where they are: no flapping)', () => {
    // 30 and 0 of 100 on two standbys, target 20 %: 15 % < 18 %, but ceil(2 × 15 / 20) = 2 standbys are still needed
    const d = db(3, { targetConnectionUsePercent: 20 }, { autoscaling: { belowTargetSince: ago(1000) } });
    const r = planScaling(
      d,
      {
        readers: [
          { name: 'db-1', connections: 30, maxConnections: 100 },
          { name: 'db-2', connections: 0, maxConnections: 100 },
        ],
        settled: true,
      },
      NOW,
    );
    expect(r.scaleTo).toBeUndefined();
    expect(r.condition.reason).toBe('WithinTarget');
    expect(r.status).toEqual({});
  });

  test('a rise within the window restarts it (no flapping on a short dip)', () => {
    const dipped = db(4, {}, { autoscaling: { belowTargetSince: ago(200) } });
    const back = planScaling(dipped, load(3, 75), NOW);
    expect(back.status).toEqual({});
    const again = planScaling(db(4, {}, { autoscaling: back.status }), load(3, 10), NOW);
    expect(again.status).toEqual({ belowTargetSince: NOW.toISOString() });
    expect(again.scaleTo).toBeUndefined();
  });

  test('scale-in waits for the cooldown as well', () => {
    const d = db(4, { cooldownSeconds: 600 }, { autoscaling: { belowTargetSince: ago(400), lastScaleTime: ago(500) } });
    expect(planScaling(d, load(3, 10), NOW).scaleTo).toBeUndefined();
    const d2 = db(
      4,
      { cooldownSeconds: 600 },
      { autoscaling: { belowTargetSince: ago(400), lastScaleTime: ago(600) } },
    );
    expect(planScaling(d2, load(3, 10), NOW).scaleTo).toBe(3);
  });

  test('never below minReplicas, nor below 2 with synchronous replication (a synchronous standby remains)', () => {
    const atMin = planScaling(db(2, {}, { autoscaling: { belowTargetSince: ago(1000) } }), load(1, 0), NOW);
    expect(atMin.scaleTo).toBeUndefined();
    expect(atMin.condition.reason).toBe('WithinTarget');
    const sync = db(2, { minReplicas: 1 }, { autoscaling: { belowTargetSince: ago(1000) } }, { synchronous: true });
    expect(planScaling(sync, load(1, 0), NOW).scaleTo).toBeUndefined();
    const async = db(2, { minReplicas: 1 }, { autoscaling: { belowTargetSince: ago(1000) } });
    expect(planScaling(async, load(1, 0), NOW).scaleTo).toBe(1);
  });

  test('spec.replicas outside the bounds is brought within them at once', () => {
    expect(planScaling(db(1), load(0, 0), NOW).scaleTo).toBe(2);
    expect(planScaling(db(7), load(6, 80), NOW).scaleTo).toBe(5);
    expect(planScaling(db(1, { minReplicas: 1 }, {}, { synchronous: true }), load(0, 0), NOW).scaleTo).toBe(2);
  });

  test('not settled (an instance not ready, a failover in flight) or nothing measured: waits, keeps its memory', () => {
    const d = db(3, {}, { autoscaling: { belowTargetSince: ago(1000), lastScaleTime: ago(2000) } });
    for (const input of [load(2, 100, false), load(2, 0, false), { readers: [], settled: true }]) {
      const r = planScaling(d, input, NOW);
      expect(r.scaleTo).toBeUndefined();
      expect(r.condition.reason).toBe('Waiting');
      expect(r.status).toEqual(d.status?.autoscaling);
    }
  });

  test('the condition and status are the same for the same state whatever the use (steady state writes nothing)', () => {
    const a = planScaling(db(3), load(2, 70), NOW);
    const b = planScaling(db(3), load(2, 80), new Date(NOW.getTime() + 60_000));
    expect(a.condition).toEqual(b.condition);
    expect(a.status).toEqual(b.status);
    expect(a.usePercent).toBe(70);
  });
});

describe('replica auto-scaling (status)', () => {
  const observation = (autoscaling: Observation['autoscaling']): Observation => ({
    statefulSetExists: true,
    replicas: 3,
    readyReplicas: 3,
    runningVersion: '16.4',
    initialized: true,
    backups: { latest: undefined, lastSuccess: undefined } as unknown as Observation['backups'],
    deleting: false,
    upgrading: false,
    restoring: false,
    progress: [],
    problems: [],
    autoscaling,
  });
  const cond = (s: SampleDBStatus) => s.conditions?.find((c) => c.type === 'Autoscaling');

  test('status.autoscaling and condition Autoscaling from the decision', () => {
    const d = db(3);
    const s = computeStatus(d, observation(planScaling(d, load(2, 10), NOW)), NOW);
    expect(s.autoscaling).toEqual({ belowTargetSince: NOW.toISOString() });
    expect(cond(s)).toMatchObject({ status: 'True', reason: 'ScaleInPending' });
  });

  test('a SampleDB that never used autoscaling gets no Autoscaling condition; one that did gets False Disabled', () => {
    const never = db(3, null);
    expect(cond(computeStatus(never, observation(planScaling(never, load(2, 10), NOW)), NOW))).toBeUndefined();
    const used = db(3, null, {
      autoscaling: { lastScaleTime: ago(100) },
      conditions: [
        {
          type: 'Autoscaling',
          status: 'True',
          reason: 'WithinTarget',
          message: 'x',
          lastTransitionTime: ago(100),
        },
      ],
    });
    const s = computeStatus(used, observation(planScaling(used, load(2, 10), NOW)), NOW);
    expect(cond(s)).toMatchObject({ status: 'False', reason: 'Disabled' });
    expect(s.autoscaling).toBeUndefined();
  });

  test('without a decision (instances not reached) status.autoscaling stays as it was', () => {
    const d = db(3, {}, { autoscaling: { lastScaleTime: ago(5) } });
    expect(computeStatus(d, observation(undefined), NOW).autoscaling).toEqual({ lastScaleTime: ago(5) });
  });
});
