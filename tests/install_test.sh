#!/usr/bin/env bash
# An installed locksim works away from its source tree: installs the build
# into a temporary prefix, then, from another folder, runs a bundled
# scenario, `serve` (answered by redis-cli), the redis-py adapter on real
# servers (the clock shim loaded into them), and compare over the bundled
# scenarios by default; finally builds the .deb and checks what it holds.
#   tests/install_test.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/locksim-install-XXXXXX)
serve_pid=""
cleanup() {
  [[ -n "$serve_pid" ]] && kill "$serve_pid" 2>/dev/null && wait "$serve_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in bin/locksim lib/locksim/liblocksim_clockshim.so \
         share/locksim/lockimpls/redis_py/redis_py_adapter.py \
         share/locksim/scenarios/f02-del-frees-other.json share/locksim/scenarios/schema.json \
         share/locksim/compare-results.schema.json; do
  [[ -e "$prefix/$f" ]] || fail "not installed: $f"
done

# Away from the source tree and the build.
mkdir "$work/elsewhere" && cd "$work/elsewhere"
locksim="$prefix/bin/locksim"
scenarios="$prefix/share/locksim/scenarios"

# A bundled scenario: F2's violation, exit 1.
set +e
out=$("$locksim" run "$scenarios/f02-del-frees-other.json" --algorithm set-nx-px-del 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "run f02: exit $rc, expected 1: $out"
grep -q "A's DEL deleted B's lock:order" <<<"$out" || fail "run f02: no foreign write in: $out"
echo "ok: run of a bundled scenario from $PWD"

# compare without --scenarios finds the bundled ones (no ./scenarios here).
set +e
"$locksim" compare --algorithms set-nx-px,redlock --out "$work/report" -q >"$work/compare.out" 2>&1
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "compare: exit $rc: $(cat "$work/compare.out")"
grep -q "f02-del-frees-other" "$work/report/results.json" || fail "compare: bundled scenarios not found"
echo "ok: compare over the bundled scenarios"

# serve, answered by redis-cli.
"$locksim" serve --port 0 >"$work/serve.out" 2>&1 &
serve_pid=$!
for _ in $(seq 50); do
  grep -q "listening on" "$work/serve.out" && break
  sleep 0.1
done
port=$(sed -n 's/.*listening on 127.0.0.1:\([0-9]*\).*/\1/p' "$work/serve.out")
[[ -n "$port" ]] || fail "serve: no port in $(cat "$work/serve.out")"
[[ $(redis-cli -p "$port" SET k v NX PX 5000) == OK ]] || fail "serve: SET"
[[ $(redis-cli -p "$port" GET k) == v ]] || fail "serve: GET"
kill "$serve_pid" && wait "$serve_pid" 2>/dev/null || true
serve_pid=""
echo "ok: serve on port $port"

# The redis-py adapter on real servers (its script and the clock shim from
# the prefix): F1 on redis-py's own Lock.
set +e
out=$("$locksim" run "$scenarios/f16-redis-py-pause.json" --algorithm redis-py --backend real 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "redis-py: exit $rc, expected 1: $out"
grep -q "A and B both held lock:report" <<<"$out" || fail "redis-py: no overlap in: $out"
echo "ok: the redis-py adapter on real servers"

# The Debian package holds the same files.
cpack --config "$build/CPackConfig.cmake" -B "$work/pkg" >/dev/null
deb=$(ls "$work"/pkg/locksim_*.deb)
contents=$(dpkg-deb --contents "$deb")
for f in ./usr/bin/locksim ./usr/lib/locksim/liblocksim_clockshim.so \
         ./usr/share/locksim/lockimpls/redis_py/redis_py_adapter.py \
         ./usr/share/locksim/scenarios/f02-del-frees-other.json; do
  grep -q " $f\$" <<<"$contents" || fail "the .deb lacks $f"
done
depends=$(dpkg-deb --field "$deb" Depends)
grep -q libhiredis <<<"$depends" || fail "the .deb does not depend on hiredis: $depends"
echo "ok: $(basename "$deb"), depends: $depends"
