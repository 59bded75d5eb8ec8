/**
 * What each database pod runs before PostgreSQL: it decides, from what it finds on its volume and
 * on the network, how this instance starts. The operator never execs into pods; it steers instances
 * through the role label (which pod `<db>-rw` selects), `pg_promote()`, and deleting a pod to fence it.
 *
 * Expected flow of the script:
 * 1. Empty data directory:
 *    - pod 0 while no primary answers at `<db>-rw` and no other instance of the database runs
 *      PostgreSQL → `initdb` (the official image's entrypoint): a new database starts with pod 0
 *      as its primary;
 *    - otherwise → wait for `<db>-rw`, `pg_basebackup` from it, and start as a hot standby.
 * 2. Data directory of a former primary (no `standby.signal`) while `<db>-rw` reaches another
 *    primary → this instance was failed over: `pg_rewind` onto the new primary (re-clone when that
 *    fails), then start as a standby. No primary behind `<db>-rw` while other instances run → a
 *    failover may be under way (its target is labelled, and so reachable, only once promoted):
 *    started as a primary now, two instances would accept writes on diverging timelines, so it
 *    waits, looking again every 2 s, up to {@link FORMER_PRIMARY_WAIT_SECONDS} (seen by the chaos
 *    suite). Alone (no other instance runs), or once the wait is over, it starts as it was.
 * 3. A standby streams from `<db>-rw` (`primary_conninfo`), so after a failover it follows the new
 *    primary by itself (`recovery_target_timeline = latest`, the default).
 *
 * Settings passed to `postgres`: `wal_log_hints` (pg_rewind needs it), `wal_keep_size` (a rejoining
 * instance finds the WAL it needs), `hot_standby_feedback`, a short `wal_receiver_timeout` (a
 * standby notices a vanished primary in seconds), and an `hba_file` that allows replication by the
 * replication user.
 */
import { Database, names } from './types';

/** Keys of the replication user in the credentials Secret. */
export const REPLICATION_USER_KEY = 'replicationUsername';
export const REPLICATION_PASSWORD_KEY = 'replicationPassword';

/** Instances a database can have (spec.replicas maximum): the script looks for running peers among them. */
export const MAX_INSTANCES = 9;

/**
 * How long a restarted former primary with running peers waits for a primary behind `<db>-rw` before
 * it starts as a primary itself: longer than a failover takes (failoverDelaySeconds, default 10, then
 * the promotion), so a failed-over instance rejoins instead of running beside the new primary.
 */
export const FORMER_PRIMARY_WAIT_SECONDS = 30;

// A plain string (not a template literal): the shell's ${...} must reach the shell untouched.
const SCRIPT = [
  'set -eu',
  'umask 077',
  'ordinal="${POD_NAME##*-}"',
  'rw="$PRIMARY_SERVICE"',
  `printf '*:*:*:%s:%s\\n*:*:*:%s:%s\\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" "$REPLICATION_USER" "$REPLICATION_PASSWORD" > /tmp/pgpass`,
  'export PGPASSFILE=/tmp/pgpass',
  `printf 'local all all trust\\nhost replication %s all scram-sha-256\\nhost all all all scram-sha-256\\n' "$REPLICATION_USER" > /tmp/pg_hba.conf`,
  'log() { echo "sampledb-instance: $*"; }',
  `: "\${FORMER_PRIMARY_WAIT_SECONDS:=${FORMER_PRIMARY_WAIT_SECONDS}}"`,
  '# The address <db>-rw leads to, when a primary answers there.',
  'rw_primary_ip() { psql "host=$rw user=$POSTGRES_USER dbname=postgres connect_timeout=3" -Atqc "select host(inet_server_addr()) where not pg_is_in_recovery()" 2>/dev/null || true; }',
  'peer_running() {',
  '  i=0',
  `  while [ "$i" -lt ${MAX_INSTANCES} ]; do`,
  '    if [ "$i" != "$ordinal" ] && pg_isready -q -t 1 -h "$STATEFULSET-$i.$HEADLESS_SERVICE" 2>/dev/null; then return 0; fi',
  '    i=$((i + 1))',
  '  done',
  '  return 1',
  '}',
  'clone() {',
  '  until [ -n "$(rw_primary_ip)" ]; do log "waiting for a primary at $rw"; sleep 2; done',
  '  rm -rf "$PGDATA"; mkdir -p "$PGDATA"; chmod 700 "$PGDATA"',
  '  log "cloning from $rw"',
  '  pg_basebackup -h "$rw" -U "$REPLICATION_USER" -D "$PGDATA" -X stream -c fast -w',
  '  touch "$PGDATA/standby.signal"',
  '}',
  'if [ ! -s "$PGDATA/PG_VERSION" ]; then',
  '  if [ "$ordinal" = 0 ] && [ -z "$(rw_primary_ip)" ] && ! peer_running; then',
  '    log "new database: initializing as the primary"',
  '  else',
  '    clone',
  '  fi',
  'elif [ ! -f "$PGDATA/standby.signal" ]; then',
  '  waited=0',
  '  while :; do',
  '    ip="$(rw_primary_ip)"',
  '    if [ -n "$ip" ] && [ "$ip" != "$POD_IP" ]; then',
  '      log "another primary ($ip) serves $rw: rejoining as its standby"',
  '      if pg_rewind --target-pgdata="$PGDATA" --source-server="host=$rw user=$POSTGRES_USER dbname=postgres" --progress; then',
  '        touch "$PGDATA/standby.signal"',
  '      else',
  '        log "pg_rewind failed: re-cloning"',
  '        clone',
  '      fi',
  '      break',
  '    fi',
  '    if [ -n "$ip" ] || [ "$waited" -ge "$FORMER_PRIMARY_WAIT_SECONDS" ] || ! peer_running; then break; fi',
  '    log "a former primary; no primary behind $rw while other instances run (a failover may be under way): waiting before starting as one (${waited}s)"',
  '    sleep 2',
  '    waited=$((waited + 2))',
  '  done',
  'fi',
  'exec docker-entrypoint.sh postgres "$@"',
].join('\n');

/** The container command: the script above, then the official entrypoint with {@link postgresArgs}. */
export function instanceCommand(): string[] {
  return ['/bin/sh', '-c', SCRIPT, 'sampledb-instance'];
}

/** `postgres` settings of every instance (primary and standby alike; a primary ignores primary_conninfo). */
export function postgresArgs(db: Database): string[] {
  const name = db.metadata.name;
  const settings: Record<string, string> = {
    listen_addresses: '*',
    hba_file: '/tmp/pg_hba.conf',
    wal_log_hints: 'on',
    wal_keep_size: '512MB',
    hot_standby_feedback: 'on',
    wal_receiver_timeout: '10s',
    wal_retrieve_retry_interval: '2s',
    // $(VAR) is expanded by the kubelet from the container's env. The WAL receiver connects without libpq's
    // connect_timeout (it polls PQconnectStart itself), so a connection to a black-holed address — the
    // `<db>-rw` address still translated to a partitioned primary by its conntrack entry — hung for the
    // kernel's SYN retries (~2 min) after the Service had moved: tcp_user_timeout bounds the SYN phase too.
    primary_conninfo: `host=${names.primaryService(name)} port=5432 user=$(REPLICATION_USER) passfile=/tmp/pgpass application_name=$(POD_NAME) connect_timeout=3 tcp_user_timeout=5000`,
  };
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}
