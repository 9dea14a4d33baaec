#!/usr/bin/env bash
# `make test`'s ctest run: the real-parity runs (one per scenario
# expectation, mostly waiting on the wall clock, each on servers of its own)
# side by side, REAL_JOBS at a time, while the other tests run JOBS at a
# time next to them. Their lines are prefixed "real-parity| ". Exit status:
# 0 when both halves passed, else the first non-zero one.
#
#   tests/ctest_side_by_side.sh BUILD_DIR JOBS REAL_JOBS EXCLUDE_REGEX
set -uo pipefail
build=$1 jobs=$2 real_jobs=$3 exclude=$4
cd "$build" || exit 2

parity_rc=0
parity_pid=
if ! ctest -N -L real-parity -LE "$exclude" | grep -q '^Total Tests: 0$'; then
  ctest --output-on-failure -j"$real_jobs" -L real-parity -LE "$exclude" \
    > >(sed -u 's/^/real-parity| /') 2>&1 &
  parity_pid=$!
fi
# Interrupted, the real-parity half does not run on: its ctest and the
# locksim runs it started get SIGTERM (each stops its own servers). A
# background job of a script ignores SIGINT, so it is passed on here.
stop_parity() {
  if [ -n "$parity_pid" ]; then
    pkill -TERM -P "$parity_pid" 2>/dev/null
    kill -TERM "$parity_pid" 2>/dev/null
  fi
  exit 130
}
trap stop_parity INT TERM HUP

ctest --output-on-failure -j"$jobs" -LE "real-parity|$exclude"
rest_rc=$?
if [ -n "$parity_pid" ]; then
  wait "$parity_pid"
  parity_rc=$?
fi
[ "$rest_rc" -ne 0 ] && exit "$rest_rc"
exit "$parity_rc"
