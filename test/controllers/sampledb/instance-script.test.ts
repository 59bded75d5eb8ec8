/**
 * The instance script (what each database pod runs before PostgreSQL), run by a real `sh` with stub
 * commands for psql, pg_isready, pg_rewind and the image's entrypoint: how a restarted former primary
 * starts. Found by the chaos suite on the real node: the replacement pod of a failed primary found no
 * primary behind <db>-rw (the promoted standby is labelled only afterwards) and started as a second
 * primary on the old timeline.
 */
import { spawn, spawnSync } from 'child_process';
import { createHash } from 'crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { askHealth } from './health-endpoint';
import { FENCE_DETECTION_SECONDS } from '../../../controllers/sampledb/fencing';
import {
  DROP_TIMELINE_PLACEHOLDERS_FUNCTION,
  HEALTH_MAX_AGE_SECONDS,
  HEALTH_SERVER_FUNCTION,
  instanceCommand,
  WATCHDOG_ANSWER_SECONDS,
} from '../../../controllers/sampledb/instance-script';
import { placeholderHistory } from '../../../controllers/sampledb/timeline-reservation';
import { hostSlackMs, until } from '../../runtime/support';
import { freePort } from '../../support/free-port';

let dir: string;
/** Process groups of the scripts a test started: its self-fencing loop outlives the (stub) postmaster. */
const groups: number[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'instance-script-'));
});
afterEach(() => {
  // a loop left running once its folder (and the stub psql) is gone would run the host's psql every second for good
  for (const pid of groups.splice(0)) killGroup(pid);
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the script for pod db-1 holding a former primary's data directory; returns the stubs' call log and the seconds it took. */
async function start(o: {
  peerRunning: boolean;
  primaryAppearsAfterMs?: number;
  waitSeconds: number;
  /** Self-fencing: seconds (SAMPLEDB_ISOLATION_FENCE_SECONDS), the fence record on the volume, what pg_stat_replication shows. */
  fenceSeconds?: number;
  fencedAt?: string;
  replication?: string;
  /** SIGTERM the script after this long (a pod deleted while it waits). */
  termAfterMs?: number;
  /**
   * KUBERNETES_SERVICE_HOST and _PORT (a closed port: the apiserver unreachable at once); none by default. `drops`: its
   * connect times out as in a partition (the `timeout` around it waits its seconds and fails).
   */
  apiserver?: { host: string; port: number; drops?: boolean };
  /** The standby replies (`f 1 0`) until the test writes the second of a cut to the file `cut`; from then its last reply ages. */
  standbyCut?: boolean;
  /**
   * The self-fencing loop's psql session ends after this many answers, or never answers, or (`hangsOnCue`) stops
   * answering, as does every later session, once the test writes the file `hang`.
   */
  session?: { queries?: number; hangs?: boolean; hangsOnCue?: boolean };
  /** An empty data directory (a new standby) instead of a former primary's; pg_basebackup fails this many times first. */
  empty?: { basebackupFailures: number };
  /**
   * The former primary's data on timeline 2 (pg_controldata says so, `pg_wal/00000002.history`), and the md5 of its
   * history file the primary behind -rw reports on that timeline: `same` (a standby of it could follow) or `other` (a
   * second promotion took the ID).
   */
  timeline2?: 'same' | 'other';
}): Promise<{ calls: string[]; seconds: number; pid: number; healthPort: number }> {
  const bin = join(dir, 'bin');
  const pgdata = join(dir, 'data');
  mkdirSync(bin, { recursive: true });
  mkdirSync(pgdata, { recursive: true });
  // a data directory, and no standby.signal: a former primary
  if (!o.empty) writeFileSync(join(pgdata, 'PG_VERSION'), '15\n');
  if (o.fencedAt) writeFileSync(join(dir, 'sampledb-fenced'), `${o.fencedAt}\n`); // beside PGDATA, on the volume
  if (o.peerRunning) writeFileSync(join(dir, 'peer'), '');
  const history = '1\t0/3000060\tno recovery target specified\n';
  if (o.timeline2) {
    mkdirSync(join(pgdata, 'pg_wal'), { recursive: true });
    writeFileSync(join(pgdata, 'pg_wal', '00000002.history'), history);
  }
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  // the processes the self-fencing loop starts, logged to `spawned` (date, sleep and timeout then run as usual)
  const host = `PATH="${process.env.PATH}"`;
  for (const name of ['date', 'sleep', 'timeout']) {
    stub(name, `echo ${name} >> "${dir}/spawned"; ${host} exec ${name} "$@"`);
  }
  if (o.apiserver?.drops) stub('timeout', `echo timeout >> "${dir}/spawned"; ${host} sleep "$1"; exit 124`);
  const replication = o.standbyCut
    ? `$([ -f "${dir}/cut" ] && echo "f 1 $(($(${host} date +%s) - $(cat "${dir}/cut")))" || echo 'f 1 0')`
    : (o.replication ?? 'f 1 0');
  // psql -c: the primary behind -rw (from the file `rw`); psql on stdin: the self-fencing loop's session, which answers
  // each query with `replication` (logged to `queries`) and each \\echo, and ends, unanswered, at the query after
  // `session.queries` answers (PostgreSQL restarted between two of them), or never answers (`session.hangs`)
  stub(
    'psql',
    [
      `case "$*" in *md5*) ${o.timeline2 === 'same' ? `echo ${createHash('md5').update(history).digest('hex')}` : 'echo 0123456789abcdef0123456789abcdef'}; exit 0;; esac`,
      `case "$*" in *-Atqc*) [ -f "${dir}/rw" ] && cat "${dir}/rw"; exit 0;; esac`,
      `echo 'psql session' >> "${dir}/spawned"`,
      'n=0',
      'while IFS= read -r line; do',
      ...(o.session?.hangs
        ? ['  :']
        : [
            ...(o.session?.hangsOnCue ? [`  [ -f "${dir}/hang" ] && continue`] : []),
            '  case "$line" in',
            `    *pg_stat_replication*) ${o.session?.queries ? `[ "$n" -ge ${o.session.queries} ] && exit 0; ` : ''}echo query >> "${dir}/queries"; echo "${replication}"; n=$((n + 1));;`,
            '    *__end__*) echo __end__;;',
            '  esac',
          ]),
      'done',
    ].join('\n'),
  );
  stub(
    'pg_ctl',
    `echo "pg_ctl $*" >> "${dir}/calls"; ${host} date +%s%3N > "${dir}/stopped-at.tmp"; mv "${dir}/stopped-at.tmp" "${dir}/stopped-at"`,
  );
  stub('pg_isready', `[ -f "${dir}/peer" ]`);
  if (o.timeline2) stub('pg_controldata', `echo "Latest checkpoint's TimeLineID:       2"`);
  stub('pg_rewind', `echo rewind >> "${dir}/calls"`);
  stub(
    'pg_basebackup',
    `n=$(cat "${dir}/clones" 2>/dev/null || echo 0); echo $((n + 1)) > "${dir}/clones"; if [ "$n" -lt ${o.empty?.basebackupFailures ?? 0} ]; then echo "clone failed" >> "${dir}/calls"; exit 1; fi; echo clone >> "${dir}/calls"`,
  );
  stub(
    'docker-entrypoint.sh',
    `echo "$*" > "${dir}/args"; if [ -f "$PGDATA/standby.signal" ]; then echo "postgres as a standby" >> "${dir}/calls"; else echo "postgres as a primary" >> "${dir}/calls"; fi`,
  );
  const [sh, dashC, script, arg0] = instanceCommand();
  const healthPort = await freePort();
  const env = {
    SAMPLEDB_HEALTH_PORT: String(healthPort),
    PATH: `${bin}:${process.env.PATH}`,
    POD_NAME: 'db-1',
    POD_IP: '10.0.0.1',
    PRIMARY_SERVICE: 'db-rw',
    STATEFULSET: 'db',
    HEADLESS_SERVICE: 'db-headless',
    POSTGRES_USER: 'u',
    POSTGRES_PASSWORD: 'p',
    REPLICATION_USER: 'r',
    REPLICATION_PASSWORD: 'q',
    PGDATA: pgdata,
    FORMER_PRIMARY_WAIT_SECONDS: String(o.waitSeconds),
    SAMPLEDB_ISOLATION_FENCE_SECONDS: String(o.fenceSeconds ?? 0),
    ...(o.apiserver
      ? { KUBERNETES_SERVICE_HOST: o.apiserver.host, KUBERNETES_SERVICE_PORT: String(o.apiserver.port) }
      : {}),
  };
  const timer =
    o.primaryAppearsAfterMs === undefined
      ? undefined
      : setTimeout(() => writeFileSync(join(dir, 'rw'), '10.0.0.2\n'), o.primaryAppearsAfterMs);
  const started = Date.now();
  let pid = 0;
  const code = await new Promise<number | null>((resolve) => {
    // The script writes its pgpass and pg_hba.conf to /tmp of its pod: here to the test's folder. Its own process
    // group: the self-fencing loop outlives the (stub) postmaster and is killed with the group.
    const child = spawn(sh, [dashC, script.split('/tmp/').join(`${dir}/`), arg0], {
      env,
      stdio: 'ignore',
      detached: true,
    });
    pid = child.pid!;
    groups.push(pid);
    child.on('exit', resolve);
    if (o.termAfterMs !== undefined) setTimeout(() => child.kill('SIGTERM'), o.termAfterMs);
  });
  clearTimeout(timer);
  // 143: its own exit on SIGTERM (as PID 1 in a container the shell would otherwise ignore the signal)
  expect(code).toBe(o.termAfterMs === undefined ? 0 : 143);
  return {
    calls: existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n') : [],
    seconds: (Date.now() - started) / 1000,
    pid,
    healthPort,
  };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

describe('instance script: a restarted former primary', () => {
  test('with other instances running and no primary behind -rw yet, it waits; once the promoted standby serves -rw it rewinds and starts as its standby', async () => {
    const r = await start({ peerRunning: true, primaryAppearsAfterMs: 2500, waitSeconds: 30 });
    expect(r.calls).toEqual(['rewind', 'postgres as a standby']);
    expect(r.seconds).toBeGreaterThanOrEqual(2);
  });

  test('on timeline 2 like the primary behind -rw, same history: it rewinds (a no-op) and starts as its standby', async () => {
    const r = await start({ peerRunning: true, primaryAppearsAfterMs: 0, waitSeconds: 30, timeline2: 'same' });
    expect(r.calls).toEqual(['rewind', 'postgres as a standby']);
  });

  test('on timeline 2 like the primary behind -rw, another history (a second promotion took the ID): re-cloned, not rewound (pg_rewind would see nothing to do)', async () => {
    const r = await start({ peerRunning: true, primaryAppearsAfterMs: 0, waitSeconds: 30, timeline2: 'other' });
    expect(r.calls).toEqual(['clone', 'postgres as a standby']);
  });

  test('with other instances running and still no primary after the wait, it starts as it was', async () => {
    const r = await start({ peerRunning: true, waitSeconds: 4 });
    expect(r.calls).toEqual(['postgres as a primary']);
    expect(r.seconds).toBeGreaterThanOrEqual(4);
  });

  test('alone (no other instance runs) it starts as it was at once', async () => {
    const r = await start({ peerRunning: false, waitSeconds: 30 });
    expect(r.calls).toEqual(['postgres as a primary']);
    expect(r.seconds).toBeLessThan(2);
  });
});

describe('instance script: a new standby', () => {
  test("clones from the primary behind -rw; a failed pg_basebackup is tried again in the container (a crash would wait for the kubelet's back-off)", async () => {
    const r = await start({
      peerRunning: true,
      primaryAppearsAfterMs: 0,
      waitSeconds: 30,
      empty: { basebackupFailures: 2 },
    });
    expect(r.calls).toEqual(['clone failed', 'clone failed', 'clone', 'postgres as a standby']);
  });
});

describe('instance script: timeline placeholders of a promotion that never happened (timeline-reservation.ts)', () => {
  /** drop_timeline_placeholders on a data directory whose control file names `timeline`, with these history files. */
  const drop = (timeline: number, files: Record<string, string>) => {
    const wal = join(dir, 'pgdata', 'pg_wal');
    mkdirSync(wal, { recursive: true });
    for (const [name, text] of Object.entries(files)) writeFileSync(join(wal, name), `${text}\n`);
    const r = spawnSync(
      'bash',
      [
        '-c',
        [
          'set -eu',
          'log() { echo "$*"; }',
          `pg_controldata() { printf "Latest checkpoint's TimeLineID:       ${timeline}\\nMin recovery ending loc's timeline: 0\\n"; }`,
          DROP_TIMELINE_PLACEHOLDERS_FUNCTION,
          'drop_timeline_placeholders',
        ].join('\n'),
      ],
      // stdin not a socket (libuv's pipes are): bash run with one reads ~/.bashrc, as under rshd
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { PATH: process.env.PATH, PGDATA: join(dir, 'pgdata') },
      },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return { log: r.stdout.trim().split('\n').filter(Boolean), left: readdirSync(wal).sort() };
  };
  const real = (parent: number) => `${parent}\t0/3000000\tno recovery target specified`;

  test('those above its newest real history file and its own timeline go; those below a real one fill a gap and stay', () => {
    const r = drop(1, {
      '00000002.history': placeholderHistory(2),
      '00000003.history': real(1),
      '00000004.history': placeholderHistory(4),
      '0000000A.history': placeholderHistory(10),
    });
    expect(r.left).toEqual(['00000002.history', '00000003.history']);
    expect(r.log).toEqual([
      'removing the timeline 4 placeholder of a promotion that did not happen',
      'removing the timeline 10 placeholder of a promotion that did not happen',
    ]);
  });

  test("at or below the data directory's timeline nothing goes; a real file is never touched, nor one that only looks alike", () => {
    const r = drop(5, {
      '00000004.history': placeholderHistory(4),
      '00000005.history': placeholderHistory(5),
      '00000006.history': real(5),
      '00000007.history': placeholderHistory(8),
    });
    expect(r.left).toEqual(['00000004.history', '00000005.history', '00000006.history', '00000007.history']);
    expect(r.log).toEqual([]);
  });
});

describe('instance script: the health endpoint the probes ask', () => {
  const ask = askHealth;
  const answer = async (port: number, status: number) =>
    until(`the health endpoint answers ${status}`, async () => {
      const a = await ask(port);
      return a.status === status ? a : undefined;
    });

  test('503 and why while PostgreSQL has not answered: not asked yet, then the question that timed out', async () => {
    const r = await start({ peerRunning: false, waitSeconds: 30, session: { hangs: true } });
    const first = await until('the health endpoint answers', async () => {
      const x = await ask(r.healthPort);
      return x.status ? x : undefined;
    });
    expect(first).toStrictEqual({ status: 503, body: 'PostgreSQL has not been asked yet\n' });
    const timedOut = await until('the first question timed out', async () => {
      const x = await ask(r.healthPort);
      return x.body.includes('did not answer') ? x : undefined;
    });
    expect(timedOut.status).toBe(503);
    expect(timedOut.body).toMatch(/^PostgreSQL did not answer the last question, [0-2] s ago\n$/);
  });

  test(`200 once PostgreSQL answered; 503 once a question is left unanswered for ${WATCHDOG_ANSWER_SECONDS} s (no exec probe, no pg_isready)`, async () => {
    const r = await start({ peerRunning: false, waitSeconds: 30, session: { hangsOnCue: true } });
    expect((await answer(r.healthPort, 200)).body).toMatch(/^PostgreSQL answered [01] s ago\n$/);
    writeFileSync(join(dir, 'hang'), '');
    const cue = Date.now();
    expect((await answer(r.healthPort, 503)).body).toMatch(/^PostgreSQL did not answer the last question/);
    const seconds = (Date.now() - cue) / 1000;
    // the first question after the cue was asked within a second of it
    expect(seconds).toBeGreaterThanOrEqual(WATCHDOG_ANSWER_SECONDS - 1);
    expect(seconds).toBeLessThanOrEqual(WATCHDOG_ANSWER_SECONDS + 1 + hostSlackMs(3000) / 1000);
  }, 60_000);

  test(`the endpoint alone: 503 when the last answer is older than ${HEALTH_MAX_AGE_SECONDS} s (a loop that stopped asking), or was no answer`, async () => {
    const port = await freePort();
    const answered = join(dir, 'answered');
    const server = spawn('bash', ['-c', `${HEALTH_SERVER_FUNCTION}\nhealth_server`], {
      env: { ...process.env, SAMPLEDB_HEALTH_PORT: String(port), answered },
      stdio: 'ignore',
      detached: true,
    });
    groups.push(server.pid!);
    // The server reads whole seconds (perl's `time`, the coarse clock, and the file's mtime): the answer is recorded at a
    // whole second and asked again while the age it reports is not the one recorded, i.e. a second went by between the
    // record and the answer (a starved host), or the coarse clock had not yet reached the second Date.now() had.
    const answerAged = async (state: string, secondsAgo: number) => {
      for (let tries = 1; ; tries++) {
        writeFileSync(answered, state);
        const at = Math.floor(Date.now() / 1000) - secondsAgo;
        utimesSync(answered, at, at);
        const got = await ask(port);
        if (got.body.includes(` ${secondsAgo} s ago`) || tries === 5) return got;
      }
    };
    writeFileSync(answered, '1');
    await answer(port, 200); // the server is up
    expect(await answerAged('1', 0)).toStrictEqual({ status: 200, body: 'PostgreSQL answered 0 s ago\n' });
    expect(await answerAged('1', HEALTH_MAX_AGE_SECONDS)).toStrictEqual({
      status: 200,
      body: `PostgreSQL answered ${HEALTH_MAX_AGE_SECONDS} s ago\n`,
    });
    expect(await answerAged('1', HEALTH_MAX_AGE_SECONDS + 1)).toStrictEqual({
      status: 503,
      body: `PostgreSQL answered ${HEALTH_MAX_AGE_SECONDS + 1} s ago\n`,
    });
    expect(await answerAged('0', 0)).toStrictEqual({
      status: 503,
      body: 'PostgreSQL did not answer the last question, 0 s ago\n',
    });
  });

  test("a standby's health too, with self-fencing off (before, a standby ran no loop and its probes asked pg_isready)", async () => {
    const r = await start({
      peerRunning: true,
      primaryAppearsAfterMs: 0,
      waitSeconds: 30,
      empty: { basebackupFailures: 0 },
    });
    expect(r.calls).toEqual(['clone', 'postgres as a standby']);
    expect((await answer(r.healthPort, 200)).body).toMatch(/^PostgreSQL answered [01] s ago\n$/);
  });
});

describe('instance script: self-fencing of an isolated primary (fencing.ts)', () => {
  const calls = () => (existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8') : '');
  const waitFor = async (what: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!what() && Date.now() < end) await new Promise((r) => setTimeout(r, 200));
    return what();
  };

  test('a primary whose standby stopped replying and that reaches no apiserver stops PostgreSQL (immediate) after the fence seconds, recording when', async () => {
    // pg_stat_replication: a primary ('f'), one standby, its last reply 9 s ago; no KUBERNETES_SERVICE_HOST: no apiserver
    // (its process group is killed after the test)
    await start({ peerRunning: false, waitSeconds: 30, fenceSeconds: 2, replication: 'f 1 9' });
    expect(await waitFor(() => calls().includes('pg_ctl stop'), 10_000)).toBe(true);
    expect(calls()).toMatch(/pg_ctl stop -D \S+ -m immediate/);
    expect(readFileSync(join(dir, 'sampledb-fenced'), 'utf8')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/m);
  });

  test('a primary whose standby replies does not fence itself, nor one that never had a standby (it cannot be failed over)', async () => {
    const replying = await start({ peerRunning: false, waitSeconds: 30, fenceSeconds: 1, replication: 'f 1 0' });
    await new Promise((r) => setTimeout(r, 4000));
    killGroup(replying.pid);
    rmSync(join(dir, 'calls'), { force: true });
    const alone = await start({ peerRunning: false, waitSeconds: 30, fenceSeconds: 1, replication: 'f 0 -1' });
    await new Promise((r) => setTimeout(r, 4000));
    killGroup(alone.pid);
    expect(calls()).not.toContain('pg_ctl');
    expect(existsSync(join(dir, 'sampledb-fenced'))).toBe(false);
  });

  const spawned = () =>
    existsSync(join(dir, 'spawned')) ? readFileSync(join(dir, 'spawned'), 'utf8').trim().split('\n') : [];
  const queries = () =>
    existsSync(join(dir, 'queries')) ? readFileSync(join(dir, 'queries'), 'utf8').split('\n').length - 1 : 0;

  test("the loop asks every second in one psql session and starts no other process (its clock and pause are the shell's own); a primary that never had a standby never looks for the apiserver", async () => {
    const apiserver = { host: '127.0.0.1', port: 1 };
    for (const replication of ['f 1 0', 'f 0 -1']) {
      rmSync(join(dir, 'spawned'), { force: true });
      rmSync(join(dir, 'queries'), { force: true });
      const r = await start({ peerRunning: false, waitSeconds: 30, fenceSeconds: 1, replication, apiserver });
      // three rounds of the loop, however slowly a starved host starts the script (a fixed 4 s saw two in CI)
      await waitFor(() => queries() >= 3, hostSlackMs(4000));
      killGroup(r.pid);
      // before: a psql (and a backend) every second, and earlier a date and a sleep, and for the lone primary a
      // timeout (the apiserver's connect) as well
      expect(spawned()).toStrictEqual(['psql session']);
      expect(queries()).toBeGreaterThanOrEqual(3);
    }
  });

  test("a primary cut off at T stops between T + the fence seconds − 1 and T + the fence seconds + FENCE_DETECTION_SECONDS (the bound the failover delay waits for): the standby's last reply counts from when it was sent, not from when the loop read it", async () => {
    const fence = 5;
    await start({
      peerRunning: false,
      waitSeconds: 30,
      fenceSeconds: fence,
      standbyCut: true,
      apiserver: { host: '10.0.0.9', port: 443, drops: true },
    });
    // the loop has seen its standby reply; then the cut, on a second's boundary (the stub's clock counts whole seconds)
    expect(await waitFor(() => queries() >= 2, 10_000)).toBe(true);
    await new Promise((r) => setTimeout(r, 1000 - (Date.now() % 1000)));
    const cut = Date.now();
    writeFileSync(join(dir, 'cut'), `${Math.floor(cut / 1000)}\n`);
    expect(await waitFor(() => existsSync(join(dir, 'stopped-at')), 20_000)).toBe(true);
    const afterCut = (Number(readFileSync(join(dir, 'stopped-at'), 'utf8')) - cut) / 1000;
    // before: 11-12 s (the reply's age counted from the read that first found it stale, a round of 3 s late)
    expect(afterCut).toBeGreaterThanOrEqual(fence - 1);
    expect(afterCut).toBeLessThanOrEqual(fence + FENCE_DETECTION_SECONDS);
  });

  test('a session that ended (PostgreSQL restarted) is opened again: the loop goes on and still fences', async () => {
    // each session answers once and has ended when the next query comes. The first answer: a standby replied just now
    // (contact); every later one: its last reply 9 s ago, and no apiserver: fenced 3 s after the first answer, so never
    // by the first session (answering 9 s from the start, a CI host slow to start the first session fenced on its first
    // answer: rehearsal IC, 1 session). The loop opens a new session and asks it at once: counted as a failed answer,
    // every other second would be contact again (at most 2 s of whole-second clock apart), and the loop would never
    // fence. (A session that ended right after its answer raced bash, which closes a coprocess's pipe when it reaps
    // it: the answer was lost on a loaded host.)
    const ended = await start({
      peerRunning: false,
      waitSeconds: 30,
      fenceSeconds: 3,
      replication: `$([ -f "${dir}/answered" ] && echo 'f 1 9' || { : > "${dir}/answered"; echo 'f 1 0'; })`,
      session: { queries: 1 },
    });
    expect(await waitFor(() => calls().includes('pg_ctl stop'), 20_000)).toBe(true);
    // stopped before its files are read; the fence's record takes a `date`
    killGroup(ended.pid);
    const sessions = spawned().filter((p) => p === 'psql session').length;
    expect(sessions).toBeGreaterThanOrEqual(2);
    expect(queries()).toBe(sessions);
  });

  test('a session that stops answering is dropped after 5 s and a new one opened (a psql per query had no bound)', async () => {
    // this stub's sessions answer no query
    await start({ peerRunning: false, waitSeconds: 30, fenceSeconds: 1, session: { hangs: true } });
    expect(await waitFor(() => spawned().length >= 2, 9_000)).toBe(true);
  });

  test('a fenced former primary still cut off does not start (alone, an unfenced one would); once a primary serves -rw it rewinds, and PostgreSQL gets the fence record', async () => {
    const r = await start({
      peerRunning: false,
      primaryAppearsAfterMs: 3000,
      waitSeconds: 30,
      fencedAt: '2026-11-28T07:00:00Z',
    });
    expect(r.calls).toEqual(['rewind', 'postgres as a standby']);
    expect(r.seconds).toBeGreaterThanOrEqual(2.5);
    expect(readFileSync(join(dir, 'args'), 'utf8')).toContain('-c sampledb.last_self_fence=2026-11-28T07:00:00Z');
    expect(existsSync(join(dir, 'sampledb-fenced'))).toBe(false);
    expect(readFileSync(join(dir, 'sampledb-last-fence'), 'utf8').trim()).toBe('2026-11-28T07:00:00Z');
  });

  test('SIGTERM (its pod deleted) ends a fenced instance that waits, at once', async () => {
    const r = await start({ peerRunning: false, waitSeconds: 30, fencedAt: '2026-11-28T07:00:00Z', termAfterMs: 1500 });
    expect(r.calls).toEqual([]);
    expect(r.seconds).toBeLessThan(5);
    killGroup(r.pid);
  });
});
