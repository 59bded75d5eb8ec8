/**
 * What the operator learns from each database pod: the pod's state (from the cache) and, over a
 * PostgreSQL connection to the pod's IP, whether the instance is in recovery (a standby), how far
 * its WAL reaches, and its timeline. Also the few commands the operator sends to PostgreSQL:
 * `pg_promote()`, the replication user, and `synchronous_standby_names`.
 *
 * The connection uses the database superuser from the credentials Secret; one session per instance stays open
 * between reconciles (pg-sessions.ts).
 */
import { Client } from 'pg';
import { Activity } from './anomalies';
import { Credentials } from './credentials';
import { PgSessions } from './pg-sessions';
import { historyFile, placeholderHistory } from './timeline-reservation';
import { isParameterName } from './tuning';
import { LABEL_POD_REVISION, LABEL_ROLE, Pod, WATCHDOG_APPLICATION } from './types';
import { Stored } from '../../runtime';

/** One instance's PostgreSQL state. */
export interface PgState {
  /** In recovery: a standby. */
  readonly recovery: boolean;
  /**
   * WAL position: current insert position on a primary; on a standby the last received or replayed, whichever is
   * further (a WAL receiver that just started reports the start of its segment).
   */
  readonly lsn: bigint;
  /** Last replayed WAL position (standbys). */
  readonly replayLsn?: bigint;
  /**
   * A primary's: its insert timeline. A standby's: the newest of its WAL receiver's, of its WAL files' names and of its
   * last restartpoint's. The WAL receiver stops when the primary is gone, and a standby that followed the last promotion
   * may have had no restartpoint since: read from there alone it looked a timeline behind, and the failover promoted a
   * standby with less WAL (an acknowledged write lost in the chaos suite; failover-candidate.postgres.test.ts).
   */
  readonly timeline?: number;
  /**
   * The timeline of the last checkpoint in the control file. Right after a promotion it still names
   * the old timeline until the first checkpoint on the new one; pg_rewind reads a source's timeline
   * from there, so until then a former primary rewinding from this instance is told "no rewind
   * required" and starts as a standby whose WAL has diverged (seen on the real node).
   */
  readonly checkpointTimeline?: number;
  /**
   * The history of its timeline (`pg_wal/<timeline>.history`), each earlier timeline and the WAL position where it
   * ended, oldest first; empty on timeline 1. A standby's only when its file could be read. A standby that replayed
   * past where its history and the primary's part holds WAL the primary never had, and cannot follow it
   * (diverged-standbys.ts): a timeline ID alone does not tell, as two promotions can take one ID.
   */
  readonly timelineHistory?: readonly TimelineSwitch[];
  /** The primary's `synchronous_standby_names`. */
  readonly synchronousStandbyNames: string;
  /**
   * A primary's: the standbys streaming from it (their `application_name`, the pod's name), the only ones synchronous
   * replication can wait for (PostgreSQL counts a WAL sender only once it streams).
   */
  readonly streaming?: readonly string[];
  /** A primary's: the furthest WAL position a standby streaming from it has flushed. */
  readonly streamingFlushLsn?: bigint;
  /** Settings changed in the configuration files that only a restart applies (`pg_settings.pending_restart`). */
  readonly pendingRestart?: readonly string[];
  /** Bytes of the data volume the instance uses, as PostgreSQL reports them: its databases and its WAL. */
  readonly usedBytes?: number;
  /** When this instance last stopped itself as an isolated primary (ISO time; fencing.ts), as its script passed it. */
  readonly lastSelfFence?: string;
  /** Client connections, the operator's own excluded (replica auto-scaling, autoscaling.ts). */
  readonly connections?: number;
  /** `max_connections`. */
  readonly maxConnections?: number;
}

/** A line of a timeline history file: `timeline` ended at `lsn` (where the next one forked off it). */
export interface TimelineSwitch {
  readonly timeline: number;
  readonly lsn: bigint;
}

/**
 * The lines of a timeline history file (`1\t0/3000060\tno recovery target specified`); comments, blank and malformed
 * lines are skipped.
 */
