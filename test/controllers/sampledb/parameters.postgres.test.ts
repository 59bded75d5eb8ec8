/**
 * `spec.postgresql` applied by the operator's instance client on a real PostgreSQL (the host's): a primary and a hot
 * standby cloned from it, as the instance script runs them (settings of the command line, `standby.signal`). ALTER
 * SYSTEM works on the standby too (each instance has its own postgresql.auto.conf), reloadable settings take effect
 * at the reload, restart-only ones are reported as `pending_restart` until the instance restarts, a second apply
 * writes nothing, a setting no longer wanted is reset, the settings other steps own are kept, and a value PostgreSQL
 * refuses is reported without stopping the others. A server that goes silent mid-connection (a partition) holds the
 * client no longer than its timeout.
 *
 * Needs root (PostgreSQL run as the `postgres` user) and a PostgreSQL under /usr/lib/postgresql; skipped, saying so, without.
 */
import { spawnSync } from 'child_process';
import { AddressInfo, connect, createServer, Socket } from 'net';
import { join } from 'path';
import { Client } from 'pg';
import { canRunPostgres, PostgresGroup, POSTGRES_CWD } from './real-postgres';
import { Credentials } from '../../../controllers/sampledb/credentials';
import { PgInstanceClient } from '../../../controllers/sampledb/instances';
import { OPERATOR_WRITTEN_PARAMETERS } from '../../../controllers/sampledb/tuning';

