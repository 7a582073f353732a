"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator

from ..bounds import SEED, STREAM
from ..family import AnyAction, compiled_core
from ..games import random_game
from ..io import write_atomic
from ..notation import Record, record_to_json
from ..variant import Ruleset, load_ruleset
from . import integer

BATCH = 1000  # games the compiled core plays per call


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("random", help="N random legal games as JSON Lines records",
                       description="Play N games choosing each action uniformly among the legal "
                                   "ones; print one JSON record per line as the games are played. "
                                   "Same seed, same games.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("-n", "--games", type=integer(STREAM), default=1,
                   help="number of games (default 1)")
    p.add_argument("--seed", type=integer(SEED), default=0,
                   help="random seed (default 0)")
    p.add_argument("-o", "--output", help="write to this file (atomically, once every game is "
                                          "played) instead of standard output")
    p.add_argument("--core", choices=("auto", "compiled", "python"), default="auto",
                   help="rules engine: the compiled core, the Python engine, or auto (compiled when "
                        "it can; default); same games either way")
    p.set_defaults(run=run)


def played(rs: Ruleset, count: int, seed: int, core: str) -> Iterator[list[AnyAction]]:
    """The actions of `count` random games of `rs`, one game at a time."""
    rng = random.Random(seed)
    fast = compiled_core(rs, core)
    if fast is not None:
        for start in range(0, count, BATCH):
            yield from fast.random_actions(rng, min(BATCH, count - start))
        return
    for _ in range(count):
        yield random_game(rs, rng)[0]


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    name = rs.canonical  # a name that replays anywhere, whatever spelling or file was given
    lines = (json.dumps(record_to_json(Record(name, tuple(actions))), separators=(",", ":")) + "\n"
             for actions in played(rs, args.games, args.seed, args.core))
    if args.output:
        write_atomic(args.output, lines)
        return 0
    for line in lines:
        sys.stdout.write(line)
        if sys.stdout.isatty():
            sys.stdout.flush()
    return 0
