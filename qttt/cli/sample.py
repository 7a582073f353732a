"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records."""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Iterator

from ..engine import playout
from ..io import write_atomic
from ..notation import Record, record_to_json
from ..variant import Ruleset, load_ruleset
from . import integer


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("random", help="N random legal games as JSON Lines records",
                       description="Play N games choosing each action uniformly among the legal "
                                   "ones; print one JSON record per line as each game ends. Same "
                                   "seed, same games.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("-n", "--games", type=integer(1), default=1, help="number of games (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("-o", "--output", help="write to this file (atomically, when every game is "
                                          "played) instead of standard output")
    p.set_defaults(run=run)


def games(rs: Ruleset, name: str, count: int, seed: int) -> Iterator[str]:
    """`count` random games of `rs` as JSON Lines, one line at a time."""
    rng = random.Random(seed)
    for _ in range(count):
        actions, _state = playout(rs, rng)
        yield json.dumps(record_to_json(Record(name, tuple(actions))), separators=(",", ":")) + "\n"


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    lines = games(rs, rs.canonical, args.games, args.seed)  # a name that replays anywhere
    if args.output:
        write_atomic(args.output, lines)
        return 0
    for line in lines:
        sys.stdout.write(line)
        if sys.stdout.isatty():
            sys.stdout.flush()
    return 0
