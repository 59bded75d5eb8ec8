/**
 * What the `*.postgres.test.ts` files need to run a real PostgreSQL on this machine, and their one-line skip notice.
 *
 * They run PostgreSQL's own binaries from Debian's layout as the `postgres` user (PostgreSQL refuses to run as root),
 * so they need root, `runuser` on the PATH and a `postgres` user; without, they skip and say what is missing.
 */
import { spawnSync } from 'child_process';
import { existsSync, readdirSync } from 'fs';
import { join } from 'path';

const PG_LIB = '/usr/lib/postgresql';

/** The newest PostgreSQL's bin folder under /usr/lib/postgresql, if any. */
export const pgBin: string | undefined = existsSync(PG_LIB)
  ? readdirSync(PG_LIB)
      .sort()
      .map((v) => join(PG_LIB, v, 'bin'))
      .reverse()
      .find((b) => existsSync(join(b, 'postgres')))
  : undefined;

/**
 * Whether a real PostgreSQL can run here as the `postgres` user, and whatever else `extra` checks (named in `needs`);
 * when not, one line on stderr saying `file` is skipped and why.
 */
export function canRunPostgres(
  file: string,
  extra?: { readonly needs: string; readonly check: () => boolean },
): boolean {
  const runnable =
    process.getuid?.() === 0 &&
    !!pgBin &&
    spawnSync('runuser', ['-u', 'postgres', '--', 'true']).status === 0 &&
    (extra?.check() ?? true);
  if (!runnable) {
    process.stderr.write(
      `${file}: skipped (needs root, ${extra ? `${extra.needs}, ` : ''}a PostgreSQL under ${PG_LIB}, runuser on the PATH and a postgres user)\n`,
    );
  }
  return runnable;
}
