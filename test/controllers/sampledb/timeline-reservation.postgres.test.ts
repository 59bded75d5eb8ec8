/**
 * Two promotions forked off at the same position, on real PostgreSQL servers (the host's), and the operator's cure:
 * timeline IDs reserved before a promotion (timeline-reservation.ts, `PgInstanceClient.promote`).
 *
 * Here: P (timeline 1) with standbys A, B and C stops cleanly, so all three hold all its WAL, as after a switchover's
 * fencing. A is promoted (timeline 2), takes writes and stops: a primary that failed. C, knowing only timeline 1, is
 * promoted as PostgreSQL alone would: it takes timeline 2 with the very history file A has, and neither pg_rewind nor the
 * instance script's `timeline_taken_twice` can tell A from one of its standbys (the landing CI of 366977f met it on the
 * real node: the former primary rejoined without a rewind and panicked when promoted in its turn). B is promoted by the
 * operator's client with timeline 2 reserved: it takes timeline 3, and A rewinds onto it.
 *
 * Needs root (PostgreSQL run as the `postgres` user) and a PostgreSQL under /usr/lib/postgresql; skipped, saying so, without.
 */
import { join } from 'path';
import {
  asPostgresBash,
  canRunPostgres,
  instanceState,
  PostgresGroup,
  replicationServers,
  TRUSTED,
} from './real-postgres';
import { DROP_TIMELINE_PLACEHOLDERS_FUNCTION } from '../../../controllers/sampledb/instance-script';
import { PgInstanceClient } from '../../../controllers/sampledb/instances';
import { placeholderHistory } from '../../../controllers/sampledb/timeline-reservation';

const runnable = canRunPostgres('timeline-reservation.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;

const PORT = { p: 5491, a: 5492, b: 5493, c: 5494 } as const;
type Name = keyof typeof PORT;

/**
 * P (timeline 1) with `standbys`, rows 1..100 of table `t` replayed on each, then P stopped cleanly: a clean stop ships
 * the shutdown checkpoint to every standby, so all of them end at one position, as after a switchover's fencing.
 */
async function standbysOfStoppedPrimary<N extends string>(
  pg: PostgresGroup,
  s: ReturnType<typeof replicationServers<N | 'p'>>,
  standbys: readonly N[],
): Promise<void> {
  pg.run('initdb', '-D', join(pg.dir, 'p'), '--auth=trust', '-U', 'postgres');
  s.start('p');
  await s.answers('p');
  await s.query('p', 'create table t (id int)');
  for (const name of standbys) await s.standbyOf(name, 'p');
  await s.query('p', 'insert into t select generate_series(1, 100)');
  const end = await s.lsnOf('p');
  for (const name of standbys) await s.replayed(name, end);
  pg.signal('p', 'SIGINT');
  await s.stopped('p');
}

describeReal('SampleDB: timeline IDs reserved before a promotion, on real PostgreSQL [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  const servers = replicationServers(() => pg, PORT);
  const { query, conninfo, start, answers, takenTwice, lsnOf, replayed, stopped, promote } = servers;
  const file = (name: Name, path: string) => asPostgresBash(`cat ${join(pg.dir, name, path)}`).stdout;
  const rewindDryRun = (target: Name, source: Name) => {
    const r = asPostgresBash(
      `pg_rewind --dry-run --target-pgdata=${join(pg.dir, target)} --source-server="${conninfo(source)} dbname=postgres"`,
    );
    return r.stdout + r.stderr;
  };
  const ids = async (name: Name) => (await query(name, 'select id from t order by id')).map((r) => Number(r.id));

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-reserve-');
    await standbysOfStoppedPrimary(pg, servers, ['a', 'b', 'c']);
    // A is promoted (timeline 2), takes writes and stops
    await promote('a');
    await query('a', 'insert into t select generate_series(101, 150)');
    pg.signal('a', 'SIGINT');
    await stopped('a');
  }, 120_000);

  afterAll(() => pg?.remove());

  test('promoted as PostgreSQL alone does, C takes timeline 2 with the history file A has: nothing after the fact tells them apart', async () => {
    await promote('c');
    const c = await instanceState(PORT.c);
    expect([c.recovery, c.timeline]).toEqual([false, 2]);
    expect(file('c', 'pg_wal/00000002.history')).not.toBe('');
    expect(file('c', 'pg_wal/00000002.history')).toBe(file('a', 'pg_wal/00000002.history'));
    expect(takenTwice('a', 'c')).toBe(1);
    expect(rewindDryRun('a', 'c')).toContain('source and target cluster are on the same timeline');
  });

  test('promoted with timeline 2 reserved, B gets a placeholder history file for it and takes timeline 3; A rewinds onto B and follows it', async () => {
    const client = new PgInstanceClient(3000, PORT.b);
    try {
      await client.promote('127.0.0.1', TRUSTED, 2);
    } finally {
      await client.close();
    }
    const b = await instanceState(PORT.b);
    expect([b.recovery, b.timeline]).toEqual([false, 3]);
    expect(file('b', 'pg_wal/00000002.history')).toBe(`${placeholderHistory(2)}\n`);
    // B's own history: timeline 1, ended where A's and C's timelines forked off it too
    expect(b.timelineHistory).toEqual((await instanceState(PORT.c)).timelineHistory);
    expect(await ids('b')).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(rewindDryRun('a', 'b')).toMatch(/servers diverged at WAL location/);
    expect(rewindDryRun('a', 'b')).not.toContain('no rewind required');
    // as the instance script rejoins a former primary: pg_rewind, standby.signal, started streaming from B
    const rewind = asPostgresBash(
      `pg_rewind --target-pgdata=${join(pg.dir, 'a')} --source-server="${conninfo('b')} dbname=postgres" && touch ${join(pg.dir, 'a', 'standby.signal')}`,
    );
    expect(rewind.status).toBe(0);
    start('a', 'b');
    await answers('a');
    await query('b', 'insert into t select generate_series(1001, 1010)');
    await replayed('a', await lsnOf('b'));
    const a = await instanceState(PORT.a);
    expect([a.recovery, a.timeline]).toEqual([true, 3]);
    // A's rows 101..150, which B never had, are gone; B's are there
    expect(await ids('a')).toEqual(await ids('b'));
    expect(await ids('a')).toContain(1005);
    expect(await ids('a')).not.toContain(101);
  });
});

