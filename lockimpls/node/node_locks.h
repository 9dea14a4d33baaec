// The Node.js lock libraries people install most from npm, run as they are
// shipped: node-redlock and redis-semaphore, over ioredis, each in a node
// process of its own per client process, driven through the adapter
// protocol (docs/adapters.md; the adapters beside this file). Pinned in
// package-lock.json beside this file, installed by .ci/install-node into
// <build>/node/node_modules (make deps-node; make test does it), which the
// harness passes to node as NODE_PATH. --backend real only: the library talks
// to the real redis-server itself.
//
// node-redlock: npm redlock 5.0.0-beta.2, dist/cjs/index.js.
//   Redlock.using(resources, duration, settings, routine): acquire = the
//   acquire script (SET NX PX, all or nothing) on every node, held on a
//   majority within validity = duration - elapsed - drift (0.01 x duration
//   + 2 ms), retried retryCount times every retryDelay; while the routine
//   runs, extended (the extend script, token-checked PEXPIRE) when
//   automaticExtensionThreshold (500 ms) is left; on its end released (the
//   token-checked delete script on every node).
//   The bug it carries (the design's): the extension is a timer of the
//   holder's own process. A holder stopped longer than what is left of its
//   lease (SIGSTOP, GC) loses the key to another client (F1); resumed, its
//   extension finds the lock expired and aborts the routine's signal, but a
//   routine that does not watch the signal goes on in its critical
//   section. Across nodes, Redlock's clock and persistence assumptions (F8,
//   F9) as the redlock variant.
//
// redis-semaphore: npm redis-semaphore 5.8.0, lib/RedisMutex.js,
// lib/mutex/{acquire,refresh,release}.js.
//   Mutex(client, key, {lockTimeout, acquireTimeout, retryInterval}): the key
//   is "mutex:<key>"; acquire = SET mutex:<key> <uuid> PX lockTimeout NX every
//   retryInterval until acquireTimeout; a setInterval refresh every
//   0.8 x lockTimeout (a token-checked PEXPIRE script), onLockLost when it
//   fails; release = a token-checked DEL script. RedlockMutex on several
//   nodes (a majority).
//   The bug it carries: as node-redlock's, the refresh is the holder's own
//   timer, stopped with it (F1); and the library's default onLockLost
//   throws from the timer, which ends the process (the adapter passes a
//   handler, as a user would).
#ifndef LOCKSIM_LOCKIMPLS_NODE_NODE_LOCKS_H_
#define LOCKSIM_LOCKIMPLS_NODE_NODE_LOCKS_H_

#include "lockimpls/lock.h"

namespace locksim {

inline const AdapterProgram kNodeRedlockAdapter = {
    "node-redlock", "/usr/bin/node", {}, "lockimpls/node/redlock_adapter.js",
    "make deps-node (Debian nodejs, npm ci of lockimpls/node/package-lock.json)", "NODE_PATH",
    ""};

inline const AdapterProgram kRedisSemaphoreAdapter = {
    "redis-semaphore", "/usr/bin/node", {}, "lockimpls/node/redis_semaphore_adapter.js",
    "make deps-node (Debian nodejs, npm ci of lockimpls/node/package-lock.json)", "NODE_PATH",
    "mutex:"};

}  // namespace locksim

#endif  // LOCKSIM_LOCKIMPLS_NODE_NODE_LOCKS_H_
