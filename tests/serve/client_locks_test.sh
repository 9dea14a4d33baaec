#!/usr/bin/env bash
# The lock libraries people ship, run against `locksim serve` (issue 18):
# redis-py's Lock (Debian's python3-redis, /usr/bin/python3) and ioredis with redlock 5 and redis-semaphore
# (npm, pinned, installed into the build by .ci/install-node), each acquiring
# and releasing, then losing its lock to a LOCKSIM.CLOCK JUMP.
#   client_locks_test.sh LOCKSIM SOURCE_DIR NODE_MODULES
# Exit 77 (skipped, ctest says so) when node or the modules are missing.
set -euo pipefail
locksim=$1 src=$2 modules=$3
if ! command -v node >/dev/null || [[ ! -d "$modules/redlock" ]]; then
  echo "skipped: node or $modules missing; run: bash .ci/install-node" >&2
  exit 77
fi
out=$(mktemp)
"$locksim" serve --port 0 >"$out" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -f "$out"' EXIT
for _ in $(seq 100); do
  grep -q 'listening on' "$out" && break
  sleep 0.05
done
port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' "$out")
[[ -n "$port" ]] || { echo "serve did not start: $(cat "$out")" >&2; exit 1; }
echo "== redis-py against locksim serve on 127.0.0.1:$port"
/usr/bin/python3 "$src/tests/serve/client_locks.py" "$port"
echo "== ioredis, redlock, redis-semaphore against locksim serve on 127.0.0.1:$port"
NODE_PATH="$modules" node "$src/tests/serve/client_locks.js" "$port"
