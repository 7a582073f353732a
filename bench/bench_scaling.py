"""How the long commands scale: each at 1, 2, 4, ... worker processes up to the machine's cores
(and at the number of cores), and with a local Dask cluster where the command takes one, each as
users run it (its own process, start-up included), printing wall time, CPU time (the command's and
its workers') and the speed-up against one worker measured in the same run:

    qttt random wikipedia -n N > /dev/null              (the workers write their own blocks)
    qttt replay FILE --json > /dev/null                 (FILE: N records of wikipedia games)
    qttt analyze random bonus4x4 -n N --quiet           (and --dask local)

`qttt perft` has no workers. `qttt check` is measured by bench/bench_check.py (its executor's own
benchmark), run once at the end with --check when it is there. The machine may be shared: the
load average is printed at the start and the end, and each figure is the best of --repeat runs.
Targets (issue #31, on a quiet 16-core machine): every command at least 12x its one-worker speed
at 16 workers, `--dask local` within 20% of `--workers` at the same number.

    python bench/bench_scaling.py [--games N] [--records N] [--analyze-games N] [--repeat R]
                                  [--only random|replay|analyze] [--max-workers K] [--no-dask] [--check]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def timed(argv: list[str], repeat: int) -> tuple[float, float]:
    """Wall and CPU seconds (the command and its workers) of `python -m qttt ARGV`, its standard
    output to /dev/null: the best of `repeat` runs (by wall time)."""
    best = (float("inf"), 0.0)
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "qttt", *argv], check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        best = min(best, (wall, cpu))
    return best


def counts(cores: int, most: int | None) -> list[int]:
    """1, 2, 4, ... up to the cores (or `most`), and that number itself."""
    top = min(cores, most or cores)
    out = [1]
    while out[-1] * 2 <= top:
        out.append(out[-1] * 2)
    return out if out[-1] == top else [*out, top]


def row(label: str, wall: float, cpu: float, one: float | None, note: str = "") -> None:
    speed = f"{one / wall:5.2f}x" if one else "     "
    print(f"  {label:<34} {wall:8.2f} {cpu:8.2f}  {speed}  {note}", flush=True)


def scale(name: str, argv: list[str], workers: list[int], repeat: int, dask: bool) -> None:
    """One command at each number of workers, then with a local Dask cluster of the most."""
    print(f"{name}: qttt {' '.join(argv)}")
    print(f"  {'':<34} {'wall s':>8} {'CPU s':>8}  speed-up against 1 worker")
    one = None
    for n in workers:
        wall, cpu = timed([*argv, "--workers", str(n)], repeat)
        one = one or wall
        row(f"--workers {n}", wall, cpu, one, f"{cpu / wall:.2f} cores busy")
        last = wall
    if dask:
        wall, cpu = timed([*argv, "--dask", "local", "--workers", str(workers[-1])], repeat)
        row(f"--dask local --workers {workers[-1]}", wall, cpu, one,
            f"{wall / last:.2f}x the wall time of --workers {workers[-1]} (target: at most 1.2x)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=2_000_000, help="games of qttt random (default 2000000)")
    ap.add_argument("--records", type=int, default=1_000_000,
                    help="records qttt replay replays (default 1000000)")
    ap.add_argument("--analyze-games", type=int, default=2_000_000,
                    help="games of qttt analyze random (default 2000000)")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each, the best kept (default 1)")
    ap.add_argument("--max-workers", type=int, help="the most workers (default: the cores)")
    ap.add_argument("--only", choices=("random", "replay", "analyze"), action="append",
                    help="measure only this command (repeatable)")
    ap.add_argument("--no-dask", action="store_true", help="no local Dask cluster")
    ap.add_argument("--check", action="store_true", help="then run bench/bench_check.py, if it is there")
    args = ap.parse_args()
    cores = os.cpu_count() or 1
    workers = counts(cores, args.max_workers)
    try:
        import distributed  # noqa: F401
        dask = not args.no_dask
    except ImportError:
        dask = False
    print(f"scaling of the long commands ({cores} cores here; load average {os.getloadavg()[0]:.2f} at the "
          f"start; best of {args.repeat})")
    wanted = args.only or ["random", "replay", "analyze"]
    with tempfile.TemporaryDirectory() as tmp:
        if "random" in wanted:
            scale("random", ["random", "wikipedia", "-n", str(args.games), "--seed", "1"], workers,
                  args.repeat, False)
        if "replay" in wanted:
            records = Path(tmp) / "records.jsonl"
            subprocess.run([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", str(args.records),
                            "--seed", "2", "-o", str(records)], check=True)
            scale(f"replay ({records.stat().st_size / 1e6:.0f} MB)", ["replay", str(records), "--json"],
                  workers, args.repeat, False)
        if "analyze" in wanted:
            scale("analyze random", ["analyze", "random", "bonus4x4", "-n", str(args.analyze_games),
                                     "--seed", "3", "--quiet"], workers, args.repeat, dask)
    print(f"  load average {os.getloadavg()[0]:.2f} at the end")
    check = BENCH / "bench_check.py"
    if args.check:
        if check.is_file():
            subprocess.run([sys.executable, str(check)], check=True)
        else:
            print("check: bench/bench_check.py is not there yet (the check executor's benchmark)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
