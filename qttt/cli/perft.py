"""`qttt perft RULESET`: count action sequences by depth, or split a count by first action."""

from __future__ import annotations

import argparse
import json

from ..argtypes import integer
from ..bounds import DEPTH
from ..conformance.perft import PERFT_LIMIT, Position, divide, perft_counts, table_depth
from ..errors import UsageError
from ..family import GameState, compiled_core
from ..games import new_game
from ..io import parse_json
from ..notation import record_from_json
from ..variant import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("perft", help="count action sequences from a position by depth (perft)",
                       description="Count the action sequences of each length from the start, or "
                                   "from the position after --actions, as chess perft does; "
                                   "--divide splits the count at --depth by first action.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("--depth", type=integer(DEPTH, 1),
                   help="deepest depth (default: the suite's choice for "
                   "the position)")
    p.add_argument("--actions", default="[]", help='JSON list of actions to play first, e.g. '
                   '\'[{"place": [0, 1]}]\'')
    p.add_argument("--divide", action="store_true", help="split the count at --depth by first action")
    p.add_argument("--core", choices=("auto", "compiled", "python"), default="auto",
                   help="count with the compiled core, the Python engine, or auto (compiled when it "
                        "can; default)")
    p.add_argument("--force", action="store_true",
                   help=f"count even when that expands more than {PERFT_LIMIT:,} positions")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    actions = parse_json(args.actions, "--actions", "record-format")
    state: GameState = new_game(rs)
    state_actions = record_from_json({"variant": args.ruleset, "actions": actions}).actions
    for act in state_actions:
        state = state.apply(act)
    fast = compiled_core(rs, args.core)
    position: Position = state if fast is None else fast.position(state_actions)
    limit = None if args.force else PERFT_LIMIT
    try:
        counts = perft_counts(position, args.depth, limit) if args.depth else table_depth(position)
        depth = len(counts)
        split = divide(position, depth, limit) if args.divide else []
    except UsageError as e:
        raise UsageError(None, f"{e.message}; give a smaller --depth, or --force") from None
    if args.divide:
        for action, nodes in split:
            print(f"{json.dumps(action)}: {nodes}")
        print(f"total at depth {depth}: {sum(n for _, n in split)}")
        return 0
    for depth, nodes in enumerate(counts, start=1):
        print(f"depth {depth}: {nodes}")
    return 0

