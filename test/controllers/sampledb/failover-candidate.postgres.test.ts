/**
 * The standby a failover promotes, chosen from what real PostgreSQL servers (the host's) report once their primary is
 * gone: the one that holds the most WAL of the newest timeline.
 *
 * Found by the chaos suite in CI (postmaster-kill, synchronous: true): the operator promoted a standby that lacked an
 * acknowledged commit, and the standby that held it could no longer follow (1 acknowledged write lost, one instance
 * stuck on the old timeline). A standby's timeline was read from its WAL receiver, and, with the receiver stopped (as
 * it is once the primary is gone), from its last restartpoint: a standby that followed a promotion but had no
 * restartpoint since still named the timeline before it, and lost to a standby cloned later with less WAL.
 *
 * Also: a primary names the standbys streaming from it and how far they flushed (`status.synchronousStandbys`).
 *
 * Here: P (timeline 1) with standbys A and B; A is promoted (timeline 2) and B follows it; C is cloned from A (its
 * control file names timeline 2 at once) and then cut off from it; more commits reach A and B only; A stops. B holds
 * the last commit and must be chosen.
 *
 * Needs root (PostgreSQL run as the `postgres` user) and a PostgreSQL under /usr/lib/postgresql; skipped, saying so, without.
 */
import { join } from 'path';
import { canRunPostgres, instanceState, PostgresGroup } from './real-postgres';
import { Instance, PgState } from '../../../controllers/sampledb/instances';
import { bestStandby } from '../../../controllers/sampledb/replication';

const runnable = canRunPostgres('failover-candidate.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;

const PORT = { p: 5451, a: 5452, b: 5453, c: 5454 } as const;

describeReal('SampleDB failover candidate on real PostgreSQL standbys whose primary is gone [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  const query = (port: number, sql: string) => pg.query(port, sql);
  const until = <T>(fn: () => Promise<T | undefined>, what: string) => pg.until(fn, what);
  // cluster_name: the WAL receiver's application_name, as the pods' primary_conninfo sets it to the pod's name
  const start = (name: keyof typeof PORT) =>
    pg.start(name, PORT[name], ['wal_retrieve_retry_interval=500ms', `cluster_name=${name}`]);
  let primaryWithStandbys: PgState;
  const standbyOf = async (name: 'a' | 'b' | 'c', source: keyof typeof PORT) => {
    pg.clone(name, PORT[source]);
    start(name);
    await until(
      async () => ((await query(PORT[name], 'select pg_is_in_recovery() as r'))[0].r === true ? true : undefined),
      `standby ${name}`,
    );
  };
  /** Waits until `name` has received `lsn` of the current primary. */
  const received = (name: 'b' | 'c', lsn: string) =>
    until(
      async () =>
        (await query(PORT[name], `select pg_last_wal_receive_lsn() >= '${lsn}'::pg_lsn as ok`))[0].ok
          ? true
          : undefined,
      `${name} to receive ${lsn}`,
    );
  const insertOnA = (n: number) => query(PORT.a, `insert into t select generate_series(1, ${n})`);
  const lsnOfA = async () => (await query(PORT.a, 'select pg_current_wal_lsn()::text as lsn'))[0].lsn as string;

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-failover-');
    pg.run('initdb', '-D', join(pg.dir, 'p'), '--auth=trust', '-U', 'postgres');
    start('p');
    await until(async () => (await query(PORT.p, 'select 1 as one'))[0], 'the primary');
    await query(PORT.p, 'create table t (id int)');
    await standbyOf('a', 'p');
    await standbyOf('b', 'p');
    primaryWithStandbys = await until(async () => {
      const state = await stateOf('p');
      return state.streaming?.length === 2 ? state : undefined;
    }, 'a and b to stream from p');
    // P stops first, cleanly, so that A and B hold the same WAL of timeline 1. Killed after A's promotion, P could
    // still send B a record A never had, and B could not follow A (the landing CI of stop 78: B never received A's
    // commits).
    await pg.stop('p');
    // A becomes the primary of timeline 2; B follows it (primary_conninfo reloads since PostgreSQL 13)
    await query(PORT.a, 'select pg_promote()');
    await query(PORT.b, `alter system set primary_conninfo = 'host=127.0.0.1 port=${PORT.a} user=postgres'`);
    await query(PORT.b, 'select pg_reload_conf()');
    await insertOnA(100);
    await received('b', await lsnOfA());
    await until(
      async () =>
        (await query(PORT.b, 'select received_tli from pg_stat_wal_receiver'))[0]?.received_tli === 2
          ? true
          : undefined,
      'b to stream timeline 2',
    );
    // C: cloned from A on timeline 2, then cut off from it (no WAL source)
    await standbyOf('c', 'a');
    await insertOnA(100);
    await received('c', await lsnOfA());
    await query(PORT.c, "alter system set primary_conninfo = ''");
    await query(PORT.c, 'select pg_reload_conf()');
    await until(
      async () =>
        (await query(PORT.c, 'select count(*)::int as n from pg_stat_wal_receiver'))[0].n === 0 ? true : undefined,
      'c to stop receiving',
    );
    // the last commits reach B only; then A, the primary, dies
    await insertOnA(1000);
    await received('b', await lsnOfA());
    pg.signal('a', 'SIGKILL');
    await until(
      async () =>
        (await query(PORT.b, 'select count(*)::int as n from pg_stat_wal_receiver'))[0].n === 0 ? true : undefined,
      "b's WAL receiver to stop with its primary gone",
    );
  }, 120_000);

  afterAll(() => pg.remove());

  const stateOf = (name: keyof typeof PORT) => instanceState(PORT[name]);
  const asInstance = (name: string, ordinal: number, state: PgState): Instance => ({
    name,
    ordinal,
    pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name, uid: name, resourceVersion: '1' } },
    ready: true,
    terminating: false,
    pg: state,
  });

  test('a primary names the standbys streaming from it and how far they flushed (status.synchronousStandbys)', () => {
    expect(primaryWithStandbys.streaming).toEqual(['a', 'b']);
    expect(primaryWithStandbys.streamingFlushLsn! > 0n).toBe(true);
    expect(primaryWithStandbys.streamingFlushLsn! <= primaryWithStandbys.lsn).toBe(true);
  });

  test("a standby that followed the promotion but has had no restartpoint since reports the timeline it replays, not its checkpoint's", async () => {
    const b = await stateOf('b');
    expect(b.checkpointTimeline).toBe(1); // the premise: its control file still names timeline 1
    expect(b.timeline).toBe(2);
  });

  test('the standby with the last commit is promoted, not the one cloned later with less WAL', async () => {
    const [b, c] = [await stateOf('b'), await stateOf('c')];
    expect(c.timeline).toBe(2);
    expect(b.lsn > c.lsn).toBe(true); // the premise: B holds WAL that C does not
    // C has the lower ordinal: with equal positions it would win, so only B's WAL makes it the choice
    expect(bestStandby([asInstance('db-1', 1, b), asInstance('db-0', 0, c)])?.name).toBe('db-1');
  });
});
