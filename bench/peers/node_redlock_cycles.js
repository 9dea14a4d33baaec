// node-redlock 5 over ioredis (npm, pinned in lockimpls/node/package-lock.json)
// as a peer of locksim's real mode: one client, acquire + release cycles
// against the bench's redis-servers for SECONDS; prints cycles/s. PORTS is
// one port (one node) or several, comma-separated: a Redlock over that many
// nodes, each request sent to all of them at once, as node-redlock does.
//   NODE_PATH=<build>/node/node_modules node node_redlock_cycles.js PORTS SECONDS
'use strict';
const Redis = require('ioredis');
const Redlock = require('redlock').default;

async function main() {
  const ports = process.argv[2].split(',').map(Number);
  const seconds = Number(process.argv[3]);
  const clients = ports.map((port) => new Redis({ host: '127.0.0.1', port }));
  const redlock = new Redlock(clients, { retryCount: 0, automaticExtensionThreshold: 500 });
  let cycles = 0;
  const start = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - start) / 1e9;
  while (elapsed() < seconds) {
    const lock = await redlock.acquire(['bench:node'], 10000);
    await lock.release();
    cycles += 1;
  }
  console.log((cycles / elapsed()).toFixed(1));
  clients.forEach((c) => c.disconnect());
}
main().catch((e) => {
  console.error(e);
  process.exit(1);
});
