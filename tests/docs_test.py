#!/usr/bin/env python3
"""Docs that run (issue 18): every command shown in a fenced block of
README.md and docs/*.md is executed, and a doc cannot drift from the code.

    python3 tests/docs_test.py LOCKSIM SOURCE_DIR [--only SUBSTRING]

Two kinds of block:
- ```sh blocks: each line (comments stripped) is a command; the block runs
  as one shell script, in order, so that a later command may read what an
  earlier one wrote.
- blocks whose lines start with "$ ": a terminal session. The lines under a
  command, up to the next "$ ", are its output as the doc shows it; each
  such line must appear in what the command printed, compared with every
  number replaced by "#" and runs of spaces folded (so that timings, ports
  and seeds-per-second may differ, but not a verdict, a kind or a word).
  Lines with "..." are elisions and are not compared.

Every command must exit 0 or 1 (1: the violation the doc is about); 2 (bad
input) and 3 (a harness failure) mean the doc no longer matches the code.
The commands run in a fresh folder where build/locksim is the binary under
test and scenarios/ and lockimpls/ are the source tree's; "/tmp/" in a
command becomes that folder's tmp/. redis-cli runs with --no-raw, so that it
prints as on a terminal. The commands that are the build itself (make ...,
bash .ci/run) and the cluster recipes of docs/explore.md (GNU parallel,
Slurm, Kubernetes) are not run here; each is listed, with why, at the end.
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

NOT_RUN = [
    (re.compile(r"^make\b"), "a make target: the build and CI run it (make test is what runs this)"),
    (re.compile(r"^bash \.ci/run\b"), "CI itself"),
    (re.compile(r"^(N=|parallel |job=|sbatch |kubectl |#!|--shard|--out \"sweep|test \$\?|\"locksim explore)"),
     "a cluster recipe (GNU parallel, Slurm, Kubernetes): needs the cluster"),
    (re.compile(r"^locksim merge (explore-\*|/results|sweep)"), "a cluster recipe: merges a cluster's shards"),
    (re.compile(r"^locksim explore --algorithm redlock --faults clock,crash --seeds 1000000"),
     "a cluster recipe: a million seeds per shard"),
]


def not_run(cmd):
    for pattern, why in NOT_RUN:
        if pattern.search(cmd):
            return why
    return None


def blocks(path):
    text = open(path, encoding="utf-8").read()
    for m in re.finditer(r"^```([a-z]*)\n(.*?)^```", text, re.S | re.M):
        line = text.count("\n", 0, m.start()) + 1
        yield m.group(1), m.group(2).rstrip("\n").split("\n"), line


def normalize(line):
    line = re.sub(r"\d+(\.\d+)?", "#", line)
    return re.sub(r"\s+", " ", line).strip()


class Run:
    def __init__(self, locksim, src):
        self.locksim = os.path.abspath(locksim)
        self.src = os.path.abspath(src)
        self.failures = []
        self.skipped = []
        self.ran = 0

    def sandbox(self):
        d = tempfile.mkdtemp(prefix="locksim-docs-")
        os.makedirs(os.path.join(d, "build"))
        os.makedirs(os.path.join(d, "tmp"))
        os.symlink(self.locksim, os.path.join(d, "build", "locksim"))
        for name in ("scenarios", "lockimpls"):
            os.symlink(os.path.join(self.src, name), os.path.join(d, name))
        return d

    def rewrite(self, cmd, d):
        cmd = cmd.replace("/tmp/", d + "/tmp/")
        cmd = re.sub(r"^locksim ", "build/locksim ", cmd)
        return re.sub(r"\bredis-cli ", "redis-cli --no-raw ", cmd)

    def script(self, commands, d):
        """One bash script for a block: each command framed by markers."""
        lines = ["set +e", "cd " + d]
        for i, cmd in enumerate(commands):
            lines.append("echo '@@begin %d'" % i)
            if re.search(r"\blocksim serve\b.*&\s*$", cmd):
                # A server in the background: its first line names the port;
                # the doc's port in later commands becomes that one.
                lines.append(cmd.rstrip("& ") + " >serve.out 2>&1 &")
                lines.append("for _ in $(seq 100); do grep -q 'listening on' serve.out && break; sleep 0.05; done")
                lines.append("head -1 serve.out; PORT=$(head -1 serve.out | grep -o '[0-9]*$'); rc=0")
            elif cmd.strip() == "kill %1":
                lines.append("kill %1; wait %1 2>/dev/null; tail -n +2 serve.out; rc=0")
            elif re.match(r"^[A-Z_]+=", cmd):  # an assignment for later lines
                lines.append(cmd + "; rc=0")
            else:
                lines.append("( " + cmd + " ) 2>&1 </dev/null; rc=$?")
            lines.append("echo \"@@end %d $rc\"" % i)
        lines.append("kill %1 2>/dev/null; exit 0")
        return "\n".join(lines) + "\n"

    def run_block(self, where, commands, shown):
        # A sandbox per block, removed on every way out (outputs and
        # failures are kept as text, never as paths into it).
        d = self.sandbox()
        try:
            self.run_in(d, where, commands, shown)
        finally:
            shutil.rmtree(d, ignore_errors=True)

    def run_in(self, d, where, commands, shown):
        runnable = []
        for cmd in commands:
            why = not_run(cmd)
            if why:
                self.skipped.append((where, cmd, why))
            else:
                runnable.append(cmd)
        if not runnable:
            return
        # The doc's port (from a serve session's first output line) -> $PORT.
        port = None
        for out in shown.values():
            for line in out:
                m = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
                if m:
                    port = m.group(1)
        rewritten = [self.rewrite(c, d) for c in runnable]
        if port:
            rewritten = [c.replace("-p " + port, "-p $PORT") for c in rewritten]
        proc = subprocess.run(["bash", "-c", self.script(rewritten, d)], capture_output=True,
                              text=True, timeout=1200)
        outputs, codes, current = {}, {}, None
        for line in proc.stdout.split("\n"):
            m = re.match(r"^@@begin (\d+)$", line)
            if m:
                current = int(m.group(1))
                outputs[current] = []
                continue
            m = re.match(r"^@@end (\d+) (\d+)$", line)
            if m:
                codes[int(m.group(1))] = int(m.group(2))
                current = None
                continue
            if current is not None:
                outputs[current].append(line)
        for i, cmd in enumerate(runnable):
            self.ran += 1
            label = "%s: %s" % (where, cmd)
            if i not in codes:
                self.failures.append("%s\n    did not finish: %s" % (label, proc.stderr[-2000:]))
                continue
            got = outputs.get(i, [])
            print("ran (exit %d) %s" % (codes[i], label), flush=True)
            if codes[i] not in (0, 1):
                self.failures.append("%s\n    exit %d:\n      %s" % (label, codes[i], "\n      ".join(got[-15:])))
                continue
            have = {normalize(l.replace(d + "/tmp/", "/tmp/")) for l in got}
            for line in shown.get(cmd, []):
                if not line.strip() or "..." in line or "…" in line:
                    continue
                if normalize(line) not in have:
                    self.failures.append("%s\n    the doc shows %r, which it no longer prints; it printed:\n      %s"
                                         % (label, line, "\n      ".join(got[:40])))
                    break

    def run_file(self, path, only):
        rel = os.path.relpath(path, self.src)
        for lang, lines, at in blocks(path):
            where = "%s:%d" % (rel, at)
            if lang in ("sh", "bash", "console"):
                commands = []
                for line in lines:
                    cmd = re.split(r"\s+#\s", " " + line, maxsplit=1)[0].strip()
                    if cmd and not cmd.startswith("#"):
                        commands.append(cmd)
                shown = {}
            elif any(l.startswith("$ ") for l in lines):
                commands, shown, cmd = [], {}, None
                for line in lines:
                    if line.startswith("$ "):
                        cmd = line[2:].strip()
                        commands.append(cmd)
                        shown.setdefault(cmd, [])
                    elif cmd is not None:
                        shown[cmd].append(line)
            else:
                continue
            if only and not any(only in c for c in commands):
                continue
            self.run_block(where, commands, shown)


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    r = Run(args[0], args[1])
    for path in [os.path.join(r.src, "README.md")] + sorted(glob.glob(os.path.join(r.src, "docs", "*.md"))):
        r.run_file(path, only)
    print("\nnot run here (%d):" % len(r.skipped))
    for where, cmd, why in r.skipped:
        print("  %s: %s\n      %s" % (where, cmd, why))
    if r.failures:
        print("\n%d of %d documented commands do not do what the docs say:" % (len(r.failures), r.ran))
        for f in r.failures:
            print("- " + f)
        return 1
    print("\nall %d documented commands ran as the docs show" % r.ran)
    return 0


if __name__ == "__main__":
    # Stopped (ctest's timeout, make test interrupted), the sandbox of the
    # block running is removed on the way out as on any other.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    sys.exit(main())
