/**
 * A standby's WAL receiver connecting to a black-holed primary address gives up within seconds, with the
 * `primary_conninfo` the operator gives every instance — run by a real PostgreSQL (the host's), in a
 * network namespace of its own where iptables drops every packet to the primary's port.
 *
 * Found by the chaos suite on the real node: after a partition of the primary, a standby whose WAL receiver
 * reconnected while `<db>-rw` still led to the partitioned pod sent SYNs into the void (its conntrack entry
 * kept the old translation after the Service moved) and hung for the kernel's SYN retries, about 2 minutes:
 * the WAL receiver polls `PQconnectStart` itself, so libpq's `connect_timeout=3` never applied. Faults then
 * took 136–148 s to recover instead of seconds. `tcp_user_timeout` bounds the SYN phase as well.
 *
 * Needs root (a network namespace, iptables, PostgreSQL run as the `postgres` user); skipped, saying so, without.
 */
import { ChildProcess, spawn, spawnSync } from 'child_process';
import { chmodSync, mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { canRunPostgres, pgBin, POSTGRES_CWD } from './real-postgres';
import { postgresArgs } from '../../../controllers/sampledb/instance-script';
import { Database } from '../../../controllers/sampledb/types';

const runnable = canRunPostgres('walreceiver-connect.postgres.test.ts', {
  needs: 'unshare, iptables',
  check: () => spawnSync('unshare', ['-n', 'iptables', '-w', '-L'], { encoding: 'utf8' }).status === 0,
});
const describeReal = runnable ? describe : describe.skip;

const DROPPED_PORT = 5999;

/** The operator's primary_conninfo for `db`, pointed at 127.0.0.1:DROPPED_PORT, its kubelet variables filled in. */
function conninfo(): string {
  const db = {
    apiVersion: 'database.example.com/v2',
    kind: 'SampleDB',
    metadata: { name: 'db', namespace: 'ns' },
    spec: { version: '16.4', replicas: 3 },
  } as unknown as Database;
  const args = postgresArgs(db);
  const value = args[args.findIndex((a) => a.startsWith('primary_conninfo='))].slice('primary_conninfo='.length);
  return value
    .replace(/host=\S+/, 'host=127.0.0.1')
    .replace(/port=\d+/, `port=${DROPPED_PORT}`)
    .replace('$(REPLICATION_USER)', 'replicator')
    .replace('$(POD_NAME)', 'db-1');
}

describeReal('SampleDB standby: the WAL receiver against a black-holed primary [real PostgreSQL]', () => {
  let dir: string;
  let pg: ChildProcess | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'walreceiver-'));
    chmodSync(dir, 0o777);
  });

  afterEach(() => {
    if (pg?.pid) {
      try {
        process.kill(-pg.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  test('gives up a connection attempt within seconds (tcp_user_timeout), so a moved <db>-rw is followed at the next attempt', async () => {
    const data = join(dir, 'data');
    const init = spawnSync(
      'runuser',
      ['-u', 'postgres', '--', join(pgBin!, 'initdb'), '-D', data, '--auth=trust', '-U', 'postgres'],
      { encoding: 'utf8', cwd: POSTGRES_CWD },
    );
    expect(init.status).toBe(0);
    spawnSync('runuser', ['-u', 'postgres', '--', 'touch', join(data, 'standby.signal')], { cwd: POSTGRES_CWD });
    const info = conninfo();
    expect(info).toContain('host=127.0.0.1');
    const settings = [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'port=5433',
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'wal_retrieve_retry_interval=2s',
      '-c',
      'wal_receiver_timeout=10s',
      '-c',
      `primary_conninfo=${info}`,
      '-c',
      'log_line_prefix=%m ',
    ];
    const quoted = settings.map((s) => `'${s.replace(/'/g, "'\\''")}'`).join(' ');
    // Its own network namespace: loopback up, every packet to the primary's port dropped (a partition, not a refusal).
    pg = spawn(
      'unshare',
      [
        '-n',
        'sh',
        '-c',
        `ip link set lo up && iptables -w -A INPUT -p tcp --dport ${DROPPED_PORT} -j DROP && exec runuser -u postgres -- ${join(pgBin!, 'postgres')} -D ${data} ${quoted}`,
      ],
      { detached: true },
    );
    const started = Date.now();
    let log = '';
    pg.stderr!.on('data', (b: Buffer) => {
      log += b.toString();
    });
    pg.stdout!.on('data', (b: Buffer) => {
      log += b.toString();
    });
    const failedAt = await new Promise<number | undefined>((resolve) => {
      const timer = setInterval(() => {
        if (/could not connect to the primary server/.test(log)) {
          clearInterval(timer);
          resolve(Date.now());
        }
        if (Date.now() - started > 40_000) {
          clearInterval(timer);
          resolve(undefined);
        }
      }, 200);
    });
    expect(log).toMatch(/ready to accept read-only connections|entering standby mode/);
    // Without tcp_user_timeout the first attempt ends only after the kernel's SYN retries (about 127 s).
    expect(failedAt).toBeDefined();
    expect((failedAt! - started) / 1000).toBeLessThan(20);
    expect(log).toMatch(/could not connect to the primary server: .*(timed out|Connection timed out)/s);
  }, 60_000);
});
