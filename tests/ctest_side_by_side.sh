#!/usr/bin/env bash
# `make test`'s ctest run: the real-parity runs (one per scenario
# expectation, mostly waiting on the wall clock, each on servers of its own)
# side by side, REAL_JOBS at a time, while the other tests run JOBS at a
# time next to them. Their lines are prefixed "real-parity| ". Exit status:
# 0 when both halves passed, else the first non-zero one (the other tests'
# first); stopped by a signal, both halves are stopped and it exits
# 128 + the signal.
#
#   tests/ctest_side_by_side.sh BUILD_DIR JOBS REAL_JOBS EXCLUDE_REGEX
set -uo pipefail
build=$1 jobs=$2 real_jobs=$3 exclude=$4
cd "$build" || exit 2

# An empty EXCLUDE_REGEX excludes nothing (not "real-parity|", whose empty
# alternative would match every label).
parity_args=(-L real-parity ${exclude:+-LE "$exclude"})
rest_exclude="real-parity${exclude:+|$exclude}"

parity=
rest=
# Everything a process started, and what those started.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
# Each ctest (the other tests' is $rest, the real-parity one a child of its
# subshell) is frozen first, so that it starts no next test while the runs
# it started are stopped (SIGTERM: each locksim stops its own servers and
# removes their folders), then killed.
stop() {
  trap - INT TERM HUP
  local pid ctests="$rest"
  [ -n "$parity" ] && ctests="$ctests $(pgrep -x ctest -P "$parity")"
  for pid in $ctests; do kill -STOP "$pid" 2>/dev/null; done
  for pid in $(for c in $ctests; do descendants "$c"; done) $parity; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in $ctests; do kill -KILL "$pid" 2>/dev/null; done
  wait
  exit $((128 + $1))
}

# Background jobs of a script ignore SIGINT: it is passed on from here.
trap 'stop 2' INT
trap 'stop 15' TERM
trap 'stop 1' HUP

if ! ctest -N "${parity_args[@]}" | grep -q '^Total Tests: 0$'; then
  (
    ctest --output-on-failure -j"$real_jobs" "${parity_args[@]}" 2>&1 |
      sed -u 's/^/real-parity| /'
    exit "${PIPESTATUS[0]}"
  ) &
  parity=$!
fi
ctest --output-on-failure -j"$jobs" -LE "$rest_exclude" &
rest=$!

wait "$rest"
rest_rc=$?
parity_rc=0
if [ -n "$parity" ]; then
  wait "$parity"
  parity_rc=$?
fi
[ "$rest_rc" -ne 0 ] && exit "$rest_rc"
exit "$parity_rc"
