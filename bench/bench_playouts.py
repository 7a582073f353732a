"""Random playouts per second for each built-in ruleset, on one core.

Three figures per ruleset, all measured in this run: `qttt.playout` (the public playout API), a
loop over the immutable `State` API (`legal_actions` + `apply`), and the naive reference model
of tests/support/reference.py, which is the baseline of the ratios.

    python bench/bench_playouts.py [--seconds S] [--ruleset NAME ...]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import reference

import qttt


def rate(play: Callable[[random.Random], object], seconds: float) -> float:
    """Games per second: the best of three timed rounds of about seconds/3 each."""
    rng = random.Random(12345)
    best = 0.0
    for _ in range(3):
        games, start = 0, time.perf_counter()
        deadline = start + seconds / 3
        while True:
            for _ in range(50):
                play(rng)
            games += 50
            now = time.perf_counter()
            if now >= deadline:
                break
        best = max(best, games / (now - start))
    return best


def state_api_game(rs: qttt.Ruleset, rng: random.Random) -> qttt.State:
    """A random game through the immutable State API."""
    state = qttt.new_game(rs)
    while legal := state.legal_actions():
        state = state.apply(rng.choice(legal))
    return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    parser.add_argument("--ruleset", nargs="*", default=list(qttt.builtin_names()))
    args = parser.parse_args()
    print(f"{'ruleset':<18} {'playout/s':>10} {'State/s':>9} {'reference/s':>11} "
          f"{'playout:ref':>11} {'State:ref':>9}")
    for name in args.ruleset:
        rs = qttt.load_ruleset(name)
        params = reference.load_variant(name)
        fast = rate(partial(qttt.playout, rs), args.seconds)
        api = rate(partial(state_api_game, rs), args.seconds)
        base = rate(partial(reference.random_game, params), args.seconds)
        print(f"{name:<18} {fast:>10.0f} {api:>9.0f} {base:>11.0f} {fast / base:>10.1f}x "
              f"{api / base:>8.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
