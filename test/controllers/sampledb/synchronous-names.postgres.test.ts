/**
 * `synchronous_standby_names` as the operator sets it with `spec.synchronous: true` (synchronous-standbys.ts), on real
 * PostgreSQL servers (the host's): the primary waits only for the standbys recorded in `status.synchronousStandbys`,
 * so a standby that streams but is not recorded yet acknowledges nothing (with `ANY 1 (*)` it could, and a failover
 * that waited for the recorded ones only could promote a standby without the commits it acknowledged).
 *
 * Here: P with standbys A and B (their `application_name` is their name, as a pod's is the pod's name).
 *
 * Needs root (PostgreSQL run as the `postgres` user) and a PostgreSQL under /usr/lib/postgresql; skipped, saying so, without.
 */
import { join } from 'path';
import { Client } from 'pg';
import { canRunPostgres, PostgresGroup, TRUSTED } from './real-postgres';
import { PgInstanceClient } from '../../../controllers/sampledb/instances';
import { synchronousStandbyNamesOf } from '../../../controllers/sampledb/synchronous-standbys';

const runnable = canRunPostgres('synchronous-names.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;

const PORT = { p: 5471, a: 5472, b: 5473 } as const;
type Name = keyof typeof PORT;

describeReal('SampleDB synchronous_standby_names names the recorded standbys only [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  let writer: Client;
  const query = (name: Name, sql: string) => pg.query(PORT[name], sql);
  const start = (name: Name) =>
    pg.start(name, PORT[name], [`cluster_name=${name}`, 'wal_retrieve_retry_interval=500ms']);
  /** Sets a server's synchronous_standby_names as the operator does (ALTER SYSTEM, reload). */
  const configure = async (names: string, name: Name = 'p') => {
    const operator = new PgInstanceClient(3000, PORT[name]);
    try {
      await operator.configurePrimary('127.0.0.1', TRUSTED, names);
    } finally {
      await operator.close();
    }
    await pg.until(
      async () =>
        (await query(name, 'show synchronous_standby_names'))[0].synchronous_standby_names === names ? true : undefined,
      `synchronous_standby_names = ${names} on ${name}`,
    );
  };
  /** Whether a commit on P returns within `ms` (the insert goes on waiting otherwise: it is returned). */
  const commitWithin = async (ms: number, id: number) => {
    const commit = writer.query(`insert into t values (${id})`);
    const done = await Promise.race([
      commit.then(() => true),
      new Promise<false>((r) => setTimeout(() => r(false), ms)),
    ]);
    return { done, commit };
  };

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-sync-names-');
    pg.run('initdb', '-D', join(pg.dir, 'p'), '--auth=trust', '-U', 'postgres');
    start('p');
    await pg.until(async () => (await query('p', 'select 1 as one'))[0], 'the primary');
    await query('p', 'create table t (id int)');
    for (const name of ['a', 'b'] as const) {
      pg.clone(name, PORT.p);
      start(name);
    }
    await pg.until(
      async () =>
        Number((await query('p', "select count(*) as n from pg_stat_replication where state = 'streaming'"))[0].n) === 2
          ? true
          : undefined,
      'a and b to stream',
    );
    writer = new Client({ host: '127.0.0.1', port: PORT.p, user: 'postgres', database: 'postgres' });
    writer.on('error', () => undefined); // P is killed in the last test
    await writer.connect();
  }, 60_000);

  afterAll(async () => {
    await writer?.end().catch(() => undefined);
    pg.remove();
  });

  test('recorded: a and b are synchronous candidates; a standby the list does not name is asynchronous', async () => {
    await configure(synchronousStandbyNamesOf([{ name: 'a' }, { name: 'p' }], 'p'));
    const states = await query(
      'p',
      'select application_name as n, sync_state as s from pg_stat_replication order by 1',
    );
    expect(states.map((r) => `${r.n}:${r.s}`)).toEqual(['a:quorum', 'b:async']);
    expect((await commitWithin(5000, 1)).done).toBe(true);
  });

  test('a commit that only the unrecorded standby could acknowledge waits, until the list names it', async () => {
    // A, the one standby recorded, stops (fast shutdown); B still streams
    pg.signal('a', 'SIGINT');
    await pg.until(
      async () =>
        (await query('p', "select string_agg(application_name, ',') as n from pg_stat_replication"))[0].n === 'b'
          ? true
          : undefined,
      'b alone streaming',
    );
    const { done, commit } = await commitWithin(2000, 2);
    expect(done).toBe(false); // b has it, but is not asked
    await configure(synchronousStandbyNamesOf([{ name: 'a' }, { name: 'b' }], 'p'));
    await commit; // b acknowledges it now
  });

  test('none recorded: a name no standby has, so commits wait for one to be recorded', async () => {
    const none = synchronousStandbyNamesOf(undefined, 'p');
    expect(none).toBe('ANY 1 ("no standby recorded yet")');
    await configure(none);
    const { done, commit } = await commitWithin(2000, 3);
    expect(done).toBe(false);
    await configure(synchronousStandbyNamesOf([{ name: 'b' }], 'p'));
    await commit;
    expect(Number((await query('p', 'select count(*) as n from t'))[0].n)).toBe(3);
  });

  test('set on a standby before its promotion (as a failover does), it holds from the first commit', async () => {
    await configure(synchronousStandbyNamesOf([{ name: 'a' }, { name: 'b' }], 'b'), 'b');
    pg.signal('p', 'SIGKILL');
    await query('b', 'select pg_promote()');
    const promoted = new Client({ host: '127.0.0.1', port: PORT.b, user: 'postgres', database: 'postgres' });
    promoted.on('error', () => undefined);
    await promoted.connect();
    try {
      const commit = promoted.query('insert into t values (4)');
      commit.catch(() => undefined);
      const done = await Promise.race([
        commit.then(() => true),
        new Promise<false>((r) => setTimeout(() => r(false), 2000)),
      ]);
      expect(done).toBe(false); // it waits for a, which is stopped
      expect((await query('b', 'show synchronous_standby_names'))[0].synchronous_standby_names).toBe('ANY 1 ("a")');
    } finally {
      await promoted.end().catch(() => undefined);
    }
  });
});
