#!/usr/bin/python3
"""locksim adapter for redis-py's Lock (redis.lock.Lock, Debian python3-redis).

locksim starts one of these per client process and drives it over the adapter
protocol (docs/adapters.md): one JSON object per line on stdin, one reply per
line on stdout, in order. stderr is a log locksim quotes when something fails.

The lock is redis-py's own, unchanged: Redis.lock(key, timeout, sleep,
blocking_timeout). The only addition is a note of when the successful SET was
sent (do_acquire), so that each reply can carry the client's own view of its
lease, by its own clock: lease_ms = timeout - time since that SET.
"""
import json
import sys
import time


def reply(obj):
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def error_text(e):
    return "%s: %s" % (type(e).__name__, e)


def make_lock_class(Lock):
    class ObservedLock(Lock):
        """redis-py's Lock, noting when its lease began by its own clock."""

        lease_end = None  # time.monotonic() at which the client thinks its lease ends

        def do_acquire(self, token):
            sent = time.monotonic()
            acquired = super().do_acquire(token)
            if acquired and self.timeout is not None:
                self.lease_end = sent + self.timeout
            return acquired

        def lease_ms(self):
            if self.lease_end is None:
                return None
            return int(round((self.lease_end - time.monotonic()) * 1000))

    return ObservedLock


def main():
    line = sys.stdin.readline()
    if not line:
        return 0
    hello = json.loads(line)
    if hello.get("op") != "hello":
        reply({"ok": False, "error": "expected hello first, got %r" % line.strip()})
        return 1
    try:
        import redis
        from redis.lock import Lock
    except ImportError as e:
        reply({"ok": False,
               "error": "redis-py is not installed for %s (%s); on Debian: "
                        "apt-get install python3-redis" % (sys.executable, error_text(e))})
        return 1
    node = hello["nodes"][0]  # redis-py's Lock is a single-node lock
    client = redis.Redis(host=node["host"], port=node["port"])
    ObservedLock = make_lock_class(Lock)
    lock = ObservedLock(client, hello["key"],
                        timeout=hello["ttl_ms"] / 1000.0,
                        sleep=hello["retry_delay_ms"] / 1000.0,
                        blocking=True,
                        blocking_timeout=hello["acquire_timeout_ms"] / 1000.0,
                        thread_local=False)
    reply({"ok": True, "library": "redis-py " + redis.__version__})
    print("client %s: redis-py %s, %s:%s, key %s" % (hello.get("client"), redis.__version__,
          node["host"], node["port"], hello["key"]), file=sys.stderr, flush=True)

    for line in sys.stdin:
        request = json.loads(line)
        op = request.get("op")
        out = {"id": request.get("id"), "ok": True}
        if op == "bye":
            return 0
        try:
            if op == "acquire":
                out["acquired"] = bool(lock.acquire())
                if out["acquired"]:
                    out["token"] = lock.local.token.decode()
            elif op == "release":
                out["lease_ms"] = lock.lease_ms()  # its view, just before
                lock.release()
                out["released"] = True
            elif op == "extend":
                lock.extend(request["ms"] / 1000.0)
                if lock.lease_end is not None:
                    lock.lease_end += request["ms"] / 1000.0
                out["extended"] = True
            else:
                reply({"id": request.get("id"), "ok": False, "error": "unknown op %r" % op})
                continue
        except (redis.exceptions.LockError, redis.exceptions.RedisError) as e:
            # The library's own answer (LockNotOwnedError, a lost
            # connection): a result, not an adapter failure.
            result = {"acquire": "acquired", "release": "released", "extend": "extended"}[op]
            out[result] = False
            out["error"] = error_text(e)
        if op != "release":
            out["lease_ms"] = lock.lease_ms()
        if op == "release":
            lock.lease_end = None
        reply(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
