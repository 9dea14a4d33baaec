#!/usr/bin/env bash
# `make test`'s build and ctest runs, in lanes that start as soon as what
# they run is built, so that tests that wait on the wall clock do so while
# the compiler works:
# 1. the locksim binary and its clock shim are built; then start
#    - the real-parity runs (label real-parity: one per scenario
#      expectation, mostly waiting on the wall clock, each on servers of its
#      own), REAL_JOBS at a time, their lines prefixed "real-parity| ";
#    - the tests that need nothing more (label cli: the docs' commands, the
#      report in Chromium, the installed binary, serve with the client
#      libraries), one at a time, prefixed "cli| ";
# 2. real_tests is built; its tests (label real, most of them on real
#    servers) start, TEST_JOBS at a time, prefixed "real| ";
# 3. the rest of the build (unit_tests, the fuzz targets' corpus replays);
#    then the other tests, TEST_JOBS at a time, unprefixed.
# Exit status: the build's when it failed (the runs under way are stopped),
# else 0 when every lane passed, else the first non-zero one of the other
# tests', the real-parity lane's, the cli lane's and the real lane's;
# stopped by a signal, everything is stopped and it exits 128 + the signal.
#
#   tests/ctest_side_by_side.sh BUILD_DIR JOBS TEST_JOBS REAL_JOBS EXCLUDE_REGEX
# BUILD_DIR has been configured (cmake -S . -B BUILD_DIR); JOBS is the
# build's parallelism; tests with a label EXCLUDE_REGEX matches are not run.
set -uo pipefail
build=$1 jobs=$2 test_jobs=$3 real_jobs=$4 exclude=$5
cd "$build" || exit 2

# without LABELS: a -LE regex for LABELS and EXCLUDE_REGEX (an empty
# EXCLUDE_REGEX adds nothing: "LABELS|", whose empty alternative would match
# every label, would exclude every test).
without() { echo "$1${exclude:+|$exclude}"; }

lanes=()  # the subshells of the prefixed lanes, each a ctest and a sed
rest=     # the other tests' ctest
compiling=
# Everything a process started, and what those started.
descendants() {
  local child
  for child in $(pgrep -P "$1"); do
    echo "$child"
    descendants "$child"
  done
}
# Everything under way is stopped. Each ctest is frozen first, so that it
# starts no next test while the runs it started are stopped (SIGTERM: each
# locksim stops its own servers and removes their folders), then killed. A
# build under way is stopped too.
halt() {
  local pid lane ctests="$rest"
  for lane in "${lanes[@]}"; do ctests="$ctests $(pgrep -x ctest -P "$lane")"; done
  for pid in $ctests; do kill -STOP "$pid" 2>/dev/null; done
  for pid in $(for c in $ctests $compiling; do descendants "$c"; done) "${lanes[@]}" $compiling; do
    kill -TERM "$pid" 2>/dev/null
  done
  for pid in $ctests; do kill -KILL "$pid" 2>/dev/null; done
  wait
}
stop() {
  trap - INT TERM HUP
  halt
  exit $((128 + $1))
}

# Background jobs of a script ignore SIGINT: it is passed on from here.
trap 'stop 2' INT
trap 'stop 15' TERM
trap 'stop 1' HUP

# cmake --build in the background, waited for, so that a signal reaches
# stop() at once rather than when the build ends; its status is returned.
compile() {
  "$@" &
  compiling=$!
  wait "$compiling"
  local rc=$?
  compiling=
  return "$rc"
}

# lane PREFIX JOBS CTEST_ARGS...: a ctest in the background (when it has
# tests to run), its lines prefixed "PREFIX| ".
lane() {
  local prefix=$1 lane_jobs=$2
  shift 2
  ctest -N "$@" | grep -q '^Total Tests: 0$' && return
  (
    ctest --output-on-failure -j"$lane_jobs" "$@" 2>&1 | sed -u "s/^/$prefix| /"
    exit "${PIPESTATUS[0]}"
  ) &
  lanes+=($!)
}

# build_then TARGET...: the targets built (all of them when none is named);
# a failed build stops every lane and ends the script. (Not at a lower
# priority: the runs that wait are woken ahead of the compiler as it is,
# and at nice 10 beside two busy loops at nice 0, CFS's weights would give
# the build about a twentieth of the machine.)
build_then() {
  local rc=0 targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  compile cmake --build . -j"$jobs" "${targets[@]}" -- --no-print-directory || rc=$?
  [ "$rc" -eq 0 ] && return
  [ "${#lanes[@]}" -gt 0 ] && echo "the build failed (exit $rc): the runs under way are stopped" >&2
  trap - INT TERM HUP
  halt
  exit "$rc"
}

compile cmake --build . -j"$jobs" --target locksim locksim_clockshim -- --no-print-directory ||
  exit $?
lane real-parity "$real_jobs" -L real-parity ${exclude:+-LE "$exclude"}
lane cli 1 -L '^cli$' -LE "$(without real-parity)"
build_then real_tests
lane real "$test_jobs" -L '^real$' -LE "$(without 'real-parity|^cli$')"
build_then

ctest --output-on-failure -j"$test_jobs" -LE "$(without 'real-parity|^cli$|^real$')" &
rest=$!

rc=0
wait "$rest" || rc=$?
for lane in "${lanes[@]}"; do
  lane_rc=0
  wait "$lane" || lane_rc=$?
  [ "$rc" -eq 0 ] && rc=$lane_rc
done
exit "$rc"
