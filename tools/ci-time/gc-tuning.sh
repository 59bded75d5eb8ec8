#!/usr/bin/env bash
# Jest files with garbage collection as node and Go default it, then as the test task tunes it (GOGC=400 for the
# control planes' Go processes, --max-semi-space-size=64 for jest's workers), in turn: the machine's busy CPU-seconds
# (/proc/stat) and the wall time of each run. Run on a quiet machine; ORDER and ROUNDS say which goes first, how often;
# ORDER may also name `lazy-free` (tuned, and Go's freed memory given back lazily: GODEBUG=madvdontneed=0) or
# `one-proc` (tuned, and each Go process on one P: GOMAXPROCS=1) or `thp` (tuned, and the kernel's transparent huge pages
# for every process's anonymous memory while it runs: `always` in /sys/kernel/mm/transparent_hugepage/enabled, put
# back after; needs root) or `vm-modules` (tuned, and jest's VM modules, --experimental-vm-modules, as the test task ran
# until 2026-12-04: every variant of the rounds in gc-tuning.txt before that date had it) or `thp-kept` (thp, and the
# guest kernel's free page reporting and DAMON's proactive reclaim off for the run, put back after; needs root) or
# `thp-memlimit` (thp, and the Go processes at GOGC=off with GOMEMLIMIT=$MEMLIMIT, 768MiB unless set) or `thp-gogcN`
# (thp, and the Go processes at GOGC=N) or `thp-mthp` (thp, and anonymous memory below 2 MiB faulted in folios of
# 16 KiB to 1 MiB too: every `hugepages-*kB/enabled` of the kernel's multi-size THP set to `always`, put back after).
#   bash tools/ci-time/gc-tuning.sh FILE...     e.g.  ROUNDS="1 2" ORDER="tuned default" bash tools/ci-time/gc-tuning.sh test/apiserver/cr-differential.test.ts
set -uo pipefail
cd "$(dirname "$0")/../.."
: "${KUBEBUILDER_ASSETS:=$(bash ../shared/k8s/install.sh | tail -1)}"
export KUBEBUILDER_ASSETS ENVTEST_REQUIRED=1 CDK8S_OPERATOR_QUIET=1
hz=$(getconf CLK_TCK)
THP=/sys/kernel/mm/transparent_hugepage/enabled
REPORTING=/sys/module/page_reporting/parameters/page_reporting_order
DAMON=/sys/kernel/mm/damon/admin/kdamonds/0/state
tuned=(GOGC=400 NODE_OPTIONS="--max-semi-space-size=64")
faults() { awk '/^pgfault /{print $2}' /proc/vmstat; }
busy() { read -r _ a b c _ _ f g h _ < /proc/stat; echo $((a + b + c + f + g + h)); }
echo "# $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg), files: $*"
for round in ${ROUNDS:-1}; do
  for variant in ${ORDER:-default tuned}; do
    log=$(mktemp)
    b0=$(busy) t0=$(date +%s%N) f0=$(faults)
    # each variant's environment for jest and the Go processes it starts; anything else is the default
    case "$variant" in
      tuned) vars=("${tuned[@]}") ;;
      # Go gives freed heap back with MADV_FREE: the kernel takes the pages only when it needs memory, so a heap that
      # grows again reuses them without a page fault (MADV_DONTNEED, Go's default, makes every reuse fault)
      lazy-free) vars=("${tuned[@]}" GODEBUG=madvdontneed=0) ;;
      # Go runs goroutines on one P: no second P spinning for work or running idle GC mark workers on a machine whose
      # two cores are taken anyway
      one-proc) vars=("${tuned[@]}" GOMAXPROCS=1) ;;
      # the heaps of Go and Node fault in 2 MiB at a time instead of 4 KiB (page faults are dear on this machine's
      # virtualisation: bench/latest/ci-time/host-speed-*.txt)
      # thp-kept: and memory the run frees stays the guest's (free page reporting hands free 2 MiB blocks back to the
      # host, which faults them in again when reused; DAMON pages idle file pages out): it saved nothing (gc-tuning.txt)
      thp | thp-kept | thp-mthp) vars=("${tuned[@]}") ;;
      # thp-memlimit: thp, and the Go processes collect only near a memory limit (GOGC=off, GOMEMLIMIT=$MEMLIMIT, 768MiB
      # unless set): a test's control plane lives a minute or two, so most of what it allocates could stay uncollected;
      # on this host fresh memory cost more than collecting: 1.75 times the CPU-seconds (gc-tuning.txt)
      thp-memlimit) vars=("${tuned[@]}" GOGC=off GOMEMLIMIT="${MEMLIMIT:-768MiB}") ;;
      # thp-gogcN: thp, and the Go processes at GOGC=N instead of the test task's 400 (env: the later assignment wins)
      thp-gogc*) vars=("${tuned[@]}" GOGC="${variant#thp-gogc}") ;;
      # jest keeps every test file's module registry alive under VM modules (test/support/prettier-in-worker.cjs)
      vm-modules) vars=(GOGC=400 NODE_OPTIONS="--experimental-vm-modules --no-warnings=ExperimentalWarning --max-semi-space-size=64") ;;
      *) vars=(-u GOGC -u NODE_OPTIONS) ;;
    esac
    if [ "${variant%-*}" = thp ]; then thp_was=$(sed 's/.*\[\(.*\)\].*/\1/' "$THP") && echo always >"$THP"; fi
    if [ "$variant" = thp-mthp ]; then
      mthp_was=()
      for size in /sys/kernel/mm/transparent_hugepage/hugepages-*kB/enabled; do
        [ "$size" = /sys/kernel/mm/transparent_hugepage/hugepages-2048kB/enabled ] && continue
        mthp_was+=("$size" "$(sed 's/.*\[\(.*\)\].*/\1/' "$size")") && echo always >"$size"
      done
    fi
    if [ "$variant" = thp-kept ]; then
      order_was=$(cat "$REPORTING") && echo 11 >"$REPORTING"
      damon_was=$(cat "$DAMON") && echo off >"$DAMON"
    fi
    env "${vars[@]}" npx jest --ci "$@" >"$log" 2>&1
    rc=$?
    if [ "${variant%-*}" = thp ]; then echo "$thp_was" >"$THP"; fi
    if [ "$variant" = thp-mthp ]; then
      for ((i = 0; i < ${#mthp_was[@]}; i += 2)); do echo "${mthp_was[i + 1]}" >"${mthp_was[i]}"; done
    fi
    if [ "$variant" = thp-kept ]; then echo "$order_was" >"$REPORTING" && echo "$damon_was" >"$DAMON"; fi
    b1=$(busy) t1=$(date +%s%N) f1=$(faults)
    echo "round $round $variant: exit $rc, $(((t1 - t0) / 1000000000)) s wall, $(((b1 - b0) / hz)) CPU-s busy, $(((f1 - f0) / 1000))k page faults; $(grep -E '^Tests:' "$log" | tr -s ' ')"
    rm -f "$log"
  done
done
