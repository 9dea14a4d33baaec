#!/usr/bin/env bash
# End to end: `locksim compare` writes report.html, headless Chromium renders
# it, and the rendered DOM must hold the matrix and at least one SVG
# timeline. Chromium comes from Debian's `chromium` package, which
# `make test` installs (bash .ci/install-deps --browser). Without it the test
# is skipped (exit 77) with the command that installs it.
#
#   tests/reports/report_browser_test.sh LOCKSIM_BINARY SOURCE_DIR [SCREENSHOT.png]
#
# With a third argument it also writes a screenshot of the report (how
# docs/report.png is made: `make screenshot`).
set -euo pipefail

locksim=$1
src=$2
screenshot=${3:-}

chromium=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$chromium" ]]; then
  echo "SKIP: no chromium; install it with: bash $src/.ci/install-deps --browser" >&2
  exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/locksim-browser-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Every variant against every bundled scenario (exit 1: some cells violate).
set +e
"$locksim" compare --algorithms all --scenarios "$src/scenarios" --search 20 --out "$work/out" -q \
  >"$work/compare.out" 2>"$work/compare.err"
rc=$?
set -e
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
  echo "FAIL: locksim compare exited $rc" >&2
  cat "$work/compare.err" >&2
  exit 1
fi
for f in results.json report.html summary.md junit.xml; do
  [[ -s "$work/out/$f" ]] || { echo "FAIL: compare wrote no $f" >&2; exit 1; }
done

# Headless, offline, in a profile of its own that nothing else uses.
chrome() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$work/profile-$1" "${@:2}"
}

chrome dom --dump-dom "file://$work/out/report.html" >"$work/dom.html" 2>"$work/chrome.err" || {
  echo "FAIL: chromium could not render the report" >&2
  cat "$work/chrome.err" >&2
  exit 1
}

fail=0
check() {  # check DESCRIPTION PATTERN [MIN_COUNT]
  local n
  n=$(grep -o -- "$2" "$work/dom.html" | wc -l)
  if [[ $n -lt ${3:-1} ]]; then
    echo "FAIL: rendered DOM lacks $1 (pattern '$2' found $n times, want >= ${3:-1})" >&2
    fail=1
  else
    echo "ok: $1 ($n)"
  fi
}
check "the matrix" '<table class="matrix" id="matrix-table">'
check "a matrix column per variant" '<th class="variant"><span>set-nx-px</span></th>'
check "a matrix row per scenario, linking to its counterexamples" '<tr><th title="[^"]*"><a class="scn" href="#scn-f01-pause-past-ttl">f01-pause-past-ttl</a><small>'
check "a VIOLATED cell linking to its timeline" '<a class="cell" href="#cell-f01-pause-past-ttl--set-nx-px"'
check "a SAFE cell" '<td class="v-safe">'
check "SVG timelines" '<svg class="timeline"' 1
check "a hatched pause in a timeline" 'class="pause"'
check "an overlap shaded in a timeline" 'class="overlap"'
check "the liveness table" '<table class="figures">'
check "the searched matrix" '<table class="matrix" id="search-table">'
check "a searched cell linking to its counterexample" '<a class="cell" href="#cell-search--set-nx-px--pause"'
check "a searched counterexample's timeline" 'id="cell-search--set-nx-px--pause"'
[[ $fail -eq 0 ]] || exit 1

if [[ -n "$screenshot" ]]; then
  chrome shot --hide-scrollbars --force-device-scale-factor=1 --window-size=1480,2940 \
    --screenshot="$screenshot" "file://$work/out/report.html" 2>"$work/chrome.err" || {
    echo "FAIL: chromium could not take the screenshot" >&2
    cat "$work/chrome.err" >&2
    exit 1
  }
  echo "screenshot: $screenshot"
fi
echo "PASS: Chromium renders the matrix and $(grep -o '<svg class="timeline"' "$work/dom.html" | wc -l) SVG timelines"
