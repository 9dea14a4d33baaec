// ioredis with the lock libraries built on it (redlock 5, redis-semaphore),
// run against `locksim serve` as against redis-server: each acquires and
// releases its lock, then holds it while LOCKSIM.CLOCK JUMP moves the node's
// clock past the lease, and sees what that does to it (the lock is gone, a
// second client takes it, the first one's release fails). Prints one line
// per check; exits 1 at the first that does not hold.
//   node client_locks.js PORT     (NODE_PATH: the pinned node_modules)
'use strict';
const Redis = require('ioredis');
const Redlock = require('redlock').default;
const { Mutex } = require('redis-semaphore');

const port = Number(process.argv[2]);
function check(ok, what) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`);
  if (!ok) process.exit(1);
}

async function main() {
  const a = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
  const b = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
  await a.connect();  // ioredis's ready check: INFO
  await b.connect();
  check(a.status === 'ready', `ioredis ${require('ioredis/package.json').version} connected (status ${a.status})`);

  // redlock 5 (one node), with its own scripts (EVALSHA, EVAL on NOSCRIPT).
  const ra = new Redlock([a], { retryCount: 0 });
  const rb = new Redlock([b], { retryCount: 0 });
  let lock = await ra.acquire(['res:redlock'], 10000);
  check((await a.get('res:redlock')) === lock.value, 'redlock acquired: the key holds its value');
  let taken = await rb.acquire(['res:redlock'], 10000).then(() => true, () => false);
  check(!taken, 'redlock: a second client cannot take the held lock');
  await lock.release();
  check((await a.exists('res:redlock')) === 0, 'redlock released: the key is gone');
  lock = await ra.acquire(['res:redlock'], 10000);
  await a.call('LOCKSIM.CLOCK', 'JUMP', '20000');
  check((await a.exists('res:redlock')) === 0, 'redlock: LOCKSIM.CLOCK JUMP 20000 expired the held lock');
  const second = await rb.acquire(['res:redlock'], 10000);
  check((await b.get('res:redlock')) === second.value, 'redlock: a second client took it while the first believes it holds it');
  const released = await lock.release().then(() => 'released', (e) => e.name);
  check(released !== 'released', `redlock: the first client's release fails (${released}) and leaves the second's key`);
  check((await b.get('res:redlock')) === second.value, "redlock: the second client's key is still there");
  await second.release();

  // redis-semaphore's Mutex: SET NX PX, a compare-and-delete release.
  const ma = new Mutex(a, 'res:mutex', { lockTimeout: 10000, acquireTimeout: 200, retryInterval: 10, refreshInterval: 0 });
  const mb = new Mutex(b, 'res:mutex', { lockTimeout: 10000, acquireTimeout: 200, retryInterval: 10, refreshInterval: 0 });
  await ma.acquire();
  check(await a.exists('mutex:res:mutex') + await a.exists('res:mutex') === 1, 'redis-semaphore Mutex acquired');
  check(!(await mb.tryAcquire()), 'redis-semaphore: a second client cannot take the held mutex');
  await a.call('LOCKSIM.CLOCK', 'JUMP', '20000');
  check(await mb.tryAcquire(), 'redis-semaphore: after LOCKSIM.CLOCK JUMP 20000 a second client takes it');
  await ma.release();
  check(await a.exists('mutex:res:mutex') + await a.exists('res:mutex') === 1,
        "redis-semaphore: the first client's release leaves the second's key");
  await mb.release();
  check(await a.exists('mutex:res:mutex') + await a.exists('res:mutex') === 0, 'redis-semaphore: the second client released it');
  a.disconnect();
  b.disconnect();
}

main().catch((e) => {
  console.log(`FAIL ${e.stack || e}`);
  process.exit(1);
});
