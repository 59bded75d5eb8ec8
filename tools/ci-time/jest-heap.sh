#!/usr/bin/env bash
# jest's heap after each test file (its --logHeapUsage, after a forced garbage collection), one jest process running
# the files in turn, with and without jest's VM modules (--experimental-vm-modules, which the test task had until
# 2026-12-04): whether the heap grows with every file a worker runs. Without Kubernetes binaries, so the apiserver
# suites skip: the leak was in module registries, not in the planes. Prints a summary line per variant.
#   bash tools/ci-time/jest-heap.sh [JEST PATH PATTERN...]     default: test/apiserver test/crd test/custom-resource test/operator
set -uo pipefail
cd "$(dirname "$0")/../.."
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(test/apiserver test/crd test/custom-resource test/operator)
for variant in vm-modules default; do
  flags='--expose-gc --max-semi-space-size=64'
  [ "$variant" = vm-modules ] && flags="--experimental-vm-modules --no-warnings=ExperimentalWarning $flags"
  log=$(mktemp)
  # node's flags on the command line (jest gives a run in band no worker of its own); no binaries: the apiserver suites skip
  env -u KUBEBUILDER_ASSETS -u ENVTEST_REQUIRED -u NODE_OPTIONS CDK8S_OPERATOR_QUIET=1 \
    node $flags node_modules/jest/bin/jest.js --ci --runInBand --logHeapUsage "${files[@]}" >"$log" 2>&1
  rc=$?
  # "PASS test/x.test.ts (1.2 s, 45 MB heap size)": the heap sizes in the order the files ran
  heaps=$(sed -n 's/^\(PASS\|FAIL\) .*[ (]\([0-9]*\) MB heap size)$/\2/p' "$log" | tr '\n' ' ')
  tests=$(grep -m1 '^Tests:' "$log")
  echo "$variant (node $flags): exit $rc; $tests; heap MB after each file: $heaps"
  rm -f "$log"
done
