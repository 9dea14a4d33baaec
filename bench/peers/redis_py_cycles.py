"""redis-py's own Lock (Debian python3-redis) as a peer of locksim's real
mode: one client, acquire + release cycles against the bench's redis-server
for SECONDS; prints the cycles per second.
    /usr/bin/python3 redis_py_cycles.py PORT SECONDS
"""
import sys
import time

import redis

port, seconds = int(sys.argv[1]), float(sys.argv[2])
r = redis.Redis(host="127.0.0.1", port=port)
lock = r.lock("bench:py", timeout=10, blocking_timeout=1)
cycles = 0
start = time.monotonic()
while time.monotonic() - start < seconds:
    if not lock.acquire():
        sys.exit("redis-py: could not acquire")
    lock.release()
    cycles += 1
print("%.1f" % (cycles / (time.monotonic() - start)))
