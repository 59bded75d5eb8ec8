/**
 * The instance script (what each database pod runs before PostgreSQL), run by a real `sh` with stub
 * commands for psql, pg_isready, pg_rewind and the image's entrypoint: how a restarted former primary
 * starts. Found by the chaos suite on the real node: the replacement pod of a failed primary found no
 * primary behind <db>-rw (the promoted standby is labelled only afterwards) and started as a second
 * primary on the old timeline.
 */
import { spawn } from 'child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { instanceCommand } from '../../../controllers/sampledb/instance-script';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'instance-script-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the script for pod db-1 holding a former primary's data directory; returns the stubs' call log and the seconds it took. */
async function start(o: {
  peerRunning: boolean;
  primaryAppearsAfterMs?: number;
  waitSeconds: number;
}): Promise<{ calls: string[]; seconds: number }> {
  const bin = join(dir, 'bin');
  const pgdata = join(dir, 'data');
  mkdirSync(bin);
  mkdirSync(pgdata);
  writeFileSync(join(pgdata, 'PG_VERSION'), '15\n'); // a data directory, and no standby.signal: a former primary
  if (o.peerRunning) writeFileSync(join(dir, 'peer'), '');
  const stub = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  stub('psql', `[ -f "${dir}/rw" ] && cat "${dir}/rw"; exit 0`);
  stub('pg_isready', `[ -f "${dir}/peer" ]`);
  stub('pg_rewind', `echo rewind >> "${dir}/calls"`);
  stub('pg_basebackup', `echo clone >> "${dir}/calls"`);
  stub(
    'docker-entrypoint.sh',
    `if [ -f "$PGDATA/standby.signal" ]; then echo "postgres as a standby" >> "${dir}/calls"; else echo "postgres as a primary" >> "${dir}/calls"; fi`,
  );
  const [sh, dashC, script, arg0] = instanceCommand();
  const env = {
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
  };
  const timer =
    o.primaryAppearsAfterMs === undefined
      ? undefined
      : setTimeout(() => writeFileSync(join(dir, 'rw'), '10.0.0.2\n'), o.primaryAppearsAfterMs);
  const started = Date.now();
  const code = await new Promise<number | null>((resolve) => {
    // The script writes its pgpass and pg_hba.conf to /tmp of its pod: here to the test's folder.
    const child = spawn(sh, [dashC, script.split('/tmp/').join(`${dir}/`), arg0], { env, stdio: 'ignore' });
    child.on('exit', resolve);
  });
  clearTimeout(timer);
  expect(code).toBe(0);
  return {
    calls: existsSync(join(dir, 'calls')) ? readFileSync(join(dir, 'calls'), 'utf8').trim().split('\n') : [],
    seconds: (Date.now() - started) / 1000,
  };
}

describe('instance script: a restarted former primary', () => {
  test('with other instances running and no primary behind -rw yet, it waits; once the promoted standby serves -rw it rewinds and starts as its standby', async () => {
    const r = await start({ peerRunning: true, primaryAppearsAfterMs: 2500, waitSeconds: 30 });
    expect(r.calls).toEqual(['rewind', 'postgres as a standby']);
    expect(r.seconds).toBeGreaterThanOrEqual(2);
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
