#!/usr/bin/env bash
# CPU of test files, each run alone: wall seconds and the machine's CPU-seconds (non-idle jiffies of /proc/stat, so
# every process a test starts counts: control planes, npm, tsc). Run on a quiet machine; the figures hold only for
# the machine and the moment (a host shared with other VMs made the same file cost 31 CPU-s, then 61-79 an hour later).
#   bash tools/ci-time/cpu-per-file.sh test/apiserver/cel-cost.test.ts …
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${KUBEBUILDER_ASSETS:-}" ] && [ -f ../shared/k8s/install.sh ]; then
  KUBEBUILDER_ASSETS=$(bash ../shared/k8s/install.sh | tail -1)
fi
export KUBEBUILDER_ASSETS ENVTEST_REQUIRED=1
export NODE_OPTIONS="--max-semi-space-size=64"
hz=$(getconf CLK_TCK)
busy() { read -r _ a b c _ _ f g h _ < /proc/stat; echo $((a + b + c + f + g + h)); }
log=$(mktemp)
for f in "$@"; do
  b0=$(busy) t0=$(date +%s.%N)
  npx jest --ci "$f" >"$log" 2>&1
  rc=$?
  b1=$(busy) t1=$(date +%s.%N)
  printf '{"file":"%s","wallSeconds":%.1f,"cpuSeconds":%d,"exit":%d,"summary":"%s"}\n' \
    "$f" "$(echo "$t1 - $t0" | bc)" $(((b1 - b0) / hz)) "$rc" "$(grep -E '^tests:' "$log" | tail -1)"
done
rm -f "$log"
