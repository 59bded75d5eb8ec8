#!/usr/bin/env bash
# The CPU-seconds of every process that ran and ended during a command, summed by command name (process accounting,
# Debian's `acct`; needs root). Short-lived processes are where a sampler of /proc misses CPU: a probe or a shell
# loop's psql lives milliseconds. Long-lived ones count when they end (so bring clusters down inside the command).
#   bash tools/ci-time/cpu-by-command.sh OUT.txt CMD [ARGS...]    e.g.  ... /tmp/ci.txt env CI=true bash .ci/run
# OUT.txt: calls, CPU-s and command name, largest first; the last line is the machine's busy CPU-s over the command.
# KEEP_ACCT=FILE keeps the raw accounting records there (parents, page faults: processes-by-parent.ts reads them).
set -uo pipefail
out=${1:?usage: cpu-by-command.sh OUT.txt CMD [ARGS...]}
shift
command -v accton >/dev/null || { echo "needs accton and sa (apt-get install acct)" >&2; exit 2; }
acct=$(mktemp)
hz=$(getconf CLK_TCK)
busy() { read -r _ a b c _ _ f g h _ < /proc/stat; echo $((a + b + c + f + g + h)); }
accton "$acct" >/dev/null
b0=$(busy) t0=$(date +%s)
"$@"
rc=$?
b1=$(busy) t1=$(date +%s)
accton off >/dev/null
# sa -a: calls, real minutes, CPU minutes (user + system), average I/O, memory, command (a trailing * = forked, no exec)
sa -a "$acct" | awk 'NR > 1 { name = $6; for (i = 7; i <= NF; i++) name = name " " $i; sub(/\*$/, "", name);
  calls[name] += $1; cpu[name] += $3 * 60 }
  END { for (n in cpu) printf "%8d calls %9.1f CPU-s  %s\n", calls[n], cpu[n], n }' | sort -k3 -rn >"$out"
printf 'machine: %d s wall, %d CPU-s busy (exit %d)\n' $((t1 - t0)) $(((b1 - b0) / hz)) "$rc" >>"$out"
if [ -n "${KEEP_ACCT:-}" ]; then cp "$acct" "$KEEP_ACCT"; fi
rm -f "$acct"
exit $rc
