"""`qttt check` end to end as users run it, on 1, 2, 4, ... workers up to the machine's cores and on
a local Dask cluster: wall time, CPU time (the command's and its children's: the workers') and the
speed-up against one worker measured in the same run, and whether each report is the one worker's
byte for byte (`--json-document --no-timing`).

    python bench/bench_check.py [RULESET ...] [--workers 1,2,4] [--no-dask] [--games N]
    python bench/bench_check.py [RULESET ...] --simulate 2,4,8,16

With no ruleset it runs `qttt check --all` (issue #31: on a two-core machine at most 0.6 × the
one-worker wall time; on 16 cores under 20 s). The machine may be shared: its load average is
printed at the start and the end, and only figures of one run are compared.

`--simulate` answers for more cores than the machine has: it runs the check once in this process,
recording the CPU seconds of every unit of work and what each waited for (a walk's ply the ply
before it, a ruleset's properties everything else of the ruleset and the shared work), then
schedules those units on N simulated workers as the executor does (by priority, then in order):
the wall time N workers would take with no other cost, the CPU total over N, and the longest
chain of units that must follow each other (no number of workers goes below it).
"""

from __future__ import annotations

import argparse
import heapq
import io
import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str]) -> tuple[float, float, bytes]:
    """Wall seconds, CPU seconds (this command and the processes it waited for) and standard output
    of `python -m qttt check ARGV`."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "qttt", "check", *argv], cwd=ROOT, check=True,
                          stdout=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, proc.stdout


def counts(cores: int) -> list[int]:
    """1, 2, 4, ... up to the cores, and the cores."""
    out, n = [], 1
    while n < cores:
        out.append(n)
        n *= 2
    return [*out, cores]


@dataclass
class Call:
    """One call of the mapper: its units' CPU seconds, who made it, at what priority."""

    thread: int
    priority: float
    name: str
    seconds: list[float] = field(default_factory=list)


