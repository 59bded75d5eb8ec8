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
 *   `spec.anomalies.idleInTransactionSeconds` is set: the operator terminates it (the client's connection is gone,
 *   `sampledb_autopilot_actions_total{action="SessionsTerminated"}` counts it, condition IdleInTransaction False).
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
const ANOMALY_FOR_SECONDS = 5;
const APPLICATION = 'e2e-idle-session';

/** What the anomaly checks read: Prometheus, the alert receiver, the SampleDB, its pods (also the long form's). */
export function anomalyProbe(h: NodeHarness, db: string) {
  const json = h.json.bind(h);
  const raw = (path: string): any => JSON.parse(h.kubectl('get', '--raw', path));
  const prom = (path: string): any => raw(`/api/v1/namespaces/${MON}/services/prometheus-main:web/proxy${path}`);
  const sdb = () => json('get', 'sampledb', db, '-n', NS);
  return {
    /** An instant query's result. */
    query: (q: string): { metric: Record<string, string>; value: [number, string] }[] =>
      prom(`/api/v1/query?query=${encodeURIComponent(q)}`).data.result,
    /** The first firing notification of `alert` for this database the in-cluster receiver got from Alertmanager. */
    received: (alert: string) =>
      raw(`/api/v1/namespaces/${MON}/services/alert-receiver:http/proxy/alerts`).find(
        (n: any) =>
          n.status === 'firing' &&
          (n.alerts ?? []).some((a: any) => a.labels?.alertname === alert && a.labels?.name === db),
      ),
    sdb,
    condition: (type: string) => (sdb().status?.conditions ?? []).find((c: { type: string }) => c.type === type),
    psql: (pod: string, sql: string) =>
      h.exec('-n', NS, pod, '--', 'psql', '-U', 'sampledb', '-d', 'sampledb', '-Atqc', sql).trim(),
    events: (reason: string): string[] =>
      json('get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${db},reason=${reason}`).items.map(
        (e: { message: string }) => e.message,
      ),
    patchAnomalies: (anomalies: Record<string, number | null>) =>
      h.kubectl('patch', 'sampledb', db, '-n', NS, '--type', 'merge', '-p', JSON.stringify({ spec: { anomalies } })),
    /** A client of the database through `<db>-rw`, as `application`. */
    client: (application: string) => {
      const secret = json('get', 'secret', `${db}-credentials`, '-n', NS);
      const dec = (k: string) => Buffer.from(secret.data[k], 'base64').toString();
      const c = new Client({
        host: json('get', 'service', `${db}-rw`, '-n', NS).spec.clusterIP,
        port: 5432,
        user: dec('username'),
        password: dec('password'),
        database: dec('database'),
        application_name: application,
        connectionTimeoutMillis: 5000,
      });
      return c;
    },
    /**
     * Sets the `for` of `alerts` in the chart's PrometheusRule (the shipped values wait minutes) and waits until
     * Prometheus evaluates them so; returns a function that puts the shipped values back.
     */
    shortenFor: async (alerts: readonly string[], value: string, seconds: number): Promise<() => void> => {
      const rule = json('get', 'prometheusrule', RULE, '-n', OPERATOR_NS);
      const indexes = alerts.map((a) => {
        const i = rule.spec.groups[0].rules.findIndex((r: any) => r.alert === a);
        assert(i >= 0, `${a} not in PrometheusRule ${RULE}`);
        return i;
      });
      const shipped: (string | undefined)[] = indexes.map((i) => rule.spec.groups[0].rules[i].for);
      const setFor = (values: (string | undefined)[]) =>
        h.kubectl(
          'patch',
          'prometheusrule',
          RULE,
          '-n',
          OPERATOR_NS,
          '--type=json',
          '-p',
          JSON.stringify(
            indexes.map((i, k) =>
              values[k] === undefined
                ? { op: 'remove', path: `/spec/groups/0/rules/${i}/for` }
                : { op: 'add', path: `/spec/groups/0/rules/${i}/for`, value: values[k] },
            ),
          ),
        );
      setFor(alerts.map(() => value));
      await until(
        `Prometheus evaluating ${alerts.join(', ')} with for: ${value}`,
        () => {
          const loaded = prom('/api/v1/rules')
            .data.groups.flatMap((g: any) => g.rules)
            .filter((r: any) => alerts.includes(r.name));
          return loaded.length === alerts.length && loaded.every((r: any) => r.duration === seconds);
        },
        120,
        2000,
      );
      return () => setFor(shipped);
    },
  };
}

