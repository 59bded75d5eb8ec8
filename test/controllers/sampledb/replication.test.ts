import { Instance, parseLsn, PgState } from '../../../controllers/sampledb/instances';
import { reconcileReplication, ReplicationOps, ReplicationStatus } from '../../../controllers/sampledb/replication';
import { podsToKeep } from '../../../controllers/sampledb/replication-status';
import { Database, SampleDB } from '../../../controllers/sampledb/types';

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (s: number) => new Date(T0.getTime() + s * 1000);

function db(spec: Partial<SampleDB['spec']> = {}, status: ReplicationStatus = {}): Database {
  return {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns', uid: 'u-db', resourceVersion: '1' },
    spec: { version: '16', replicas: 3, ...spec },
    status,
  };
}
const primaryPg = (lsn: string): PgState => ({ recovery: false, lsn: parseLsn(lsn)!, synchronousStandbyNames: '' });
const standbyPg = (lsn: string): PgState => ({
  recovery: true,
  lsn: parseLsn(lsn)!,
  replayLsn: parseLsn(lsn),
  synchronousStandbyNames: '',
});

function instance(ordinal: number, o: Partial<Instance> = {}): Instance {
  return {
    name: `db-${ordinal}`,
    ordinal,
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `db-${ordinal}`, uid: `u${ordinal}`, resourceVersion: '1' },
    },
    ready: true,
    terminating: false,
    createdAt: T0.toISOString(),
    ip: `10.0.0.${ordinal}`,
    ...o,
  };
}

/** Records every operation, applies label changes to the instances, and checks "never two primaries" after each. */
function recorder(instances: Instance[]) {
  const log: string[] = [];
  const persisted: ReplicationStatus[] = [];
  const notes: string[] = [];
  const labels = new Map(instances.map((i) => [i.name, i.labelRole]));
  const ops: ReplicationOps = {
    setRole: async (i, role) => {
      labels.set(i.name, role);
      log.push(`label ${i.name}=${role ?? '-'}`);
      expect([...labels.values()].filter((r) => r === 'primary').length).toBeLessThanOrEqual(1);
    },
    deletePod: async (i, grace) => {
      log.push(`delete ${i.name}${grace === undefined ? '' : ` grace=${grace}s`}`);
    },
    endSessions: async (i) => {
      log.push(`end sessions ${i.name}`);
    },
    promote: async (i, reservedThrough) => {
      log.push(`promote ${i.name}${reservedThrough === undefined ? '' : ` above ${reservedThrough}`}`);
    },
    configurePrimary: async (i, sync) => {
      log.push(`configure ${i.name} sync='${sync}'`);
    },
    persist: async (s) => {
      persisted.push({ ...s });
      log.push(`persist target=${s.targetPrimary ?? '-'} primary=${s.currentPrimary ?? '-'}`);
    },
    event: (_t, reason, note) => {
      log.push(`event ${reason}`);
      notes.push(`${reason}: ${note}`);
    },
  };
  return { ops, log, persisted, labels, notes };
}

