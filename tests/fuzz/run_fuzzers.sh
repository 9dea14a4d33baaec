#!/usr/bin/env bash
# Runs the libFuzzer targets of a -DLOCKSIM_FUZZ=ON build (make fuzz).
#   bash tests/fuzz/run_fuzzers.sh BUILD BUDGET PARALLEL TARGET...
# BUDGET is either SECONDS (a campaign: each target for that long, wherever
# the host's speed takes it) or runs:N (each target N inputs from libFuzzer
# seed 1, as much work on a slow machine as on a fast one; what CI runs. Not
# bit-for-bit repeatable: libFuzzer's comparison tracing sees addresses).
# Each target starts from its seed corpus (tests/fuzz/corpus/<target>, and the
# bundled scenarios for `scenario`), keeps what it finds in
# BUILD/corpus/<target> and writes a crashing, leaking or hanging input to
# BUILD/artifacts/. Prints one line per target (executions, corpus, coverage)
# and exits 1 if any target found something: copy the artifact into
# tests/fuzz/corpus/<target>/ once fixed, and it is a regression test.
set -uo pipefail
build=$1 budget=$2 parallel=$3
shift 3
if [[ "$budget" == runs:* ]]; then
  limit="-runs=${budget#runs:} -seed=1"
  what="${budget#runs:} inputs each from seed 1"
else
  limit="-max_total_time=$budget"
  what="${budget}s each"
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$build/artifacts" "$build/logs"

run_one() {
  local t=$1
  local bin="$build/tests/fuzz_$t" log="$build/logs/$t.log"
  mkdir -p "$build/corpus/$t"
  local seeds=("$root/tests/fuzz/corpus/$t")
  [[ "$t" == scenario ]] && seeds+=("$root/scenarios")
  local dict=()
  [[ -f "$root/tests/fuzz/$t.dict" ]] && dict=("-dict=$root/tests/fuzz/$t.dict")
  # -timeout: one input over 10 s is a hang; -rss_limit_mb: the machine has
  # room, but an input that needs gigabytes is a finding too.
  # shellcheck disable=SC2086  # $limit is one or two options
  "$bin" $limit -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$build/artifacts/$t-" "${dict[@]}" \
    "$build/corpus/$t" "${seeds[@]}" >"$log" 2>&1
  local rc=$?
  local execs cov corpus
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | grep -o '[0-9]*')
  corpus=$(ls "$build/corpus/$t" | wc -l)
  printf '%-16s %s  %10s execs  corpus %5s  cov %6s  %s\n' "$t" \
    "$([[ $rc -eq 0 ]] && echo ok || echo FOUND)" "${execs:-?}" "$corpus" "${cov:-?}" \
    "$([[ $rc -eq 0 ]] && echo "" || echo "see $log")"
  return $rc
}
export -f run_one
export build limit root

echo "fuzz: ${#@} targets, $what, $parallel at a time"
printf '%s\n' "$@" | xargs -P "$parallel" -I{} bash -c 'run_one {}'
rc=$?
if [[ $rc -ne 0 ]]; then
  echo "fuzz: something was found (artifacts in $build/artifacts/):" >&2
  ls "$build/artifacts" >&2
  exit 1
fi
echo "fuzz: no crash, no sanitizer report, no hang, no leak"