const PORT_GIVEN_UP = { p: 5495, a: 5496, s: 5497 } as const;

describeReal('SampleDB: placeholders of a promotion that never happened, on real PostgreSQL [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  const servers = replicationServers(() => pg, PORT_GIVEN_UP);
  const { query, start, answers, lsnOf, replayed, stopped, promote } = servers;
  const placeholder = () => join(pg.dir, 's', 'pg_wal', '00000002.history');

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-given-up-');
    await standbysOfStoppedPrimary(pg, servers, ['a', 's']);
    // the old primary P is back as A (timeline 2); S, chosen as a failover's target, got the placeholder the operator
    // writes before pg_promote(), and the promotion never happened (its pod went away)
    await promote('a');
    await query('a', 'insert into t select generate_series(101, 150)');
    expect(asPostgresBash(`printf '%s\\n' '${placeholderHistory(2)}' > ${placeholder()}`).status).toBe(0);
    pg.signal('s', 'SIGINT');
    await stopped('s');
  }, 120_000);

  afterAll(() => pg?.remove());

  test("kept, the placeholder stops the standby from following timeline 2: PostgreSQL reads it as that timeline's history, which timeline 1 is no part of", async () => {
    start('s', 'a');
    try {
      await pg.until(
        async () => (/unexpected timeline ID 1 in log segment/.test(pg.logs()) ? true : undefined),
        's to refuse the WAL of timeline 1 it streams',
      );
      // it never gets as far as serving reads
      await expect(query('s', 'select 1')).rejects.toThrow(/starting up|not yet accepting connections/);
    } finally {
      await pg.stop('s');
    }
  });

  test("the instance script's drop_timeline_placeholders, run as a standby starts, removes it: the standby follows timeline 2", async () => {
    const dropped = asPostgresBash(
      ['set -eu', 'log() { echo "$*"; }', DROP_TIMELINE_PLACEHOLDERS_FUNCTION, 'drop_timeline_placeholders'].join('\n'),
      { PGDATA: join(pg.dir, 's') },
    );
    expect(dropped.stdout.trim()).toBe('removing the timeline 2 placeholder of a promotion that did not happen');
    expect(asPostgresBash(`test -e ${placeholder()}`).status).toBe(1);
    start('s', 'a');
    await answers('s');
    await replayed('s', await lsnOf('a'));
    const s = await instanceState(PORT_GIVEN_UP.s);
    expect([s.recovery, s.timeline]).toEqual([true, 2]);
    expect((await query('s', 'select count(*)::int as n from t'))[0].n).toBe(150);
  });
});