const runnable = canRunPostgres('parameters.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;

const PRIMARY_PORT = 5441;
const STANDBY_PORT = 5442;
const credentials: Credentials = {
  username: 'postgres',
  password: 'unused',
  replicationUsername: 'postgres',
  replicationPassword: 'unused',
};

describeReal('SampleDB settings on a real PostgreSQL primary and standby [real PostgreSQL]', () => {
  let pg: PostgresGroup;
  const query = (port: number, sql: string) => pg.query(port, sql);
  const until = <T>(fn: () => Promise<T | undefined>, what: string) => pg.until(fn, what);
  const SETTINGS = ['logging_collector=off', 'hot_standby_feedback=on'];

  beforeAll(async () => {
    pg = new PostgresGroup('sampledb-params-');
    pg.run('initdb', '-D', join(pg.dir, 'primary'), '--auth=trust', '-U', 'postgres');
    pg.start('primary', PRIMARY_PORT, SETTINGS);
    await until(async () => (await query(PRIMARY_PORT, 'select 1 as one'))[0], 'the primary');
    const standby = join(pg.dir, 'standby');
    pg.run(
      'pg_basebackup',
      '-h',
      '127.0.0.1',
      '-p',
      String(PRIMARY_PORT),
      '-U',
      'postgres',
      '-D',
      standby,
      '-X',
      'stream',
      '-c',
      'fast',
    );
    spawnSync('runuser', ['-u', 'postgres', '--', 'touch', join(standby, 'standby.signal')], { cwd: POSTGRES_CWD });
    pg.start('standby', STANDBY_PORT, [
      ...SETTINGS,
      `primary_conninfo=host=127.0.0.1 port=${PRIMARY_PORT} user=postgres`,
    ]);
    await until(
      async () => ((await query(STANDBY_PORT, 'select pg_is_in_recovery() as r'))[0].r === true ? true : undefined),
      'the standby',
    );
  }, 60_000);

  afterAll(() => pg.remove());

  test('reloadable settings apply at once, restart-only ones are pending_restart, on the primary and on the standby; a second apply writes nothing', async () => {
    const client = new PgInstanceClient(3000, PRIMARY_PORT);
    const onStandby = new PgInstanceClient(3000, STANDBY_PORT);
    const wanted = { shared_buffers: '64MB', work_mem: '8MB', effective_cache_size: '768MB' };
    // The primary's synchronous_standby_names is written by another step; parameter application keeps it.
    await client.configurePrimary('127.0.0.1', credentials, 'ANY 1 (*)');
    expect(
      (await client.applyParameters('127.0.0.1', credentials, wanted, OPERATOR_WRITTEN_PARAMETERS)).changed
        .slice()
        .sort(),
    ).toEqual(['effective_cache_size', 'shared_buffers', 'work_mem']);
    expect(
      (await onStandby.applyParameters('127.0.0.1', credentials, wanted, OPERATOR_WRITTEN_PARAMETERS)).changed
        .slice()
        .sort(),
    ).toEqual(['effective_cache_size', 'shared_buffers', 'work_mem']);
    for (const port of [PRIMARY_PORT, STANDBY_PORT]) {
      const state = await until(async () => {
        const s = await new PgInstanceClient(3000, port).state('127.0.0.1', credentials);
        return s?.pendingRestart?.length ? s : undefined;
      }, `pending_restart on ${port}`);
      expect(state.pendingRestart).toEqual(['shared_buffers']);
      expect((await query(port, "select current_setting('work_mem') as w"))[0].w).toBe('8MB');
      expect((await query(port, "select current_setting('shared_buffers') as b"))[0].b).toBe('128MB'); // until a restart
    }
    expect(await client.applyParameters('127.0.0.1', credentials, wanted, OPERATOR_WRITTEN_PARAMETERS)).toEqual({
      changed: [],
    });
    expect(await onStandby.applyParameters('127.0.0.1', credentials, wanted, OPERATOR_WRITTEN_PARAMETERS)).toEqual({
      changed: [],
    });
    expect((await query(PRIMARY_PORT, "select current_setting('synchronous_standby_names') as s"))[0].s).toBe(
      'ANY 1 (*)',
    );
  }, 60_000);

  test('a setting no longer wanted is reset (shared_buffers no longer pending), and a refused value is reported while the others apply', async () => {
    const client = new PgInstanceClient(3000, PRIMARY_PORT);
    expect(
      (await client.applyParameters('127.0.0.1', credentials, { work_mem: '8MB' }, OPERATOR_WRITTEN_PARAMETERS)).changed
        .slice()
        .sort(),
    ).toEqual(['effective_cache_size', 'shared_buffers']);
    await until(
      async () => ((await client.state('127.0.0.1', credentials))?.pendingRestart?.length === 0 ? true : undefined),
      'no pending restart',
    );
    const r = await client.applyParameters(
      '127.0.0.1',
      credentials,
      { work_mem: 'a lot', maintenance_work_mem: '32MB' },
      OPERATOR_WRITTEN_PARAMETERS,
    );
    expect(r.error).toMatch(/work_mem: invalid value for parameter "work_mem"/);
    expect(r.changed).toEqual(['maintenance_work_mem']);
    expect((await query(PRIMARY_PORT, "select current_setting('synchronous_standby_names') as s"))[0].s).toBe(
      'ANY 1 (*)',
    );
  }, 60_000);

  test('a restart-only setting ALTER SYSTEM just wrote is pending at once, before the postmaster processed a reload', async () => {
    // What a loaded node shows between the operator's ALTER SYSTEM and the reload's effect: written, not yet reloaded.
    await query(PRIMARY_PORT, "alter system set max_connections = '120'");
    try {
      const flagged = async () =>
        (await query(PRIMARY_PORT, "select pending_restart as p from pg_settings where name = 'max_connections'"))[0].p;
      expect(await flagged()).toBe(false); // the postmaster's view: nothing pending before a reload
      const state = await new PgInstanceClient(3000, PRIMARY_PORT).state('127.0.0.1', credentials);
      expect(state?.pendingRestart).toEqual(['max_connections']);
    } finally {
      await query(PRIMARY_PORT, 'alter system reset max_connections');
    }
    expect((await new PgInstanceClient(3000, PRIMARY_PORT).state('127.0.0.1', credentials))?.pendingRestart).toEqual(
      [],
    );
  }, 60_000);

  test('a server that goes silent after answering (a partition) holds a poll, and the close of its session, no longer than the timeout', async () => {
    // A TCP relay to the primary that, once the query's CommandComplete went through, forwards nothing either way and
    // never closes its side: what a partition does to a connection that was open. node-postgres's end() then waits
    // for the server's FIN, which never comes (it held the operator's reconcile, and with it a failover).
    let partitioned = false;
    const sockets: Socket[] = [];
    const relay = createServer({ allowHalfOpen: true }, (fromClient) => {
      const toServer = connect(PRIMARY_PORT, '127.0.0.1');
      sockets.push(fromClient, toServer);
      fromClient.on('error', () => undefined);
      toServer.on('error', () => undefined);
      fromClient.on('data', (b: Buffer) => {
        if (!partitioned) toServer.write(b);
      });
      let pending = Buffer.alloc(0);
      toServer.on('data', (b: Buffer) => {
        if (partitioned) return;
        fromClient.write(b);
        // backend messages: a type byte and a length (including itself); CommandComplete is 'C'
        pending = Buffer.concat([pending, b]);
        while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
          if (pending[0] === 'C'.charCodeAt(0)) partitioned = true;
          pending = pending.subarray(1 + pending.readInt32BE(1));
        }
      });
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    try {
      const client = new PgInstanceClient(1000, (relay.address() as AddressInfo).port);
      const held = () => new Promise<'held'>((resolve) => setTimeout(() => resolve('held'), 10_000).unref());
      const state = await Promise.race([client.state('127.0.0.1', credentials), held()]);
      expect(partitioned).toBe(true);
      expect(state).toMatchObject({ recovery: false });
      // the session was kept (pg-sessions.ts): the next poll's ping gets no answer, and the poll gives up within the
      // connect timeout instead of the query's (10 times longer)
      let started = Date.now();
      expect(await Promise.race([client.state('127.0.0.1', credentials), held()])).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(5_000);
      // a kept session cut off the same way is closed within the timeout too
      partitioned = false;
      expect(await client.state('127.0.0.1', credentials)).toMatchObject({ recovery: false });
      expect(partitioned).toBe(true);
      started = Date.now();
      expect(await Promise.race([client.close(), held()])).toBeUndefined();
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      relay.close();
    }
  });

  test("anomalies: a session idle in a transaction is listed with the open transaction's age, and terminated only when asked", async () => {
    const client = new PgInstanceClient(3000, PRIMARY_PORT);
    const idle = new Client({
      host: '127.0.0.1',
      port: PRIMARY_PORT,
      user: 'postgres',
      database: 'postgres',
      application_name: 'forgotten-tx',
    });
    idle.on('error', () => undefined);
    await idle.connect();
    await idle.query('begin');
    await idle.query('select 1');
    await new Promise((r) => setTimeout(r, 2500));
    const seen = await client.activity('127.0.0.1', credentials, 1, false);
    expect(seen.idleInTransaction).toEqual([
      expect.objectContaining({ user: 'postgres', application: 'forgotten-tx' }),
    ]);
    expect(seen).toMatchObject({ terminated: false, maxConnections: 100 });
    expect(seen.longestTransactionSeconds).toBeGreaterThan(2);
    expect(seen.connections).toBeGreaterThanOrEqual(2);
    expect(seen.xidAge).toBeGreaterThan(0);
    expect((await client.activity('127.0.0.1', credentials, 3600, true)).idleInTransaction).toEqual([]); // not idle that long: kept
    const done = await client.activity('127.0.0.1', credentials, 1, true);
    expect(done).toMatchObject({
      terminated: true,
      idleInTransaction: [expect.objectContaining({ application: 'forgotten-tx' })],
    });
    await expect(idle.query('select 1')).rejects.toThrow();
    expect((await client.activity('127.0.0.1', credentials, 1, false)).idleInTransaction).toEqual([]);
    await idle.end().catch(() => undefined);
  }, 60_000);
});
