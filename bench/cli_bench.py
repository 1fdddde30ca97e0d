#!/usr/bin/env python3
"""A headless verb's start as a user pays it: a new `sandman` process per call, beside `true`
and `git --version` spawned the same way in the same run (and, for a one-shot `exec`, beside a
raw bwrap sandbox spawn). Prints median and p90 of N spawns each, the ratios and PASS/FAIL
against the targets (issue 17: a headless verb starts in under 2 ms); --json FILE writes them.

usage: cli_bench.py BUILD_DIR [-n N] [--json FILE]   (SANDMAN_STATE_DIR must be set)
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time


def spawn_ms(argv, n):
    """Median and p90 wall time (ms) of n posix_spawn + waitpid of argv, output to /dev/null."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    acts = [(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)]
    path = shutil.which(argv[0]) or argv[0]
    times = []
    for _ in range(n):
        t = time.perf_counter()
        pid = os.posix_spawn(path, argv, os.environ, file_actions=acts)
        _, status = os.waitpid(pid, 0)
        times.append((time.perf_counter() - t) * 1000)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"cli_bench: {' '.join(argv)} failed (exit {os.waitstatus_to_exitcode(status)})")
    os.close(devnull)
    times.sort()
    return times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.9))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-n", type=int, default=200)
    ap.add_argument("--json")
    a = ap.parse_args()
    sm = os.path.join(a.build, "sandman")
    sid = subprocess.run([sm, "create"], check=True, capture_output=True, text=True).stdout.strip()
    try:
        rows = [("true", ["true"]), ("git --version", ["git", "--version"])]
        rows += [("sandman --version", [sm, "--version"]), ("sandman ls (1 sandbox)", [sm, "ls"]),
                 ("sandman exec ID -- true (local, one-shot)", [sm, "exec", sid, "--", "true"]),
                 ("bwrap --unshare-all --ro-bind / / true",
                  ["bwrap", "--unshare-all", "--ro-bind", "/", "/", "true"])]
        res = {name: spawn_ms(argv, a.n) for name, argv in rows}
    finally:
        subprocess.run([sm, "rm", sid], capture_output=True)

    t_true = res["true"][0]
    t_git = res["git --version"][0]
    targets = {"sandman --version": 2.0, "sandman ls (1 sandbox)": 2.0}
    failed = False
    out = []
    print(f"cli_bench: {a.n} spawns each (median / p90 ms)")
    print(f"{'command':44} {'median':>8} {'p90':>8} {'x true':>7} {'x git':>7}  target")
    for name, (med, p90) in res.items():
        verdict = ""
        if name in targets:
            ok = med < targets[name]
            failed |= not ok
            verdict = f"< {targets[name]:g} ms: {'PASS' if ok else 'FAIL'}"
        if name.startswith("sandman exec"):
            ok = med <= res["bwrap --unshare-all --ro-bind / / true"][0]
            failed |= not ok
            verdict = f"<= 1x bwrap spawn: {'PASS' if ok else 'FAIL'}"
        print(f"{name:44} {med:8.2f} {p90:8.2f} {med / t_true:7.2f} {med / t_git:7.2f}  {verdict}")
        out.append({"command": name, "median_ms": med, "p90_ms": p90,
                    "ratio_true": med / t_true, "ratio_git": med / t_git, "target": verdict})
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
