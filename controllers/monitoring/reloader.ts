/**
 * The config-reloader sidecar of the Prometheus and Alertmanager pods (prometheus-operator's
 * config-reloader does the same, in Go; it is not available here): it hashes the files of the watched
 * directories every `--interval` ms and POSTs `--reload-url` (`/-/reload`) when the hash differs from
 * the one last reloaded successfully, retrying until the server accepts. The kubelet writes a changed
 * Secret or ConfigMap into the pod's volume atomically (a `..data` symlink swap), so a reload sees
 * either the old or the new set of files, never half of it.
 *
 * Why a sidecar rather than the operator POSTing `/-/reload`: the operator cannot know when the kubelet
 * has projected the new content into the pod (that takes up to the kubelet's sync period), the sidecar
 * reloads every replica itself, and the operator needs no network path or permission to the pods.
 *
 *   node reloader.js --watch-dir=/etc/prometheus/config [--watch-dir=...] --reload-url=http://127.0.0.1:9090/-/reload [--interval=2000]
 */
import { createHash } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { request } from 'http';
import { join } from 'path';
import { parseArgs } from 'util';

/** The hash of every regular file (through symlinks) of the directories, by name; dot entries (`..data`) skipped. */
export function hashDirectories(dirs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const dir of [...dirs].sort()) {
    let entries: string[];
    try {
      entries = readdirSync(dir)
        .filter((e) => !e.startsWith('.'))
        .sort();
    } catch {
      entries = [];
    }
    for (const entry of entries) {
      try {
        const content = readFileSync(join(dir, entry));
        hash.update(`${dir}/${entry}\0`).update(content).update('\0');
      } catch {
        // a directory or a file vanishing mid-swap: the next round sees the settled state
      }
    }
  }
  return hash.digest('hex');
}

/** POSTs `url`; resolves with the status code (0 when the connection failed). */
export function post(url: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

function log(msg: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(JSON.stringify({ ts: new Date().toISOString(), level: 'info', msg, ...fields }) + '\n');
}

/** Watches and reloads until the process is stopped. */
export function run(dirs: readonly string[], reloadUrl: string, intervalMs: number): NodeJS.Timeout {
  let reloaded: string | undefined;
  let busy = false;
  const tick = async () => {
    if (busy) return;
    busy = true;
    try {
      const hash = hashDirectories(dirs);
      if (hash === reloaded) return;
      const code = await post(reloadUrl);
      if (code >= 200 && code < 300) {
        log('reloaded', { hash, previous: reloaded ?? null });
        reloaded = hash;
      } else {
        log('reload failed, retrying', { code, reloadUrl });
      }
    } finally {
      busy = false;
    }
  };
  void tick();
  return setInterval(() => void tick(), intervalMs);
}

if (require.main === module) {
  const { values } = parseArgs({
    options: {
      'watch-dir': { type: 'string', multiple: true },
      'reload-url': { type: 'string' },
      interval: { type: 'string' },
    },
  });
  const dirs = values['watch-dir'] ?? [];
  const url = values['reload-url'];
  const interval = Number(values.interval ?? '2000');
  if (dirs.length === 0 || !url || !Number.isInteger(interval) || interval < 100) {
    process.stderr.write('usage: reloader.js --watch-dir=DIR... --reload-url=URL [--interval=MS (>= 100)]\n');
    process.exit(2);
  }
  log('watching', { dirs, reloadUrl: url, intervalMs: interval });
  const timer = run(dirs, url, interval);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      clearInterval(timer);
      process.exit(0);
    });
  }
}
