/**
 * `npm run autopilot:anomalies`: the SampleDB anomalies the CI short form (test/node/suites/autopilot-anomalies.ts:
 * replication lag, a session idle in a transaction) does not cause, each caused on the real node and followed to the
 * alert that Alertmanager delivers to the in-cluster receiver. Writes bench/latest/sampledb-anomalies.json.
 *
 * On one SampleDB of one instance (128Mi volume, a backup schedule, no storageAutoGrow):
 * - XID age: the threshold set 500 above the measured age, then 1,000 transactions consumed (`txid_current()` in
 *   a procedure that commits each) → condition XidAgeHigh, `sampledb_xid_age`, alert SampleDBXidAgeHigh;
 * - connection saturation: `connectionSaturationPercent: 10` of `max_connections` 100, then 12 client
 *   connections → condition ConnectionsSaturated, `sampledb_connections`, alert SampleDBConnectionsSaturated;
 * - a failed backup: the output path of the next backup made a directory on the backup volume, then a backup Job
 *   created from the CronJob as a user does (`kubectl create job --from=cronjob/…`) → condition BackupSucceeded
 *   False, `sampledb_backup_failed` 1, alert SampleDBBackupFailed;
 * - volume nearly full: rows inserted until the database (its databases and WAL, as PostgreSQL reports them) uses
 *   more than 90 % of the claim → `sampledb_volume_used_bytes` / `sampledb_volume_capacity_bytes` > 0.9, alert
 *   SampleDBVolumeNearlyFull (the volume is never really full: the node's provisioner enforces no quota).
 * The shipped `for` of those alerts (1m, 5m) is shortened on the cluster to 5s for the wait and put back afterwards.
 *
 *   flock /tmp/k8s-node.lock npm run autopilot:anomalies                 # a fresh cluster, taken down afterwards
 *   NODE_CLUSTER_DIR=/tmp/k8s-node npm run autopilot:anomalies           # a cluster that is up (left up)
 */
import { mkdirSync, writeFileSync } from 'fs';
import { loadavg } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { containerSecurityContext, podSecurityContext } from '../../../controllers/sampledb/pods';
import { longFormCluster } from '../chaos/long-form-cluster';
import { NodeHarness, ROOT, assert, until } from '../harness';
import { anomalyProbe } from '../suites/autopilot-anomalies';

const NS = 'default';
const DB = 'anomaly-db';
const POD = `${DB}-0`;
const FAILING_BACKUP = `${DB}-backup-e2e-failing`;
const ALERTS = [
  'SampleDBXidAgeHigh',
  'SampleDBConnectionsSaturated',
  'SampleDBBackupFailed',
  'SampleDBVolumeNearlyFull',
];
const OUT = join(ROOT, 'bench/latest/sampledb-anomalies.json');

interface CaseResult {
  readonly signal: string;
  readonly caused: string;
  readonly ok: boolean;
  /** Seconds from the cause to: the condition (when the signal has one), the metric in Prometheus, the alert delivered. */
  readonly seconds?: { condition?: number; metric?: number; delivered?: number };
  readonly observed?: string;
  readonly action: string;
  readonly error?: string;
}