export function parseTimelineHistory(text: string | null | undefined): TimelineSwitch[] {
  const out: TimelineSwitch[] = [];
  for (const line of (text ?? '').split('\n')) {
    const m = /^\s*(\d+)\s+([0-9A-Fa-f]+\/[0-9A-Fa-f]+)/.exec(line);
    const lsn = m ? parseLsn(m[2]) : undefined;
    if (m && lsn !== undefined) out.push({ timeline: Number(m[1]), lsn });
  }
  return out;
}

/** What {@link InstanceClient.applyParameters} did. */
export interface ParametersApplied {
  /** Settings written (ALTER SYSTEM SET) or removed (RESET) on this instance; a reload followed when any. */
  readonly changed: readonly string[];
  /** Why a setting was refused (e.g. PostgreSQL's "invalid value for parameter"), when one was. */
  readonly error?: string;
}

/** One database pod as the reconcile sees it. */
export interface Instance {
  readonly name: string;
  readonly ordinal: number;
  readonly pod?: Stored<Pod>;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly createdAt?: string;
  readonly ip?: string;
  /** Value of the role label. */
  readonly labelRole?: string;
  /** The pod runs an older template than the StatefulSet's (statefulset.ts, OnDelete): the operator replaces it. */
  readonly outdated?: boolean;
  /** Undefined when PostgreSQL did not answer. */
  readonly pg?: PgState;
}

/** Talks to instances (the tests of the planner replace it; the reconciler uses {@link PgInstanceClient}). */
export interface InstanceClient {
  state(ip: string, credentials: Credentials): Promise<PgState | undefined>;
  /** See {@link PgInstanceClient.promote}. */
  promote(ip: string, credentials: Credentials, reservedThrough?: number): Promise<void>;
  /** Creates the replication user when missing and sets `synchronous_standby_names` (no-op when equal). */
  configurePrimary(ip: string, credentials: Credentials, synchronousStandbyNames: string): Promise<void>;
  /**
   * Makes the instance's `postgresql.auto.conf` hold exactly `parameters` (plus the settings in `keep`, which other
   * steps own), with ALTER SYSTEM, then reloads when anything changed. No write when it already does.
   */
  applyParameters(
    ip: string,
    credentials: Credentials,
    parameters: Readonly<Record<string, string>>,
    keep: readonly string[],
  ): Promise<ParametersApplied>;
  /**
   * Sessions, connections and transaction ID age on the primary (anomalies.ts). Client sessions idle in a transaction
   * for more than `idleSeconds` are listed, and terminated when `terminate`.
   */
  activity(ip: string, credentials: Credentials, idleSeconds: number, terminate: boolean): Promise<Activity>;
  /**
   * Ends every client session of the instance, the operator's own last: a standby stops cleanly on SIGTERM (PostgreSQL's
   * smart shutdown waits for every session) only without them. Never throws (the instance may be gone).
   */
  endSessions(ip: string, credentials: Credentials): Promise<void>;
}

/** Byte position → `16/B374D848` (the inverse of {@link parseLsn}). */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
}

/** `16/B374D848` → bigint byte position. */
export function parseLsn(lsn: string | null | undefined): bigint | undefined {
  if (!lsn) return undefined;
  const [hi, lo] = lsn.split('/');
  return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
}

/** The operator's sessions' `application_name`. */
const OPERATOR_APPLICATION = 'sampledb-operator';
/** Our own sessions (the operator's, each instance's self-fencing loop) are not clients of the database. */
const NOT_OURS = `application_name not in ('${OPERATOR_APPLICATION}', '${WATCHDOG_APPLICATION}')`;

/** A standby's timeline ({@link PgState.timeline}). */
const STANDBY_TIMELINE_SQL = `greatest((select received_tli from pg_stat_wal_receiver limit 1), (select timeline_id from pg_control_checkpoint()),
      (select ('x' || max(substr(name, 1, 8)))::bit(32)::int from pg_ls_waldir() where name ~ '^[0-9A-F]{24}$'))`;

/**
 * One poll of an instance. `pending_restart`: the settings that wait for a restart, from the postmaster
 * (`pg_settings`) and from `postgresql.auto.conf` as it is now (`pg_file_settings` reads the file at each query): a
 * setting ALTER SYSTEM just wrote is pending at once, while `pg_settings` says so only once the postmaster processed
 * the reload. Read too early (a loaded node), a standby whose restart setting was just written looked restarted, and the
 * primary was switched over to it, then back (two switchovers instead of one, seen on the real node).
 */