describe('replication (planner, no cluster)', () => {
  test('a new database: pod 0 becomes the primary once it answers as one, then standbys are labelled replica', async () => {
    const insts = [
      instance(0, { pg: primaryPg('0/3000000') }),
      instance(1, { pg: standbyPg('0/3000000') }),
      instance(2, { ready: false }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db(), insts, {}, r.ops, T0);
    expect(res.status.currentPrimary).toBe('db-0');
    expect(r.log).toEqual([
      'label db-0=primary',
      'event PrimaryLabelled',
      "configure db-0 sync=''",
      'label db-1=replica',
    ]);
    expect(res.status.instances).toEqual(
      [
        { name: 'db-0', role: 'primary', ready: true, timeline: undefined, lagBytes: undefined },
        { name: 'db-1', role: 'standby', ready: true, lagBytes: 0 },
        { name: 'db-2', role: 'unknown', ready: false },
      ].map((x) => Object.fromEntries(Object.entries(x).filter(([, v]) => v !== undefined))),
    );
  });

  test("steady state: synchronous replication is configured on the primary; lag is the primary's position minus the standby's replay", async () => {
    const insts = [
      instance(0, { labelRole: 'primary', pg: primaryPg('0/3000100') }),
      instance(1, { labelRole: 'replica', pg: standbyPg('0/3000000') }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(
      db({ replicas: 2, synchronous: true }),
      insts,
      { currentPrimary: 'db-0' },
      r.ops,
      T0,
    );
    // no standby recorded yet: commits wait (a name no standby has) until one is
    expect(r.log).toEqual([`configure db-0 sync='ANY 1 ("no standby recorded yet")'`]);
    expect(res.status.instances!.find((i) => i.name === 'db-1')!.lagBytes).toBe(256);
  });

  test('the primary waits only for standbys recorded in status.synchronousStandbys before this look', async () => {
    // db-2 and db-3 stream now; only db-1 and db-2 were recorded (db-1 has stopped streaming since)
    const pg: PgState = { ...primaryPg('0/3000100'), synchronousStandbyNames: 'x', streaming: ['db-2', 'db-3'] };
    const insts = [0, 1, 2, 3].map((n) =>
      instance(n, n === 0 ? { labelRole: 'primary', pg } : { labelRole: 'replica', pg: standbyPg('0/3000100') }),
    );
    const r = recorder(insts);
    const recorded = [{ name: 'db-0' }, { name: 'db-1', leftAtLsn: '0/3000000' }, { name: 'db-2' }];
    const res = await reconcileReplication(
      db({ replicas: 4, synchronous: true }),
      insts,
      { currentPrimary: 'db-0', synchronousStandbys: recorded },
      r.ops,
      T0,
    );
    expect(r.log.filter((l) => l.startsWith('configure'))).toEqual([`configure db-0 sync='ANY 1 ("db-1", "db-2")'`]);
    // db-3 is recorded now: the next look names it
    expect(res.status.synchronousStandbys?.map((s) => s.name)).toEqual(['db-1', 'db-2', 'db-3']);
    const next = recorder(insts);
    await reconcileReplication(db({ replicas: 4, synchronous: true }), insts, res.status, next.ops, T0);
    expect(next.log.filter((l) => l.startsWith('configure'))).toEqual([
      `configure db-0 sync='ANY 1 ("db-1", "db-2", "db-3")'`,
    ]);
  });

  test('the primary alone (a major upgrade in flight) commits asynchronously: no standby to wait for', async () => {
    const insts = [instance(0, { labelRole: 'primary', pg: primaryPg('0/3000100') })];
    const r = recorder(insts);
    await reconcileReplication(db({ replicas: 3, synchronous: true }), insts, { currentPrimary: 'db-0' }, r.ops, T0, 1);
    expect(r.log).toEqual(["configure db-0 sync=''"]);
  });

  test('shrinking to one instance for a major upgrade switches a primary on db-1 over to db-0 first', async () => {
    const insts = [
      instance(0, { labelRole: 'replica', pg: standbyPg('0/3000000') }),
      instance(1, { labelRole: 'primary', pg: primaryPg('0/3000000') }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db({ replicas: 2 }), insts, { currentPrimary: 'db-1' }, r.ops, T0, 1);
    expect(res.status.targetPrimary).toBe('db-0');
    // the old primary's pod goes either way: the switchover fences it
    expect(res.statefulSetReplicas).toBe(1);
    expect(podsToKeep(db({ replicas: 2 }, { currentPrimary: 'db-1' }), 1)).toBe(2);
    expect(podsToKeep(db({ replicas: 2 }, { currentPrimary: 'db-0' }), 1)).toBe(1);
  });

  test('primary unavailable: nothing before spec.failoverDelaySeconds, then the most advanced standby is promoted, fenced first, labelled last', async () => {
    const old = instance(0, { labelRole: 'primary', ready: false, pg: undefined });
    const behind = instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') });
    const ahead = instance(2, { labelRole: 'replica', pg: standbyPg('0/6000000') });
    const r = recorder([old, behind, ahead]);
    const spec = { failoverDelaySeconds: 5, anomalies: { isolationFenceSeconds: 0 } };

    const first = await reconcileReplication(db(spec), [old, behind, ahead], { currentPrimary: 'db-0' }, r.ops, at(0));
    expect(first.status.primaryUnavailableSince).toBe(T0.toISOString());
    expect(first.requeueAfterMs).toBe(5100);
    expect(r.log).toEqual(['persist target=- primary=db-0']);

    r.log.length = 0;
    const second = await reconcileReplication(db(spec), [old, behind, ahead], first.status, r.ops, at(5));
    // The target is persisted before any step, so a restarted operator continues it.
    expect(r.log.slice(0, 3)).toEqual(['persist target=db-2 primary=db-0', 'event FailoverStarted', 'label db-0=-']);
    // A failed primary gets 5 s to stop, not its pod's 30: cut off from its standbys it cannot shut down cleanly.
    expect(r.log).toContain('delete db-0 grace=5s');
    expect(r.log).not.toContain('promote db-2');
    expect(second.progress?.reason).toBe('FailingOver');

    // The old pod is gone (its replacement is new and not ready): promote, then label, then record.
    r.log.length = 0;
    const replacement = instance(0, { ready: false, createdAt: at(6).toISOString(), pg: undefined });
    const third = await reconcileReplication(db(spec), [replacement, behind, ahead], second.status, r.ops, at(6));
    // asynchronous: the setting it is given before its promotion is empty
    // a timeline ID above any taken, persisted first (no timeline seen but 1)
    expect(r.log).toEqual([
      "configure db-2 sync=''",
      'persist target=db-2 primary=db-0',
      'promote db-2 above 1',
      'event StandbyPromoted',
    ]);
    expect(r.persisted.at(-1)?.timeline).toBe(2);
    r.log.length = 0;
    const promoted = { ...ahead, pg: { ...primaryPg('0/6000100'), timeline: 2 } };
    const fourth = await reconcileReplication(db(spec), [replacement, behind, promoted], third.status, r.ops, at(7));
    expect(r.log).toEqual(['label db-2=primary', 'persist target=- primary=db-2', 'event FailoverCompleted']);
    expect(fourth.status).toMatchObject({ currentPrimary: 'db-2' });
    expect(fourth.status.targetPrimary).toBeUndefined();
    expect(fourth.status.primaryUnavailableSince).toBeUndefined();
  });

  test('every promotion takes a timeline ID above any an instance took, reserved in the status before pg_promote (landing CI of 366977f: two promotions took timeline 4)', async () => {
    // The switchover that made db-0 the primary took timeline 4 (recorded); db-0's pod was deleted before db-1, still on
    // timeline 3, streamed from it. PostgreSQL alone would give db-1 timeline 4 again.
    const gone = instance(0, { pod: undefined, ready: false, pg: undefined });
    const behind = instance(1, { labelRole: 'replica', pg: { ...standbyPg('0/7000000'), timeline: 3 } });
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      targetPrimary: 'db-1',
      targetPrimarySince: T0.toISOString(),
      primaryUnavailableSince: T0.toISOString(),
      timeline: 4,
      instances: [
        { name: 'db-0', role: 'primary', ready: true, timeline: 4 },
        { name: 'db-1', role: 'standby', ready: true, timeline: 3 },
      ],
    };
    const r = recorder([gone, behind]);
    const spec = db({ replicas: 2, failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } });
    const first = await reconcileReplication(spec, [gone, behind], status, r.ops, at(1));
    expect(r.log).toEqual([
      "configure db-1 sync=''",
      'persist target=db-1 primary=db-0',
      'promote db-1 above 4',
      'event StandbyPromoted',
    ]);
    expect(r.persisted.map((p) => p.timeline)).toEqual([5]);
    expect(r.notes).toContain('StandbyPromoted: promoted db-1 (timeline 5 reserved for it)');
    // pg_promote failed (or db-1 did not leave recovery yet): the next attempt reserves anew, never reusing an ID
    r.log.length = 0;
    r.persisted.length = 0;
    const second = await reconcileReplication(spec, [gone, behind], first.status, r.ops, at(2));
    expect(r.log).toContain('promote db-1 above 5');
    expect(r.persisted.map((p) => p.timeline)).toEqual([6]);
    // promoted to 6: the status keeps 6 once the failover is recorded, and in steady state writes nothing more
    const promoted = { ...behind, pg: { ...primaryPg('0/7000100'), timeline: 6, checkpointTimeline: 6 } };
    const done = await reconcileReplication(spec, [gone, promoted], second.status, r.ops, at(3));
    expect(done.status).toMatchObject({ currentPrimary: 'db-1', timeline: 6 });
    r.persisted.length = 0;
    const steady = await reconcileReplication(spec, [gone, promoted], done.status, r.ops, at(4));
    expect(steady.status.timeline).toBe(6);
    expect(r.persisted).toEqual([]);
  });

  test('status.timeline follows the newest timeline an instance is seen on (a database from before it was recorded, a standby on a higher ID)', async () => {
    const primary = instance(0, { labelRole: 'primary', pg: { ...primaryPg('0/100'), timeline: 3 } });
    const standby = instance(1, { labelRole: 'replica', pg: { ...standbyPg('0/100'), timeline: 7 } });
    const r = recorder([primary, standby]);
    const res = await reconcileReplication(
      db({ replicas: 2 }),
      [primary, standby],
      { currentPrimary: 'db-0' },
      r.ops,
      at(0),
    );
    expect(res.status.timeline).toBe(7);
    // never lowered: a major upgrade starts the new data directory on timeline 1
    const upgraded = { ...primary, pg: { ...primary.pg!, timeline: 1 } };
    const after = await reconcileReplication(db({ replicas: 1 }), [upgraded], res.status, r.ops, at(1), 1);
    expect(after.status.timeline).toBe(7);
  });

  test('self-fencing raises a shorter failover delay to its bound: no promotion before an isolated old primary stopped itself', async () => {
    const old = instance(0, { labelRole: 'primary', ready: false, pg: undefined });
    const standby = instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') });
    const r = recorder([old, standby]);
    // default isolationFenceSeconds (5) + 5 s to notice and stop: 10 s, whatever failoverDelaySeconds says below it
    for (const [spec, delay] of [
      [{ failoverDelaySeconds: 2 }, 10],
      [{ failoverDelaySeconds: 30 }, 30],
      [{ failoverDelaySeconds: 5, anomalies: { isolationFenceSeconds: 20 } }, 25],
      [{ failoverDelaySeconds: 2, anomalies: { isolationFenceSeconds: 0 } }, 2],
    ] as const) {
      r.log.length = 0;
      const first = await reconcileReplication(db(spec), [old, standby], { currentPrimary: 'db-0' }, r.ops, at(0));
      expect(first.requeueAfterMs).toBe(delay * 1000 + 100);
      const before = await reconcileReplication(db(spec), [old, standby], first.status, r.ops, at(delay - 1));
      expect(before.status.targetPrimary).toBeUndefined();
      const after = await reconcileReplication(db(spec), [old, standby], first.status, r.ops, at(delay));
      expect(after.status.targetPrimary).toBe('db-1');
    }
  });

  test('failover: a standby on an older timeline is never chosen over one on the newest, whatever its WAL position (chaos suite: a rejoined old primary that diverged)', async () => {
    // db-1 rejoined after an earlier failover but stayed on timeline 1 with WAL past the fork point;
    // db-2 follows timeline 2. Promoting db-1 would fork the history and lose timeline 2's writes.
    const old = instance(0, { labelRole: 'primary', ready: false, pg: undefined });
    const diverged = instance(1, { labelRole: 'replica', pg: { ...standbyPg('0/9000000'), timeline: 1 } });
    const following = instance(2, { labelRole: 'replica', pg: { ...standbyPg('0/6000000'), timeline: 2 } });
    const r = recorder([old, diverged, following]);
    const res = await reconcileReplication(
      db({ failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } }),
      [old, diverged, following],
      { currentPrimary: 'db-0', primaryUnavailableSince: T0.toISOString() },
      r.ops,
      at(1),
    );
    expect(res.status.targetPrimary).toBe('db-2');
  });

  test('the promoted target is labelled (and -rw leads to it) only once its control file names the new timeline: pg_rewind reads it there (chaos suite: "no rewind required", then a diverged standby)', async () => {
    const replacement = instance(0, { ready: false, createdAt: at(6).toISOString(), pg: undefined });
    const behind = instance(1, { labelRole: 'replica', pg: { ...standbyPg('0/5000000'), timeline: 1 } });
    const promoted = instance(2, { pg: { ...primaryPg('0/6000100'), timeline: 2, checkpointTimeline: 1 } });
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      targetPrimary: 'db-2',
      targetPrimarySince: at(5).toISOString(),
      primaryUnavailableSince: T0.toISOString(),
    };
    const r = recorder([replacement, behind, promoted]);
    const waiting = await reconcileReplication(
      db({ failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } }),
      [replacement, behind, promoted],
      status,
      r.ops,
      at(7),
    );
    expect(r.log).toEqual(['promote db-2']);
    expect(waiting.status.targetPrimary).toBe('db-2');
    expect(waiting.progress?.message).toContain('checkpoint on timeline 2');

    r.log.length = 0;
    const checkpointed = { ...promoted, pg: { ...promoted.pg!, checkpointTimeline: 2 } };
    const done = await reconcileReplication(
      db({ failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } }),
      [replacement, behind, checkpointed],
      waiting.status,
      r.ops,
      at(8),
    );
    expect(r.log).toEqual(['label db-2=primary', 'persist target=- primary=db-2', 'event FailoverCompleted']);
    expect(done.status.currentPrimary).toBe('db-2');
  });

  test('a promoted target that misses one query but stays ready is waited for; one whose pod turned unready is given up', async () => {
    // A CI run at a load of 40: the target's state query timed out right after its promotion, the operator chose again,
    // found no standby (the target had left recovery) and the failover stalled until the old primary came back.
    const replacement = instance(0, { ready: false, createdAt: at(6).toISOString(), pg: undefined });
    const behind = instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') });
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      targetPrimary: 'db-2',
      targetPrimarySince: at(5).toISOString(),
      primaryUnavailableSince: T0.toISOString(),
    };
    const spec = db({ failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } });
    const silent = instance(2, { pg: undefined });
    const r = recorder([replacement, behind, silent]);
    const waiting = await reconcileReplication(spec, [replacement, behind, silent], status, r.ops, at(7));
    expect(r.log).toEqual([]);
    expect(waiting.status.targetPrimary).toBe('db-2');
    expect(waiting.progress).toMatchObject({
      reason: 'FailingOver',
      message: expect.stringContaining('db-2 to answer'),
    });

    const answers = instance(2, { pg: { ...primaryPg('0/6000100'), timeline: 2, checkpointTimeline: 2 } });
    const done = await reconcileReplication(spec, [replacement, behind, answers], waiting.status, r.ops, at(8));
    expect(r.log).toEqual(['label db-2=primary', 'persist target=- primary=db-2', 'event FailoverCompleted']);
    expect(done.status.currentPrimary).toBe('db-2');

    r.log.length = 0;
    const gone = instance(2, { ready: false, pg: undefined });
    const again = await reconcileReplication(spec, [replacement, behind, gone], status, r.ops, at(9));
    expect(r.log).toEqual(['event FailoverStarted', 'persist target=- primary=db-0']);
    expect(r.notes).toContain('FailoverStarted: target db-2 is gone; choosing again');
    expect(again.status.targetPrimary).toBeUndefined();
  });

  test("no promotion while another instance runs as a primary: the old primary's replacement pod that started as one on its own is fenced first", async () => {
    // The old pod is gone; its replacement (created after the failover began) found no primary behind -rw and started as one.
    const replacement = instance(0, { createdAt: at(6).toISOString(), pg: primaryPg('0/6000000') });
    const behind = instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') });
    const target = instance(2, { labelRole: 'replica', pg: standbyPg('0/6000000') });
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      targetPrimary: 'db-2',
      targetPrimarySince: at(5).toISOString(),
      primaryUnavailableSince: T0.toISOString(),
    };
    const r = recorder([replacement, behind, target]);
    const res = await reconcileReplication(
      db({ failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } }),
      [replacement, behind, target],
      status,
      r.ops,
      at(7),
    );
    expect(r.log).toEqual(['delete db-0 grace=5s', 'event InstanceFenced']);
    expect(res.progress?.message).toContain('db-0 (running as a primary)');
    // Once it rejoined as a standby (or is gone), the target is promoted.
    r.log.length = 0;
    await reconcileReplication(
      db({ failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } }),
      [{ ...replacement, pg: standbyPg('0/6000000') }, behind, target],
      res.status,
      r.ops,
      at(9),
    );
    expect(r.log).toEqual([
      "configure db-2 sync=''",
      'persist target=db-2 primary=db-0',
      'promote db-2 above 1',
      'event StandbyPromoted',
    ]);
  });

  test('with synchronous: true the target names the other recorded standbys before its promotion', async () => {
    // the old primary's pod is gone
    const insts = [
      instance(0, { pod: undefined, ready: false, pg: undefined }),
      instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') }),
      instance(2, { labelRole: 'replica', pg: standbyPg('0/6000000') }),
    ];
    const r = recorder(insts);
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      targetPrimary: 'db-2',
      targetPrimarySince: T0.toISOString(),
      primaryUnavailableSince: T0.toISOString(),
      synchronousStandbys: [{ name: 'db-1' }, { name: 'db-2' }],
    };
    await reconcileReplication(db({ replicas: 3, synchronous: true }), insts, status, r.ops, at(20));
    expect(r.log.filter((l) => /^(configure|promote)/.test(l))).toEqual([
      `configure db-2 sync='ANY 1 ("db-1")'`,
      'promote db-2 above 1',
    ]);
  });

  test('a second instance running as primary (an old primary restarted on its own) is fenced', async () => {
    const insts = [
      instance(0, { pg: primaryPg('0/100') }),
      instance(1, { labelRole: 'primary', pg: primaryPg('0/200') }),
    ];
    const r = recorder(insts);
    await reconcileReplication(db({ replicas: 2 }), insts, { currentPrimary: 'db-1' }, r.ops, T0);
    expect(r.log).toEqual(["configure db-1 sync=''", 'delete db-0', 'event InstanceFenced']);
  });

  test('no standby answers: Degraded NoFailoverCandidate, no promotion', async () => {
    const insts = [instance(0, { ready: false }), instance(1, { ready: false })];
    const r = recorder(insts);
    const res = await reconcileReplication(
      db({ replicas: 2, failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } }),
      insts,
      { currentPrimary: 'db-0', primaryUnavailableSince: T0.toISOString() },
      r.ops,
      at(1),
    );
    expect(res.problem?.reason).toBe('NoFailoverCandidate');
    expect(r.log).toEqual([]);
  });

  test('switchover on request (spec.primary) and before a scale-down would remove the primary', async () => {
    const insts = [
      instance(0, { labelRole: 'replica', pg: standbyPg('0/100') }),
      instance(1, { labelRole: 'replica', pg: standbyPg('0/100') }),
      instance(2, { labelRole: 'primary', pg: primaryPg('0/100') }),
    ];
    const r = recorder(insts);
    const requested = await reconcileReplication(db({ primary: 'db-1' }), insts, { currentPrimary: 'db-2' }, r.ops, T0);
    expect(requested.status.targetPrimary).toBe('db-1');
    expect(r.log.slice(0, 4)).toEqual([
      'persist target=db-1 primary=db-2',
      'event SwitchoverStarted',
      'label db-2=-',
      'delete db-2',
    ]);

    const r2 = recorder(insts);
    const shrinking = db({ replicas: 2 }, { currentPrimary: 'db-2' });
    expect(podsToKeep(shrinking)).toBe(3);
    const res = await reconcileReplication(shrinking, insts, { currentPrimary: 'db-2' }, r2.ops, T0);
    expect(res.status.targetPrimary).toBe('db-0');
    expect(res.statefulSetReplicas).toBe(2);
    expect(podsToKeep(db({ replicas: 2 }, { currentPrimary: 'db-0' }))).toBe(2);
  });

  test('no switchover to a standby still on an older timeline (just rejoined): it qualifies once it follows the primary', async () => {
    const onTimeline = (pg: PgState, timeline: number): PgState => ({ ...pg, timeline });
    const rejoining = [
      instance(0, { labelRole: 'primary', pg: onTimeline(primaryPg('0/5041190'), 3) }),
      instance(1, { labelRole: 'replica', pg: onTimeline(standbyPg('0/5034038'), 2) }),
    ];
    const r = recorder(rejoining);
    const early = await reconcileReplication(
      db({ primary: 'db-1', replicas: 2 }),
      rejoining,
      { currentPrimary: 'db-0' },
      r.ops,
      T0,
    );
    expect(early.status.targetPrimary).toBeUndefined();
    expect(r.log.filter((l) => l.startsWith('delete') || l.startsWith('persist'))).toEqual([]);

    const following = [rejoining[0], instance(1, { labelRole: 'replica', pg: onTimeline(standbyPg('0/5041190'), 3) })];
    const later = await reconcileReplication(
      db({ primary: 'db-1', replicas: 2 }),
      following,
      { currentPrimary: 'db-0' },
      recorder(following).ops,
      T0,
    );
    expect(later.status.targetPrimary).toBe('db-1');
  });
});

