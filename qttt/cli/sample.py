"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records."""

from __future__ import annotations

import argparse
import json
import random
import sys

from ..games import random_game
from ..io import write_atomic
from ..notation import Record, record_to_json
from ..variant import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("random", help="N random legal games as JSON Lines records",
                       description="Play N games choosing each action uniformly among the legal "
                                   "ones; print one JSON record per line. Same seed, same games.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("-n", "--games", type=int, default=1, help="number of games (default 1)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("-o", "--output", help="write to this file (atomically) instead of stdout")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    rng = random.Random(args.seed)
    variant = args.ruleset
    lines = []
    for _ in range(max(args.games, 0)):
        actions, _state = random_game(rs, rng)
        lines.append(json.dumps(record_to_json(Record(variant, tuple(actions))), separators=(",", ":")))
    text = "".join(line + "\n" for line in lines)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