const STATE_SQL = `select *,
  case when timeline > 1 then pg_read_file('pg_wal/' || lpad(upper(to_hex(timeline)), 8, '0') || '.history', 0, 65536, true) end as history
from (select pg_is_in_recovery() as recovery,
  case when pg_is_in_recovery() then greatest(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::text else pg_current_wal_lsn()::text end as lsn,
  pg_last_wal_replay_lsn()::text as replay,
  case when pg_is_in_recovery() then ${STANDBY_TIMELINE_SQL}
    else ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::int end as timeline,
  (select timeline_id from pg_control_checkpoint()) as checkpoint_timeline,
  current_setting('synchronous_standby_names') as sync,
  case when pg_is_in_recovery() then null
    else array(select application_name from pg_stat_replication where state = 'streaming' order by 1) end as streaming,
  (select max(flush_lsn)::text from pg_stat_replication where state = 'streaming') as streaming_flush,
  array(select name from pg_settings where pending_restart
    union select name from pg_file_settings where sourcefile like '%/postgresql.auto.conf' and error = 'setting could not be applied'
    order by name) as pending_restart,
  ((select sum(pg_database_size(oid)) from pg_database) + (select coalesce(sum(size), 0) from pg_ls_waldir()))::bigint::text as used_bytes,
  nullif(current_setting('sampledb.last_self_fence', true), '') as last_self_fence,
  (select count(*) from pg_stat_activity where backend_type = 'client backend' and pid <> pg_backend_pid()
    and ${NOT_OURS})::int as connections,
  current_setting('max_connections')::int as max_connections) as state`;

/**
 * {@link InstanceClient} over node-postgres. Each call answers within `timeoutMs` to connect (or a kept session's
 * ping), then within three times that to do its work, or fails: the reconcile polls every instance at once and waits
 * for the slowest, so an instance that froze in the middle of a call (a stopped process, a partition after the ping)
 * held the whole database's failover until the 30 s statement timeout (a node suite's step saw no failover decision
 * for 34 s after the primary's deletion, and the old primary's pod came back first). `promote` alone keeps the
 * statement timeout: pg_promote waits for the promotion itself.
 */
export class PgInstanceClient implements InstanceClient {
  private readonly sessions: PgSessions;
  private readonly callMs: number;

  constructor(
    timeoutMs = 3000,
    private readonly port = 5432,
  ) {
    this.callMs = timeoutMs * 3;
    this.sessions = new PgSessions({
      timeoutMs,
      config: {
        database: 'postgres',
        statement_timeout: timeoutMs * 10,
        query_timeout: timeoutMs * 10,
        application_name: OPERATOR_APPLICATION,
      },
    });
  }

  /** Closes the sessions kept open (tests; in the operator idle ones close by themselves and hold no process open). */
  close(): Promise<void> {
    return this.sessions.close();
  }

  /** Runs `fn` on a session to the instance, within {@link callMs} unless `bounded` is false (the statement timeout). */
  private withClient<T>(ip: string, c: Credentials, fn: (client: Client) => Promise<T>, bounded = true): Promise<T> {
    const target = { host: ip, port: this.port, user: c.username, password: c.password };
    return this.sessions.run(target, fn, bounded ? this.callMs : undefined);
  }

  async state(ip: string, c: Credentials): Promise<PgState | undefined> {
    try {
      return await this.withClient(ip, c, async (client) => {
        const row = (await client.query(STATE_SQL)).rows[0];
        return {
          recovery: row.recovery === true,
          lsn: parseLsn(row.lsn) ?? 0n,
          replayLsn: parseLsn(row.replay),
          timeline: row.timeline === null ? undefined : Number(row.timeline),
          checkpointTimeline: row.checkpoint_timeline === null ? undefined : Number(row.checkpoint_timeline),
          // a standby's is judged only when its file was there (a primary's reads as none where it was not)
          ...(row.recovery !== true || row.history !== null || Number(row.timeline) === 1
            ? { timelineHistory: parseTimelineHistory(row.history) }
            : {}),
          synchronousStandbyNames: row.sync ?? '',
          ...(row.streaming ? { streaming: row.streaming } : {}),
          ...(row.streaming_flush ? { streamingFlushLsn: parseLsn(row.streaming_flush) } : {}),
          pendingRestart: row.pending_restart ?? [],
          usedBytes: row.used_bytes === null ? undefined : Number(row.used_bytes),
          lastSelfFence: row.last_self_fence ?? undefined,
          connections: row.connections,
          maxConnections: row.max_connections,
        };
      });
    } catch {
      return undefined;
    }
  }