describe('synchronous standbys: a failover hears from each standby that may hold acknowledged commits alone', () => {
  const spec = { replicas: 3, synchronous: true, failoverDelaySeconds: 0, anomalies: { isolationFenceSeconds: 0 } };
  const syncPrimary = (lsn: string, streaming: string[], flushed?: string): PgState => ({
    ...primaryPg(lsn),
    synchronousStandbyNames: 'ANY 1 (*)',
    streaming,
    ...(flushed ? { streamingFlushLsn: parseLsn(flushed) } : {}),
  });
  const steady = async (pg: PgState, status: ReplicationStatus) => {
    const insts = [
      instance(0, { labelRole: 'primary', pg }),
      instance(1, { labelRole: 'replica', pg: standbyPg('0/1') }),
    ];
    return (await reconcileReplication(db(spec), insts, status, recorder(insts).ops, T0)).status.synchronousStandbys;
  };

  test('the list: the standbys streaming from the primary; one that stopped stays until a streaming one has flushed past where the primary was when it left', async () => {
    expect(await steady(syncPrimary('0/3000000', ['db-1', 'db-2'], '0/3000000'), { currentPrimary: 'db-0' })).toEqual([
      { name: 'db-1' },
      { name: 'db-2' },
    ]);
    // db-2 stops streaming with the primary at 0/3000100; db-1 has flushed up to 0/3000000 only
    const left = await steady(syncPrimary('0/3000100', ['db-1'], '0/3000000'), {
      currentPrimary: 'db-0',
      synchronousStandbys: [{ name: 'db-1' }, { name: 'db-2' }],
    });
    expect(left).toEqual([{ name: 'db-1' }, { name: 'db-2', leftAtLsn: '0/3000100' }]);
    // the mark is kept while db-1 is behind it, whatever the primary's position now
    expect(
      await steady(syncPrimary('0/3000900', ['db-1'], '0/30000FF'), {
        currentPrimary: 'db-0',
        synchronousStandbys: left,
      }),
    ).toEqual(left);
    // nobody streams: writes wait; db-1 has left too, and db-2 may still hold commits db-1 lacks
    expect(await steady(syncPrimary('0/3000900', []), { currentPrimary: 'db-0', synchronousStandbys: left })).toEqual([
      { name: 'db-1', leftAtLsn: '0/3000900' },
      { name: 'db-2', leftAtLsn: '0/3000100' },
    ]);
    expect(
      await steady(syncPrimary('0/3000900', ['db-1'], '0/3000100'), {
        currentPrimary: 'db-0',
        synchronousStandbys: left,
      }),
    ).toEqual([{ name: 'db-1' }]);
    // a standby promoted since leaves the list
    expect(
      await steady(syncPrimary('0/3000900', ['db-1']), {
        currentPrimary: 'db-0',
        synchronousStandbys: [{ name: 'db-0', leftAtLsn: '0/3000000' }, { name: 'db-1' }],
      }),
    ).toEqual([{ name: 'db-1' }]);
    // asynchronous (synchronous_standby_names empty): nothing the primary acknowledges is on a standby alone
    expect(
      await steady(
        { ...primaryPg('0/3000900'), streaming: ['db-1'] },
        { currentPrimary: 'db-0', synchronousStandbys: left },
      ),
    ).toBeUndefined();
  });

  test('no failover while a standby of the list does not answer, whatever the others say; once it answers, the most advanced is promoted', async () => {
    const old = instance(0, { labelRole: 'primary', ready: false, pg: undefined });
    const answering = instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') });
    const silent = instance(2, { labelRole: 'replica', ready: false, pg: undefined });
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      primaryUnavailableSince: T0.toISOString(),
      synchronousStandbys: [{ name: 'db-1' }, { name: 'db-2' }],
    };
    const r = recorder([old, answering, silent]);
    const waiting = await reconcileReplication(db(spec), [old, answering, silent], status, r.ops, at(1));
    expect(waiting.problem).toEqual({
      reason: 'WaitingForSynchronousStandby',
      message:
        'primary db-0 unavailable; no failover until db-2 answers: it streamed from the primary, so it may hold acknowledged commits no other standby has (spec.synchronous: false fails over without it)',
    });
    expect(waiting.status.targetPrimary).toBeUndefined();
    expect(waiting.status.synchronousStandbys).toEqual(status.synchronousStandbys);
    expect(r.log).toEqual([]);

    // a pod being replaced does not answer either
    const terminating = { ...silent, terminating: true, pg: standbyPg('0/6000000') };
    expect(
      (await reconcileReplication(db(spec), [old, answering, terminating], status, r.ops, at(2))).problem?.reason,
    ).toBe('WaitingForSynchronousStandby');

    const back = instance(2, { labelRole: 'replica', pg: standbyPg('0/6000000') });
    const res = await reconcileReplication(db(spec), [old, answering, back], status, r.ops, at(3));
    expect(res.status.targetPrimary).toBe('db-2');
  });

  test('spec.synchronous: false fails over without the silent standby; a standby the StatefulSet no longer keeps is not waited for', async () => {
    const old = instance(0, { labelRole: 'primary', ready: false, pg: undefined });
    const answering = instance(1, { labelRole: 'replica', pg: standbyPg('0/5000000') });
    const status: ReplicationStatus = {
      currentPrimary: 'db-0',
      primaryUnavailableSince: T0.toISOString(),
      synchronousStandbys: [{ name: 'db-1' }, { name: 'db-2' }],
    };
    const silent = instance(2, { ready: false, pg: undefined });
    const asynchronous = await reconcileReplication(
      db({ ...spec, synchronous: false }),
      [old, answering, silent],
      status,
      recorder([]).ops,
      at(1),
    );
    expect(asynchronous.status.targetPrimary).toBe('db-1');
    // scaled to 2: pod db-2 is gone for good
    const scaledDown = await reconcileReplication(
      db({ ...spec, replicas: 2 }),
      [old, answering],
      status,
      recorder([]).ops,
      at(1),
    );
    expect(scaledDown.status.targetPrimary).toBe('db-1');
  });
});

