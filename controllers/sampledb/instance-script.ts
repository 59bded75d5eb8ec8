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
 *    fails, or when the new primary took its timeline ID with another history, which pg_rewind cannot
 *    see: {@link TIMELINE_TAKEN_TWICE_FUNCTION}), then start as a standby. No primary behind `<db>-rw`
 *    while other instances run → a failover may be under way (its target is labelled, and so
 *    reachable, only once promoted): started as a primary now, two instances would accept writes on
 *    diverging timelines, so it waits, looking again every 2 s, up to
 *    {@link FORMER_PRIMARY_WAIT_SECONDS} (seen by the chaos suite). Alone (no other instance runs),
 *    or once the wait is over, it starts as it was.
 * 3. A standby streams from `<db>-rw` (`primary_conninfo`), so after a failover it follows the new
 *    primary by itself (`recovery_target_timeline = latest`, the default). Stopped cleanly, it is first rewound onto
 *    the primary (`pg_rewind`: a no-op unless it diverged from the primary's timeline; {@link REWIND_STANDBY_FUNCTION}).
 * 4. Health: beside the postmaster a loop asks PostgreSQL every second, and a small HTTP endpoint
 *    ({@link HEALTH_PORT}) answers the kubelet's probes from its last answer.
 * 5. Self-fencing (fencing.ts): the same loop stops a primary cut off from the apiserver
 *    and every standby for `SAMPLEDB_ISOLATION_FENCE_SECONDS`, recording the time on the volume. A
 *    fenced former primary started again while still cut off does not start (step 2 would start it alone);
 *    once it reaches anything it goes through step 2, and passes the record to PostgreSQL
 *    (`sampledb.last_self_fence`) for the operator to report.
 *
 * Settings passed to `postgres`: `wal_log_hints` (pg_rewind needs it), `wal_keep_size` (a rejoining
 * instance finds the WAL it needs), `hot_standby_feedback`, a short `wal_receiver_timeout` (a
 * standby notices a vanished primary in seconds), and an `hba_file` that allows replication by the
 * replication user.
 */
import { ENV_ISOLATION_FENCE_SECONDS } from './fencing';
import { preferVersionBinaries } from './pods';
import { placeholderHistory } from './timeline-reservation';
import { Database, names, WATCHDOG_APPLICATION } from './types';

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

/** Seconds the self-fencing loop waits for its query's answer before it drops the session and opens a new one. */
export const WATCHDOG_ANSWER_SECONDS = 5;

/**
 * The port of each database pod's health endpoint (Patroni's REST API port), which the kubelet's probes ask over HTTP.
 * Exec probes (a runc exec, a shell, pg_isready and a backend each) were, with the self-fencing loop's processes, most
 * of a database pod's CPU on the CI node (bench/latest/ci-time/); CloudNativePG's and Patroni's probes are HTTP too.
 */
export const HEALTH_PORT = 8008;

/** The path the probes ask ({@link HEALTH_SERVER_FUNCTION} answers any). */
export const HEALTH_PATH = '/healthz';

/**
 * How old the loop's last question may be for the pod to be healthy. The loop asks every second and waits up to
 * {@link WATCHDOG_ANSWER_SECONDS} for an answer, so only a loop that stopped asking is ever older.
 */
export const HEALTH_MAX_AGE_SECONDS = 2 * WATCHDOG_ANSWER_SECONDS;

/**
 * `health_server`: the pod's health endpoint, run beside the postmaster: a Perl program (Perl is in every Debian-based
 * PostgreSQL image: postgresql-common's tools are Perl) that answers each request with 200 when PostgreSQL answered the
 * loop's last question (`$answered` holds 1, 0 when it did not) and that question is at most
 * {@link HEALTH_MAX_AGE_SECONDS} old (its mtime), else 503; the body says which. A failed question is unhealthy at
 * once, as a failed pg_isready was. It reads no more than the request's headers, each connection bounded to 2 s, and
 * exits 1 when it cannot listen (as the postmaster's child after the exec, any other exit status would make PostgreSQL
 * restart every backend).
 */
export const HEALTH_SERVER_FUNCTION = [
  'health_server() {',
  "  exec perl -MIO::Socket::IP -e '",
  '    my ($port, $file, $max) = @ARGV;',
  '    $0 = "sampledb-health";',
  '    my %listen = (LocalPort => $port, Listen => 16, ReuseAddr => 1);',
  '    my $server = IO::Socket::IP->new(%listen, LocalHost => "::", V6Only => 0)',
  '      || IO::Socket::IP->new(%listen, LocalHost => "0.0.0.0")',
  '      || do { print STDERR "sampledb-health: cannot listen on port $port: $@\\n"; exit 1 };',
  '    $SIG{PIPE} = "IGNORE";',
  '    while (1) {',
  '      my $client = $server->accept or next;',
  '      eval {',
  '        local $SIG{ALRM} = sub { die "timeout\\n" };',
  '        alarm 2;',
  '        while (defined(my $line = <$client>)) { last if $line =~ /^\\r?\\n$/ }',
  '        my ($state, $age) = ("", -1);',
  '        for my $try (1, 2) {',
  '          if (open(my $f, "<", $file)) { $state = <$f> // ""; $age = time - (stat $f)[9]; close $f }',
  '          last if $state ne "";',
  '          # read between the truncation and the write of the loop: read again',
  '          select(undef, undef, undef, 0.05);',
  '        }',
  '        my $ok = $state eq "1" && $age <= $max;',
  '        my $body = $age < 0 ? "PostgreSQL has not been asked yet\\n"',
  '          : $state eq "1" ? "PostgreSQL answered $age s ago\\n"',
  '          : "PostgreSQL did not answer the last question, $age s ago\\n";',
  '        print $client ($ok ? "HTTP/1.1 200 OK" : "HTTP/1.1 503 Service Unavailable"),',
  '          "\\r\\nContent-Type: text/plain\\r\\nContent-Length: ", length($body), "\\r\\nConnection: close\\r\\n\\r\\n", $body;',
  '        alarm 0;',
  '      };',
  '      close $client;',
  '    }',
  `  ' "$SAMPLEDB_HEALTH_PORT" "$answered" ${HEALTH_MAX_AGE_SECONDS}`,
  '}',
].join('\n');

/**
 * `replication_state`: the self-fencing loop's query, sets `r` to "<in recovery t|f> <standbys> <whole seconds since
 * the last standby reply, rounded down, -1 for none>", or fails. Asked in one psql session that lives as long as the
 * loop (a bash coprocess): a psql process and a new backend a second were, with the exec probes, most of a primary
 * pod's CPU on the CI node (bench/latest/ci-time/). Over TCP on 127.0.0.1, where clients connect (and pg_isready asked
 * for the probes before): the temporary server the image's entrypoint runs to initialise a database listens only on its
 * socket, and an instance is not healthy before it serves clients. A session found ended (PostgreSQL restarted) is opened again and
 * asked at once: the loop counts a failed question as contact, so a failure for each restart would hold a fence back.
 * An answer later than {@link WATCHDOG_ANSWER_SECONDS} ends the session, so a stuck backend never stops the loop (a
 * psql per query had no bound). The caller ignores SIGPIPE: a write to a session that ended just before must fail,
 * not end the loop.
 */
export const REPLICATION_STATE_FUNCTION = [
  'replication_state() {',
  '  local line opened="" rc',
  '  while :; do',
  '    r=""',
  '    if [ -z "${WD_PID:-}" ] || ! kill -0 "$WD_PID" 2>/dev/null; then',
  `      coproc WD { PGAPPNAME=${WATCHDOG_APPLICATION} exec psql -h 127.0.0.1 -U "$POSTGRES_USER" -d postgres -XAtq -F ' ' 2>/dev/null; }`,
  '      opened=1',
  '    fi',
  '    rc=1',
  '    if { echo "select pg_is_in_recovery(), count(*), coalesce(floor(extract(epoch from now() - max(reply_time)))::int, -1) from pg_stat_replication;"',
  '      echo \'\\echo __end__\'; } >&"${WD[1]}" 2>/dev/null; then',
  '      while :; do',
  `        IFS= read -r -t ${WATCHDOG_ANSWER_SECONDS} -u "\${WD[0]}" line 2>/dev/null; rc=$?`,
  '        [ "$rc" -eq 0 ] || break',
  '        if [ "$line" = __end__ ]; then [ -n "$r" ]; return; fi',
  '        r=$line',
  '      done',
  '    fi',
  '    kill -KILL "$WD_PID" 2>/dev/null; wait "$WD_PID" 2>/dev/null; WD_PID=""',
  '    # no answer in time (a read status above 128), or a session just opened that ended: fails',
  '    if [ "$rc" -gt 128 ] || [ -n "$opened" ]; then return 1; fi',
  '  done',
  '}',
].join('\n');

/** `rw_primary_ip`: the address `<db>-rw` (`$rw`) leads to, when a primary answers there. */
export const RW_PRIMARY_IP_FUNCTION =
  'rw_primary_ip() { psql "host=$rw user=$POSTGRES_USER dbname=postgres connect_timeout=3" -Atqc "select host(inet_server_addr()) where not pg_is_in_recovery()" 2>/dev/null || true; }';

/** A shell pipeline printing the timeline of the data directory `$PGDATA`, as its control file names it. */
const DATA_TIMELINE = `LC_ALL=C pg_controldata "$PGDATA" 2>/dev/null | sed -n -e "s/^Latest checkpoint's TimeLineID: *//p" -e "s/^Min recovery ending loc's timeline: *//p" | sort -n | tail -n 1`;

/**
 * `timeline_taken_twice`: whether the primary at `<db>-rw` is on this data directory's timeline ID with another
 * history. Two promotions can take one ID: PostgreSQL gives a promoted server the next ID after the newest history
 * file it has, so a standby promoted before it learned of the last promotion (the primary that made it died seconds
 * later) takes that promotion's ID again, forked off at another point. pg_rewind compares the IDs alone and, equal,
 * says "no rewind required": the former primary then starts as a standby holding WAL the new primary never had,
 * acknowledges the new primary's synchronous commits without replaying them, and a later failover to it loses them
 * (seen on the real node, rehearsal ZQ of 2026-12-06: 105 rows, all acknowledged, before; 101 after). The history
 * files (`pg_wal/<ID>.history`, the earlier timelines and where each ended) tell the two apart, unless both forked off
 * at the same position (after a switchover): then they are the same file, which is why the operator reserves each
 * promotion's ID beforehand (timeline-reservation.ts); this check stays for data directories from before. Unknown (no
 * history file, nothing answers) is false.
 */
export const TIMELINE_TAKEN_TWICE_FUNCTION = [
  'timeline_taken_twice() {',
  '  local tli hex mine theirs',
  `  tli="$(${DATA_TIMELINE})"`,
  '  case "$tli" in "" | *[!0-9]* | 0 | 1) return 1 ;; esac',
  '  hex="$(printf %08X "$tli")"',
  '  [ -f "$PGDATA/pg_wal/$hex.history" ] || return 1',
  `  theirs="$(psql "host=$rw user=$POSTGRES_USER dbname=postgres connect_timeout=3" -Atqc "select md5(pg_read_binary_file('pg_wal/$hex.history', 0, 1048576, true)) where not pg_is_in_recovery() and substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) = '$hex'" 2>/dev/null)" || return 1`,
  '  [ -n "$theirs" ] || return 1',
  '  mine="$(md5sum < "$PGDATA/pg_wal/$hex.history")"',
  '  [ "$theirs" != "${mine%% *}" ]',
  '}',
].join('\n');

/**
 * `drop_timeline_placeholders`: a standby starting removes the placeholder history files (timeline-reservation.ts) above
 * its newest real one and its data directory's timeline. The operator writes placeholders on a promotion's target right
 * before `pg_promote()`; a target that was never promoted (its pod went away, the failover chose again) and now starts
 * as a standby must not keep those: PostgreSQL takes the newest history file it has for the timeline to recover along,
 * a placeholder names no parent, and the standby never follows a primary on that timeline (the old primary back after
 * a failover given up; timeline-reservation.postgres.test.ts). Placeholders below a real history file stay: they fill
 * the gaps PostgreSQL walks through, ID by ID, to find the newest.
 */
export const DROP_TIMELINE_PLACEHOLDERS_FUNCTION = [
  'drop_timeline_placeholders() {',
  '  local keep f id',
  `  keep="$(${DATA_TIMELINE})"`,
  '  case "$keep" in "" | *[!0-9]*) return 0 ;; esac',
  '  for f in "$PGDATA"/pg_wal/*.history; do',
  '    id="$(history_id "$f")" || continue',
  '    if ! is_placeholder "$f" "$id" && [ "$id" -gt "$keep" ]; then keep=$id; fi',
  '  done',
  '  for f in "$PGDATA"/pg_wal/*.history; do',
  '    id="$(history_id "$f")" || continue',
  '    if [ "$id" -gt "$keep" ] && is_placeholder "$f" "$id"; then',
  '      log "removing the timeline $id placeholder of a promotion that did not happen"; rm -f "$f"',
  '    fi',
  '  done',
  '}',
  '# the timeline ID of a history file (`pg_wal/0000000A.history`: 10)',
  'history_id() { local id="${1##*/}"; id="${id%.history}"; case "$id" in "" | *[!0-9A-F]*) return 1 ;; esac; echo $((16#$id)); }',
  `is_placeholder() { [ "$(head -n 1 "$1")" = "${placeholderHistory('$2')}" ]; }`,
].join('\n');

/**
 * `rewind_standby`: a standby that stopped cleanly, while another instance answers as the primary at `<db>-rw`, is
 * rewound onto it with `pg_rewind` before it starts. That rewinds a standby that replayed past where the primary's
 * timeline forked off its own (diverged-standbys.ts: the operator restarts such a standby, its sessions ended so that
 * it stops cleanly), and of any other pg_rewind says "no rewind required" and changes nothing. Not after a crash: to
 * rewind it pg_rewind would first finish its recovery in single-user mode, which PostgreSQL refuses for a standby; such a
 * standby starts as it was (a diverged one is restarted again by the operator). pg_rewind copies the primary's
 * configuration files and not `standby.signal`, which is written again. A standby whose timeline ID the primary took
 * with another history is re-cloned instead ({@link TIMELINE_TAKEN_TWICE_FUNCTION}).
 */
export const REWIND_STANDBY_FUNCTION = [
  'rewind_standby() {',
  '  local ip',
  '  ip="$(rw_primary_ip)"',
  '  if [ -z "$ip" ] || [ "$ip" = "${POD_IP:-}" ]; then return 0; fi',
  '  if ! LC_ALL=C pg_controldata "$PGDATA" | grep -q "^Database cluster state: *shut down in recovery$"; then return 0; fi',
  '  if timeline_taken_twice; then',
  '    log "the primary at $rw took this standby\'s timeline ID with another history (pg_rewind would see nothing to do): re-cloning"',
  '    clone',
  '    return 0',
  '  fi',
  '  log "a standby stopped cleanly, a primary at $rw: pg_rewind onto it (a standby that diverged from its timeline is rewound)"',
  '  if pg_rewind --target-pgdata="$PGDATA" --source-server="host=$rw user=$POSTGRES_USER dbname=postgres" --progress; then',
  '    touch "$PGDATA/standby.signal"',
  '  else',
  '    log "pg_rewind failed: starting as it was"',
  '  fi',
  '}',
].join('\n');

/**
 * `watchdog`: the loop beside the postmaster. Every second it asks PostgreSQL ({@link REPLICATION_STATE_FUNCTION}) and
 * records whether it answered, and when (`$answered`, which {@link HEALTH_SERVER_FUNCTION} reads). Where
 * self-fencing is on (fencing.ts), a primary that has had a standby and reaches neither the apiserver nor a standby for
 * `SAMPLEDB_ISOLATION_FENCE_SECONDS` stops PostgreSQL at once, recording the time in `$fenced` (one that never had a
 * standby cannot be failed over, so it never fences). A standby's reply time is the standby's clock: same node or
 * NTP-synchronised nodes.
 */
export const WATCHDOG_FUNCTION = [
  'watchdog() {',
  '  set +eu',
  "  trap '' PIPE",
  '  # without the FIFO a read would not wait (a busy loop): then `sleep`',
  '  tick=/tmp/sampledb-tick; [ -p "$tick" ] || mkfifo "$tick" 2>/dev/null',
  '  if [ -p "$tick" ]; then exec 8<>"$tick"; pause() { read -rt 1 -u 8; }; else pause() { sleep 1; }; fi',
  '  # contact: when this primary last had a sign of the apiserver or a standby (or had no reason to look for one)',
  '  printf -v contact "%(%s)T" -1; had_standby=""',
  '  while :; do',
  '    pause',
  '    printf -v now "%(%s)T" -1',
  '    if ! replication_state; then printf 0 > "$answered"; contact=$now; continue; fi',
  '    printf 1 > "$answered"',
  `    if [ "\$${ENV_ISOLATION_FENCE_SECONDS}" -le 0 ] || [ -f "$PGDATA/standby.signal" ]; then contact=$now; had_standby=""; continue; fi`,
  '    set -- $r',
  '    if [ "$1" != f ]; then contact=$now; continue; fi',
  '    [ "$2" -gt 0 ] && had_standby=1',
  "    # a standby's reply is contact when it was sent, not when it was read: counted from the read, a cut-off primary",
  '    # stopped up to 3 s past its bound (12.8 s after the cut against 10 on the CI node)',
  '    if [ "$3" -ge 0 ] && [ $((now - $3)) -gt "$contact" ]; then contact=$((now - $3)); fi',
  '    if [ "$3" -ge 0 ] && [ "$3" -lt 3 ]; then continue; fi',
  '    # one that never had a standby cannot be failed over, so it never fences: no need to look for the apiserver',
  '    if [ -z "$had_standby" ]; then contact=$now; continue; fi',
  '    if apiserver_reachable; then printf -v contact "%(%s)T" -1; continue; fi',
  '    # the connect took up to 2 s: the cut is counted to now',
  '    printf -v now "%(%s)T" -1; cut=$((now - contact))',
  `    if [ -n "$had_standby" ] && [ "$cut" -ge "\$${ENV_ISOLATION_FENCE_SECONDS}" ]; then`,
  '      date -u +%Y-%m-%dT%H:%M:%SZ > "$fenced.tmp" && mv "$fenced.tmp" "$fenced"',
  '      log "fencing: primary cut off from the apiserver and every standby for ${cut}s: stopping PostgreSQL (immediate)"',
  '      pg_ctl stop -D "$PGDATA" -m immediate -w -t 5 || kill -QUIT 1',
  '      return',
  '    fi',
  '  done',
  '}',
].join('\n');

// A plain string (not a template literal): the shell's ${...} must reach the shell untouched.
const SCRIPT = [
  'set -eu',
  preferVersionBinaries(),
  'umask 077',
  'ordinal="${POD_NAME##*-}"',
  'rw="$PRIMARY_SERVICE"',
  `printf '*:*:*:%s:%s\\n*:*:*:%s:%s\\n' "$POSTGRES_USER" "$POSTGRES_PASSWORD" "$REPLICATION_USER" "$REPLICATION_PASSWORD" > /tmp/pgpass`,
  'export PGPASSFILE=/tmp/pgpass',
  `printf 'local all all trust\\nhost replication %s all scram-sha-256\\nhost all all all scram-sha-256\\n' "$REPLICATION_USER" > /tmp/pg_hba.conf`,
  'log() { echo "sampledb-instance: $*"; }',
  '# As PID 1 the shell ignores SIGTERM: a pod deleted while this script waits (a fenced instance still cut off, a',
  '# former primary waiting for -rw) would otherwise keep its whole grace period.',
  "trap 'exit 143' TERM INT",
  `: "\${FORMER_PRIMARY_WAIT_SECONDS:=${FORMER_PRIMARY_WAIT_SECONDS}}"`,
  RW_PRIMARY_IP_FUNCTION,
  'peer_running() {',
  '  i=0',
  `  while [ "$i" -lt ${MAX_INSTANCES} ]; do`,
  '    if [ "$i" != "$ordinal" ] && pg_isready -q -t 1 -h "$STATEFULSET-$i.$HEADLESS_SERVICE" 2>/dev/null; then return 0; fi',
  '    i=$((i + 1))',
  '  done',
  '  return 1',
  '}',
  '# A failed clone (a primary too loaded to answer in time, one failed over meanwhile) is tried again here, as',
  "# Patroni does, rather than by exiting: the kubelet's restarts of a crashed container back off up to 5 minutes.",
  '# The startup probe bounds the tries.',
  'clone() {',
  '  while :; do',
  '    until [ -n "$(rw_primary_ip)" ]; do log "waiting for a primary at $rw"; sleep 2; done',
  '    rm -rf "$PGDATA"; mkdir -p "$PGDATA"; chmod 700 "$PGDATA"',
  '    log "cloning from $rw"',
  '    if pg_basebackup -h "$rw" -U "$REPLICATION_USER" -D "$PGDATA" -X stream -c fast -w; then break; fi',
  '    log "pg_basebackup failed: trying again in 2 s"; sleep 2',
  '  done',
  '  touch "$PGDATA/standby.signal"',
  '}',
  '# Self-fencing (fencing.ts): the record of a fence lives on the volume, outside PGDATA (a clone or pg_rewind replaces PGDATA).',
  'fenced="${PGDATA%/*}/sampledb-fenced"',
  'last_fence="${PGDATA%/*}/sampledb-last-fence"',
  "# Whether PostgreSQL answered the loop's last question, and when (/tmp is the pod's: the record of its previous run is",
  '# removed below).',
  'answered=/tmp/sampledb-answered',
  `: "\${SAMPLEDB_HEALTH_PORT:=${HEALTH_PORT}}"`,
  `: "\${${ENV_ISOLATION_FENCE_SECONDS}:=0}"`,
  'apiserver_reachable() { [ -n "${KUBERNETES_SERVICE_HOST:-}" ] && timeout 2 bash -c \'exec 3<>"/dev/tcp/$KUBERNETES_SERVICE_HOST/$KUBERNETES_SERVICE_PORT"\' 2>/dev/null; }',
  '# The loop beside the postmaster (health and self-fencing) runs every second in every pod: its clock and its pause',
  '# are bash builtins (`printf %(%s)T`, a `read` that times out on a FIFO nobody writes to) rather than a `date` and a',
  '# `sleep` process each second (with the exec probes, most of the processes the CI node started: bench/latest/ci-time/).',
  REPLICATION_STATE_FUNCTION,
  TIMELINE_TAKEN_TWICE_FUNCTION,
  DROP_TIMELINE_PLACEHOLDERS_FUNCTION,
  REWIND_STANDBY_FUNCTION,
  HEALTH_SERVER_FUNCTION,
  WATCHDOG_FUNCTION,
  '# The health endpoint from the start: a probe of an instance still cloning gets its 503 and why, not a refused connection.',
  'rm -f "$answered"',
  'health_server &',
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
  '      if timeline_taken_twice; then',
  '        log "it took this former primary\'s timeline ID with another history (pg_rewind would see nothing to do): re-cloning"',
  '        clone',
  '      elif pg_rewind --target-pgdata="$PGDATA" --source-server="host=$rw user=$POSTGRES_USER dbname=postgres" --progress; then',
  '        touch "$PGDATA/standby.signal"',
  '      else',
  '        log "pg_rewind failed: re-cloning"',
  '        clone',
  '      fi',
  '      break',
  '    fi',
  '    if [ -f "$fenced" ] && [ -z "$ip" ] && ! peer_running && ! apiserver_reachable; then',
  '      log "fenced itself at $(cat "$fenced") and still cut off from the apiserver and every instance: not starting"',
  '      sleep 2; continue',
  '    fi',
  '    if [ -n "$ip" ] || [ "$waited" -ge "$FORMER_PRIMARY_WAIT_SECONDS" ] || ! peer_running; then break; fi',
  '    log "a former primary; no primary behind $rw while other instances run (a failover may be under way): waiting before starting as one (${waited}s)"',
  '    sleep 2',
  '    waited=$((waited + 2))',
  '  done',
  'else',
  '  drop_timeline_placeholders',
  '  rewind_standby',
  'fi',
  'if [ -f "$fenced" ]; then mv "$fenced" "$last_fence"; fi',
  'if [ -s "$last_fence" ]; then set -- "$@" -c "sampledb.last_self_fence=$(cat "$last_fence")"; fi',
  'watchdog &',
  'exec docker-entrypoint.sh postgres "$@"',
].join('\n');

/**
 * The container command: the script above (bash, which the official images' entrypoint needs too), then the official
 * entrypoint with {@link postgresArgs}.
 */
export function instanceCommand(): string[] {
  return ['/bin/bash', '-c', SCRIPT, 'sampledb-instance'];
}

/** WAL a primary keeps for its standbys beyond its checkpoints: a rejoining or late-starting standby finds what it needs. */
export const WAL_KEEP_SIZE = '512MB';

/** `postgres` settings of every instance (primary and standby alike; a primary ignores primary_conninfo). */
export function postgresArgs(db: Database): string[] {
  const name = db.metadata.name;
  const settings: Record<string, string> = {
    listen_addresses: '*',
    hba_file: '/tmp/pg_hba.conf',
    wal_log_hints: 'on',
    wal_keep_size: WAL_KEEP_SIZE,
    hot_standby_feedback: 'on',
    wal_receiver_timeout: '10s',
    wal_retrieve_retry_interval: '2s',
    // A standby replies every second: the primary's self-fencing check reads the replies (fencing.ts).
    wal_receiver_status_interval: '1s',
    // $(VAR) is expanded by the kubelet from the container's env. The WAL receiver connects without libpq's
    // connect_timeout (it polls PQconnectStart itself), so a connection to a black-holed address — the
    // `<db>-rw` address still translated to a partitioned primary by its conntrack entry — hung for the
    // kernel's SYN retries (~2 min) after the Service had moved: tcp_user_timeout bounds the SYN phase too.
    primary_conninfo: `host=${names.primaryService(name)} port=5432 user=$(REPLICATION_USER) passfile=/tmp/pgpass application_name=$(POD_NAME) connect_timeout=3 tcp_user_timeout=5000`,
  };
  return Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
}
