#!/usr/bin/python3
"""A broken adapter for tests/real/adapter_test.cc: answers hello, then misbehaves
as LOCKSIM_FAKE_ADAPTER says, so the harness's handling of each failure can
be checked (a clear message and exit 3, never a hang).

  garbage   answers a request with a line that is not JSON
  exit      client A exits (status 1) on its first request, saying so on
            stderr; the others are good
  silent    never answers a request
  raise     client A's lock code raises on its first acquire, uncaught (a
            traceback naming TypeError, status 1); the others are good
  error     client A's acquires answer acquired: false with the error its
            lock code raised (caught, as docs/adapters.md advises); the
            others are good
  wrong-id  answers a request with another request's id
  not-ok    answers a request with "ok": false
  refuse    refuses hello (its library "is missing")
  good      a lock that always grants (no Redis): a well-behaved adapter;
            each reply says the longest gap between the 20 ms ticks of a
            thread of its own (max_gap_ms): how long it was stopped

Each instance appends its pid to LOCKSIM_FAKE_ADAPTER_PIDS, if set.
"""
import json
import os
import sys
import threading
import time

mode = os.environ.get("LOCKSIM_FAKE_ADAPTER", "good")
pids = os.environ.get("LOCKSIM_FAKE_ADAPTER_PIDS")
if pids:
    with open(pids, "a") as f:
        f.write("%d\n" % os.getpid())


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


max_gap = 0.0


def ticker():
    global max_gap
    last = time.monotonic()
    while True:
        time.sleep(0.02)
        now = time.monotonic()
        max_gap = max(max_gap, now - last)
        last = now


threading.Thread(target=ticker, daemon=True).start()
hello = json.loads(sys.stdin.readline())
if mode == "refuse":
    reply({"ok": False, "error": "fakelib is not installed"})
    sys.exit(1)
reply({"ok": True, "library": "fakelib 0.1"})
if mode in ("raise", "error", "exit") and hello["client"] != "A":
    mode = "good"


def naive_getset_acquire():
    # A naive GETSET lock whose key vanished between SETNX and GET.
    return int(None)


for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "bye":
        sys.exit(0)
    if mode == "raise" and request["op"] == "acquire":
        naive_getset_acquire()
    elif mode == "error" and request["op"] == "acquire":
        try:
            naive_getset_acquire()
        except TypeError as e:
            reply({"id": request["id"], "ok": True, "acquired": False,
                   "error": "%s: %s" % (type(e).__name__, e)})
    elif mode == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
    elif mode == "exit":
        print("fake adapter: giving up on %s" % request["op"], file=sys.stderr, flush=True)
        sys.exit(1)
    elif mode == "silent":
        pass
    elif mode == "wrong-id":
        reply({"id": request["id"] + 98, "ok": True, "acquired": True})
    elif mode == "not-ok":
        reply({"id": request["id"], "ok": False, "error": "no such op here"})
    else:
        result = {"acquire": "acquired", "release": "released", "extend": "extended"}
        reply({"id": request["id"], "ok": True, result[request["op"]]: True, "lease_ms": 1000,
               "max_gap_ms": int(max_gap * 1000)})
