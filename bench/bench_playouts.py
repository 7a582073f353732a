"""Random playouts per second for each built-in ruleset, on one core.

Four figures per ruleset, all measured in this run: the compiled core (qttt/analysis/_core.c,
games tallied as `qttt analyze random` tallies them), `qttt.playout` (the Python engine's playout
API), a loop over the immutable `State` API (`legal_actions` + `apply`), and the naive reference
model of tests/support/reference.py, the baseline of the Python ratios; the compiled core's ratio is to
`qttt.playout`. Then the compiled core on every core (processes) against one, and the compiled
core on `wikipedia` against the fastest public peer measured on this machine (issue #16: Java,
170,000 games/s on one core; target 1.5x).

    python bench/bench_playouts.py [--seconds S] [--clock wall|cpu] [--ruleset NAME ...]

`--clock cpu` times the one-core figures by this process's CPU time, for a machine that others
share (wall time, the default, is what the peers' figures are).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))

import reference

import qttt
from qttt.analysis import compiled
from qttt.analysis.count import local_mapper
from qttt.analysis.sample import sample_games

PEER = 170_000  # the fastest public peer on wikipedia (Java), one core of this machine (issue #16)
CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
clock = CLOCKS["wall"]


def rate(play: Callable[[random.Random], object], seconds: float) -> float:
    """Games per second: the best of three timed rounds of about seconds/3 each."""
    rng = random.Random(12345)
    best = 0.0
    for _ in range(3):
        games, start = 0, clock()
        deadline = start + seconds / 3
        while True:
            for _ in range(50):
                play(rng)
            games += 50
            now = clock()
            if now >= deadline:
                break
        best = max(best, games / (now - start))
    return best


def batch_rate(play: Callable[[random.Random, int], object], seconds: float, batch: int = 20000) -> float:
    """Games per second of a function playing `batch` games per call: the best of three rounds."""
    rng = random.Random(12345)
    best = 0.0
    for _ in range(3):
        games, start = 0, clock()
        deadline = start + seconds / 3
        while True:
            play(rng, batch)
            games += batch
            now = clock()
            if now >= deadline:
                break
        best = max(best, games / (now - start))
    return best


def state_api_game(rs: qttt.Ruleset, rng: random.Random) -> qttt.State:
    """A random game through the immutable State API."""
    state = qttt.State.initial(rs)
    while legal := state.legal_actions():
        state = state.apply(rng.choice(legal))
    return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per figure (default 3)")
    parser.add_argument("--ruleset", nargs="*", default=list(qttt.builtin_names()))
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="wall",
                        help="time one-core figures by wall time (default) or CPU time")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"one-core figures per second of {args.clock} time")
    reason = compiled.available()
    if reason is not None:
        print(f"compiled core skipped: {reason}")
    print(f"{'ruleset':<18} {'compiled/s':>10} {'playout/s':>10} {'State/s':>9} {'reference/s':>11} "
          f"{'comp:playout':>12} {'playout:ref':>11} {'State:ref':>9}")
    single: dict[str, float] = {}
    for name in args.ruleset:
        rs = qttt.load_ruleset(name)
        params = reference.load_variant(name)
        comp = batch_rate(compiled.core_for(rs).sample, args.seconds) if reason is None else 0.0
        single[name] = comp
        fast = rate(partial(qttt.playout, rs), args.seconds)
        api = rate(partial(state_api_game, rs), args.seconds)
        base = rate(partial(reference.random_game, params), args.seconds)
        print(f"{name:<18} {comp:>10.0f} {fast:>10.0f} {api:>9.0f} {base:>11.0f} {comp / fast:>11.1f}x "
              f"{fast / base:>10.1f}x {api / base:>8.1f}x", flush=True)
    if reason is not None:
        return 0
    if "wikipedia" in single:
        print(f"wikipedia, compiled core on one core ({args.clock}): {single['wikipedia']:,.0f} games/s; "
              f"fastest peer (Java) {PEER:,} games/s; ratio {single['wikipedia'] / PEER:.2f}x (target 1.5x)")
    cores = os.cpu_count() or 1
    mapper, stop = local_mapper(cores)
    try:
        for name in args.ruleset:
            rs = qttt.load_ruleset(name)
            games = max(int(single[name] * args.seconds * cores), 1000)
            sample_games(rs, cores * 1000, chunk=1000, mapper=mapper)  # warm the workers
            start = time.perf_counter()
            sample_games(rs, games, chunk=-(-games // (4 * cores)), mapper=mapper)
            t = time.perf_counter() - start
            print(f"{name}: compiled core on {cores} processes {games / t:,.0f} games/s (wall) "
                  f"({games:,} games), one core {single[name]:,.0f}, ratio {games / t / single[name]:.2f}x",
                  flush=True)
    finally:
        stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