  /**
   * Promotes the instance (when in recovery), then checkpoints it once it left recovery, so that its
   * control file names the new timeline (see {@link PgState.checkpointTimeline}). Before the promotion, every ID up to
   * `reservedThrough` but its own timeline's that has no history file in its `pg_wal` gets a placeholder
   * (timeline-reservation.ts), written by the server (`COPY … TO`, a superuser's right, allowed on a standby).
   */
  async promote(ip: string, c: Credentials, reservedThrough = 0): Promise<void> {
    await this.withClient(
      ip,
      c,
      async (client) => {
        const { rows } = await client.query(
          `select pg_is_in_recovery() as recovery, current_setting('data_directory') as dir,
            case when pg_is_in_recovery() then ${STANDBY_TIMELINE_SQL} end as timeline`,
        );
        if (rows[0].recovery) {
          // every ID but its own: PostgreSQL walks up from the timeline it recovers along, which can be below the
          // newest its WAL files name, and stops at the first ID without a file
          const present = new Set(
            (
              await client.query("select 'pg_wal/' || name as file from pg_ls_waldir() where name like '%.history'")
            ).rows.map((r: { file: string }) => r.file),
          );
          for (let id = 2; id <= reservedThrough; id++) {
            const file = historyFile(id);
            if (id === Number(rows[0].timeline) || present.has(file)) continue;
            const path = `${rows[0].dir}/${file}`.replace(/'/g, "''");
            await client.query(`copy (select '${placeholderHistory(id)}') to '${path}'`);
          }
          await client.query('select pg_promote(true, 60)');
        }
        if (!(await client.query('select pg_is_in_recovery() as recovery')).rows[0].recovery) {
          await client.query('checkpoint');
        }
      },
      false,
    );
  }

  async applyParameters(
    ip: string,
    c: Credentials,
    parameters: Readonly<Record<string, string>>,
    keep: readonly string[],
  ): Promise<ParametersApplied> {
    return this.withClient(ip, c, async (client) => {
      // What ALTER SYSTEM wrote before (the file's literal values; a standby has its own file, cloned from the primary's).
      // Rows of settings waiting for a restart carry error 'setting could not be applied': they count as written.
      const { rows } = await client.query(
        "select name, setting from pg_file_settings where sourcefile like '%/postgresql.auto.conf'",
      );
      const written = new Map<string, string>(rows.map((r: { name: string; setting: string }) => [r.name, r.setting]));
      const changed: string[] = [];
      let error: string | undefined;
      const run = async (name: string, sql: string, params: string[]) => {
        try {
          const { rows: built } = await client.query(sql, params);
          await client.query(built[0].sql);
          changed.push(name);
        } catch (err) {
          error ??= `${name}: ${err instanceof Error ? err.message : String(err)}`;
        }
      };
      for (const [name, value] of Object.entries(parameters)) {
        if (isParameterName(name) && written.get(name) !== value) {
          await run(name, "select format('ALTER SYSTEM SET %s = %L', $1::text, $2::text) as sql", [name, value]);
        }
      }
      for (const name of written.keys()) {
        if (!(name in parameters) && !keep.includes(name) && isParameterName(name)) {
          await run(name, "select format('ALTER SYSTEM RESET %s', $1::text) as sql", [name]);
        }
      }
      if (changed.length) await client.query('select pg_reload_conf()');
      return { changed, ...(error ? { error } : {}) };
    });
  }

  async activity(ip: string, c: Credentials, idleSeconds: number, terminate: boolean): Promise<Activity> {
    return this.withClient(ip, c, async (client) => {
      const clients = `backend_type = 'client backend' and pid <> pg_backend_pid() and ${NOT_OURS}`;
      const {
        rows: [row],
      } = await client.query(`select
        coalesce((select max(extract(epoch from now() - xact_start)) from pg_stat_activity where ${clients} and xact_start is not null), 0)::float8 as longest,
        (select count(*) from pg_stat_activity where backend_type = 'client backend')::int as connections,
        current_setting('max_connections')::int as max_connections,
        (select max(age(datfrozenxid)) from pg_database)::bigint::text as xid_age`);
      const { rows: idle } = await client.query(
        `select pid, usename as user, application_name as application, extract(epoch from now() - state_change)::float8 as seconds
        from pg_stat_activity where ${clients} and state like 'idle in transaction%' and now() - state_change > make_interval(secs => $1)`,
        [idleSeconds],
      );
      if (terminate) for (const r of idle) await client.query('select pg_terminate_backend($1)', [r.pid]);
      return {
        longestTransactionSeconds: Number(row.longest),
        connections: row.connections,
        maxConnections: row.max_connections,
        xidAge: Number(row.xid_age),
        idleInTransaction: idle.map((r: { pid: number; user: string; application: string; seconds: number }) => ({
          pid: r.pid,
          user: r.user,
          application: r.application,
          seconds: Math.round(r.seconds),
        })),
        terminated: terminate && idle.length > 0,
      };
    });
  }

  async endSessions(ip: string, c: Credentials): Promise<void> {
    // The operator's own session ends with the statement (an error), and is then closed, not kept.
    await this.withClient(ip, c, (client) =>
      client.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where backend_type = 'client backend'
          order by pid = pg_backend_pid()`,
      ),
    ).catch(() => undefined);
  }

  async configurePrimary(ip: string, c: Credentials, synchronousStandbyNames: string): Promise<void> {
    await this.withClient(ip, c, async (client) => {
      const role = await client.query('select 1 from pg_roles where rolname = $1', [c.replicationUsername]);
      if (role.rowCount === 0) {
        const { rows } = await client.query(
          "select format('CREATE ROLE %I WITH REPLICATION LOGIN PASSWORD %L', $1::text, $2::text) as sql",
          [c.replicationUsername, c.replicationPassword],
        );
        await client.query(rows[0].sql);
      }
      const current = (await client.query("select current_setting('synchronous_standby_names') as v")).rows[0].v;
      if (current !== synchronousStandbyNames) {
        const { rows } = await client.query(
          "select format('ALTER SYSTEM SET synchronous_standby_names = %L', $1::text) as sql",
          [synchronousStandbyNames],
        );
        await client.query(rows[0].sql);
        await client.query('select pg_reload_conf()');
      }
    });
  }
}

/** The pod's Ready condition. */
export function podReady(pod: Pod | undefined): boolean {
  const conditions = pod?.status?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** Instances 0..count-1 (and any pod beyond, still terminating), probed in parallel. */
export async function observeInstances(
  dbName: string,
  pods: readonly Stored<Pod>[],
  count: number,
  client: InstanceClient,
  credentials: Credentials | undefined,
  updateRevision?: string,
): Promise<Instance[]> {
  const byName = new Map(pods.map((p) => [p.metadata.name, p]));
  const ordinals = new Set<number>();
  for (let i = 0; i < count; i++) ordinals.add(i);
  for (const p of pods) {
    const m = new RegExp(`^${dbName}-(\\d+)$`).exec(p.metadata.name);
    if (m) ordinals.add(Number(m[1]));
  }
  return Promise.all(
    [...ordinals]
      .sort((a, b) => a - b)
      .map(async (ordinal) => {
        const name = `${dbName}-${ordinal}`;
        const pod = byName.get(name);
        const ip = pod?.status?.podIP;
        const running = !!pod && !pod.metadata.deletionTimestamp;
        return {
          name,
          ordinal,
          pod,
          ready: podReady(pod),
          terminating: !!pod?.metadata.deletionTimestamp,
          createdAt: pod?.metadata.creationTimestamp,
          ip,
          labelRole: pod?.metadata.labels?.[LABEL_ROLE],
          outdated: !!pod && !!updateRevision && pod.metadata.labels?.[LABEL_POD_REVISION] !== updateRevision,
          pg: running && ip && credentials ? await client.state(ip, credentials) : undefined,
        };
      }),
  );
}
