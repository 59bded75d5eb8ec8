import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Testing } from 'cdk8s';
import * as prom from 'prom-client';
import { SampleDbChart } from '../../../apps/sampledb/sampledb-chart';
import { Activity, evaluateAnomalies } from '../../../controllers/sampledb/anomalies';
import { Instance, parseLsn, PgState } from '../../../controllers/sampledb/instances';
import { SampleDbMetrics } from '../../../controllers/sampledb/metrics';
import { reconcileReplication, ReplicationOps } from '../../../controllers/sampledb/replication';
import { Database, SampleDB } from '../../../controllers/sampledb/types';
import { promtool } from '../../support/promtool';

function db(spec: Partial<SampleDB['spec']> = {}): Database {
  return {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns', uid: 'u', resourceVersion: '1' },
    spec: { version: '16', replicas: 2, ...spec },
  };
}
const quiet: Activity = {
  longestTransactionSeconds: 0,
  idleInTransaction: [],
  terminated: false,
  connections: 5,
  maxConnections: 100,
  xidAge: 1000,
};
const active = (db_: Database, lags: { name: string; lagBytes?: number }[], a?: Activity) =>
  evaluateAnomalies(db_, lags, a)
    .filter((s) => s.active)
    .map((s) => s.signal);

describe('anomaly signals', () => {
  test('quiet database: every signal False, with the thresholds in the messages', () => {
    const all = evaluateAnomalies(db(), [{ name: 'db-1', lagBytes: 0 }], quiet);
    expect(all.map((s) => [s.condition.type, s.condition.status])).toEqual([
      ['ReplicationLagging', 'False'],
      ['StandbyDiverged', 'False'],
      ['IdleInTransaction', 'False'],
      ['LongTransaction', 'False'],
      ['XidAgeHigh', 'False'],
      ['ConnectionsSaturated', 'False'],
    ]);
    expect(all.find((s) => s.signal === 'ReplicationLag')!.condition.message).toContain('33554432');
  });

  test('a diverged standby: StandbyDiverged True, Rewinding (or Diverged with rewindDivergedStandbys: false)', () => {
    const diverged = [
      {
        name: 'db-1',
        divergence: { timeline: 1, primaryTimeline: 2, forkLsn: 100n, replayLsn: 200n, otherHistory: false },
      },
    ];
    const on = evaluateAnomalies(db(), [], quiet, diverged).find((s) => s.signal === 'TimelineDivergence')!;
    expect([on.active, on.condition.status, on.condition.reason]).toEqual([true, 'True', 'Rewinding']);
    expect(on.condition.message).toBe(
      'db-1 replayed WAL the primary never had (past where its timeline forked): out of <db>-ro, restarted to rewind onto the primary (pg_rewind)',
    );
    const off = evaluateAnomalies(db({ anomalies: { rewindDivergedStandbys: false } }), [], quiet, diverged);
    expect(off.find((s) => s.signal === 'TimelineDivergence')!.condition.reason).toBe('Diverged');
  });

  test('each signal past its (default or configured) threshold', () => {
    expect(active(db(), [{ name: 'db-1', lagBytes: 33554433 }], quiet)).toEqual(['ReplicationLag']);
    expect(active(db({ anomalies: { maxLagBytes: 0 } }), [{ name: 'db-1', lagBytes: 1e12 }], quiet)).toEqual([]);
    expect(active(db(), [], { ...quiet, longestTransactionSeconds: 301 })).toEqual(['LongTransaction']);
    expect(
      active(db({ anomalies: { longTransactionSeconds: 10 } }), [], { ...quiet, longestTransactionSeconds: 11 }),
    ).toEqual(['LongTransaction']);
    expect(active(db({ anomalies: { xidAgeThreshold: 5000 } }), [], { ...quiet, xidAge: 5001 })).toEqual(['XidAge']);
    expect(active(db(), [], { ...quiet, connections: 80 })).toEqual(['ConnectionSaturation']);
    const idle = [{ pid: 7, user: 'app', application: 'psql', seconds: 40 }];
    expect(active(db(), [], { ...quiet, idleInTransaction: idle })).toEqual(['IdleInTransaction']);
    // terminated: the action resolved it; the condition says so (reason Terminated) and is not an anomaly any more
    const done = evaluateAnomalies(db({ anomalies: { idleInTransactionSeconds: 30 } }), [], {
      ...quiet,
      idleInTransaction: idle,
      terminated: true,
    });
    expect(done.find((s) => s.signal === 'IdleInTransaction')).toMatchObject({
      active: false,
      condition: { reason: 'Terminated' },
    });
  });
});

