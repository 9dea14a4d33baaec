#!/usr/bin/env python3
"""The documented failures, found by search alone.

For each failure of ../shared/CATALOGUE.md that a fault class can cause
(F1-F12, F14, F15), runs `locksim explore` with only --algorithm and
--faults, takes the first finding of the failure's kind that is no bigger
(clients, faults) than the failure's story in scenarios/, and times an
explore of the seeds up to it (2 jobs). Prints a Markdown table, the one in
docs/explore.md. Run by hand: python3 bench/findings_table.py [F1 F8 ...]
"""
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LOCKSIM = os.environ.get("LOCKSIM", os.path.join(ROOT, "build", "locksim"))
SEEDS = 2000  # where to look; every row is found far sooner


def only(k, *tokens):
    return all(t in k["violations"] for t in tokens)


# failure, variant, --faults, what its finding looks like
ROWS = [
    ("F1", "set-nx-px", "pause",
     lambda k: only(k, "mutual-exclusion") and k["faults"] == ["pause"]
     and not any(v.startswith("foreign") for v in k["violations"])),
    ("F2", "set-nx-px-del", "pause",
     lambda k: only(k, "foreign-write-DEL") and k["faults"] == ["pause"]),
    ("F3", "setnx-simple", "client-crash",
     lambda k: only(k, "deadlock") and k["faults"] == ["client-crash"]),
    ("F4", "getset-timestamp", "client-clock",
     lambda k: only(k, "foreign-write-GETSET") and k["faults"] == ["client-clock"]),
    ("F5", "getset-timestamp", "pause",
     lambda k: only(k, "foreign-write-GETSET") and k["faults"] == ["pause"]),
    ("F6", "getset-timestamp", "pause",
     lambda k: only(k, "foreign-write-DEL") and k["faults"] == ["pause"]),
    ("F7", "set-nx-px", "failover",
     lambda k: only(k, "mutual-exclusion") and k["faults"] == ["failover"]),
    ("F8", "redlock", "node-crash",
     lambda k: only(k, "mutual-exclusion") and k["faults"] == ["node-crash"]),
    ("F9", "redlock", "node-clock",
     lambda k: only(k, "mutual-exclusion") and k["faults"] == ["node-clock"]),
    ("F10", "set-nx-px", "pause",
     lambda k: only(k, "late-entry") and k["faults"] == ["pause"]),
    ("F11", "watch-multi", "none", lambda k: only(k, "degraded")),
    ("F12", "setnx-expire", "none",
     lambda k: only(k, "mutual-exclusion") and k["faults"] == []
     and "reenter" not in k["kind"] and "threads" not in k["kind"]),
    ("F14", "set-nx-px-del", "none",
     lambda k: only(k, "mutual-exclusion") and k["kind"].endswith("--reenter")),
    ("F15", "rate-limit-naive", "client-crash", lambda k: only(k, "counter-without-ttl")),
]


def story_sizes():
    sizes = {}
    for path in glob.glob(os.path.join(ROOT, "scenarios", "f[0-9][0-9]-*.json")):
        doc = json.load(open(path))
        name = "F" + str(int(os.path.basename(path)[1:3]))
        sizes[name] = (len(doc["clients"]), len(doc.get("faults", [])))
    return sizes


def explore(algo, faults, seeds, out):
    subprocess.run([LOCKSIM, "explore", "--algorithm", algo, "--faults", faults, "--seeds",
                    str(seeds), "--out", out, "-q", "--jobs", "2"], capture_output=True)
    return json.load(open(os.path.join(out, "summary.json")))


def main():
    wanted = set(sys.argv[1:])
    sizes = story_sizes()
    print("| failure | variant | --faults | first seed | time | kind | shrunk to | story |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, algo, faults, matches in ROWS:
            if wanted and name not in wanted:
                continue
            story = sizes[name]
            summary = explore(algo, faults, SEEDS, os.path.join(tmp, name))
            first = None
            for f in summary["findings"]:
                k = {"violations": f["violations"], "faults": f["faults"], "kind": f["kind"]}
                small = f["shrunk"]["clients"] <= story[0] and f["shrunk"]["faults"] <= story[1]
                if matches(k) and small:
                    first = f
                    break
            if first is None:
                print(f"| {name} | {algo} | {faults} | not found in {SEEDS} seeds | | | | |")
                continue
            start = time.monotonic()
            explore(algo, faults, first["seed"], os.path.join(tmp, name + "-timed"))
            took = time.monotonic() - start
            s = first["shrunk"]
            print(f"| {name} | {algo} | {faults} | {first['seed']} | {took:.2f} s | "
                  f"`{first['kind']}` | {s['clients']} clients, {s['faults']} faults, "
                  f"{s['duration']} | {story[0]} clients, {story[1]} faults |")


if __name__ == "__main__":
    main()
