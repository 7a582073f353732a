"""Analysis speed: counting, solving and sampling, each against a baseline run in the same run.

- count: complete games of kumar to ply 5 with the partition key, against the owner key (symmetry
  but no structural abstraction), and against no transpositions at all (engine enumeration, ply 4);
- solve: alpha-beta with a transposition table from a kumar mid-game position, against the same
  search without the table; the compiled core (qttt/quantum/_core.c) on the same position against
  the Python solver with its table, and the compiled core solving kumar from the empty board;
- solve near the end of a 4×4 game: the compiled rules core (qttt/quantum/_core.c) on a bonus4x4
  position 14 actions into a random game, against the Python solver;
- sample: random kumar games per second on all cores (processes), against one process.

    python bench/bench_analysis.py [--games N]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable

from qttt import load_ruleset
from qttt.analysis.sample import sample_games
from qttt.processes import local_mapper
from qttt.quantum import compiled
from qttt.quantum.analysis.count import board_after, brute_force_nodes, count_games
from qttt.quantum.analysis.solve import Solver


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def bench_late_4x4() -> None:
    """The compiled core's exact value of a late bonus4x4 position against the Python solver's."""
    from qttt.quantum.analysis.count import encode
    from qttt.quantum.compiled import core_for
    from qttt.quantum.engine import playout
    rs = load_ruleset("bonus4x4")
    rng = random.Random(1)
    long_games = (g for g in iter(lambda: playout(rs, rng)[0], None) if len(g) >= 18)
    next(long_games)
    actions = next(long_games)[:14]  # 14 open cells, 11 spooky moves
    core = core_for(rs)
    start = time.perf_counter()
    v1, nodes = core.exact_value(core.position(actions), 22)
    t_c = time.perf_counter() - start
    solver = Solver(rs)
    t_py, v2 = timed(lambda: solver.exact_value(board_after(rs, [encode(a, 16) for a in actions])))
    assert v1 == v2
    print(f"solve bonus4x4 after 14 random actions: value {v1}; compiled core {t_c:.3f} s ({nodes:,} nodes), "
          f"Python solver {t_py:.2f} s ({solver.nodes:,} nodes), ratio {t_py / t_c:.0f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=20000, help="random games for the sampling figure")
    args = ap.parse_args()
    rs = load_ruleset("kumar")

    t_part, _ = timed(lambda: count_games(rs, kind="partition", max_ply=5))
    t_owner, _ = timed(lambda: count_games(rs, kind="owner", max_ply=5))
    t_full, full = timed(lambda: count_games(rs))
    t_part4, _ = timed(lambda: count_games(rs, kind="partition", max_ply=4))
    t_brute, _ = timed(lambda: brute_force_nodes(rs, 4))
    print(f"count kumar, full game ({full.games:,} games): {t_full:.3f} s")  # type: ignore[attr-defined]
    print(f"count kumar to ply 5: partition key {t_part:.3f} s, owner key {t_owner:.3f} s, "
          f"ratio {t_owner / t_part:.0f}x")
    print(f"count kumar to ply 4: partition key {t_part4:.4f} s, engine enumeration {t_brute:.2f} s, "
          f"ratio {t_brute / t_part4:.0f}x")

    start = (1, 12, 23, 51, 71)  # x1 0-1, o2 1-3, x3 2-5, o4 5-6, x5 7-8 (encoded a*9+b)
    b = board_after(rs, start)
    memo, plain = Solver(rs), Solver(rs, memo=False)
    t_memo, v1 = timed(lambda: memo.exact_value(b))
    t_plain, v2 = timed(lambda: plain.exact_value(b))
    assert v1 == v2
    print(f"solve kumar from {start}: value {v1}; with table {t_memo:.2f} s ({memo.nodes:,} nodes), "
          f"without {t_plain:.2f} s ({plain.nodes:,} nodes), ratio {t_plain / t_memo:.1f}x")
    reason = compiled.available()
    if reason is None:
        fs = compiled.FastSolver(rs, 22)
        t_c, v3 = timed(lambda: fs.exact_value(start))
        assert v3 == v1
        print(f"solve kumar from {start}: compiled core {t_c:.4f} s ({fs.nodes:,} nodes, "
              f"{fs.nodes / t_c:,.0f} nodes/s), Python solver {t_memo:.2f} s, ratio {t_memo / t_c:.0f}x")
        fs.close()
        whole = compiled.FastSolver(rs, compiled.DEFAULT_LOG2)
        t_root, v4 = timed(lambda: whole.exact_value(()))
        print(f"solve kumar from the empty board, compiled core: value {v4} in {t_root:.1f} s "
              f"({whole.nodes:,} nodes, {whole.nodes / t_root:,.0f} nodes/s)")
        whole.close()
    else:
        print(f"compiled core skipped: {reason}")

    if reason is None:
        bench_late_4x4()

    cores = os.cpu_count() or 1
    t_one, _ = timed(lambda: sample_games(rs, args.games, seed=1))
    mapper, stop = local_mapper(cores)
    try:
        t_all, _ = timed(lambda: sample_games(rs, args.games, seed=1, mapper=mapper))
    finally:
        stop()
    print(f"sample kumar: {args.games / t_all:,.0f} games/s on {cores} processes, "
          f"{args.games / t_one:,.0f} games/s on one, ratio {t_one / t_all:.2f}x")


if __name__ == "__main__":
    main()
