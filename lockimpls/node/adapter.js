// The adapter protocol (docs/adapters.md) for Node.js lock libraries: one
// JSON object per line on stdin, one reply per line on stdout, in order;
// stderr is the log locksim quotes when something fails. The libraries come
// from lockimpls/node/package-lock.json, installed by .ci/install-node into
// <build>/node/node_modules, which locksim passes as NODE_PATH.
//
// serve(start) reads hello, calls start(hello), which loads the library and
// returns {library, acquire, release, extend} (each async, returning the
// reply's fields), answers hello, then serves requests one at a time.
// start throws MissingLibrary when the library cannot be loaded: the hello
// answer then says how to install it (locksim: exit 2).
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

class MissingLibrary extends Error {}

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

function errorText(e) {
  return `${(e && e.name) || 'Error'}: ${(e && e.message) || e}`;
}

// require() of a package, or MissingLibrary naming how to get it.
function load(name) {
  try {
    return require(name);
  } catch (e) {
    throw new MissingLibrary(
      `the npm package ${name} is not installed where NODE_PATH points ` +
        `(${process.env.NODE_PATH || 'unset'}): run make deps-node (bash .ci/install-node) ` +
        `(${errorText(e)})`);
  }
}

// The installed version of a package (its package.json, found up from its
// entry point: not every package exports "./package.json").
function version(name) {
  let dir = path.dirname(require.resolve(name));
  for (;;) {
    const file = path.join(dir, 'package.json');
    if (fs.existsSync(file)) {
      const pkg = JSON.parse(fs.readFileSync(file, 'utf8'));
      if (pkg.name === name) return pkg.version;
    }
    const up = path.dirname(dir);
    if (up === dir) return 'unknown';
    dir = up;
  }
}

async function serve(start) {
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  let impl = null;
  for await (const line of lines) {
    const request = JSON.parse(line);
    if (impl === null) {
      if (request.op !== 'hello') {
        reply({ ok: false, error: `expected hello first, got ${line.trim()}` });
        return 1;
      }
      try {
        impl = await start(request);
      } catch (e) {
        reply({ ok: false, error: e instanceof MissingLibrary ? e.message : errorText(e) });
        return 1;
      }
      reply({ ok: true, library: impl.library });
      console.error(`client ${request.client}: ${impl.library}, key ${request.key}`);
      continue;
    }
    if (request.op === 'bye') return 0;
    const handler = impl[request.op];
    if (!['acquire', 'release', 'extend'].includes(request.op) || !handler) {
      reply({ id: request.id, ok: false, error: `unknown op ${request.op}` });
      continue;
    }
    // The library's own answer, an exception included, is a result
    // ({acquired: false, error}), not a failure of the adapter.
    reply({ id: request.id, ok: true, ...(await handler(request)) });
  }
  return 0;
}

function main(start) {
  serve(start).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(1);
    });
}

module.exports = { main, load, version, errorText, MissingLibrary };
