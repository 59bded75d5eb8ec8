#!/usr/bin/env bash
# What a stranger gets (issue 31, item 1): this repository's HEAD cloned into an empty temporary folder (no ../shared
# beside it), `npm ci`, then `npm test`, without the variables CI sets (KUBEBUILDER_ASSETS and its _1_28/_1_36,
# REALWORLD_CORPUS_DIR, ENVTEST_REQUIRED, TEST_TIMEOUT_SCALE, GOGC, NODE_OPTIONS): the real-apiserver suites skip and
# say how to get the binaries. Prints the commit, the exit codes and times, and jest's summary lines.
#   bash tools/ci-time/bare-clone.sh
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
git clone -q "$repo" "$work/repo"
cd "$work/repo"
echo "# a clone of $(git rev-parse --short HEAD) with nothing beside it ($work/repo), $(date -u +%FT%TZ), load average $(cut -d' ' -f1-3 /proc/loadavg)"
clean=(env -u KUBEBUILDER_ASSETS -u KUBEBUILDER_ASSETS_1_28 -u KUBEBUILDER_ASSETS_1_36 -u REALWORLD_CORPUS_DIR
  -u ENVTEST_REQUIRED -u TEST_TIMEOUT_SCALE -u GOGC -u NODE_OPTIONS -u K8S_NODE_HARNESS)
t0=$(date +%s)
"${clean[@]}" npm ci >"$work/npm-ci.log" 2>&1
ci=$?
t1=$(date +%s)
"${clean[@]}" npm test >"$work/npm-test.log" 2>&1
rc=$?
t2=$(date +%s)
echo "npm ci: exit $ci in $((t1 - t0)) s; npm test: exit $rc in $((t2 - t1)) s"
grep -E '^tests:|^real apiserver|^Tests:|^Test Suites:|failed to exit gracefully' "$work/npm-test.log"
# a failure: its name and the lines of its message (the whole log is in KEEP_LOG when set)
sed -n '/^Summary of all failing tests/,$p' "$work/npm-test.log" | head -40
if [ -n "${KEEP_LOG:-}" ]; then cp "$work/npm-test.log" "$KEEP_LOG"; fi
cd / && rm -rf "$work"
exit $rc