describe('replication lag acts', () => {
  const primaryPg = (lsn: string): PgState => ({
    recovery: false,
    lsn: parseLsn(lsn)!,
    synchronousStandbyNames: '',
    timeline: 1,
  });
  const standbyPg = (lsn: string): PgState => ({
    recovery: true,
    lsn: parseLsn(lsn)!,
    replayLsn: parseLsn(lsn),
    synchronousStandbyNames: '',
    timeline: 1,
  });
  const instance = (ordinal: number, o: Partial<Instance>): Instance => ({
    name: `db-${ordinal}`,
    ordinal,
    pod: {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `db-${ordinal}`, uid: `u${ordinal}`, resourceVersion: '1' },
    },
    ready: true,
    terminating: false,
    ip: `10.0.0.${ordinal}`,
    ...o,
  });
  const recorder = () => {
    const log: string[] = [];
    const ops: ReplicationOps = {
      setRole: async (i, role) => {
        log.push(`label ${i.name}=${role ?? '-'}`);
      },
      deletePod: async (i) => {
        log.push(`delete ${i.name}`);
      },
      endSessions: async (i) => {
        log.push(`end sessions ${i.name}`);
      },
      promote: async (i) => {
        log.push(`promote ${i.name}`);
      },
      configurePrimary: async () => undefined,
      persist: async () => undefined,
      event: (_t, reason) => {
        log.push(`event ${reason}`);
      },
    };
    return { ops, log };
  };

  test('a standby beyond maxLagBytes leaves <db>-ro (its replica label removed, event StandbyLagging); back within it, it returns', async () => {
    const behind = [
      instance(0, { labelRole: 'primary', pg: primaryPg('0/9000000') }),
      instance(1, { labelRole: 'replica', pg: standbyPg('0/1000000') }),
    ];
    const r = recorder();
    await reconcileReplication(db(), behind, { currentPrimary: 'db-0' }, r.ops);
    expect(r.log).toEqual(['label db-1=-', 'event StandbyLagging']);
    const caughtUp = [behind[0], instance(1, { pg: standbyPg('0/9000000') })];
    const again = recorder();
    await reconcileReplication(db(), caughtUp, { currentPrimary: 'db-0' }, again.ops);
    expect(again.log).toEqual(['label db-1=replica']);
  });

  test("a failover never promotes a standby that was beyond the bound when last seen (Patroni's maximum_lag_on_failover)", async () => {
    const insts = [instance(0, { ready: false }), instance(1, { pg: standbyPg('0/1000000') })];
    const r = recorder();
    const status = {
      currentPrimary: 'db-0',
      primaryUnavailableSince: new Date(0).toISOString(),
      instances: [{ name: 'db-1', role: 'standby' as const, ready: true, lagBytes: 40 * 2 ** 20 }],
    };
    const res = await reconcileReplication(db({ failoverDelaySeconds: 0 }), insts, status, r.ops);
    expect(res.problem?.message).toMatch(/db-1 was 41943040 bytes behind .* not promoted/);
    expect(r.log.filter((l) => l.startsWith('promote'))).toEqual([]);
    const within = await reconcileReplication(
      db({ failoverDelaySeconds: 0 }),
      insts,
      { ...status, instances: [{ ...status.instances[0], lagBytes: 1000 }] },
      recorder().ops,
    );
    expect(within.status.targetPrimary).toBe('db-1');
  });
});

describe('the self-fence counter', () => {
  test('exists at 0 from the first record of a database, so that increase() sees the first fence', async () => {
    const registry = new prom.Registry();
    const metrics = new SampleDbMetrics(registry);
    metrics.set('default', 'db', { desired: 2, ready: 2, backupFailed: false, degraded: false });
    const counter = await registry.getSingleMetric('sampledb_autopilot_actions_total')!.get();
    expect(counter.values).toEqual([
      { value: 0, labels: { namespace: 'default', name: 'db', action: 'PrimarySelfFenced' } },
    ]);
  });
});

