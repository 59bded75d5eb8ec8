/**
 * What the `*.postgres.test.ts` files need to run a real PostgreSQL on this machine, and their one-line skip notice.
 *
 * They run PostgreSQL's own binaries from Debian's layout as the `postgres` user (PostgreSQL refuses to run as root),
 * so they need root, `runuser` on the PATH and a `postgres` user; without, they skip and say what is missing.
 */
import { ChildProcess, spawn, spawnSync, SpawnSyncReturns } from 'child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { Credentials } from '../../../controllers/sampledb/credentials';
import { TIMELINE_TAKEN_TWICE_FUNCTION, WAL_KEEP_SIZE } from '../../../controllers/sampledb/instance-script';
import { PgInstanceClient, PgState } from '../../../controllers/sampledb/instances';

const PG_LIB = '/usr/lib/postgresql';

/** The newest PostgreSQL's bin folder under /usr/lib/postgresql, if any. */
export const pgBin: string | undefined = existsSync(PG_LIB)
  ? readdirSync(PG_LIB)
      .sort()
      .map((v) => join(PG_LIB, v, 'bin'))
      .reverse()
      .find((b) => existsSync(join(b, 'postgres')))
  : undefined;

/**
 * Where the `postgres` user's commands start: `/`, not the test's folder, which may be closed to it (a clone under a
 * home folder of mode 0700), and PostgreSQL's programs then print "could not change directory" on stderr.
 */
export const POSTGRES_CWD = '/';

/**
 * Whether a real PostgreSQL can run here as the `postgres` user, and whatever else `extra` checks (named in `needs`);
 * when not, one line on stderr saying `file` is skipped and why.
 */
export function canRunPostgres(
  file: string,
  extra?: { readonly needs: string; readonly check: () => boolean },
): boolean {
  const runnable =
    process.getuid?.() === 0 &&
    !!pgBin &&
    spawnSync('runuser', ['-u', 'postgres', '--', 'true']).status === 0 &&
    (extra?.check() ?? true);
  if (!runnable) {
    process.stderr.write(
      `${file}: skipped (needs root, ${extra ? `${extra.needs}, ` : ''}a PostgreSQL under ${PG_LIB}, runuser on the PATH and a postgres user)\n`,
    );
  }
  return runnable;
}

/**
 * A PostgreSQL of the host's binaries in a folder of its own (data, log, socket), run as the `postgres` user on
 * 127.0.0.1:`port` with trust authentication: initialised by the constructor, started by {@link start}.
 */
export class TestPostgres {
  /** The folder: data in `data/`, the server's log in `log`, its Unix socket here. */
  readonly dir: string;

