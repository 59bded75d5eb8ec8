/**
 * SampleDB's automatic scaling on the real node (docs/sampledb-autopilot.md), short form, each on a database of its
 * own beside the autopilot suite's (run.ts runs the two at once: they share only the SampleDB operator, and every
 * check reads its own database's Events, metrics and claims):
 *
 * 1. Storage auto-grow fills a small volume past its trigger (storageAutoGrow below).
 * 2. Replica auto-scaling: read connections on the standby scale a synchronous database out, and in again after the
 *    window once they close; 0 acknowledged writes lost (replicaAutoscaling below).
 */
import { Client } from 'pg';
import { eventsOf, NS } from './autopilot';
import { NodeHarness, assert, sleep, until } from '../harness';

export default async function autoscaling(h: NodeHarness): Promise<void> {
  await h.step('dist/ applied: the SampleDB operator running', () => h.ensureDistApplied());
  await storageAutoGrow(h);
  await replicaAutoscaling(h);
}

const GROW_DB = 'grow-db';

/**
 * Storage auto-grow: a 256Mi data volume (trigger 75 %, step 50 %, limit 512Mi) filled by a writer through <db>-rw:
 * the claim grows to 384Mi, then to the 512Mi limit, then StorageAutoGrow is False LimitReached; no write fails.
 */
async function storageAutoGrow(h: NodeHarness): Promise<void> {
  const json = h.json.bind(h);
  const step = h.step.bind(h);
  const sdb = () => json('get', 'sampledb', GROW_DB, '-n', NS);
  const condition = (type: string) => (sdb().status?.conditions ?? []).find((c: { type: string }) => c.type === type);
  const claim = () => json('get', 'pvc', `data-${GROW_DB}-0`, '-n', NS);
  let client: Client | undefined;
  const connect = async () => {
    const secret = json('get', 'secret', `${GROW_DB}-credentials`, '-n', NS);
    const dec = (k: string) => Buffer.from(secret.data[k], 'base64').toString();
    const c = new Client({
      host: json('get', 'service', `${GROW_DB}-rw`, '-n', NS).spec.clusterIP,
      user: dec('username'),
      password: dec('password'),
      database: dec('database'),
      port: 5432,
      connectionTimeoutMillis: 5000,
      query_timeout: 60000,
    });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };
  let batches = 0;
  const failed: string[] = [];
  /** Writes ~8 MB rows (incompressible md5 text) in one statement; every failure is recorded. */
  const fill = async (times: number) => {
    for (let n = 0; n < times; n++) {
      try {
        client ??= await connect();
        await client.query(
          "insert into fill (v) select (select string_agg(md5(random()::text || g::text || s::text), '') from generate_series(1, 32) s) from generate_series(1, 256 * 32) g",
        );
        batches++;
      } catch (err) {
        failed.push((err as Error).message);
        await client?.end().catch(() => undefined);
        client = undefined;
      }
    }
  };
  const sizeOf = (c: any) => `${c.spec.resources.requests.storage} requested / ${c.status?.capacity?.storage} capacity`;

  await step(
    'storage auto-grow: filling a 256Mi volume past 75 % grows the claim to 384Mi, then to the 512Mi limit (LimitReached); no write fails',
    async () => {
      h.apply({
        apiVersion: 'database.example.com/v2',
        kind: 'SampleDB',
        metadata: { name: GROW_DB, namespace: NS },
        spec: {
          version: '16.4',
          replicas: 1,
          storage: '256Mi',
          storageAutoGrow: { trigger: 75, step: 50, limit: '512Mi' },
        },
      });
      await until('running', () => sdb().status?.phase === 'Running' && sdb().status?.currentPrimary, 240, 1000);
      await until(
        'table fill',
        async () => {
          client ??= await connect();
          await client.query('create table if not exists fill (id bigserial primary key, v text)');
          return true;
        },
        60,
        1000,
      );
      const start = sizeOf(claim());
      const seen: string[] = [];
      // at least `size`: under a fast fill the claim may pass 384Mi on its way to 512Mi between two looks (the
      // VolumeGrown events below show each step)
      const mi = (q: string | undefined) => {
        const m = /^(\d+)(Mi|Gi)$/.exec(q ?? '');
        return m ? Number(m[1]) * (m[2] === 'Gi' ? 1024 : 1) : 0;
      };
      const atLeast = (size: string) => mi(claim().status?.capacity?.storage) >= mi(size);
      const grownTo = async (size: string) => {
        for (let i = 0; i < 60 && !atLeast(size); i++) {
          await fill(1);
          const s = sdb().status?.storage;
          if (s) seen.push(`${s.usedPercent}%/${s.capacity}`);
          await sleep(1000);
        }
        await until(`capacity ${size} or more`, () => atLeast(size), 60, 1000);
      };
      await grownTo('384Mi');
      const first = sizeOf(claim());
      await grownTo('512Mi');
      const second = sizeOf(claim());
      for (let i = 0; i < 60 && condition('StorageAutoGrow')?.reason !== 'LimitReached'; i++) {
        await fill(1);
        await sleep(1000);
      }
      const c = await until(
        'StorageAutoGrow False LimitReached',
        () => condition('StorageAutoGrow')?.reason === 'LimitReached' && condition('StorageAutoGrow'),
        60,
        1000,
      );
      await client?.end().catch(() => undefined);
      assert(failed.length === 0, `writes failed: ${failed.join(' | ')}`);
      assert(claim().spec.resources.requests.storage === '512Mi', 'the claim never grows past the limit');
      const grown = eventsOf(h, GROW_DB, 'VolumeGrown').map((e) => e.message);
      assert(grown.length >= 2, `VolumeGrown events: ${JSON.stringify(grown)}`);
      return `claim ${start} → ${first} → ${second}; ${batches} batches of ~8 MB written, 0 failed; use seen ${seen
        .filter((x, i, a) => a.indexOf(x) === i)
        .slice(-6)
        .join(' ')}; ${c.reason}: ${c.message}; events: ${grown.join(' | ')}`;
    },
  );

  h.kubectl('delete', 'sampledb', GROW_DB, '-n', NS, '--wait=false');
}