async function main(): Promise<void> {
  const started = Date.now();
  const load1m = () => loadavg()[0].toFixed(2);
  const cluster = await longFormCluster('sampledb-anomalies-');
  const h = cluster.h;
  const p = anomalyProbe(h, DB);
  const results: CaseResult[] = [];
  let restoreFor: (() => void) | undefined;
  const load = { atStart: load1m(), atEnd: '' };
  try {
    h.apply({
      apiVersion: 'database.example.com/v2',
      kind: 'SampleDB',
      metadata: { name: DB, namespace: NS },
      spec: { version: '16.4', replicas: 1, storage: '128Mi', backupSchedule: '0 3 * * *', backupRetention: 2 },
    });
    await until(
      'anomaly-db running',
      () => p.sdb().status?.phase === 'Running' && p.sdb().status?.readyReplicas === 1,
      300,
      2000,
    );
    restoreFor = await p.shortenFor(ALERTS, '5s', 5);

    /** Runs one case: cause it, then wait for each observation; a failure is recorded and the next case runs. */
    const run = async (
      signal: string,
      caused: string,
      action: string,
      cause: () => Promise<void> | void,
      checks: { condition?: () => unknown; metric: () => unknown; alert: string },
    ) => {
      const t0 = Date.now();
      const after = () => Math.round((Date.now() - t0) / 100) / 10;
      try {
        await cause();
        const seconds: { condition?: number; metric?: number; delivered?: number } = {};
        const observed: string[] = [];
        if (checks.condition) {
          const c: any = await until(`${signal}: the condition`, checks.condition, 180, 1000);
          seconds.condition = after();
          observed.push(`${c.type} ${c.status} ${c.reason}: ${c.message}`);
        }
        const m = await until(`${signal}: the metric in Prometheus`, checks.metric, 180, 2000);
        seconds.metric = after();
        observed.push(String(m));
        const note = await until(`${signal}: ${checks.alert} delivered`, () => p.received(checks.alert), 180, 2000);
        seconds.delivered = after();
        observed.push(`${checks.alert} received at ${note.receivedAt}`);
        results.push({ signal, caused, ok: true, seconds, observed: observed.join('; '), action });
        process.stdout.write(`ok   ${signal} ${JSON.stringify(seconds)} ${observed.join('; ')}\n`);
      } catch (err) {
        results.push({ signal, caused, ok: false, action, error: (err as Error).message });
        process.stdout.write(`FAIL ${signal}: ${(err as Error).message}\n`);
      }
    };
    const gauge = (q: string, ok: (v: number) => boolean) => () => {
      const r = p.query(q)[0];
      return r && ok(Number(r.value[1])) ? `${q} = ${r.value[1]}` : undefined;
    };

    const age = Number(p.psql(POD, 'select max(age(datfrozenxid)) from pg_database'));
    const threshold = Math.max(1000, age + 500);
    await run(
      'XidAge',
      `xidAgeThreshold ${threshold} (the age was ${age}), then 1000 transactions consumed`,
      'none (reported: a VACUUM FREEZE is the DBA call)',
      () => {
        p.patchAnomalies({ xidAgeThreshold: threshold });
        assert(p.condition('XidAgeHigh')?.status !== 'True', 'XidAgeHigh already True before the XIDs were consumed');
        p.psql(
          POD,
          'create or replace procedure e2e_burn(n int) language plpgsql as $$ begin for i in 1..n loop perform txid_current(); commit; end loop; end $$',
        );
        p.psql(POD, 'call e2e_burn(1000)');
      },
      {
        condition: () => p.condition('XidAgeHigh')?.status === 'True' && p.condition('XidAgeHigh'),
        metric: gauge(`max(sampledb_xid_age{name="${DB}"})`, (v) => v > threshold),
        alert: 'SampleDBXidAgeHigh',
      },
    );

    const clients: Client[] = [];
    await run(
      'ConnectionSaturation',
      'connectionSaturationPercent 10 of max_connections 100, then 12 client connections through <db>-rw',
      'none (reported; on standbys connection use drives spec.autoscaling)',
      async () => {
        p.patchAnomalies({ connectionSaturationPercent: 10 });
        for (let i = 0; i < 12; i++) {
          const c = p.client(`e2e-saturation-${i}`);
          c.on('error', () => undefined);
          await until(`connection ${i}`, () => c.connect().then(() => true), 30, 1000);
          clients.push(c);
        }
      },
      {
        condition: () => p.condition('ConnectionsSaturated')?.status === 'True' && p.condition('ConnectionsSaturated'),
        metric: gauge(`max(sampledb_connections{name="${DB}"})`, (v) => v >= 10),
        alert: 'SampleDBConnectionsSaturated',
      },
    );
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));

    await run(
      'BackupFailed',
      `${FAILING_BACKUP}'s output path made a directory on the backup volume, then kubectl create job --from=cronjob/${DB}-backup ${FAILING_BACKUP}`,
      'none (reported; the next scheduled backup runs as usual)',
      async () => {
        await blockBackupOutput(h, `${FAILING_BACKUP}.dump.partial`);
        h.kubectl('create', 'job', '-n', NS, `--from=cronjob/${DB}-backup`, FAILING_BACKUP);
      },
      {
        condition: () => p.condition('BackupSucceeded')?.status === 'False' && p.condition('BackupSucceeded'),
        metric: gauge(`max(sampledb_backup_failed{name="${DB}"})`, (v) => v === 1),
        alert: 'SampleDBBackupFailed',
      },
    );

    await run(
      'VolumeNearlyFull',
      'rows inserted until the database uses more than 90 % of its 128Mi claim',
      'storageAutoGrow when configured (not here: the alert is what is left)',
      () => {
        p.psql(POD, 'create table if not exists e2e_fill (id int, pad text)');
        for (let i = 0; i < 20; i++) {
          const used = Number(
            p.psql(POD, 'select sum(pg_database_size(oid)) + (select sum(size) from pg_ls_waldir()) from pg_database'),
          );
          if (used > 0.93 * 128 * 2 ** 20) return;
          p.psql(POD, `insert into e2e_fill select g, repeat('x', 1000) from generate_series(1, 10000) g`);
        }
      },
      {
        metric: gauge(
          `max(sampledb_volume_used_bytes{name="${DB}"}) / max(sampledb_volume_capacity_bytes{name="${DB}"})`,
          (v) => v > 0.9,
        ),
        alert: 'SampleDBVolumeNearlyFull',
      },
    );
  } finally {
    load.atEnd = load1m();
    try {
      restoreFor?.();
      h.kubectl('delete', 'sampledb', DB, '-n', NS, '--wait=false');
    } catch (err) {
      process.stdout.write(`cleanup: ${(err as Error).message}\n`);
    }
    mkdirSync(join(ROOT, 'bench/latest'), { recursive: true });
    writeFileSync(
      OUT,
      JSON.stringify(
        {
          what: 'SampleDB anomalies caused on the real node, each followed to the alert Alertmanager delivers (npm run autopilot:anomalies)',
          date: new Date().toISOString(),
          loadAverage1m: load,
          alertFor:
            '5s on the cluster for the wait (shipped: 1m; SampleDBVolumeNearlyFull 5m; SampleDBBackupFailed none)',
          seconds: Math.round((Date.now() - started) / 1000),
          results,
        },
        null,
        2,
      ) + '\n',
    );
    process.stdout.write(`wrote ${OUT}\n`);
    cluster.down();
  }
  if (results.length < 4 || results.some((r) => !r.ok)) process.exitCode = 1;
}

/** Makes `/backups/<name>` a directory on the database's backup volume (a pod like the backup Jobs' mounts it). */
async function blockBackupOutput(h: NodeHarness, name: string): Promise<void> {
  const pod = `${DB}-e2e-block-backup`;
  h.apply({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: pod, namespace: NS },
    spec: {
      restartPolicy: 'Never',
      securityContext: podSecurityContext(),
      containers: [
        {
          name: 'mkdir',
          image: 'postgres:16.4',
          imagePullPolicy: 'IfNotPresent',
          command: ['mkdir', '-p', `/backups/${name}`],
          securityContext: containerSecurityContext(),
          volumeMounts: [{ name: 'backups', mountPath: '/backups' }],
        },
      ],
      volumes: [{ name: 'backups', persistentVolumeClaim: { claimName: `${DB}-backups` } }],
    },
  });
  await until(`${pod} Succeeded`, () => h.json('get', 'pod', pod, '-n', NS).status?.phase === 'Succeeded', 120, 1000);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