describe('rolling restart for settings that need one (pending_restart)', () => {
  const pendingPg = (pg: PgState, names = ['shared_buffers']): PgState => ({
    ...pg,
    timeline: 1,
    pendingRestart: names,
  });
  const p = (lsn: string) => ({ ...primaryPg(lsn), timeline: 1 });
  const s = (lsn: string) => ({ ...standbyPg(lsn), timeline: 1 });

  test('standbys first, the highest ordinal first, one at a time: nothing else is restarted in the same reconcile', async () => {
    const insts = [
      instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) }),
      instance(1, { labelRole: 'replica', pg: pendingPg(s('0/3000000')) }),
      instance(2, { labelRole: 'replica', pg: pendingPg(s('0/3000000')) }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(r.log.filter((l) => l.startsWith('delete') || l.startsWith('event'))).toEqual([
      'delete db-2',
      'event InstanceRestarted',
    ]);
    expect(res.restarted).toEqual(['db-2']);
    expect(res.progress?.reason).toBe('RollingRestart');
  });

  test('while a restarted standby is not ready yet, nothing more restarts', async () => {
    const insts = [
      instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) }),
      instance(1, { labelRole: 'replica', pg: pendingPg(s('0/3000000')) }),
      instance(2, { ready: false, pg: s('0/3000000') }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(r.log.filter((l) => l.startsWith('delete'))).toEqual([]);
    expect(res.restarted).toBeUndefined();
  });

  test('then the primary: a switchover to the most advanced standby, which stops the old primary first (it restarts as a standby)', async () => {
    const insts = [
      instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) }),
      instance(1, { labelRole: 'replica', pg: s('0/2FFFF00') }),
      instance(2, { labelRole: 'replica', pg: s('0/3000000') }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(
      db({ replicas: 3, synchronous: true }),
      insts,
      { currentPrimary: 'db-0' },
      r.ops,
      T0,
    );
    expect(res.status.targetPrimary).toBe('db-2');
    // the switchover's fencing step deletes the old primary's pod with its own grace period (a clean shutdown)
    expect(r.log).toContain('delete db-0');
    expect(r.log).not.toContain('promote db-2'); // not before the old primary stopped
  });

  test('nothing restarts or switches over until the StatefulSet controller has observed the new pod template', async () => {
    // A change of resources: the settings derived from memory are pending at once; the template's revision is not known
    // yet. Restarting for the settings alone would restart a standby into the old template and switch over to it while
    // the StatefulSet replaces it again.
    const standbyPending = [
      instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) }),
      instance(1, { labelRole: 'replica', pg: pendingPg(s('0/3000000')) }),
    ];
    const primaryOnly = [standbyPending[0], instance(1, { labelRole: 'replica', pg: s('0/3000000') })];
    for (const insts of [standbyPending, primaryOnly]) {
      const waiting = recorder(insts);
      const res = await reconcileReplication(
        db({ replicas: 2 }),
        insts,
        { currentPrimary: 'db-0' },
        waiting.ops,
        T0,
        2,
        false,
      );
      expect(waiting.log.filter((l) => l.startsWith('delete') || l.startsWith('event'))).toEqual([]);
      expect(res.status.targetPrimary).toBeUndefined();
      expect(res.progress?.message).toBe(
        'waiting for the StatefulSet controller to observe the new pod template before restarting',
      );
      const observed = recorder(insts);
      const then = await reconcileReplication(db({ replicas: 2 }), insts, { currentPrimary: 'db-0' }, observed.ops, T0);
      expect(then.restarted ?? [then.status.targetPrimary]).toEqual(['db-1']);
    }
  });

  test('a single instance restarts in place; with autoRestart: false nothing restarts', async () => {
    const alone = [instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) })];
    const r = recorder(alone);
    const res = await reconcileReplication(db({ replicas: 1 }), alone, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(res.restarted).toEqual(['db-0']);
    const insts = [
      instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) }),
      instance(1, { labelRole: 'replica', pg: pendingPg(s('0/3000000')) }),
    ];
    const off = recorder(insts);
    const none = await reconcileReplication(
      db({ replicas: 2, postgresql: { autoRestart: false } }),
      insts,
      { currentPrimary: 'db-0' },
      off.ops,
      T0,
    );
    expect(off.log.filter((l) => l.startsWith('delete') || l.startsWith('persist'))).toEqual([]);
    expect(none.status.targetPrimary).toBeUndefined();
  });

  test('no switchover to a standby that still needs a restart itself, nor to one on another timeline', async () => {
    const insts = [
      instance(0, { labelRole: 'primary', pg: pendingPg(p('0/3000000')) }),
      instance(1, { labelRole: 'replica', pg: { ...s('0/3000000'), timeline: 2 } }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db({ replicas: 2 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(res.status.targetPrimary).toBeUndefined();
    expect(r.log.filter((l) => l.startsWith('delete'))).toEqual([]);
  });
});

describe('rolling a new pod template (StatefulSet OnDelete: the operator replaces the pods)', () => {
  const p = (lsn: string) => ({ ...primaryPg(lsn), timeline: 1 });
  const s = (lsn: string) => ({ ...standbyPg(lsn), timeline: 1 });
  const deletes = (log: string[]) => log.filter((l) => l.startsWith('delete'));

  test('standbys first, highest ordinal first, one at a time; then a switchover to an up-to-date standby; autoRestart: false does not stop it', async () => {
    const spec = { replicas: 3, synchronous: true, postgresql: { autoRestart: false } };
    // 1. every pod of the old template: the highest standby goes first, and only it
    const old = [
      instance(0, { labelRole: 'primary', outdated: true, pg: p('0/3000000') }),
      instance(1, { labelRole: 'replica', outdated: true, pg: s('0/3000000') }),
      instance(2, { labelRole: 'replica', outdated: true, pg: s('0/3000000') }),
    ];
    const r1 = recorder(old);
    const first = await reconcileReplication(db(spec), old, { currentPrimary: 'db-0' }, r1.ops, T0);
    expect(deletes(r1.log)).toEqual(['delete db-2']);
    expect(r1.notes).toContain('InstanceRestarted: restarted standby db-2 to apply the new pod template');
    expect(first.restarted).toEqual(['db-2']);
    // 2. db-2 back from the new template but not ready yet: nothing else moves
    const waiting = [old[0], old[1], instance(2, { ready: false, pg: s('0/3000000') })];
    const r2 = recorder(waiting);
    await reconcileReplication(db(spec), waiting, { currentPrimary: 'db-0' }, r2.ops, T0);
    expect(deletes(r2.log)).toEqual([]);
    // 3. db-2 ready: db-1 next
    const next = [old[0], old[1], instance(2, { labelRole: 'replica', pg: s('0/3000000') })];
    const r3 = recorder(next);
    await reconcileReplication(db(spec), next, { currentPrimary: 'db-0' }, r3.ops, T0);
    expect(deletes(r3.log)).toEqual(['delete db-1']);
    // 4. every standby new: a switchover to the most advanced one; the old primary is stopped first (its pod comes
    //    back from the new template as a standby)
    const standbysDone = [
      old[0],
      instance(1, { labelRole: 'replica', pg: s('0/3000000') }),
      instance(2, { labelRole: 'replica', pg: s('0/2FFFF00') }),
    ];
    const r4 = recorder(standbysDone);
    const sw = await reconcileReplication(db(spec), standbysDone, { currentPrimary: 'db-0' }, r4.ops, T0);
    expect(sw.status.targetPrimary).toBe('db-1');
    expect(deletes(r4.log)).toEqual(['delete db-0']); // the pod's own grace period: a clean shutdown
    expect(r4.log).not.toContain('promote db-1');
    expect(r4.notes).toContain(
      'SwitchoverStarted: switching the primary over from db-0 to db-1 so that db-0 restarts as a standby (the new pod template)',
    );
  });

  test('no switchover (nor any restart) while a restarted standby is not ready and another still runs the old template', async () => {
    const insts = [
      instance(0, { labelRole: 'primary', outdated: true, pg: p('0/3000000') }),
      instance(1, { labelRole: 'replica', outdated: true, pg: s('0/3000000') }),
      instance(2, { labelRole: 'replica', ready: false, pg: s('0/3000000') }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(res.status.targetPrimary).toBeUndefined();
    expect(deletes(r.log)).toEqual([]);
  });

  test('a standby of the old template that is not ready is replaced at once (a template that fixes it must reach it)', async () => {
    const insts = [
      instance(0, { labelRole: 'primary', pg: p('0/3000000') }),
      instance(1, { ready: false, outdated: true }),
      instance(2, { ready: false }),
    ];
    const r = recorder(insts);
    const res = await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(deletes(r.log)).toEqual(['delete db-1']);
    expect(res.restarted).toEqual(['db-1']);
  });

  test('a single instance restarts in place; an unavailable one of the old template with no standby is replaced', async () => {
    const alone = [instance(0, { labelRole: 'primary', outdated: true, pg: p('0/3000000') })];
    const r = recorder(alone);
    const res = await reconcileReplication(db({ replicas: 1 }), alone, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(res.restarted).toEqual(['db-0']);
    expect(r.notes).toContain(
      'InstanceRestarted: restarted the primary (no standby to switch over to) db-0 to apply the new pod template',
    );
    const broken = [instance(0, { labelRole: 'primary', outdated: true, ready: false })];
    const rb = recorder(broken);
    const since = { currentPrimary: 'db-0', primaryUnavailableSince: at(-60).toISOString() };
    const replaced = await reconcileReplication(db({ replicas: 1 }), broken, since, rb.ops, T0);
    expect(deletes(rb.log)).toEqual(['delete db-0']);
    expect(replaced.restarted).toEqual(['db-0']);
    // of the current template, it is not deleted (nothing to apply): the failover's verdict stands
    const current = [instance(0, { labelRole: 'primary', ready: false })];
    const rc = recorder(current);
    const stuck = await reconcileReplication(db({ replicas: 1 }), current, since, rc.ops, T0);
    expect(deletes(rc.log)).toEqual([]);
    expect(stuck.problem?.reason).toBe('NoFailoverCandidate');
  });

  test('no instance answers (no primary known): pods of the old template by ordinal, one at a time, each ready in between', async () => {
    const blind = [instance(0, { outdated: true }), instance(1, { outdated: true }), instance(2, { outdated: true })];
    const r = recorder(blind);
    const res = await reconcileReplication(db({ replicas: 3 }), blind, {}, r.ops, T0);
    expect(deletes(r.log)).toEqual(['delete db-2']);
    expect(res.restarted).toEqual(['db-2']);
    const waiting = [blind[0], blind[1], instance(2, { ready: false })];
    const rw = recorder(waiting);
    await reconcileReplication(db({ replicas: 3 }), waiting, {}, rw.ops, T0);
    expect(deletes(rw.log)).toEqual([]);
    // pod 0 initializing as the primary of the current template: nothing to roll
    const fresh = [instance(0, { ready: false }), instance(1), instance(2)];
    const rf = recorder(fresh);
    const none = await reconcileReplication(db({ replicas: 3 }), fresh, {}, rf.ops, T0);
    expect(deletes(rf.log)).toEqual([]);
    expect(none.progress?.reason).toBe('WaitingForPrimary');
  });

  test('both causes at once are named together; settings alone with autoRestart: false do not restart', async () => {
    const pendingOld = [
      instance(0, { labelRole: 'primary', pg: p('0/3000000') }),
      instance(1, {
        labelRole: 'replica',
        outdated: true,
        pg: { ...s('0/3000000'), pendingRestart: ['shared_buffers'] },
      }),
    ];
    const r = recorder(pendingOld);
    await reconcileReplication(db({ replicas: 2 }), pendingOld, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(r.notes).toContain(
      'InstanceRestarted: restarted standby db-1 to apply the new pod template and settings that need a restart (pending restart: shared_buffers)',
    );
    const settingsOnly = [pendingOld[0], instance(1, { ...pendingOld[1], outdated: false })];
    const off = recorder(settingsOnly);
    await reconcileReplication(
      db({ replicas: 2, postgresql: { autoRestart: false } }),
      settingsOnly,
      { currentPrimary: 'db-0' },
      off.ops,
      T0,
    );
    expect(deletes(off.log)).toEqual([]);
  });
});

describe('a standby diverged from the primary’s timeline (planner)', () => {
  // the primary on timeline 2, forked off timeline 1 at 0/3000100
  const primary2: PgState = {
    ...primaryPg('0/3200000'),
    timeline: 2,
    timelineHistory: [{ timeline: 1, lsn: parseLsn('0/3000100')! }],
  };
  const onTimeline1 = (replay: string): PgState => ({ ...standbyPg(replay), timeline: 1 });
  const database = (o: Partial<Instance>) => [
    instance(0, { labelRole: 'primary', pg: primary2 }),
    instance(1, { labelRole: 'replica', pg: { ...standbyPg('0/3200000'), timeline: 2 } }),
    instance(2, { labelRole: 'replica', ...o }),
  ];

  test('one that replayed past the fork is deleted, then its sessions ended, with an event naming both positions', async () => {
    const insts = database({ pg: onTimeline1('0/3000200') });
    const r = recorder(insts);
    await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(r.log.filter((l) => /^(delete|end sessions)/.test(l))).toEqual(['delete db-2', 'end sessions db-2']);
    expect(r.notes).toContain(
      'StandbyDiverged: db-2 is on timeline 1 and replayed it to 0/3000200, past its end at 0/3000100 in the history of db-0: it holds WAL the primary never had and cannot follow it; restarted it so that it rewinds onto the primary (pg_rewind)',
    );
  });

  test('one on another timeline 2 (two promotions took the ID) is restarted to be cloned again; one on the same is not', async () => {
    const history = (end: string) => [{ timeline: 1, lsn: parseLsn(end)! }];
    const same: PgState = { ...standbyPg('0/3200000'), timeline: 2, timelineHistory: history('0/3000100') };
    const other: PgState = { ...standbyPg('0/3200000'), timeline: 2, timelineHistory: history('0/3100000') };
    const insts = [
      instance(0, { labelRole: 'primary', pg: primary2 }),
      instance(1, { labelRole: 'replica', pg: same }),
      instance(2, { labelRole: 'replica', pg: other }),
    ];
    const r = recorder(insts);
    await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(r.log.filter((l) => /^(delete|end sessions)/.test(l))).toEqual(['delete db-2', 'end sessions db-2']);
    expect(r.notes).toContain(
      "StandbyDiverged: db-2 is on another timeline 2 than the primary's (their histories part at 0/3000100) and replayed it to 0/3200000 in the history of db-0: it holds WAL the primary never had and cannot follow it; restarted it so that it is cloned again from the primary (pg_rewind compares timeline IDs alone)",
    );
  });

  test('one still at or before the fork (catching up) is left alone: it follows the new timeline by itself', async () => {
    for (const replay of ['0/3000100', '0/2000000']) {
      const insts = database({ pg: onTimeline1(replay) });
      const r = recorder(insts);
      await reconcileReplication(db({ replicas: 3 }), insts, { currentPrimary: 'db-0' }, r.ops, T0);
      expect(r.log.filter((l) => /^(delete|end sessions|event)/.test(l))).toEqual([]);
    }
  });

  test('with rewindDivergedStandbys: false it only leaves <db>-ro, once; a terminating pod is not acted on again', async () => {
    const insts = database({ pg: onTimeline1('0/3000200') });
    const r = recorder(insts);
    const off = db({ replicas: 3, anomalies: { rewindDivergedStandbys: false } });
    await reconcileReplication(off, insts, { currentPrimary: 'db-0' }, r.ops, T0);
    expect(r.log.filter((l) => /^(delete|end sessions|label db-2)/.test(l))).toEqual(['label db-2=-']);
    expect(r.notes.filter((n) => n.startsWith('StandbyDiverged'))).toHaveLength(1);
    const unlabelled = database({ pg: onTimeline1('0/3000200'), labelRole: undefined });
    const again = recorder(unlabelled);
    await reconcileReplication(off, unlabelled, { currentPrimary: 'db-0' }, again.ops, T0);
    expect(again.notes).toEqual([]);
    const going = database({ pg: onTimeline1('0/3000200'), terminating: true });
    const t = recorder(going);
    await reconcileReplication(db({ replicas: 3 }), going, { currentPrimary: 'db-0' }, t.ops, T0);
    expect(t.log.filter((l) => /^(delete|end sessions)/.test(l))).toEqual([]);
  });
});