const SCALE_DB = 'scale-db';

/**
 * Replica auto-scaling (spec.autoscaling) with a writer through <db>-rw (synchronous): 30 idle client connections on
 * the standby through <db>-ro (max_connections 100, target 20 %) scale 2 → 3 instances; closed, the database goes
 * back to 2 after the 15 s window, not below (synchronous, minReplicas 2). Events Autoscaled, the action metric.
 */
async function replicaAutoscaling(h: NodeHarness): Promise<void> {
  const json = h.json.bind(h);
  const sdb = () => json('get', 'sampledb', SCALE_DB, '-n', NS);
  const running = (n: number) => {
    const s = sdb();
    return s.spec.replicas === n &&
      s.status?.readyReplicas === n &&
      (s.status?.instances ?? []).filter((i: { ready: boolean }) => i.ready).length === n
      ? s
      : undefined;
  };
  const endpoint = (service: string) => {
    const secret = json('get', 'secret', `${SCALE_DB}-credentials`, '-n', NS);
    const dec = (k: string) => Buffer.from(secret.data[k], 'base64').toString();
    return {
      host: json('get', 'service', service, '-n', NS).spec.clusterIP,
      user: dec('username'),
      password: dec('password'),
      database: dec('database'),
      port: 5432,
      connectionTimeoutMillis: 5000,
      query_timeout: 10000,
    };
  };
  const open = async (service: string) => {
    const c = new Client(endpoint(service));
    c.on('error', () => undefined);
    await c.connect();
    return c;
  };

  await h.step(
    'replica auto-scaling: 30 read connections on the standby scale 2 → 3, closed they scale back to 2 after the window; 0 acknowledged writes lost',
    async () => {
      h.apply({
        apiVersion: 'database.example.com/v2',
        kind: 'SampleDB',
        metadata: { name: SCALE_DB, namespace: NS },
        spec: {
          version: '16.4',
          replicas: 2,
          synchronous: true,
          autoscaling: {
            minReplicas: 2,
            maxReplicas: 3,
            targetConnectionUsePercent: 20,
            stabilizationWindowSeconds: 15,
            cooldownSeconds: 0,
          },
        },
      });
      await until('2 instances running', () => running(2) && sdb().status?.phase === 'Running', 300, 1000);
      const rw = await until('connected through -rw', () => open(`${SCALE_DB}-rw`), 60, 1000);
      await rw.query('create table if not exists w (id int primary key)');
      const acked: number[] = [];
      let stop = false;
      let writer: Client | undefined = rw;
      const writing = (async () => {
        for (let id = 1; !stop; id++) {
          try {
            writer ??= await open(`${SCALE_DB}-rw`);
            await writer.query('insert into w (id) values ($1)', [id]);
            acked.push(id);
          } catch {
            await writer?.end().catch(() => undefined);
            writer = undefined;
          }
          await sleep(100);
        }
      })();
      // one by one, each retried: the -ro Service's endpoints may lag the instances' readiness by a moment
      const readers: Client[] = [];
      let outAfter = 0;
      let inAfter = 0;
      try {
        for (let i = 0; i < 30; i++) {
          readers.push(await until('a read connection', () => open(`${SCALE_DB}-ro`), 60, 1000));
        }
        const t0 = Date.now();
        await until('3 instances running', () => running(3), 300, 1000);
        outAfter = (Date.now() - t0) / 1000;
        await Promise.all(readers.splice(0).map((c) => c.end().catch(() => undefined)));
        const t1 = Date.now();
        await until('back to 2 instances', () => running(2), 240, 1000);
        inAfter = (Date.now() - t1) / 1000;
        await sleep(20_000); // longer than the window: it stays at minReplicas
        assert(sdb().spec.replicas === 2, `stays at 2 (minReplicas): ${sdb().spec.replicas}`);
      } finally {
        // a failure above must not leave the writer running or the readers open (the suites after this one go on)
        stop = true;
        await writing;
        await writer?.end().catch(() => undefined);
        await Promise.all(readers.map((c) => c.end().catch(() => undefined)));
      }
      const rows = new Set(
        (
          await until('the rows', async () => (await open(`${SCALE_DB}-rw`)).query('select id from w'), 60, 1000)
        ).rows.map((r: { id: number }) => r.id),
      );
      const lost = acked.filter((id) => !rows.has(id));
      assert(lost.length === 0, `acknowledged writes lost: ${lost.join(',')}`);
      const scaled = eventsOf(h, SCALE_DB, 'Autoscaled').map((e) => e.message);
      assert(scaled.length === 2, `two Autoscaled events: ${JSON.stringify(scaled)}`);
      return `out to 3 in ${outAfter.toFixed(0)}s, back to 2 in ${inAfter.toFixed(0)}s after the connections closed (window 15s); ${acked.length} acknowledged writes, 0 lost; events: ${scaled.join(' | ')}`;
    },
  );

  h.kubectl('delete', 'sampledb', SCALE_DB, '-n', NS, '--wait=false');
}
