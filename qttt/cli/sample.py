"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records."""

from __future__ import annotations

import argparse
import json
import random
import sys

from ..analysis.compiled import core_for, decode, use_compiled
from ..engine import playout
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
    p.add_argument("--core", choices=("auto", "compiled", "python"), default="auto",
                   help="rules engine: the compiled core, the Python engine, or auto (compiled when "
                        "it can; default); same games either way")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    rng = random.Random(args.seed)
    variant = args.ruleset
    games = max(args.games, 0)
    if use_compiled(rs, args.core):
        cells = rs.board ** 2
        played = [[decode(c, cells) for c in game[0]] for game in core_for(rs).games(rng, games)]
    else:
        played = [playout(rs, rng)[0] for _ in range(games)]
    lines = [json.dumps(record_to_json(Record(variant, tuple(actions))), separators=(",", ":"))
             for actions in played]
    text = "".join(line + "\n" for line in lines)
    if args.output:
        write_atomic(args.output, text)
    else:
        sys.stdout.write(text)
    return 0
