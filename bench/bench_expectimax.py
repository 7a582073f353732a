"""Expectimax speed (chance rulesets): the compiled core's search (`compiled.FastExpectimax`,
alpha-beta over polynomials in p) against the Python expectimax (memoised, no pruning) on the same
mid-game positions of ishizeki-complete(collapse=chance-second,draw_second=1/4), in the same run, with
the same values, in CPU time of this process (the figures hold on a loaded machine); `--full`
adds the compiled solve from the empty board at p = 3/4.

    python bench/bench_expectimax.py [--full]
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction

from qttt import load_ruleset
from qttt.quantum import compiled
from qttt.quantum.analysis.count import board_after, encode
from qttt.quantum.analysis.expectimax import Expectimax
from qttt.quantum.engine import playout

NAME = "ishizeki-complete(collapse=chance-second,draw_second=1/4)"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--full", action="store_true", help="also solve from the empty board (minutes)")
    args = ap.parse_args()
    rs = load_ruleset(NAME)
    p = Fraction(3, 4)
    rng = random.Random(2)
    starts: list[list[int]] = []
    while len(starts) < 3:
        actions, _ = playout(rs, rng)
        if len(actions) >= 10:
            starts.append([encode(a, 9) for a in actions[:6]])
    t_c = t_py = 0.0
    nodes_c = nodes_py = 0
    for codes in starts:
        fast = compiled.FastExpectimax(rs, p, log2size=20)
        start = time.process_time()
        v_c = fast.value(codes)
        t_c += time.process_time() - start
        nodes_c += fast.nodes
        fast.close()
        slow = Expectimax(rs, p)
        start = time.process_time()
        v_py = slow.value(board_after(rs, codes))
        t_py += time.process_time() - start
        nodes_py += slow.nodes
        assert v_c == v_py, (codes, v_c, v_py)
    print(f"expectimax of {NAME} at p = 3/4 from 3 positions 6 actions in: compiled core {t_c:.3f} CPU s "
          f"({nodes_c:,} nodes), Python {t_py:.2f} CPU s ({nodes_py:,} nodes), ratio {t_py / t_c:.0f}x")
    if args.full:
        fast = compiled.FastExpectimax(rs, p, log2size=24)
        start = time.process_time()
        v = fast.value([])
        spent = time.process_time() - start
        print(f"from the empty board: {v} (scaled coefficients of p^0..p^4), {spent:.1f} CPU s, "
              f"{fast.nodes:,} nodes")


if __name__ == "__main__":
    main()
