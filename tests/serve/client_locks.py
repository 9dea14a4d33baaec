"""redis-py's own Lock (Debian python3-redis) against `locksim serve`, as
against redis-server: acquire, release, then hold it while LOCKSIM.CLOCK JUMP
moves the node clock past the lease: the lock is gone, a second client takes
it, and the first one's release raises LockNotOwnedError. One line per
check; exit 1 at the first that does not hold.
    python3 client_locks.py PORT
"""
import sys

import redis
from redis.exceptions import LockNotOwnedError


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        sys.exit(1)


port = int(sys.argv[1])
a = redis.Redis(host="127.0.0.1", port=port)
b = redis.Redis(host="127.0.0.1", port=port)
check(a.ping(), "redis-py %s connected" % redis.__version__)
la = a.lock("res:py", timeout=10)
lb = b.lock("res:py", timeout=10, blocking=False)
check(la.acquire(blocking=False), "redis-py Lock acquired")
check(not lb.acquire(), "redis-py: a second client cannot take the held lock")
la.release()
check(a.exists("res:py") == 0, "redis-py Lock released: the key is gone")
check(la.acquire(blocking=False), "redis-py Lock acquired again")
a.execute_command("LOCKSIM.CLOCK", "JUMP", "20000")
check(a.exists("res:py") == 0, "redis-py: LOCKSIM.CLOCK JUMP 20000 expired the held lock")
check(not la.owned(), "redis-py: Lock.owned() says the first client lost it")
check(lb.acquire(), "redis-py: a second client took it")
try:
    la.release()
    check(False, "redis-py: the first client's release should raise LockNotOwnedError")
except LockNotOwnedError:
    check(True, "redis-py: the first client's release raises LockNotOwnedError")
check(b.get("res:py") == lb.local.token, "redis-py: the second client's key is still there")
lb.release()
