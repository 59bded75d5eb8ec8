#!/usr/bin/env bash
# `npm test` alone: wall seconds, the machine's CPU-seconds and how many control planes it started (distinct etcd
# processes, sampled every 0.5 s). Run on a quiet machine.   bash tools/ci-time/npm-test-cpu.sh [log file]
set -uo pipefail
cd "$(dirname "$0")/../.."
if [ -z "${KUBEBUILDER_ASSETS:-}" ] && [ -f ../shared/k8s/install.sh ]; then
  KUBEBUILDER_ASSETS=$(bash ../shared/k8s/install.sh | tail -1)
fi
export KUBEBUILDER_ASSETS ENVTEST_REQUIRED=1
log=${1:-$(mktemp)}
pids=$(mktemp)
hz=$(getconf CLK_TCK)
busy() { read -r _ a b c _ _ f g h _ < /proc/stat; echo $((a + b + c + f + g + h)); }
(while true; do pgrep -x etcd >>"$pids"; sleep 0.5; done) &
sampler=$!
b0=$(busy) t0=$(date +%s)
npm test >"$log" 2>&1
rc=$?
b1=$(busy) t1=$(date +%s)
kill $sampler
printf '{"exit":%d,"wallSeconds":%d,"cpuSeconds":%d,"controlPlanesStarted":%d,"log":"%s"}\n' \
  "$rc" $((t1 - t0)) $(((b1 - b0) / hz)) "$(sort -u "$pids" | wc -l)" "$log"
rm -f "$pids"
