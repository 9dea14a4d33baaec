#!/usr/bin/env python3
"""The directory rules of locksim's tree, checked over every #include.

Each folder may include only the folders listed for it (and the system and
library headers, in <...>). The rules, lowest layer first (README, Layout):

  sim/core      primitives: time, random, Reply, Task, Env, the history.
                The core includes no world and no command.
  lockimpls     lock code sees only Env's side: sim/core.
  sim/vredis    the virtual Redis: sim/core.
  sim/check     checkers see only the history: sim/core.
  sim/scenario  scenario files: what checkers and locks take as parameters.
  sim/result    a run's and a comparison's results, as plain data.
  sim/world     the event loop, the virtual world, the nemesis.
  sim/real      the real backend, a World of its own.
  sim/run       runs a scenario on a world: everything below.
  sim/explore   search over generated scenarios; writes findings (reports/).
  reports       report writers read result data only: no runner, no
                command, no world.
  sim/serve     the virtual Redis behind a socket.
  sim/cli       the command line: anything.

Usage: include_rules.py SOURCE_DIR. Exit 0 when every include keeps the
rules; 1 with a line per include that breaks one (file:line).
"""
import os
import re
import sys

RULES = {
    "sim/core": ["sim/core"],
    "lockimpls": ["sim/core", "lockimpls"],
    "sim/vredis": ["sim/core", "sim/vredis"],
    "sim/check": ["sim/core", "sim/check"],
    "sim/scenario": ["sim/core", "sim/check", "lockimpls", "sim/scenario"],
    "sim/result": ["sim/core", "sim/check", "sim/scenario", "sim/result"],
    "sim/world": ["sim/core", "sim/vredis", "sim/scenario", "sim/world"],
    "sim/real": ["sim/core", "sim/world", "sim/scenario", "lockimpls", "sim/real"],
    "sim/run": ["sim/core", "sim/world", "sim/real", "sim/vredis", "sim/check",
                "sim/scenario", "sim/result", "lockimpls", "sim/run"],
    "sim/explore": ["sim/core", "sim/check", "sim/scenario", "sim/result", "sim/run",
                    "reports", "lockimpls", "sim/explore"],
    "reports": ["sim/core", "sim/check", "sim/scenario", "sim/result", "reports"],
    "sim/serve": ["sim/core", "sim/vredis", "sim/serve"],
    "sim/cli": None,  # the top: anything
    "sim/clockshim": [],  # C, loaded into redis-server: nothing of ours
}
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def folder_of(rel):
    for folder in sorted(RULES, key=len, reverse=True):
        if rel.startswith(folder + "/"):
            return folder
    return None


def main():
    root = sys.argv[1]
    broken = []
    for top in ("sim", "lockimpls", "reports"):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cc", ".c")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                folder = folder_of(rel)
                if folder is None:
                    broken.append(f"{rel}: in no folder the rules know (add it to {__file__})")
                    continue
                allowed = RULES[folder]
                if allowed is None:
                    continue
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and not any(m.group(1).startswith(a + "/") for a in allowed):
                            broken.append(f"{rel}:{n}: {folder} may not include {m.group(1)}")
    for b in broken:
        print(b)
    print(f"include rules: {len(broken)} broken" if broken else "include rules: all kept")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