  constructor(
    prefix: string,
    readonly port: number,
  ) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    chmodSync(this.dir, 0o777);
    const init = this.asPostgres(
      join(pgBin!, 'initdb'),
      '-D',
      join(this.dir, 'data'),
      '--auth=trust',
      '-U',
      'postgres',
    );
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  }

  /** pg_ctl on this server's data folder. */
  pgCtl(...args: string[]): SpawnSyncReturns<string> {
    return this.asPostgres(join(pgBin!, 'pg_ctl'), '-D', join(this.dir, 'data'), ...args);
  }

  /** Starts the server and waits until it accepts connections. */
  start(): void {
    const options = `-c listen_addresses=127.0.0.1 -c port=${this.port} -c unix_socket_directories=${this.dir}`;
    const r = this.pgCtl('-w', '-l', join(this.dir, 'log'), '-o', options, 'start');
    if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr}`);
  }

  /** A fast restart, its log file named again: the server would otherwise hold spawnSync's output pipe open. */
  restart(): void {
    const r = this.pgCtl('-m', 'fast', '-w', '-l', join(this.dir, 'log'), 'restart');
    if (r.status !== 0) throw new Error(`pg_ctl restart failed: ${r.stderr}`);
  }

  /** One statement through psql over the Unix socket; its output unaligned, tuples only. */
  psql(sql: string): string {
    return this.asPostgres('psql', '-h', this.dir, '-p', String(this.port), '-XAtqc', sql).stdout.trim();
  }

  /** Stops the server at once and removes its folder. */
  remove(): void {
    this.pgCtl('-m', 'immediate', 'stop');
    rmSync(this.dir, { recursive: true, force: true });
  }

  private asPostgres(command: string, ...args: string[]): SpawnSyncReturns<string> {
    return spawnSync('runuser', ['-u', 'postgres', '--', command, ...args], { encoding: 'utf8', cwd: POSTGRES_CWD });
  }
}

/**
 * Servers of the host's PostgreSQL in one folder, each run detached as the `postgres` user on 127.0.0.1 (trust
 * authentication), for tests that need several (a primary and its standbys). Their stderr is kept for the errors of
 * {@link until}.
 */
export class PostgresGroup {
  /** The folder: each server's data in a subfolder named after it, the Unix sockets here. */
  readonly dir: string;
  private readonly servers = new Map<string, ChildProcess>();
  private log = '';

  constructor(prefix: string) {
    this.dir = mkdtempSync(join(tmpdir(), prefix));
    chmodSync(this.dir, 0o777);
  }

  /** A PostgreSQL program (`initdb`, `pg_basebackup`…) as the `postgres` user; throws with its stderr when it fails. */
  run(command: string, ...args: string[]): void {
    const r = spawnSync('runuser', ['-u', 'postgres', '--', join(pgBin!, command), ...args], {
      encoding: 'utf8',
      cwd: POSTGRES_CWD,
    });
    if (r.status !== 0) throw new Error(`${command}: ${r.stderr}`);
  }

  /**
   * A standby's data folder `name`, cloned from the server on `port` with `pg_basebackup -R` (standby.signal, and
   * primary_conninfo in postgresql.auto.conf, where ALTER SYSTEM can change it).
   */
  clone(name: string, port: number): void {
    this.run(
      'pg_basebackup',
      '-R',
      '-h',
      '127.0.0.1',
      '-p',
      String(port),
      '-U',
      'postgres',
      '-D',
      join(this.dir, name),
    );
  }

  /**
   * Starts `postgres` on the data folder `name` (under {@link dir}) and `port`, with `settings` (`-c` each, after the
   * group's own). The group keeps WAL as every SampleDB instance does (`wal_keep_size`, instance-script.ts): without
   * it a standby cloned a few seconds before it started (a slow host) found the segment it needed already removed by
   * the next clone's checkpoint, and never streamed.
   */
  start(name: string, port: number, settings: readonly string[] = []): void {
    const all = [
      'listen_addresses=127.0.0.1',
      `port=${port}`,
      `unix_socket_directories=${this.dir}`,
      `wal_keep_size=${WAL_KEEP_SIZE}`,
      ...settings,
    ];
    const p = spawn(
      'runuser',
      ['-u', 'postgres', '--', join(pgBin!, 'postgres'), '-D', join(this.dir, name), ...all.flatMap((s) => ['-c', s])],
      { detached: true, stdio: ['ignore', 'ignore', 'pipe'], cwd: POSTGRES_CWD },
    );
    p.stderr!.on('data', (b: Buffer) => {
      this.log += `[${name}] ${b.toString()}`;
    });
    this.servers.set(name, p);
  }

  /** Sends `signal` to the server `name`'s process group (spawned detached: runuser does not pass a signal on). */
  signal(name: string, signal: NodeJS.Signals): void {
    const pid = this.servers.get(name)?.pid;
    if (!pid) return;
    try {
      process.kill(-pid, signal);
    } catch {
      /* gone */
    }
  }

  /**
   * Stops the server `name` with a fast shutdown and waits until its process is gone: its WAL senders exit only once
   * every connected standby flushed all of its WAL, so no standby holds a record another lacks.
   */
  async stop(name: string): Promise<void> {
    this.signal(name, 'SIGINT');
    const p = this.servers.get(name);
    await this.until(
      async () => (!p || p.exitCode !== null || p.signalCode !== null ? true : undefined),
      `${name} to stop`,
    );
  }

  /** What the servers wrote on stderr, each line after its server's name. */
  logs(): string {
    return this.log;
  }

  /** One statement on a fresh connection to `port`; its rows. */
  async query(port: number, sql: string): Promise<Record<string, any>[]> {
    const c = new Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' });
    await c.connect();
    try {
      return (await c.query(sql)).rows;
    } finally {
      await c.end();
    }
  }

  /** Polls `fn` until it returns a value (errors count as not yet) for 30 s; then throws with the servers' logs. */
  async until<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = Date.now() + 30_000;
    let last: unknown;
    while (Date.now() < deadline) {
      try {
        const v = await fn();
        if (v !== undefined) return v;
      } catch (err) {
        last = err;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`timed out waiting for ${what}: ${String(last)}\n${this.log}`);
  }

  /** Stops every server (SIGINT, then SIGKILL after 2 s: the postmaster outlived runs) and removes the folder. */
  remove(): void {
    for (const name of this.servers.keys()) this.signal(name, 'SIGINT');
    spawnSync('sleep', ['2']);
    for (const name of this.servers.keys()) this.signal(name, 'SIGKILL');
    for (const p of this.servers.values()) {
      p.stderr?.destroy();
      p.unref();
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * `script` run by bash as the `postgres` user, as a database pod runs the instance script: the PostgreSQL binaries on
 * the PATH, the C locale, and `env` (the script's PGDATA, `rw`, ...).
 */
export function asPostgresBash(script: string, env: NodeJS.ProcessEnv = {}): SpawnSyncReturns<string> {
  return spawnSync('runuser', ['-u', 'postgres', '--', 'bash', '-c', script], {
    encoding: 'utf8',
    cwd: POSTGRES_CWD,
    env: { PATH: `${pgBin}:${process.env.PATH}`, LC_ALL: 'C', ...env },
  });
}

/** The superuser the servers of a {@link PostgresGroup} trust, as the operator's credentials. */
export const TRUSTED: Credentials = {
  username: 'postgres',
  password: 'unused',
  replicationUsername: 'postgres',
  replicationPassword: 'unused',
};

/** What the operator learns from the server on 127.0.0.1:`port` (instances.ts), on a session of its own. */
export async function instanceState(port: number): Promise<PgState> {
  const client = new PgInstanceClient(3000, port);
  try {
    const s = await client.state('127.0.0.1', TRUSTED);
    if (!s) throw new Error(`the server on port ${port} did not answer`);
    return s;
  } finally {
    await client.close();
  }
}

/**
 * Servers of a {@link PostgresGroup} by name, each on its fixed port, started as the SampleDB pods start them for
 * replication (`wal_log_hints`, which pg_rewind needs; a standby's `primary_conninfo` on the command line, as the pods
 * pass it: pg_rewind copies the source's postgresql.auto.conf), with the waits the replication tests share. `group`
 * is read at each call: the tests make their group in `beforeAll`.
 */
export function replicationServers<N extends string>(group: () => PostgresGroup, ports: Readonly<Record<N, number>>) {
  const query = (name: N, sql: string) => group().query(ports[name], sql);
  const until = <T>(fn: () => Promise<T | undefined>, what: string) => group().until(fn, what);
  const conninfo = (source: N) => `host=127.0.0.1 port=${ports[source]} user=postgres`;
  const start = (name: N, source?: N) =>
    group().start(name, ports[name], [
      'wal_log_hints=on',
      'wal_retrieve_retry_interval=500ms',
      `cluster_name=${name}`,
      ...(source ? [`primary_conninfo=${conninfo(source)}`] : []),
    ]);
  const answers = (name: N) => until(async () => (await query(name, 'select 1 as one'))[0], `${name} to answer`);
  /** The instance script's `timeline_taken_twice` on `name`'s data, `<db>-rw` being `source`: its exit status. */
  const takenTwice = (name: N, source: N) =>
    asPostgresBash(['set -eu', TIMELINE_TAKEN_TWICE_FUNCTION, 'timeline_taken_twice'].join('\n'), {
      PGDATA: join(group().dir, name),
      rw: `127.0.0.1 port=${ports[source]}`,
      POSTGRES_USER: 'postgres',
    }).status;
  /** `pg_controldata`'s "Database cluster state" of `name`'s data. */
  const clusterState = (name: N) =>
    /Database cluster state:\s*(.*)/.exec(
      spawnSync('runuser', ['-u', 'postgres', '--', join(pgBin!, 'pg_controldata'), join(group().dir, name)], {
        encoding: 'utf8',
        cwd: POSTGRES_CWD,
        env: { ...process.env, LC_ALL: 'C' },
      }).stdout,
    )?.[1];
  return {
    query,
    until,
    conninfo,
    start,
    answers,
    clusterState,
    takenTwice,
    /** `name` cloned from `source` (a standby of it), started and answering. */
    standbyOf: async (name: N, source: N) => {
      group().clone(name, ports[source]);
      start(name, source);
      await answers(name);
    },
    lsnOf: async (name: N) => (await query(name, 'select pg_current_wal_lsn()::text as lsn'))[0].lsn as string,
    replayed: (name: N, lsn: string) =>
      until(
        async () =>
          (await query(name, `select pg_last_wal_replay_lsn() >= '${lsn}'::pg_lsn as ok`))[0].ok ? true : undefined,
        `${name} to replay ${lsn}`,
      ),
    /** `name` promoted (`pg_promote`), out of recovery, and checkpointed: its control file names the new timeline. */
    promote: async (name: N) => {
      await query(name, 'select pg_promote()');
      await until(
        async () => ((await query(name, 'select pg_is_in_recovery() as r'))[0].r ? undefined : true),
        `${name} promoted`,
      );
      await query(name, 'checkpoint');
    },
    stopped: (name: N) =>
      until(async () => (/^shut down/.test(clusterState(name) ?? '') ? true : undefined), `${name} to stop`),
  };
}

/**
 * The scene the timeline tests start from: P (timeline 1) with standbys A and B, where A stops (fast shutdown) after
 * replaying rows 1..100 of table `t`, rows 101..`last` reach B only, and P dies (SIGKILL).
 */
export async function oneStandbyLeftBehind(
  group: PostgresGroup,
  s: ReturnType<typeof replicationServers<'p' | 'a' | 'b'>>,
  last: number,
): Promise<void> {
  group.run('initdb', '-D', join(group.dir, 'p'), '--auth=trust', '-U', 'postgres');
  s.start('p');
  await s.answers('p');
  await s.query('p', 'create table t (id int)');
  await s.standbyOf('a', 'p');
  await s.standbyOf('b', 'p');
  await s.query('p', 'insert into t select generate_series(1, 100)');
  await s.replayed('a', await s.lsnOf('p'));
  group.signal('a', 'SIGINT');
  await s.stopped('a');
  await s.query('p', `insert into t select generate_series(101, ${last})`);
  await s.replayed('b', await s.lsnOf('p'));
  group.signal('p', 'SIGKILL');
}
