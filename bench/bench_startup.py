"""Start-up of the command line: `qttt --version` and `qttt show wikipedia`, each against `python -c
pass` (the interpreter's own start-up) measured in the same run, round by round in turn so that a
change of the machine's load touches all three alike.

For each command: the best and the median wall time of its rounds, CPU time (its process's user +
system) of the best round, the time above the interpreter's, and the modules the command imports
beyond the interpreter's own (`python -X importtime`; the five slowest named, cumulative). Target
(issue #31): under 0.1 s on a quiet machine for both; the machine may be shared, so the load
average is printed.

    python bench/bench_startup.py [--rounds N]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import time

COMMANDS = {"python -c pass": ["-c", "pass"], "qttt --version": ["-m", "qttt", "--version"],
            "qttt show wikipedia": ["-m", "qttt", "show", "wikipedia"]}
TARGET = 0.1  # seconds (issue #31, on a quiet machine)
IMPORT = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)")


def once(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of `python ARGV`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def imports(argv: list[str]) -> dict[str, int]:
    """The modules `python ARGV` imports at top level of the import tree or below, each with its
    cumulative import time in microseconds (`-X importtime`)."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *argv], check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return {m[4]: int(m[2]) for line in proc.stderr.splitlines() if (m := IMPORT.match(line))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20, help="runs of each command (default 20)")
    args = ap.parse_args()
    print(f"start-up, wall seconds over {args.rounds} rounds ({os.cpu_count() or 1} cores here; "
          f"load average {os.getloadavg()[0]:.2f} at the start)")
    for argv in COMMANDS.values():  # warm the file cache and the bytecode
        once(argv)
    walls: dict[str, list[float]] = {k: [] for k in COMMANDS}
    cpus: dict[str, list[float]] = {k: [] for k in COMMANDS}
    for _ in range(args.rounds):
        for key, argv in COMMANDS.items():
            wall, cpu = once(argv)
            walls[key].append(wall)
            cpus[key].append(cpu)
    base = min(walls["python -c pass"])
    own = imports(COMMANDS["python -c pass"])
    print(f"  {'':<22} {'best':>7} {'median':>7} {'CPU':>7} {'over python':>11}  target")
    for key in COMMANDS:
        best = min(walls[key])
        cpu = cpus[key][walls[key].index(best)]
        met = "" if key.startswith("python") else ("met" if best < TARGET else "NOT met")
        print(f"  {key:<22} {best:>7.3f} {statistics.median(walls[key]):>7.3f} {cpu:>7.3f} "
              f"{best - base:>+11.3f}  {met}")
    for key, argv in COMMANDS.items():
        if key.startswith("python"):
            continue
        found = {m: t for m, t in imports(argv).items() if m not in own}
        slowest = sorted(found.items(), key=lambda kv: -kv[1])[:5]
        print(f"  {key}: {len(found)} modules beyond the interpreter's; slowest (cumulative ms): "
              + ", ".join(f"{m} {t / 1000:.1f}" for m, t in slowest))
    print(f"  load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
