"""The engine walk `qttt check` runs by default on the 3×3 built-in rulesets.

Per ruleset: shape classes walked (each with K relabelled members, both cores compared at every
checked position) and the partition classes they fall into,
the walk's seconds on one process and on --processes, and its rate of checked positions per
second against the baseline measured in the same run: the sampled check (`verify.quantum.sampled.sample`)
checking positions of random games. Then the whole `check(name, exhaustive=True)` per ruleset, Z3
included, and the total: the figure behind "qttt check --all --exhaustive finishes for the 3×3
rulesets within 15 minutes".

    python bench/bench_exhaustive.py [--processes N] [--ruleset NAME ...] [--no-check]
"""

from __future__ import annotations

import argparse
import os
import time

from qttt import builtin_names, load_ruleset
from qttt.analysis.distributed import executor
from verify.quantum.abstract import Params, explore
from verify.quantum.check import check, run_walks
from verify.quantum.sampled import sample


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--ruleset", nargs="*",
                        default=[n for n in builtin_names() if load_ruleset(n).board == 3])
    parser.add_argument("--no-check", action="store_true", help="time the walks only")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    print(f"load average at start: {load:.2f} on {os.cpu_count()} cores")
    multi = f"walk {args.processes}p s"
    print(f"{'ruleset':<18} {'positions':>9} {'classes':>7} {'walk 1p s':>9} {multi:>9} "
          f"{'walk pos/s':>10} {'sample pos/s':>12} {'walk:sample':>11}")
    for name in args.ruleset:
        rs = load_ruleset(name)
        start = time.perf_counter()
        s = sample(rs, 300, bound=explore(Params.of(rs)).longest)
        sample_rate = s.positions / (time.perf_counter() - start)
        start = time.perf_counter()
        one, own = run_walks(rs, name, None)
        single = time.perf_counter() - start
        start = time.perf_counter()
        with executor(args.processes) as mapper:
            run_walks(rs, name, None, mapper)
        spread = time.perf_counter() - start
        positions = one.positions + (own.positions if own else 0)
        walk_rate = positions / single
        print(f"{name:<18} {positions:>9} {one.partition_classes:>7} {single:>9.1f} {spread:>9.1f} "
              f"{walk_rate:>10.0f} {sample_rate:>12.0f} {walk_rate / sample_rate:>11.2f}")
    if not args.no_check:
        total = 0.0
        for name in args.ruleset:
            start = time.perf_counter()
            with executor(args.processes) as mapper:
                report = check(name, mapper=mapper)
            seconds = time.perf_counter() - start
            total += seconds
            print(f"check {name} (walk by default): {seconds:.1f} s, statuses "
                  + ", ".join(sorted({f.status for f in report.findings})))
        print(f"check, every 3×3 built-in ruleset: {total:.1f} s "
              f"({total / 900:.2f} of the 15-minute budget)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