class Tracer:
    """A mapper that runs each unit in this process and records its thread CPU seconds."""

    def __init__(self) -> None:
        self.calls: list[Call] = []
        self.lock = threading.Lock()

    def __call__(self, fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
        from qttt.processes import PRIORITY

        name = getattr(fn, "__name__", "")
        call = Call(threading.get_ident(), PRIORITY.get(), name)
        with self.lock:
            self.calls.append(call)

        def run() -> Iterator[Any]:
            for a in args:
                start = time.thread_time()
                result = fn(*a)
                call.seconds.append(time.thread_time() - start)
                yield result
        return run()


def trace(argv: list[str]) -> tuple[list[Call], str]:
    """The calls of `qttt check ARGV` run in this process, and what it printed."""
    from contextlib import nullcontext

    from verify import cli

    tracer = Tracer()
    setattr(cli, "executor", lambda workers=0, dask=None: nullcontext(tracer))  # noqa: B010 - a bench's hook
    out = io.StringIO()
    stdout, sys.stdout = sys.stdout, out
    try:
        cli.main(argv)
    finally:
        sys.stdout = stdout
    return tracer.calls, out.getvalue()


def simulate(calls: list[Call], workers: int) -> tuple[float, float]:
    """The wall time of the calls' units on `workers` workers scheduled by priority then order,
    and the longest chain of units that must follow one another. A call of a walk (its batches)
    waits for the call its thread made before it; a ruleset's properties (`settle`) wait for every
    other unit of that ruleset and for the shared work; other calls are ready at the start."""
    deps: dict[int, list[int]] = {i: [] for i in range(len(calls))}
    last: dict[int, int] = {}
    for i, c in enumerate(calls):
        if c.name == "timed_call":  # a walk's ply: after its thread's ply before
            if c.thread in last:
                deps[i].append(last[c.thread])
            last[c.thread] = i
        elif c.name == "settle":
            deps[i] = [j for j, d in enumerate(calls) if j != i and d.name != "settle"
                       and (int(d.priority) == int(c.priority) or d.priority < 0)]
    left = {i: len(c.seconds) for i, c in enumerate(calls)}
    done: dict[int, float] = {}
    chain: dict[int, float] = {}
    queue: list[tuple[float, int, int, float]] = []  # priority, order, call, seconds
    running: list[tuple[float, int]] = []  # end, call
    idle, now = workers, 0.0

    def release() -> None:
        for i, c in enumerate(calls):
            if i in done or i in chain or not all(d in done for d in deps[i]):
                continue
            chain[i] = max([chain[d] for d in deps[i]], default=0.0) + max(c.seconds, default=0.0)
            for k, sec in enumerate(c.seconds):
                heapq.heappush(queue, (c.priority, i * 1_000_000 + k, i, sec))
            if not c.seconds:
                done[i] = now

    release()
    while queue or running:
        while idle and queue:
            _, _, i, sec = heapq.heappop(queue)
            heapq.heappush(running, (now + sec, i))
            idle -= 1
        now, i = heapq.heappop(running)
        idle += 1
        left[i] -= 1
        if not left[i]:
            done[i] = now
            release()
    return now, max(chain.values(), default=0.0)


def simulated(argv: list[str], counts: list[int]) -> None:
    """--simulate: trace once (the text report, whose lines are counted), then schedule on each
    number of workers."""
    start = time.perf_counter()
    calls, text = trace(argv)
    total = sum(sum(c.seconds) for c in calls)
    units = sum(len(c.seconds) for c in calls)
    print(f"traced in this process: {units} units of work, {total:.1f} CPU-s in all, "
          f"{time.perf_counter() - start:.1f} s wall (load average {os.getloadavg()[0]:.2f}); "
          f"the text report has {len(text.splitlines())} lines")
    print(f"  {'':<20} {'simulated wall s':>17} {'CPU / workers':>14} {'longest chain':>14}")
    for n in counts:
        wall, chain = simulate(calls, n)
        print(f"  {n:>3} workers {'':<8} {wall:>17.1f} {total / n:>14.1f} {chain:>14.1f}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rulesets", nargs="*", help="rulesets to check (default: --all)")
    ap.add_argument("--workers",
                    help="worker counts to measure, comma-separated (default 1, 2, 4, ..., cores)")
    ap.add_argument("--no-dask", action="store_true", help="leave out the local Dask cluster")
    ap.add_argument("--games", type=int, help="sampled games per ruleset (check's default otherwise)")
    ap.add_argument("--simulate", help="worker counts to simulate from one traced run, comma-separated")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    workers = [int(w) for w in args.workers.split(",")] if args.workers else counts(cores)
    workers = [1, *(w for w in workers if w != 1)]  # the baseline first, once
    what = args.rulesets or ["--all"]
    common = [*what, "--json-document", "--no-timing", "--quiet",
              *(["--games", str(args.games)] if args.games else [])]
    if args.simulate:
        simulated([*what, "--quiet", *(["--games", str(args.games)] if args.games else [])],
                  [int(n) for n in args.simulate.split(",")])
        return 0
    print(f"qttt check {' '.join(what)}, end to end ({cores} cores here; load average "
          f"{os.getloadavg()[0]:.2f} at the start)")
    print(f"  {'':<34} {'wall s':>9} {'CPU s':>9} {'speed-up':>9}  same report")
    runs = [(f"{n} worker{'s' * (n != 1)}" + (" (baseline)" if n == 1 else ""), ["--workers", str(n)])
            for n in workers]
    if not args.no_dask:
        runs.append((f"local Dask cluster, {cores} workers", ["--dask", "local", "--workers", str(cores)]))
    base: tuple[float, bytes] | None = None
    for label, extra in runs:
        wall, cpu, out = timed([*common, *extra])
        if base is None:
            base = wall, out
        same = "-" if base[1] is out else ("yes" if out == base[1] else "NO: the report differs")
        print(f"  {label:<34} {wall:>9.1f} {cpu:>9.1f} {base[0] / wall:>8.2f}x  {same}", flush=True)
    print(f"  load average {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
