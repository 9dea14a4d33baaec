// locksim adapter for redis-semaphore's Mutex (npm redis-semaphore 5.8.0,
// over ioredis 5), the library's own code, unchanged: Mutex(client, key,
// {lockTimeout, acquireTimeout, retryInterval}) with its default refresh
// (every 0.8 lockTimeout, a token-checked PEXPIRE script), and, on more than
// one node, RedlockMutex (acquire on a majority). Its key is "mutex:<key>".
// See README.md beside this file.
'use strict';
const { main, load, version, errorText } = require('./adapter');

main(async (hello) => {
  const Redis = load('ioredis');
  const { Mutex, RedlockMutex } = load('redis-semaphore');
    const clients = hello.nodes.map((n) => new Redis({ host: n.host, port: n.port }));
  for (const c of clients) c.on('error', (e) => console.error(`ioredis: ${errorText(e)}`));
  let lost = null;
  let leaseEnd = null; // the client's own view: Date.now() when its lease ends
  const options = {
    lockTimeout: hello.ttl_ms,
    acquireTimeout: hello.acquire_timeout_ms,
    retryInterval: hello.retry_delay_ms,
    // The library's default throws from a timer, which ends the process; a
    // user passes a handler, and so does the adapter: the loss is reported
    // with the release.
    onLockLost: (e) => {
      lost = e;
      console.error(`onLockLost: ${errorText(e)}`);
    },
  };
  const mutex = clients.length > 1
    ? new RedlockMutex(clients, hello.key, options)
    : new Mutex(clients[0], hello.key, options);
  // Its refresh, noted as the redis-py adapter notes its SET.
  const refresh = mutex._refresh.bind(mutex);
  mutex._refresh = async () => {
    const sent = Date.now();
    const ok = await refresh();
    if (ok) leaseEnd = sent + hello.ttl_ms;
    return ok;
  };
  const leaseMs = () => (leaseEnd === null ? null : leaseEnd - Date.now());

  return {
    library: `redis-semaphore ${version('redis-semaphore')} ${clients.length > 1 ? 'RedlockMutex' : 'Mutex'}`,
    async acquire() {
      lost = null;
      try {
        await mutex.acquire();
      } catch (e) {
        return { acquired: false, error: errorText(e) };
      }
      // From the SET's reply: at most a round trip later than the SET.
      leaseEnd = Date.now() + hello.ttl_ms;
      return { acquired: true, token: mutex.identifier, lease_ms: leaseMs() };
    },
    async release() {
      const out = { lease_ms: leaseMs() };
      try {
        await mutex.release();
        out.released = lost === null;
        if (lost !== null) out.error = `onLockLost: ${errorText(lost)}`;
      } catch (e) {
        out.released = false;
        out.error = errorText(e);
      }
      leaseEnd = null;
      return out;
    },
  };
});
