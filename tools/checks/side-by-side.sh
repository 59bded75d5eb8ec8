#!/usr/bin/env bash
# Runs each argument as a command, all at once, and fails when any fails (naming it). The static checks of the test
# task (tsc, ESLint, Prettier) each keep about one core busy: one after another they left the second core idle.
set -u
commands=("$@")
pids=()
for command in "${commands[@]}"; do
  bash -c "$command" &
  pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "failed: ${commands[$i]}" >&2
    status=1
  fi
done
exit $status