describe("anomaly alerts on Prometheus' rule engine (promtool test rules)", () => {
  test("each signal's alert fires after its 1m (a diverged standby's after 5m) once sampledb_anomaly is 1, and not before; VolumeNearlyFull after 5m above 90 %", () => {
    const rule = Testing.synth(new SampleDbChart(Testing.app(), 'sampledb')).find(
      (m: any) => m.kind === 'PrometheusRule',
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sampledb-alerts-'));
    fs.writeFileSync(path.join(dir, 'rules.yaml'), JSON.stringify({ groups: rule.spec.groups }));
    const signals = {
      ReplicationLag: 'SampleDBReplicationLag',
      IdleInTransaction: 'SampleDBIdleInTransaction',
      LongTransaction: 'SampleDBLongTransaction',
      XidAge: 'SampleDBXidAgeHigh',
      ConnectionSaturation: 'SampleDBConnectionsSaturated',
    };
    const labels = { namespace: 'default', name: 'db' };
    const tests = [
      {
        interval: '30s',
        input_series: [
          ...Object.keys(signals).map((signal) => ({
            series: `sampledb_anomaly{namespace="default",name="db",signal="${signal}"}`,
            values: '0 1 1 1 1',
          })),
          // a diverged standby alerts only once the operator's rewind had 5m to cure it
          { series: 'sampledb_anomaly{namespace="default",name="db",signal="TimelineDivergence"}', values: '0 1x20' },
          { series: 'sampledb_volume_used_bytes{namespace="default",name="db"}', values: '950x20' },
          { series: 'sampledb_volume_capacity_bytes{namespace="default",name="db"}', values: '1000x20' },
          // at 0 from the first reconcile (SampleDbMetrics.set), 1 after the fence at 60s
          {
            series: 'sampledb_autopilot_actions_total{namespace="default",name="db",action="PrimarySelfFenced"}',
            values: '0 0 1x40',
          },
        ],
        alert_rule_test: [
          ...Object.values(signals).map((alertname) => ({ eval_time: '1m', alertname, exp_alerts: [] })),
          ...Object.values(signals).map((alertname) => ({
            eval_time: '90s',
            alertname,
            exp_alerts: [
              { exp_labels: { ...labels, severity: 'warning' }, exp_annotations: { summary: expect.anything() } },
            ],
          })),
          { eval_time: '5m', alertname: 'SampleDBStandbyDiverged', exp_alerts: [] },
          {
            eval_time: '6m',
            alertname: 'SampleDBStandbyDiverged',
            exp_alerts: [
              { exp_labels: { ...labels, severity: 'warning' }, exp_annotations: { summary: expect.anything() } },
            ],
          },
          { eval_time: '30s', alertname: 'SampleDBPrimarySelfFenced', exp_alerts: [] },
          {
            eval_time: '60s',
            alertname: 'SampleDBPrimarySelfFenced',
            exp_alerts: [{ exp_labels: { ...labels, severity: 'critical' } }],
          },
          { eval_time: '17m', alertname: 'SampleDBPrimarySelfFenced', exp_alerts: [] },
          { eval_time: '4m', alertname: 'SampleDBVolumeNearlyFull', exp_alerts: [] },
          {
            eval_time: '6m',
            alertname: 'SampleDBVolumeNearlyFull',
            exp_alerts: [{ exp_labels: { ...labels, severity: 'warning' } }],
          },
        ],
      },
    ];
    // exp_annotations must be exact: take them from the rules themselves.
    const summaries = new Map<string, string>(
      rule.spec.groups
        .flatMap((g: any) => g.rules)
        .map((r: any) => [
          r.alert,
          r.annotations.summary
            .replace(/\{\{ \$labels\.namespace \}\}/g, 'default')
            .replace(/\{\{ \$labels\.name \}\}/g, 'db'),
        ]),
    );
    for (const t of tests[0].alert_rule_test) {
      for (const e of t.exp_alerts as any[]) e.exp_annotations = { summary: summaries.get(t.alertname) };
    }
    fs.writeFileSync(
      path.join(dir, 'test.yaml'),
      JSON.stringify({ rule_files: ['rules.yaml'], evaluation_interval: '30s', tests }),
    );
    const out = execFileSync(promtool(), ['test', 'rules', path.join(dir, 'test.yaml')], { encoding: 'utf8' });
    expect(out).toContain('SUCCESS');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