/** Causes the anomalies on SampleDB `db` (running, two instances, table `t (id int primary key)`) and checks them. */
export async function anomaliesOnTheNode(h: NodeHarness, db: string): Promise<void> {
  const p = anomalyProbe(h, db);
  const roEndpoints = (): string[] =>
    h
      .json('get', 'endpointslices', '-n', NS, '-l', `kubernetes.io/service-name=${db}-ro`)
      .items.flatMap((sl: any) => (sl.endpoints ?? []).map((e: any) => e.targetRef?.name));
  const primary: string = p.sdb().status.currentPrimary;
  const standby = [0, 1].map((i) => `${db}-${i}`).find((n) => n !== primary)!;
  let idle: Client | undefined;
  let restoreFor: (() => void) | undefined;
  try {
    await h.step(
      `anomalies caused on the node: ${standby}'s replay paused and a session idle in a transaction → conditions, metrics in Prometheus, alerts delivered by Alertmanager to the receiver; ${standby} leaves ${db}-ro, the session is terminated once a timeout is set`,
      async () => {
        p.patchAnomalies({ maxLagBytes: 1048576, longTransactionSeconds: 5 });
        const started = Date.now();
        const since = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
        // cause both
        p.psql(standby, 'select pg_wal_replay_pause()');
        idle = p.client(APPLICATION);
        let idleError: Error | undefined;
        idle.on('error', (err) => (idleError = err));
        await idle.connect();
        await idle.query('begin');
        await idle.query('select count(*) from t');
        // ~8 MiB of WAL: the paused standby receives and flushes it (synchronous commits go on) but replays none
        p.psql(primary, 'insert into t (id) select g from generate_series(5000000, 5100000) g');
        restoreFor = await p.shortenFor(ALERTS, ANOMALY_FOR, ANOMALY_FOR_SECONDS);

        // the action on lag: out of <db>-ro
        const out = await until(
          `${standby} out of ${db}-ro (its replica label removed)`,
          () => {
            const labels = h.json('get', 'pod', standby, '-n', NS).metadata.labels ?? {};
            return !labels['database.example.com/role'] && !roEndpoints().includes(standby) && since();
          },
          90,
          1000,
        );
        const conditions = await until(
          'conditions ReplicationLagging, IdleInTransaction and LongTransaction True',
          () => {
            const c = ['ReplicationLagging', 'IdleInTransaction', 'LongTransaction'].map(p.condition);
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
            const r = p.query(`max(sampledb_replication_lag_bytes{name="${db}",instance="${standby}"})`)[0];
            return r && Number(r.value[1]) > 1048576 ? Number(r.value[1]) : undefined;
          },
          90,
          2000,
        );
        await until(
          'sampledb_anomaly 1 for ReplicationLag, IdleInTransaction and LongTransaction in Prometheus',
          () =>
            p
              .query(`max by (signal) (sampledb_anomaly{name="${db}"}) == 1`)
              .map((r) => r.metric.signal)
              .filter((x) => ['ReplicationLag', 'IdleInTransaction', 'LongTransaction'].includes(x)).length === 3,
          90,
          2000,
        );
        // the alerts: firing in Prometheus, delivered by Alertmanager to the in-cluster receiver
        const delivered: string[] = [];
        for (const alert of ALERTS) {
          const note = await until(`${alert} delivered to alert-receiver`, () => p.received(alert), 120, 2000);
          delivered.push(`${alert} at ${since()} (${note.receivedAt})`);
        }

        // the action on idle sessions, once a timeout is configured
        p.patchAnomalies({ idleInTransactionSeconds: 5 });
        const terminated = await until(
          'sampledb_autopilot_actions_total{action="SessionsTerminated"} counting the termination in Prometheus',
          () =>
            Number(
              p.query(`max(sampledb_autopilot_actions_total{name="${db}",action="SessionsTerminated"})`)[0]?.value[1] ??
                0,
            ) >= 1 && since(),
          90,
          2000,
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
          () => p.condition('IdleInTransaction')?.status === 'False',
          60,
          1000,
        );

        // replay resumed: the standby catches up and is back in <db>-ro
        p.psql(standby, 'select pg_wal_replay_resume()');
        const back = await until(
          `${standby} back in ${db}-ro, ReplicationLagging False`,
          () => roEndpoints().includes(standby) && p.condition('ReplicationLagging')?.status === 'False' && since(),
          120,
          1000,
        );
        // The events of both actions: this database has recorded many by now, but the recorder's spam filter keeps a
        // bucket per reason (client-go's, per object, dropped these until the spam filter changed).
        const event = (reason: string, needle: string) =>
          until(
            `the ${reason} Event naming ${needle}`,
            () => p.events(reason).find((m) => m.includes(needle)),
            30,
            1000,
          );
        return `${standby} out of ${db}-ro after ${out} (lag ${lag} bytes in Prometheus, bound 1048576); alerts (for: ${ANOMALY_FOR} on the cluster, 1m shipped) delivered: ${delivered.join('; ')}; the idle session terminated at ${terminated} (the client saw "${gone}"); ${standby} back in ${db}-ro at ${back}; events: ${await event('StandbyLagging', standby)} | ${await event('SessionsTerminated', APPLICATION)}`;
      },
    );
  } finally {
    await idle?.end().catch(() => undefined);
    try {
      p.psql(standby, 'select pg_wal_replay_resume()');
    } catch {
      // the pod restarted (replay runs again) or is gone
    }
    restoreFor?.();
    p.patchAnomalies({ maxLagBytes: null, longTransactionSeconds: null, idleInTransactionSeconds: null });
  }
}
