/**
 * promtool, the checker of Prometheus configuration and rule files, from Debian's `prometheus` package
 * (2.42.0 on bookworm, the version of the real node's Prometheus image). Tests that check generated
 * files with it call {@link promtool}: when it is not on PATH it is installed through apt (the test
 * path of a fresh CI machine); when that is impossible the test fails saying why — it never skips.
 */
import { execFileSync, spawnSync } from 'child_process';

let found: string | undefined;

function onPath(): string | undefined {
  const r = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** The path of promtool, installing Debian's `prometheus` package when it is missing. */
export function promtool(): string {
  if (found) return found;
  found = onPath();
  if (found) return found;
  const root = process.getuid?.() === 0;
  const apt = (...args: string[]) =>
    execFileSync(root ? 'apt-get' : 'sudo', root ? args : ['-n', 'apt-get', ...args], {
      stdio: 'pipe',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      timeout: 600_000,
    });
  try {
    apt('install', '-y', '--no-install-recommends', 'prometheus');
  } catch {
    try {
      apt('update');
      apt('install', '-y', '--no-install-recommends', 'prometheus');
    } catch (err) {
      throw new Error(
        `promtool is not on PATH and 'apt-get install prometheus' failed (install Debian's prometheus package): ${String(err)}`,
      );
    }
  }
  found = onPath();
  if (!found) throw new Error("promtool is still not on PATH after installing Debian's prometheus package");
  return found;
}

/** Result of one promtool run. */
export interface PromtoolResult {
  readonly status: number;
  readonly output: string;
}

/** Runs `promtool <args>`. */
export function runPromtool(...args: string[]): PromtoolResult {
  const r = spawnSync(promtool(), args, { encoding: 'utf8', timeout: 60_000 });
  return { status: r.status ?? -1, output: `${r.stdout}${r.stderr}` };
}
