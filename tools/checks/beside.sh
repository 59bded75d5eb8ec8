#!/usr/bin/env bash
# beside.sh "<command>" <program> [args…]: runs the command (a shell string) in the background beside the program
# (with its arguments, so a task can pass its own on), and fails when either fails, naming it. The test task runs the
# static checks (tsc, ESLint, Prettier: about 30 s on a quiet machine, 80 s on a loaded CI host) beside jest, whose
# first files wait on their control planes, instead of before it.
set -u
background=$1
shift
bash -c "$background" &
pid=$!
"$@"
status=$?
if ! wait "$pid"; then
  echo "failed: $background" >&2
  status=1
fi
exit $status
