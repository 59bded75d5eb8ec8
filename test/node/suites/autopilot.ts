/**
 * SampleDB on autopilot on the real node (docs/sampledb-autopilot.md), short form: auto-tuning under a steady write
 * load through `<db>-rw` with `synchronous: true`.
 *
 * 1. A SampleDB with `spec.resources` (512Mi limit): every instance runs the settings derived from it (SHOW in each
 *    pod), `status.postgresql` and condition ParametersApplied say so.
 * 2. A reloadable and a restart-only setting in `spec.postgresql.parameters` while a writer inserts a row every
 *    100 ms: the reloadable one is live on every instance without a restart, the restart-only one arrives by the
 *    operator's rolling restart (the standby first, then a switchover: the old primary restarts as a standby);
 *    every acknowledged write is there afterwards, and the write outage (longest time without a successful write) is
 *    measured. Events InstanceRestarted and SwitchoverStarted, the metric sampledb_autopilot_actions_total.
 * 3. A resources change re-tunes: the operator replaces the pods (StatefulSet OnDelete), the standby first, then a
 *    switchover to it, then the old primary; the settings derived from the new memory follow; 0 writes lost.
 * 4. Anomalies caused on the node: a standby's replay paused, a session idle in a transaction; the conditions, the
 *    metrics in Prometheus, the alerts delivered by Alertmanager, and the actions (autopilot-anomalies.ts).
 * Storage auto-grow and replica auto-scaling, each on a database of its own, are the `autoscaling` suite: run.ts runs
 * it beside this one.
 *
 * Every postgres:* tag of the harness runs PostgreSQL 15.18.
 */
import { Client } from 'pg';
import { anomaliesOnTheNode } from './autopilot-anomalies';
import { NodeHarness, assert, sleep, until } from '../harness';

export const NS = 'default';
const OPERATOR_NS = 'sampledb-operator-system';
const DB = 'tuned-db';

/** The events of one SampleDB in the suites' namespace with `reason`. */
export function eventsOf(h: NodeHarness, db: string, reason: string): { message: string }[] {
  return h.json('get', 'events', '-n', NS, '--field-selector', `involvedObject.name=${db},reason=${reason}`).items;
}

