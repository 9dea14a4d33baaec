// redis-py: redis-py's own Lock (redis.lock.Lock, Debian python3-redis
// 4.3.4), not a re-implementation. locksim does not run this lock's code in
// its event loop: a third-party client, it runs in a python3 process of its
// own, one per client process, driven through the adapter protocol
// (redis_py_adapter.py beside this file; the protocol: docs/adapters.md). It
// needs --backend real: the adapter talks to the real redis-server itself.
//
// Source: redis-py, redis/lock.py (the Lock class that Redis.lock() returns).
//   acquire: SET key <uuid1 token> NX PX timeout, retried every `sleep`
//            seconds until `blocking_timeout` (time.monotonic) has passed;
//   release: a Lua script (LUA_RELEASE_SCRIPT) that deletes the key only if
//            it still holds the token, else LockNotOwnedError;
//   extend / reacquire: only when the caller asks; nothing renews the lease.
// Our defaults: redis-py's sleep (0.1 s); its timeout and blocking_timeout
// default to None (no expiry, wait for ever), so we take a 10 s lease and a
// 10 s wait, as set-nx-px does.
//
// The bug it carries (from the design, as set-nx-px): the lease is a fixed
// `timeout` with no watchdog. A holder stopped longer than the timeout (GC,
// SIGSTOP: F1) loses the key to another client and, resumed, goes on working
// in its critical section: mutual exclusion is lost. Its release is the
// token-checked script, so it does not delete the other's lock (no F2): it
// raises LockNotOwnedError instead.
#ifndef LOCKSIM_LOCKIMPLS_REDIS_PY_REDIS_PY_H_
#define LOCKSIM_LOCKIMPLS_REDIS_PY_REDIS_PY_H_

#include "lockimpls/lock.h"

namespace locksim {

// Debian's python3 (not one on PATH: pyenv and virtualenvs lack Debian's
// python3-redis), isolated (-I) from PYTHON* variables and user site-packages.
inline const AdapterProgram kRedisPyAdapter = {
    "redis-py", "/usr/bin/python3", {"-I"}, "lockimpls/redis_py/redis_py_adapter.py",
    "apt-get install python3 python3-redis"};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_REDIS_PY_REDIS_PY_H_
