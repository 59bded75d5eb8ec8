/**
 * A standby that diverged from the primary's timeline, on real PostgreSQL servers (the host's): how the operator tells
 * it (diverged-standbys.ts, from what instances.ts asks each server), how it makes it stop cleanly (its sessions
 * ended, then SIGTERM: PostgreSQL's smart shutdown), and how the instance script's `rewind_standby` brings it back
 * onto the primary's timeline (instance-script.ts, run here as the pods run it, by bash, as the postgres user).
 *
 * Here: P (timeline 1) with standbys A and B; A stops; more commits reach B only; P dies; A starts again and is
 * promoted (timeline 2, forked off timeline 1 where A's WAL ended); B, told to stream from A, cannot follow: it replayed
 * timeline 1 past the fork. That is what an asynchronous failover leaves behind when the standby it could not reach in
 * time was the most advanced.
 *
 * Needs root (PostgreSQL run as the `postgres` user) and a PostgreSQL under /usr/lib/postgresql; skipped, saying so, without.
 */
import { existsSync } from 'fs';
import { join } from 'path';
import { Client } from 'pg';
import {
  asPostgresBash,
  canRunPostgres,
  instanceState,
  PostgresGroup,
  oneStandbyLeftBehind,
  replicationServers,
  TRUSTED,
} from './real-postgres';
import { divergence } from '../../../controllers/sampledb/diverged-standbys';
import { RW_PRIMARY_IP_FUNCTION, REWIND_STANDBY_FUNCTION } from '../../../controllers/sampledb/instance-script';
import { formatLsn, PgInstanceClient } from '../../../controllers/sampledb/instances';

const runnable = canRunPostgres('diverged-standby.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;

const PORT = { p: 5461, a: 5462, b: 5463, c: 5464 } as const;
type Name = keyof typeof PORT;

describeReal('SampleDB: a standby diverged from the primary’s timeline, on real PostgreSQL [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  const servers = replicationServers(() => pg, PORT);
  const { query, until, conninfo, start, answers, clusterState, standbyOf, lsnOf, replayed, stopped, promote } =
    servers;
  /** The instance script's `rewind_standby` on `name`'s data, `<db>-rw` being `source`; its output. */
  const rewindStandby = (name: Name, source: Name) => {
    const script = [
      'set -eu',
      'log() { echo "sampledb-instance: $*"; }',
      RW_PRIMARY_IP_FUNCTION,
      REWIND_STANDBY_FUNCTION,
      'rewind_standby',
    ];
    const r = asPostgresBash(script.join('\n'), {
      PGDATA: join(pg.dir, name),
      rw: `127.0.0.1 port=${PORT[source]}`,
      POSTGRES_USER: 'postgres',
      POD_IP: '10.0.0.9',
    });
    if (r.status !== 0) throw new Error(`rewind_standby exited ${r.status}: ${r.stderr}`);
    return r.stdout + r.stderr;
  };
  const stateOf = (name: Name) => instanceState(PORT[name]);
  let fork: string;

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-diverged-');
    // A stops (fast shutdown); the next commits reach B only; then P dies
    await oneStandbyLeftBehind(pg, servers, 1100);
    // A starts again with no primary to stream from, and is promoted: timeline 2 forks where its WAL ended
    start('a');
    await answers('a');
    await promote('a');
    fork = formatLsn((await stateOf('a')).timelineHistory?.[0]?.lsn ?? 0n);
    // B is told to stream from A, and cannot follow it
    await query('b', `alter system set primary_conninfo = '${conninfo('a')}'`);
    await query('b', 'select pg_reload_conf()');
  }, 120_000);

  afterAll(() => pg.remove());

  test('the primary names where timeline 1 ended; the standby that replayed past it is diverged, and stays so', async () => {
    const a = await stateOf('a');
    expect([a.recovery, a.timeline]).toEqual([false, 2]);
    expect(a.timelineHistory).toHaveLength(1);
    expect(a.timelineHistory?.[0].timeline).toBe(1);
    // B's WAL receiver reaches A, which serves timeline 2 only from before B's position: it never streams
    await new Promise((r) => setTimeout(r, 3000));
    const b = await stateOf('b');
    expect([b.recovery, b.timeline]).toEqual([true, 1]);
    const d = divergence(a, b);
    expect(d).toBeDefined();
    expect(formatLsn(d!.forkLsn)).toBe(fork);
    expect(d!.replayLsn).toBeGreaterThan(d!.forkLsn);
    expect(Number((await query('b', 'select count(*) as n from t'))[0].n)).toBe(1100);
    expect(Number((await query('a', 'select count(*) as n from t'))[0].n)).toBe(100);
  });

  test('its sessions ended, SIGTERM stops it cleanly; rewind_standby rewinds it, and it follows the primary', async () => {
    // a reader's session would hold PostgreSQL's smart shutdown (SIGTERM) for as long as it stays
    const reader = new Client({ host: '127.0.0.1', port: PORT.b, user: 'postgres', database: 'postgres' });
    reader.on('error', () => undefined);
    await reader.connect();
    const operator = new PgInstanceClient(3000, PORT.b);
    await operator.state('127.0.0.1', TRUSTED); // the operator's kept session too
    await operator.endSessions('127.0.0.1', TRUSTED);
    await operator.close();
    await expect(reader.query('select 1')).rejects.toThrow();
    pg.signal('b', 'SIGTERM');
    await stopped('b');
    expect(clusterState('b')).toBe('shut down in recovery');

    const out = rewindStandby('b', 'a');
    expect(out).toContain('pg_rewind onto it');
    expect(out).toMatch(/servers diverged at WAL location .* on timeline 1/);
    expect(out).toContain('Done!');
    expect(existsSync(join(pg.dir, 'b', 'standby.signal'))).toBe(true);

    start('b', 'a');
    await answers('b');
    await query('a', 'insert into t select generate_series(2001, 2010)');
    await replayed('b', await lsnOf('a'));
    const b = await stateOf('b');
    expect([b.recovery, b.timeline]).toEqual([true, 2]);
    expect(divergence(await stateOf('a'), b)).toBeUndefined();
    // the primary's history: rows 101..1100 were only ever on the diverged timeline
    expect(Number((await query('b', 'select count(*) as n from t'))[0].n)).toBe(110);
  });

  test('a standby that can follow: "no rewind required", unchanged; one that crashed is not touched', async () => {
    await standbyOf('c', 'a');
    pg.signal('c', 'SIGINT');
    await stopped('c');
    const clean = rewindStandby('c', 'a');
    expect(clean).toContain('no rewind required');
    start('c', 'a');
    await answers('c');
    await query('a', 'insert into t select generate_series(3001, 3010)');
    await replayed('c', await lsnOf('a'));
    pg.signal('c', 'SIGKILL');
    await until(async () => (clusterState('c') === 'in archive recovery' ? true : undefined), 'c killed');
    // pg_rewind would first recover it in single-user mode, which PostgreSQL refuses for a standby
    expect(rewindStandby('c', 'a')).toBe('');
    // nothing answers at <db>-rw (B is stopped): nothing to rewind onto
    expect(rewindStandby('c', 'b')).toBe('');
  });
});
