#!/usr/bin/env bash
# Jest files with garbage collection as node and Go default it, then as the test task tunes it (GOGC=400 for the
# control planes' Go processes, --max-semi-space-size=64 for jest's workers), in turn: the machine's busy CPU-seconds
# (/proc/stat) and the wall time of each run. Run on a quiet machine; ORDER and ROUNDS say which goes first, how often;
# ORDER may also name `lazy-free` (tuned, and Go's freed memory given back lazily: GODEBUG=madvdontneed=0) or
# `one-proc` (tuned, and each Go process on one P: GOMAXPROCS=1).
#   bash tools/ci-time/gc-tuning.sh FILE...     e.g.  ROUNDS="1 2" ORDER="tuned default" bash tools/ci-time/gc-tuning.sh test/apiserver/cr-differential.test.ts
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${KUBEBUILDER_ASSETS:=$(bash ../shared/k8s/install.sh | tail -1)}"
export KUBEBUILDER_ASSETS ENVTEST_REQUIRED=1 CDK8S_OPERATOR_QUIET=1
base='--experimental-vm-modules --no-warnings=ExperimentalWarning'
hz=$(getconf CLK_TCK)
busy() { read -r _ a b c _ _ f g h _ < /proc/stat; echo $((a + b + c + f + g + h)); }
echo "# $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), files: $*"
for round in ${ROUNDS:-1}; do
  for variant in ${ORDER:-default tuned}; do
    log=$(mktemp)
    b0=$(busy) t0=$(date +%s%N)
    if [ "$variant" = tuned ]; then
      env -u GOMAXPROCS GOGC=400 NODE_OPTIONS="$base --max-semi-space-size=64" npx jest --ci "$@" >"$log" 2>&1
    elif [ "$variant" = lazy-free ]; then
      # Go gives freed heap back with MADV_FREE: the kernel takes the pages only when it needs memory, so a heap that
      # grows again reuses them without a page fault (MADV_DONTNEED, Go's default, makes every reuse fault)
      GOGC=400 GODEBUG=madvdontneed=0 NODE_OPTIONS="$base --max-semi-space-size=64" npx jest --ci "$@" >"$log" 2>&1
    elif [ "$variant" = one-proc ]; then
      # Go runs goroutines on one P: no second P spinning for work or running idle GC mark workers on a machine whose
      # two cores are taken anyway
      GOGC=400 GOMAXPROCS=1 NODE_OPTIONS="$base --max-semi-space-size=64" npx jest --ci "$@" >"$log" 2>&1
    else
      env -u GOGC -u GOMAXPROCS NODE_OPTIONS="$base" npx jest --ci "$@" >"$log" 2>&1
    fi
    rc=$?
    b1=$(busy) t1=$(date +%s%N)
    echo "round $round $variant: exit $rc, $(((t1 - t0) / 1000000000)) s wall, $(((b1 - b0) / hz)) CPU-s busy; $(grep -E '^Tests:' "$log" | tr -s ' ')"
    rm -f "$log"
  done
done
