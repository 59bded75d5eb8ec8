/**
 * The self-fencing loop's query session (`replication_state` of instance-script.ts) against a real PostgreSQL (the
 * host's, run as the `postgres` user) and a real psql: the answers come back through the coprocess line by line
 * (psql flushes each one), many queries share one backend, a restart of PostgreSQL ends the session and the next
 * query opens a new one, and the operator does not count the session as a client's connection.
 *
 * Needs root (PostgreSQL run as the `postgres` user); skipped, saying so, without.
 */
import { ChildProcess, spawn } from 'child_process';
import { askHealth } from './health-endpoint';
import { canRunPostgres, POSTGRES_CWD, TestPostgres } from './real-postgres';
import {
  HEALTH_SERVER_FUNCTION,
  REPLICATION_STATE_FUNCTION,
  WATCHDOG_FUNCTION,
} from '../../../controllers/sampledb/instance-script';
import { PgInstanceClient } from '../../../controllers/sampledb/instances';
import { WATCHDOG_APPLICATION } from '../../../controllers/sampledb/types';
import { hostSlackMs, hostSlackTries, until } from '../../runtime/support';
import { freePort } from '../../support/free-port';

const runnable = canRunPostgres('watchdog-session.postgres.test.ts');
const describeReal = runnable ? describe : describe.skip;
const PORT = 5434;

describeReal('SampleDB self-fencing loop: one psql session for its queries [real PostgreSQL]', () => {
  let pg: TestPostgres;
  let loop: ChildProcess | undefined;

  beforeEach(() => {
    pg = new TestPostgres('watchdog-session-', PORT);
    pg.start();
  });

  afterEach(() => {
    if (loop?.pid) {
      try {
        process.kill(-loop.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    pg.remove();
  });

  test('answers every query in one backend, opens a new session after a restart, and is not counted as a client', async () => {
    // the loop's function as the pod runs it (over TCP on 127.0.0.1, PGPORT the test's); one query a line, as the
    // pod's loop asks each second
    const script = [
      REPLICATION_STATE_FUNCTION,
      "trap '' PIPE",
      'while read -r cmd; do',
      '  if replication_state; then echo "ok $WD_PID $r"; else echo failed; fi',
      'done',
    ].join('\n');
    loop = spawn(
      'runuser',
      ['-u', 'postgres', '--', 'env', 'POSTGRES_USER=postgres', `PGPORT=${PORT}`, 'bash', '-c', script],
      { detached: true, cwd: POSTGRES_CWD },
    );
    let out = '';
    loop.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    const answers = () => out.trim().split('\n').filter(Boolean);
    const ask = async () => {
      const before = answers().length;
      loop!.stdin!.write('q\n');
      const end = Date.now() + 15_000;
      while (answers().length === before && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
      return answers()[before];
    };
    // A new session must answer within WATCHDOG_ANSWER_SECONDS, or the loop says `failed` and tries a new one next time:
    // on a quiet host that does not happen (TEST_TIMEOUT_SCALE 1: no failed answer allowed); on a starved one (CI's jest
    // beside the node suites, rehearsal QB) starting psql alone took longer, so each further allowance allows one.
    const askUntilAnswered = async () => {
      let answer = await ask();
      for (let failures = 0; answer === 'failed' && failures < hostSlackTries() - 1; failures++) answer = await ask();
      return answer;
    };

    const first = await askUntilAnswered();
    expect(first).toMatch(/^ok \d+ f 0 -1$/);
    const session = first.split(' ')[1];
    for (let i = 0; i < 3; i++) expect(await ask()).toBe(first);

    // while it is open: one backend named as the loop, which the operator's poll does not count
    expect(pg.psql(`select count(*) from pg_stat_activity where application_name = '${WATCHDOG_APPLICATION}'`)).toBe(
      '1',
    );
    const client = new PgInstanceClient(hostSlackMs(3000), PORT);
    try {
      const state = await client.state('127.0.0.1', {
        username: 'postgres',
        password: '',
        replicationUsername: 'replicator',
        replicationPassword: '',
      });
      expect(state?.connections).toBe(0);
    } finally {
      await client.close();
    }

    // PostgreSQL restarted: the query after it finds the session ended, opens a new one and asks it at once
    expect(pg.pgCtl('-m', 'fast', '-w', 'stop').status).toBe(0);
    pg.start();
    const next = await askUntilAnswered();
    expect(next).toMatch(/^ok \d+ f 0 -1$/);
    expect(next.split(' ')[1]).not.toBe(session);
  }, 60_000);

  test('the health endpoint the probes ask: 200 while PostgreSQL answers the loop, 503 within 2 s of its stop, 200 again once it is back', async () => {
    // the pod's loop and endpoint, self-fencing off; their files (the answer's record, the loop's FIFO) in the test's folder
    const port = await freePort();
    const script = [REPLICATION_STATE_FUNCTION, HEALTH_SERVER_FUNCTION, WATCHDOG_FUNCTION]
      .join('\n')
      .split('/tmp/')
      .join(`${pg.dir}/`);
    loop = spawn(
      'runuser',
      [
        '-u',
        'postgres',
        '--',
        'env',
        'POSTGRES_USER=postgres',
        `PGPORT=${pg.port}`,
        `PGDATA=${pg.dir}/data`,
        'SAMPLEDB_ISOLATION_FENCE_SECONDS=0',
        `SAMPLEDB_HEALTH_PORT=${port}`,
        'bash',
        '-c',
        `${script}\nanswered=${pg.dir}/answered\nhealth_server &\nwatchdog`,
      ],
      { detached: true, cwd: POSTGRES_CWD, stdio: 'ignore' },
    );
    const health = () => askHealth(port);
    const answers = (status: number) =>
      until(
        `the health endpoint answers ${status}`,
        async () => ((await health()).status === status ? true : undefined),
        30_000,
      );

    await answers(200);
    expect((await health()).body).toMatch(/^PostgreSQL answered [0-2] s ago\n$/);
    expect(pg.pgCtl('-m', 'fast', '-w', 'stop').status).toBe(0);
    const stopped = Date.now();
    await answers(503);
    const seconds = (Date.now() - stopped) / 1000;
    // the loop's next question, a second later at most, finds no server to connect to
    expect(seconds).toBeLessThanOrEqual(2 + hostSlackMs(3000) / 1000);
    expect((await health()).body).toMatch(/^PostgreSQL did not answer the last question/);
    pg.start();
    await answers(200);
  }, 120_000);
});
