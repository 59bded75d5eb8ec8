/**
 * Probes from the host, straight to each database pod's IP (not through a Service): does it commit
 * a write, is it in recovery, on which timeline; and the timeline history files of every instance.
 * The host keeps reaching a partitioned pod (the partition keeps the node), so the old primary is
 * probed while it is cut off from everything else.
 */
import { Client } from 'pg';
import { Probe, ProbeRound } from './fencing';

export interface DbCredentials {
  readonly user: string;
  readonly password: string;
  readonly database: string;
}

/** A connection that is destroyed (never cancelled) when `timeoutMs` passes. */
async function withClient<T>(
  host: string,
  c: DbCredentials,
  timeoutMs: number,
  fn: (client: Client) => Promise<T>,
): Promise<T> {
  const client = new Client({
    host,
    port: 5432,
    user: c.user,
    password: c.password,
    database: c.database,
    connectionTimeoutMillis: timeoutMs,
    application_name: 'chaos-probe',
  });
  client.on('error', () => undefined);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // Destroy the socket: a cancel of a commit waiting for a synchronous standby would return success.
      (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
      reject(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  });
  try {
    return await Promise.race([
      (async () => {
        await client.connect();
        return fn(client);
      })(),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
    void client.end().catch(() => undefined);
  }
}

const TIMELINE = "('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int";

/** One pod: try to commit a row into chaos_probe; on failure, ask whether it is in recovery. */
export async function probePod(pod: string, ip: string, c: DbCredentials, timeoutMs = 3000): Promise<Probe> {
  try {
    const rows = await withClient(
      ip,
      c,
      timeoutMs,
      async (client) =>
        (await client.query(`insert into chaos_probe (pod, tl) select $1, ${TIMELINE} returning tl`, [pod])).rows,
    );
    return { pod, acked: true, recovery: false, timeline: Number(rows[0].tl) };
  } catch {
    try {
      const rows = await withClient(
        ip,
        c,
        timeoutMs,
        async (client) =>
          (
            await client.query(
              `select pg_is_in_recovery() as r, case when pg_is_in_recovery() then null else ${TIMELINE} end as tl`,
            )
          ).rows,
      );
      return {
        pod,
        acked: false,
        recovery: rows[0].r === true,
        ...(rows[0].tl !== null ? { timeline: Number(rows[0].tl) } : {}),
      };
    } catch {
      return { pod, acked: false };
    }
  }
}

/** Every pod, in parallel: one round. */
export async function probeRound(
  pods: readonly { name: string; ip?: string }[],
  c: DbCredentials,
  timeoutMs = 3000,
): Promise<ProbeRound> {
  const at = Date.now();
  const probes = await Promise.all(pods.filter((p) => p.ip).map((p) => probePod(p.name, p.ip!, c, timeoutMs)));
  return { at, probes };
}

/** A write through a Service address (the `<db>-rw` ClusterIP from the host, through kube-proxy). */
export async function writeThrough(host: string, c: DbCredentials, timeoutMs = 5000): Promise<boolean> {
  try {
    await withClient(host, c, timeoutMs, (client) =>
      client.query(`insert into chaos_probe (pod, tl) select 'rw', ${TIMELINE}`),
    );
    return true;
  } catch {
    return false;
  }
}

/** Every timeline history file of one instance: timeline → content. */
export async function timelineHistories(ip: string, c: DbCredentials, timeoutMs = 5000): Promise<Map<number, string>> {
  return withClient(ip, c, timeoutMs, async (client) => {
    const { rows } = await client.query(
      "select name, pg_read_file('pg_wal/' || name) as text from pg_ls_waldir() where name like '%.history'",
    );
    return new Map(rows.map((r) => [parseInt(String(r.name).slice(0, 8), 16), String(r.text)]));
  });
}

/** Ids in the final table (read on the primary). */
export async function presentIds(host: string, c: DbCredentials): Promise<Set<number>> {
  return withClient(
    host,
    c,
    60_000,
    async (client) => new Set((await client.query('select id from chaos')).rows.map((r) => Number(r.id))),
  );
}

/** Runs statements (setup), retrying until `deadline`. */
export async function execUntil(host: string, c: DbCredentials, sql: readonly string[], timeoutS = 60): Promise<void> {
  const end = Date.now() + timeoutS * 1000;
  for (;;) {
    try {
      await withClient(host, c, 10_000, async (client) => {
        for (const s of sql) await client.query(s);
      });
      return;
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
