#!/usr/bin/env bash
# Usage: scripts/watchdog.sh SECONDS COMMAND [ARG...]
#
# Runs COMMAND under a wall-clock limit of SECONDS. A test run that stops answering (a pytest-xdist
# worker or a chapter's kernel waiting on a message that never comes) would otherwise hold CI until its
# own time runs out, with nothing in the log to say where. Past the limit, every process of COMMAND gets
# SIGTERM (each pytest process then writes the stack of each of its threads to a file of the folder
# WATCHDOG_STACKS names: conftest.py), then SIGKILL 30 s later; the watchdog prints those stacks, says
# so and runs COMMAND once more. nbval's second run executes only the
# chapters the first did not finish (the rest are cached). Any other exit status is COMMAND's own.
set -u
if [ $# -lt 2 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/watchdog.sh SECONDS COMMAND [ARG...] (SECONDS a whole number above 0, got '${1:-}')" >&2
  exit 2
fi
limit=$1
shift
WATCHDOG_STACKS="$(mktemp -d)"
export WATCHDOG_STACKS
trap 'rm -rf "$WATCHDOG_STACKS"' EXIT
for attempt in 1 2; do
  rm -f "$WATCHDOG_STACKS"/*
  start=$(date +%s)
  timeout --kill-after=30 "$limit" "$@"
  status=$?
  # 124: stopped by SIGTERM; 137: by SIGKILL, which is the watchdog's only if the limit had passed
  if [ "$status" -ne 124 ] && ! { [ "$status" -eq 137 ] && [ $(( $(date +%s) - start )) -ge "$limit" ]; }; then
    exit "$status"
  fi
  for stack in "$WATCHDOG_STACKS"/*; do
    [ -s "$stack" ] && { echo "watchdog: where $(basename "$stack" .txt) was:"; cat "$stack"; } >&2
  done
  echo "watchdog: stopped after ${limit} s (run ${attempt} of 2), still running: $*" >&2
done
exit "$status"
