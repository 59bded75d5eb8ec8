/**
 * Anomalies caused on the real node (part of the autopilot suite; docs/sampledb-autopilot.md "Anomaly detection that
 * acts"), on a running synchronous SampleDB of two instances:
 *
 * - a standby's replay paused (`pg_wal_replay_pause()`) while the primary writes a few MiB: condition
 *   ReplicationLagging, `sampledb_replication_lag_bytes` and `sampledb_anomaly{signal="ReplicationLag"}` in
 *   Prometheus, alert SampleDBReplicationLag firing and delivered by Alertmanager to the in-cluster receiver; the
 *   action: the standby loses its `replica` label and leaves `<db>-ro`'s endpoints (event StandbyLagging), and comes
 *   back once its replay resumes;
 * - a session left idle in a transaction: conditions IdleInTransaction and LongTransaction, alerts
 *   SampleDBIdleInTransaction and SampleDBLongTransaction delivered the same way; the action once
 *   `spec.anomalies.idleInTransactionSeconds` is set: the operator terminates it (event SessionsTerminated naming the
 *   application; the client's connection is gone).
 *
 * Both are caused at once, so the waits overlap. The thresholds are lowered through `spec.anomalies`; the shipped
 * alerts wait `for: 1m`, which the suite shortens to ANOMALY_FOR on the rule objects themselves (same expressions,
 * labels and routing; as the monitoring suite does for the operator's down alert) and puts back afterwards.
 */
import { Client } from 'pg';
import { NodeHarness, assert, until } from '../harness';

const NS = 'default';
const MON = 'monitoring';
const OPERATOR_NS = 'sampledb-operator-system';
const RULE = 'sampledb-operator';
const ALERTS = ['SampleDBReplicationLag', 'SampleDBIdleInTransaction', 'SampleDBLongTransaction'];
const ANOMALY_FOR = '5s';
const APPLICATION = 'e2e-idle-session';

