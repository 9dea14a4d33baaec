// node-redlock 5 over ioredis (npm, pinned in lockimpls/node/package-lock.json)
// as a peer of locksim's real mode: one client, one node, acquire + release
// cycles against the bench's redis-server for SECONDS; prints cycles/s.
//   NODE_PATH=<build>/node/node_modules node node_redlock_cycles.js PORT SECONDS
'use strict';
const Redis = require('ioredis');
const Redlock = require('redlock').default;

async function main() {
  const port = Number(process.argv[2]);
  const seconds = Number(process.argv[3]);
  const client = new Redis({ host: '127.0.0.1', port });
  const redlock = new Redlock([client], { retryCount: 0, automaticExtensionThreshold: 500 });
  let cycles = 0;
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9;
  while (elapsed() < seconds) {
    const lock = await redlock.acquire(['bench:node'], 10000);
    await lock.release();
    cycles += 1;
  }
  console.log((cycles / elapsed()).toFixed(1));
  client.disconnect();
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
