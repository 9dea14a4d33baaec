// locksim adapter for node-redlock 5 (npm redlock 5.0.0-beta.2, over
// ioredis 5), the library's own code, unchanged: Redlock.using(), which
// acquires on a majority of the nodes and extends the lock automatically
// while the routine runs, then releases it. The adapter's "acquire" starts
// using() and answers once the routine has started; "release" ends the
// routine, and using() releases. See README.md beside this file.
'use strict';
const { main, load, version, errorText } = require('./adapter');

main(async (hello) => {
  const Redis = load('ioredis');
  const Redlock = load('redlock').default;
    // redlock's own class, noting the Lock that using() keeps to itself (as
  // the redis-py adapter notes its SET): the token, and the client's own
  // view of its lease (Lock.expiration, by its clock, less the drift).
  class ObservedRedlock extends Redlock {
    async acquire(...args) {
      const lock = await super.acquire(...args);
      this.latest = lock;
      return lock;
    }
    async extend(...args) {
      const lock = await super.extend(...args);
      this.latest = lock;
      return lock;
    }
  }
  const clients = hello.nodes.map((n) => new Redis({ host: n.host, port: n.port }));
  for (const c of clients) c.on('error', (e) => console.error(`ioredis: ${errorText(e)}`));
  // The instance keeps redlock's defaults (retryCount 10, retryDelay 200 ms,
  // jitter 100 ms): they govern the automatic extension and the release.
  const redlock = new ObservedRedlock(clients);
  redlock.on('error', (e) => console.error(`redlock: ${errorText(e)}`));
  // The scenario's acquire: retry every retry_delay until acquire_timeout.
  const acquireSettings = {
    retryDelay: hello.retry_delay_ms,
    retryJitter: 0,
    retryCount: Math.max(0, Math.ceil(hello.acquire_timeout_ms / Math.max(1, hello.retry_delay_ms))),
  };
  let held = null; // {signal, finish, done}
  const leaseMs = () => (redlock.latest ? redlock.latest.expiration - Date.now() : null);

  return {
    library: `node-redlock ${version('redlock')}`,
    async acquire() {
      let started;
      const routineStarted = new Promise((resolve) => (started = resolve));
      let finish;
      const finished = new Promise((resolve) => (finish = resolve));
      redlock.latest = null;
      const done = redlock
        .using([hello.key], hello.ttl_ms, acquireSettings, async (signal) => {
          started({ signal });
          await finished;
        })
        .then(
          () => null,
          (e) => e);
      const outcome = await Promise.race([routineStarted, done.then((e) => ({ error: e }))]);
      if (outcome.error !== undefined) {
        return { acquired: false, error: errorText(outcome.error) };
      }
      held = { signal: outcome.signal, finish, done };
      return { acquired: true, token: redlock.latest.value, lease_ms: leaseMs() };
    },
    async release() {
      if (held === null) return { released: false, error: 'not held' };
      const out = { lease_ms: leaseMs() };
      const lost = held.signal.aborted ? errorText(held.signal.error) : null;
      held.finish();
      const error = await held.done;
      held = null;
      out.released = error === null;
      if (error !== null) out.error = errorText(error);
      else if (lost) out.error = `the automatic extension failed: ${lost}`;
      return out;
    },
  };
});
