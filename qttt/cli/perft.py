"""`qttt perft RULESET`: count action sequences by depth, or split a count by first action."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..analysis.compiled import core_for, use_compiled
from ..conformance.perft import divide, perft_counts, table_depth
from ..errors import RecordError
from ..games import GameState, quantum_action, start
from ..notation import action_to_json, record_from_json
from ..variant import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("perft", help="count action sequences from a position by depth (perft)",
                       description="Count the action sequences of each length from the start, or "
                                   "from the position after --actions, as chess perft does; "
                                   "--divide splits the count at --depth by first action.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("--depth", type=int, help="deepest depth (default: the suite's choice for the position)")
    p.add_argument("--actions", default="[]", help='JSON list of actions to play first, e.g. '
                   '\'[{"place": [0, 1]}]\'')
    p.add_argument("--divide", action="store_true", help="split the count at --depth by first action")
    p.add_argument("--core", choices=("auto", "compiled", "python"), default="auto",
                   help="count with the compiled core, the Python engine, or auto (compiled when it "
                        "can; default)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    try:
        actions = json.loads(args.actions)
    except json.JSONDecodeError as e:
        raise RecordError("record-format", f"--actions is not JSON: {e.msg}") from None
    state: GameState = start(rs)
    state_actions = record_from_json({"variant": args.ruleset, "actions": actions}).actions
    for act in state_actions:
        state = state.apply(act)
    if args.depth is not None and args.depth < 1:
        raise RecordError("record-format", f"--depth {args.depth}: expected an integer >= 1")
    split: list[tuple[Any, int]] = []
    if use_compiled(rs, args.core):
        pos = core_for(rs).position([quantum_action(a) for a in state_actions])
        counts = pos.perft(args.depth) if args.depth else table_depth(state, pos.perft)
        depth = len(counts)
        for act in pos.legal() if args.divide else []:
            child = pos.copy()
            child.apply(act)
            split.append((action_to_json(act), child.perft(depth - 1)[-1] if depth > 1 else 1))
    else:
        counts = perft_counts(state, args.depth) if args.depth else table_depth(state)
        depth = len(counts)
        split = divide(state, depth) if args.divide else []
    if args.divide:
        for action, nodes in split:
            print(f"{json.dumps(action)}: {nodes}")
        print(f"total at depth {depth}: {sum(n for _, n in split)}")
        return 0
    for depth, nodes in enumerate(counts, start=1):
        print(f"depth {depth}: {nodes}")
    return 0