export default async function autopilot(h: NodeHarness): Promise<void> {
  const kubectl = h.kubectl.bind(h);
  const json = h.json.bind(h);
  const step = h.step.bind(h);
  const sdb = () => json('get', 'sampledb', DB, '-n', NS);
  const condition = (type: string) => (sdb().status?.conditions ?? []).find((c: { type: string }) => c.type === type);
  const ready = (replicas: number) => {
    const s = sdb().status ?? {};
    return s.phase === 'Running' &&
      s.readyReplicas === replicas &&
      s.currentPrimary &&
      (s.instances ?? []).filter((i: { ready: boolean }) => i.ready).length === replicas
      ? s
      : undefined;
  };
  /**
   * The live value of each setting (as `SHOW` prints it: `current_setting`) in every pod of the database, asked
   * locally (standbys included), one `kubectl exec` per pod for all of them: setting → the value per pod.
   */
  const shownAll = (settings: readonly string[], pods: number): Record<string, string[]> => {
    const rows = [...Array(pods).keys()].map((i) =>
      h
        .exec(
          '-n',
          NS,
          `${DB}-${i}`,
          '--',
          'psql',
          '-U',
          'sampledb',
          '-d',
          'sampledb',
          '-AtqF',
          '\t',
          '-c',
          `select ${settings.map((n) => `current_setting('${n}')`).join(', ')}`,
        )
        .trim()
        .split('\t'),
    );
    return Object.fromEntries(settings.map((n, k) => [n, rows.map((r) => r[k])]));
  };
  const shown = (setting: string, pods: number): string[] => shownAll([setting], pods)[setting];
  const operatorMetrics = (): string[] =>
    json('get', 'pods', '-n', OPERATOR_NS, '-l', 'app.kubernetes.io/name=sampledb-operator')
      .items.filter((p: any) => p.status?.phase === 'Running')
      .map((pod: any) =>
        kubectl('get', '--raw', `/api/v1/namespaces/${OPERATOR_NS}/pods/${pod.metadata.name}:8080/proxy/metrics`),
      );
  const actions = (action: string) =>
    operatorMetrics()
      .flatMap((t) => t.split('\n'))
      .filter(
        (l) =>
          l.startsWith('sampledb_autopilot_actions_total{') &&
          l.includes(`name="${DB}"`) &&
          l.includes(`action="${action}"`),
      )
      .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
  const events = (reason: string) => eventsOf(h, DB, reason);

  let endpoint: { host: string; user: string; password: string; database: string } | undefined;
  const connect = async () => {
    if (!endpoint) {
      const secret = json('get', 'secret', `${DB}-credentials`, '-n', NS);
      const dec = (k: string) => Buffer.from(secret.data[k], 'base64').toString();
      endpoint = {
        host: json('get', 'service', `${DB}-rw`, '-n', NS).spec.clusterIP,
        user: dec('username'),
        password: dec('password'),
        database: dec('database'),
      };
    }
    const c = new Client({ ...endpoint, port: 5432, connectionTimeoutMillis: 3000, query_timeout: 10000 });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  async function sql(query: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
    const c = await connect();
    try {
      return (await c.query(query, params)).rows;
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  /** A writer inserting one row every 100 ms through <db>-rw (reconnecting after a failure), until stopped. */
  function writer(from: number) {
    const acked: number[] = [];
    let failures = 0;
    let lastOk = Date.now();
    let longestGapMs = 0;
    let stop = false;
    let client: Client | undefined;
    const done = (async () => {
      let id = from;
      while (!stop) {
        try {
          client ??= await connect();
          await client.query('insert into t (id) values ($1)', [id]);
          acked.push(id);
          const now = Date.now();
          longestGapMs = Math.max(longestGapMs, now - lastOk);
          lastOk = now;
        } catch {
          failures++;
          await client?.end().catch(() => undefined);
          client = undefined;
        }
        id++;
        await sleep(100);
      }
      await client?.end().catch(() => undefined);
    })();
    return {
      acked,
      stop: async () => {
        stop = true;
        await done;
      },
      get failures() {
        return failures;
      },
      /** Longest time between two successful writes, minus the 100 ms pause (0 with no failure at all). */
      get outageSeconds() {
        return Math.max(0, longestGapMs - 100) / 1000;
      },
    };
  }
  async function lostOf(acked: number[]): Promise<number[]> {
    const rows = new Set(
      (await until('the rows', () => sql('select id from t where id >= $1', [acked[0] ?? 0]), 60, 1000)).map((r) =>
        Number(r.id),
      ),
    );
    return acked.filter((id) => !rows.has(id));
  }

  await step('dist/ applied: both operators running', async () => h.ensureDistApplied());

  await step(
    'a SampleDB with resources (limit 512Mi): every instance runs the derived settings; status.postgresql and ParametersApplied say so',
    async () => {
      h.apply({
        apiVersion: 'database.example.com/v2',
        kind: 'SampleDB',
        metadata: { name: DB, namespace: NS },
        spec: {
          version: '16.4',
          replicas: 2,
          synchronous: true,
          failoverDelaySeconds: 5,
          resources: { requests: { cpu: '100m', memory: '256Mi' }, limits: { memory: '512Mi' } },
        },
      });
      await until('2 instances running', () => ready(2), 300, 1000);
      const expected = {
        shared_buffers: '102MB',
        max_connections: '100',
        effective_cache_size: '384MB',
        work_mem: '1295kB',
      };
      const status = await until(
        'status.postgresql with the derived settings',
        () => {
          const p = sdb().status?.postgresql;
          return p?.tunedForMemory === '512Mi' && Object.entries(expected).every(([k, v]) => p.parameters?.[k] === v)
            ? p
            : undefined;
        },
        60,
        1000,
      );
      // shared_buffers needs a restart after the first start: the operator's rolling restart brings it.
      const live = await until(
        'the derived settings live on both instances',
        () => {
          const got = shownAll(Object.keys(expected), 2);
          return Object.entries(expected).every(([k, v]) => got[k].every((x) => x === v)) ? got : undefined;
        },
        240,
        2000,
      );
      const c = await until(
        'ParametersApplied True',
        () => condition('ParametersApplied')?.status === 'True' && condition('ParametersApplied'),
        120,
        1000,
      );
      return `${Object.keys(status.parameters).length} settings from ${status.tunedForMemory}; on ${DB}-0/1: ${Object.entries(
        live,
      )
        .map(([k, v]) => `${k}=${(v as string[]).join('/')}`)
        .join(' ')}; ${c.reason}: ${c.message}`;
    },
  );

  await step(
    'a reloadable and a restart-only setting under a steady write load: reload, then the standby and a switchover; 0 acknowledged writes lost (synchronous), outage measured',
    async () => {
      await until(
        'table t',
        () => sql('create table if not exists t (id int primary key, at timestamptz default now())'),
        60,
        1000,
      );
      const before = sdb().status.currentPrimary;
      const restartsBefore = actions('InstanceRestarted');
      const w = writer(1_000_000);
      await sleep(2000);
      const started = Date.now();
      kubectl(
        'patch',
        'sampledb',
        DB,
        '-n',
        NS,
        '--type',
        'merge',
        '-p',
        JSON.stringify({ spec: { postgresql: { parameters: { work_mem: '8MB', max_connections: '120' } } } }),
      );
      const reloadedAt = await until(
        'work_mem live on both instances (a reload)',
        () => shown('work_mem', 2).every((v) => v === '8MB') && Date.now(),
        60,
        500,
      );
      await until(
        'max_connections 120 on both instances (the rolling restart)',
        () => shown('max_connections', 2).every((v) => v === '120'),
        300,
        2000,
      );
      await until(
        'ParametersApplied True, both ready',
        () => condition('ParametersApplied')?.status === 'True' && ready(2),
        180,
        1000,
      );
      const settled = Date.now();
      await sleep(2000);
      await w.stop();
      const lost = await lostOf(w.acked);
      // the load was real (a count, not a rate: under CI load a 100 ms writer may ack fewer than 3 per second)
      assert(w.acked.length > 20, `the writer wrote (${w.acked.length} acknowledged)`);
      assert(lost.length === 0, `acknowledged writes lost: ${lost.join(',')}`);
      const after = sdb().status.currentPrimary;
      assert(after !== before, `the primary switched over for its restart (${before} → ${after})`);
      const restarted = events('InstanceRestarted');
      assert(
        restarted.some((e) => /standby/.test(e.message)),
        `an InstanceRestarted event for the standby: ${JSON.stringify(restarted.map((e) => e.message))}`,
      );
      const switched = events('SwitchoverStarted').filter((e) => /pending restart/.test(e.message));
      assert(switched.length > 0, "a SwitchoverStarted event for the primary's restart");
      const counted = actions('InstanceRestarted') - restartsBefore;
      assert(
        counted >= 1 && actions('RestartSwitchover') >= 1,
        `sampledb_autopilot_actions_total counts the restarts (${counted}) and the switchover`,
      );
      return `work_mem live ${((reloadedAt - started) / 1000).toFixed(1)}s after the patch (reload, no restart); max_connections on both after ${((settled - started) / 1000).toFixed(0)}s; primary ${before} → ${after}; ${w.acked.length} acknowledged writes, 0 lost, ${w.failures} failed attempts, write outage ${w.outageSeconds.toFixed(1)}s; events: ${restarted[0]?.message} | ${switched[0].message}`;
    },
  );

  await step(
    'a resources change re-tunes: the standby is replaced first, then a switchover, then the old primary; the derived settings follow; 0 acknowledged writes lost',
    async () => {
      const primaryBefore: string = sdb().status.currentPrimary;
      const standbyBefore = [0, 1].map((i) => `${DB}-${i}`).find((n) => n !== primaryBefore)!;
      const uid = (pod: string) => json('get', 'pod', pod, '-n', NS).metadata.uid as string;
      const uids = { [primaryBefore]: uid(primaryBefore), [standbyBefore]: uid(standbyBefore) };
      const w = writer(2_000_000);
      await sleep(2000);
      const started = Date.now();
      kubectl(
        'patch',
        'sampledb',
        DB,
        '-n',
        NS,
        '--type',
        'merge',
        '-p',
        JSON.stringify({ spec: { resources: { limits: { memory: '768Mi' } } } }),
      );
      await until(
        'shared_buffers 153MB on both instances',
        () => shown('shared_buffers', 2).every((v) => v === '153MB'),
        420,
        2000,
      );
      await until(
        'ParametersApplied True, both ready',
        () => condition('ParametersApplied')?.status === 'True' && ready(2),
        180,
        1000,
      );
      const took = (Date.now() - started) / 1000;
      await sleep(2000);
      await w.stop();
      const lost = await lostOf(w.acked);
      assert(lost.length === 0, `acknowledged writes lost: ${lost.join(',')}`);
      const sts = json('get', 'statefulset', DB, '-n', NS);
      const limits = sts.spec.template.spec.containers[0].resources.limits;
      assert(limits.memory === '768Mi', `the pods run with the new limit: ${JSON.stringify(limits)}`);
      // The order (the operator replaces the pods: StatefulSet OnDelete): the standby's new pod was created before the
      // old primary's pod was replaced, a switchover moved the primary to it, and both pods run the new template.
      assert(sts.spec.updateStrategy.type === 'OnDelete', `updateStrategy ${JSON.stringify(sts.spec.updateStrategy)}`);
      const pod = (name: string) => json('get', 'pod', name, '-n', NS);
      const [standbyPod, primaryPod] = [pod(standbyBefore), pod(primaryBefore)];
      for (const p of [standbyPod, primaryPod]) {
        assert(p.metadata.uid !== uids[p.metadata.name], `${p.metadata.name} was replaced`);
        assert(
          p.metadata.labels['controller-revision-hash'] === sts.status.updateRevision,
          `${p.metadata.name} runs the new revision ${sts.status.updateRevision}`,
        );
        assert(p.spec.containers[0].resources.limits.memory === '768Mi', `${p.metadata.name} runs with 768Mi`);
      }
      const created = (p: any) => Date.parse(p.metadata.creationTimestamp);
      assert(
        created(standbyPod) < created(primaryPod),
        `the standby's new pod (${standbyPod.metadata.creationTimestamp}) before the old primary's (${primaryPod.metadata.creationTimestamp})`,
      );
      const switched = events('SwitchoverStarted');
      assert(
        switched.some(
          (e) => e.message.includes(`from ${primaryBefore} to ${standbyBefore}`) && /new pod template/.test(e.message),
        ),
        `a switchover ${primaryBefore} → ${standbyBefore} for the new pod template: ${JSON.stringify(switched.map((e) => e.message))}`,
      );
      const primaryAfter = sdb().status.currentPrimary;
      assert(
        primaryAfter === standbyBefore,
        `the primary moved to the replaced standby (${primaryBefore} → ${primaryAfter})`,
      );
      return `re-tuned in ${took.toFixed(0)}s (shared_buffers 102MB → 153MB, work_mem stays 8MB: an override); order: ${standbyBefore} replaced at ${standbyPod.metadata.creationTimestamp}, switchover ${primaryBefore} → ${standbyBefore}, ${primaryBefore} replaced at ${primaryPod.metadata.creationTimestamp}; ${w.acked.length} acknowledged writes, 0 lost, ${w.failures} failed attempts, write outage ${w.outageSeconds.toFixed(1)}s`;
    },
  );

  await anomaliesOnTheNode(h, DB);

  // Deleted without waiting for its final snapshot: the suites after it need the CPU more than this database.
  kubectl('delete', 'sampledb', DB, '-n', NS, '--wait=false');
}