/** Causes the anomalies on SampleDB `db` (running, two instances, table `t (id int primary key)`) and checks them. */
export async function anomaliesOnTheNode(h: NodeHarness, db: string): Promise<void> {
  const json = h.json.bind(h);
  const raw = (path: string): any => JSON.parse(h.kubectl('get', '--raw', path));
  const prom = (path: string): any => raw(`/api/v1/namespaces/${MON}/services/prometheus-main:web/proxy${path}`);
  const query = (q: string): { metric: Record<string, string>; value: [number, string] }[] =>
    prom(`/api/v1/query?query=${encodeURIComponent(q)}`).data.result;
  const received = (alert: string) =>
    raw(`/api/v1/namespaces/${MON}/services/alert-receiver:http/proxy/alerts`).find(
      (n: any) =>
        n.status === 'firing' &&
        (n.alerts ?? []).some((a: any) => a.labels?.alertname === alert && a.labels?.name === db),
    );
  const sdb = () => json('get', 'sampledb', db, '-n', NS);
  const condition = (type: string) => (sdb().status?.conditions ?? []).find((c: { type: string }) => c.type === type);
  const psql = (pod: string, sql: string) =>
    h.kubectl('exec', '-n', NS, pod, '--', 'psql', '-U', 'sampledb', '-d', 'sampledb', '-Atqc', sql).trim();
  const roEndpoints = (): string[] =>
    json('get', 'endpointslices', '-n', NS, '-l', `kubernetes.io/service-name=${db}-ro`).items.flatMap((s: any) =>
      (s.endpoints ?? []).map((e: any) => e.targetRef?.name),
    );
  const events = (reason: string): string[] =>
    json('get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${db},reason=${reason}`).items.map(
      (e: { message: string }) => e.message,
    );
  const patchAnomalies = (anomalies: Record<string, number | null>) =>
    h.kubectl('patch', 'sampledb', db, '-n', NS, '--type', 'merge', '-p', JSON.stringify({ spec: { anomalies } }));

  // The shipped `for` of each alert, and a patch that sets it on the rule object.
  const rule = json('get', 'prometheusrule', RULE, '-n', OPERATOR_NS);
  const indexes = ALERTS.map((a) => {
    const i = rule.spec.groups[0].rules.findIndex((r: any) => r.alert === a);
    assert(i >= 0, `${a} not in PrometheusRule ${RULE}`);
    return i;
  });
  const shippedFor: string[] = indexes.map((i) => rule.spec.groups[0].rules[i].for);
  const setFor = (values: string[]) =>
    h.kubectl(
      'patch',
      'prometheusrule',
      RULE,
      '-n',
      OPERATOR_NS,
      '--type=json',
      '-p',
      JSON.stringify(
        indexes.map((i, k) => ({ op: 'replace', path: `/spec/groups/0/rules/${i}/for`, value: values[k] })),
      ),
    );
  const loadedFor = () =>
    prom('/api/v1/rules')
      .data.groups.flatMap((g: any) => g.rules)
      .filter((r: any) => ALERTS.includes(r.name))
      .map((r: any) => r.duration);

  const primary: string = sdb().status.currentPrimary;
  const standby = [0, 1].map((i) => `${db}-${i}`).find((n) => n !== primary)!;
  let idle: Client | undefined;
  try {
    await h.step(
      `anomalies caused on the node: ${standby}'s replay paused and a session idle in a transaction → conditions, metrics in Prometheus, alerts delivered by Alertmanager to the receiver; ${standby} leaves ${db}-ro, the session is terminated once a timeout is set`,
      async () => {
        setFor(ALERTS.map(() => ANOMALY_FOR));
        patchAnomalies({ maxLagBytes: 1048576, longTransactionSeconds: 5 });
        const started = Date.now();
        const since = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
        // cause both
        psql(standby, 'select pg_wal_replay_pause()');
        const secret = json('get', 'secret', `${db}-credentials`, '-n', NS);
        const dec = (k: string) => Buffer.from(secret.data[k], 'base64').toString();
        idle = new Client({
          host: json('get', 'service', `${db}-rw`, '-n', NS).spec.clusterIP,
          port: 5432,
          user: dec('username'),
          password: dec('password'),
          database: dec('database'),
          application_name: APPLICATION,
          connectionTimeoutMillis: 5000,
        });
        let idleError: Error | undefined;
        idle.on('error', (err) => (idleError = err));
        await idle.connect();
        await idle.query('begin');
        await idle.query('select count(*) from t');
        // ~8 MiB of WAL: the paused standby receives and flushes it (synchronous commits go on) but replays none
        psql(primary, 'insert into t (id) select g from generate_series(5000000, 5100000) g');

        // the action on lag: out of <db>-ro
        const out = await until(
          `${standby} out of ${db}-ro (its replica label removed)`,
          () => {
            const labels = json('get', 'pod', standby, '-n', NS).metadata.labels ?? {};
            return !labels['database.example.com/role'] && !roEndpoints().includes(standby) && since();
          },
          90,
          1000,
        );
        const conditions = await until(
          'conditions ReplicationLagging, IdleInTransaction and LongTransaction True',
          () => {
            const c = ['ReplicationLagging', 'IdleInTransaction', 'LongTransaction'].map(condition);
            return c.every((x) => x?.status === 'True') ? c : undefined;
          },
          90,
          1000,
        );
        assert(
          conditions[0].message.includes(standby),
          `ReplicationLagging names ${standby}: ${conditions[0].message}`,
        );
        // the metrics, as Prometheus scraped them from the operator
        const lag = await until(
          `sampledb_replication_lag_bytes of ${standby} above the bound in Prometheus`,
          () => {
            const r = query(`max(sampledb_replication_lag_bytes{name="${db}",instance="${standby}"})`)[0];
            return r && Number(r.value[1]) > 1048576 ? Number(r.value[1]) : undefined;
          },
          90,
          2000,
        );
        await until(
          'sampledb_anomaly 1 for ReplicationLag, IdleInTransaction and LongTransaction in Prometheus',
          () =>
            query(`max by (signal) (sampledb_anomaly{name="${db}"}) == 1`)
              .map((r) => r.metric.signal)
              .filter((s) => ['ReplicationLag', 'IdleInTransaction', 'LongTransaction'].includes(s)).length === 3,
          90,
          2000,
        );
        await until(
          `Prometheus evaluating the alerts with for: ${ANOMALY_FOR}`,
          () => loadedFor().length === ALERTS.length && loadedFor().every((d: number) => d === 5),
          90,
          2000,
        );
        // the alerts: firing in Prometheus, delivered by Alertmanager to the in-cluster receiver
        const delivered: string[] = [];
        for (const alert of ALERTS) {
          const note = await until(`${alert} delivered to alert-receiver`, () => received(alert), 120, 2000);
          delivered.push(`${alert} at ${since()} (${note.receivedAt})`);
        }

        // the action on idle sessions, once a timeout is configured
        patchAnomalies({ idleInTransactionSeconds: 5 });
        const terminated = await until(
          'event SessionsTerminated naming the session',
          () => events('SessionsTerminated').find((m) => m.includes(APPLICATION)),
          90,
          1000,
        );
        const gone = await until(
          'the idle session is gone (its connection terminated)',
          async () => {
            if (idleError) return idleError.message;
            try {
              await idle!.query('select 1');
              return undefined;
            } catch (err) {
              return (err as Error).message;
            }
          },
          30,
          1000,
        );
        await until(
          'IdleInTransaction no longer True',
          () => condition('IdleInTransaction')?.status === 'False',
          60,
          1000,
        );

        // replay resumed: the standby catches up and is back in <db>-ro
        psql(standby, 'select pg_wal_replay_resume()');
        const back = await until(
          `${standby} back in ${db}-ro, ReplicationLagging False`,
          () => roEndpoints().includes(standby) && condition('ReplicationLagging')?.status === 'False' && since(),
          120,
          1000,
        );
        const lagged = events('StandbyLagging');
        assert(
          lagged.some((m) => m.includes(standby)),
          `an event StandbyLagging for ${standby}: ${JSON.stringify(lagged)}`,
        );
        return `${standby} out of ${db}-ro after ${out} (lag ${lag} bytes in Prometheus, bound 1048576); alerts (for: ${ANOMALY_FOR}, shipped ${shippedFor.join('/')}) delivered: ${delivered.join('; ')}; ${terminated}; the client saw "${gone}"; ${standby} back in ${db}-ro at ${back}`;
      },
    );
  } finally {
    await idle?.end().catch(() => undefined);
    try {
      psql(standby, 'select pg_wal_replay_resume()');
    } catch {
      // the pod restarted (replay runs again) or is gone
    }
    setFor(shippedFor);
    patchAnomalies({ maxLagBytes: null, longTransactionSeconds: null, idleInTransactionSeconds: null });
  }
}
