/**
 * One timeline ID taken by two promotions, on real PostgreSQL servers (the host's), and how the instance script tells
 * it (instance-script.ts, `timeline_taken_twice`, run here as the pods run it, by bash, as the postgres user).
 *
 * Here: P (timeline 1) with standbys A and B. A stops; more commits reach B only; P dies; B is promoted (timeline 2),
 * takes writes and stops: a primary that failed. A starts again, knowing only timeline 1, and is promoted: it takes
 * timeline 2 too, forked off timeline 1 where its own WAL ended. B, the former primary, must rejoin A. The SampleDB node
 * suite met this (rehearsal ZQ of 2026-12-06): a switchover made B the primary and B's pod was deleted two seconds
 * later, before A had learned of the switchover; A was promoted; B rejoined it without a rewind and later lost A's
 * acknowledged writes when it was promoted in its turn.
 *
 * Needs root (PostgreSQL run as the `postgres` user) and a PostgreSQL under /usr/lib/postgresql; skipped, saying so, without.
 */
import { join } from 'path';
import {
  asPostgresBash,
  canRunPostgres,
  instanceState,
  PostgresGroup,
  oneStandbyLeftBehind,
  replicationServers,
} from './real-postgres';
import { divergence } from '../../../controllers/sampledb/diverged-standbys';

const runnable = canRunPostgres('timeline-collision.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;

const PORT = { p: 5481, a: 5482, b: 5483, c: 5484 } as const;
type Name = keyof typeof PORT;

describeReal('SampleDB: two promotions that took one timeline ID, on real PostgreSQL [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  const servers = replicationServers(() => pg, PORT);
  const { query, conninfo, start, answers, clusterState, takenTwice, standbyOf, lsnOf, replayed, stopped, promote } =
    servers;

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-timeline-');
    // A stops; the next commits reach B only; P dies
    await oneStandbyLeftBehind(pg, servers, 200);
    // B is promoted (timeline 2), takes writes and stops: the primary that failed
    await promote('b');
    await query('b', 'insert into t select generate_series(201, 300)');
    pg.signal('b', 'SIGINT');
    await stopped('b');
    // A starts with no primary to stream from and knows only timeline 1: promoted, it takes timeline 2 as well
    start('a');
    await answers('a');
    await promote('a');
    await query('a', 'insert into t select generate_series(1001, 1010)');
  }, 120_000);

  afterAll(() => pg?.remove());

  test('A took timeline 2 as B had, forked off timeline 1 at another point; pg_rewind calls B and A "the same timeline"', async () => {
    const a = await instanceState(PORT.a);
    expect([a.recovery, a.timeline]).toEqual([false, 2]);
    const history = (name: Name) => asPostgresBash(`cat ${join(pg.dir, name, 'pg_wal', '00000002.history')}`).stdout;
    expect(history('a')).not.toBe('');
    expect(history('b')).not.toBe('');
    expect(history('a')).not.toBe(history('b'));
    // what the former primary's rejoin ran before: nothing to rewind, so B would start as A's standby holding rows
    // 101..300, which A never had, and acknowledge A's commits without replaying them
    const dryRun = asPostgresBash(
      `pg_rewind --dry-run --target-pgdata=${join(pg.dir, 'b')} --source-server="${conninfo('a')} dbname=postgres"`,
    );
    expect(dryRun.stdout + dryRun.stderr).toContain('source and target cluster are on the same timeline');
  });

  test('timeline_taken_twice tells B from a standby that follows A (same ID, same history) and from a primary on another ID', async () => {
    expect(takenTwice('b', 'a')).toBe(0);
    await standbyOf('c', 'a');
    await query('a', 'insert into t select generate_series(2001, 2010)');
    await replayed('c', await lsnOf('a'));
    pg.signal('c', 'SIGINT');
    await stopped('c');
    expect(asPostgresBash(`ls ${join(pg.dir, 'c', 'pg_wal')}`).stdout).toContain('00000002.history');
    expect(takenTwice('c', 'a')).toBe(1);
    // P's data (timeline 1) against A (timeline 2): pg_rewind's own case, not this one
    expect(takenTwice('p', 'a')).toBe(1);
    // nothing answers as a primary at <db>-rw (B is stopped): unknown is false
    expect(takenTwice('b', 'b')).toBe(1);
  });

  test('the operator tells B, run as a standby of A without a rewind, from a standby that follows A: their histories of timeline 2', async () => {
    // C follows A again; B starts as A's standby as it did after "no rewind required"
    start('c', 'a');
    await answers('c');
    asPostgresBash(`touch ${join(pg.dir, 'b', 'standby.signal')}`);
    start('b', 'a');
    await answers('b');
    const [a, b, c] = await Promise.all([instanceState(PORT.a), instanceState(PORT.b), instanceState(PORT.c)]);
    expect([b.recovery, b.timeline, a.timeline]).toEqual([true, 2, 2]);
    const forkA = a.timelineHistory?.[0]?.lsn;
    const forkB = b.timelineHistory?.[0]?.lsn;
    expect(forkA).toBeDefined();
    expect(forkB).toBeGreaterThan(forkA!);
    expect(divergence(a, b)).toEqual({
      timeline: 2,
      primaryTimeline: 2,
      forkLsn: forkA,
      replayLsn: b.replayLsn,
      otherHistory: true,
    });
    expect(divergence(a, c)).toBeUndefined();
    expect(c.timelineHistory).toEqual(a.timelineHistory);
    // judged by the timeline ID and the primary's history alone, as before, B looked like any standby of A
    expect(divergence(a, { ...b, timelineHistory: undefined })).toBeUndefined();
    // the operator's cure: B stopped cleanly (its pod deleted), and its script's check sends it to a new clone
    pg.signal('b', 'SIGINT');
    await stopped('b');
    expect(clusterState('b')).toBe('shut down in recovery');
    expect(takenTwice('b', 'a')).toBe(0);
  });
});
