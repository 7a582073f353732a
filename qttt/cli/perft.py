"""`qttt perft RULESET`: count action sequences by depth, or split a count by first action, at the
start, after --actions, or at the end of a --path followed one action at a time (perft divide)."""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from ..argtypes import integer
from ..bounds import DEPTH
from ..conformance.perft import PERFT_LIMIT, Position, divide, perft_counts, short, table_depth
from ..errors import UsageError
from ..family import GameState, compiled_core
from ..games import new_game
from ..io import parse_json
from ..notation import Json, action_to_json, record_from_json
from ..variant import load_ruleset
from . import add_core, add_json

SHORT = re.compile(r"[0-9]+(-[0-9]+)*")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("perft", help="count action sequences from a position by depth (perft)",
                       description="Count the action sequences of each length from the start, or "
                                   "from the position after --actions, as chess perft does; "
                                   "--divide splits the count at --depth by first action; --path "
                                   "follows actions from there and splits the count below them, so "
                                   "that a count that differs can be narrowed one action at a time.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("--depth", type=integer(DEPTH, 1),
                   help="deepest depth, counted from the position after --actions (default: the "
                        "suite's choice for the position)")
    p.add_argument("--actions", default="[]", help='JSON list of actions to play first, e.g. '
                   '\'[{"place": [0, 1]}]\'')
    p.add_argument("--divide", action="store_true", help="split the count at --depth by first action")
    p.add_argument("--path", action="append", metavar="ACTIONS",
                   help='with --divide (implied): follow these actions and split the count below them, '
                        'e.g. --path "0-8 0-4" (repeatable; cells from 0 as in records: A-B a placement, '
                        "C a measurement or a mark, as --divide prints them; or JSON actions)")
    add_core(p, "count with the compiled core, the Python engine, or auto (compiled when it can; default)")
    add_json(p, "the counts (or the divide) as JSON")
    p.add_argument("--force", action="store_true",
                   help=f"count even when that expands more than {PERFT_LIMIT:,} positions")
    p.set_defaults(run=run)


def path_items(texts: list[str]) -> list[str | Json]:
    """The actions of the --path values: JSON (an action or a list of them) or short forms."""
    items: list[str | Json] = []
    for text in texts:
        if text.lstrip().startswith(("{", "[")):
            value = parse_json(text, "--path", "record-format")
            items += value if isinstance(value, list) else [value]
        else:
            items += text.replace(",", " ").split()
    return items


def follow(state: GameState, items: list[str | Json]) -> tuple[GameState, list[Any]]:
    """The position at the end of the path and its actions; UsageError naming the first item that
    is not a legal action there."""
    actions = []
    for i, item in enumerate(items, start=1):
        legal = state.legal_actions()
        by_json = {json.dumps(action_to_json(a), sort_keys=True): a for a in legal}
        if isinstance(item, str) and SHORT.fullmatch(item):
            found = [a for a in legal if short(action_to_json(a)) == item]
        else:
            found = [by_json[k] for k in [json.dumps(item, sort_keys=True)] if k in by_json]
        if not found:
            names = " ".join(short(action_to_json(a)) for a in legal[:40])
            names += " ..." if len(legal) > 40 else ""
            shown = item if isinstance(item, str) else json.dumps(item)
            raise UsageError(None, f"--path: {shown[:40]!r} (action {i}) is not a legal action there"
                             + (f"; legal: {names}" if legal else "; the game is over"))
        actions.append(found[0])
        state = state.apply(found[0])
    return state, actions


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    start = parse_json(args.actions, "--actions", "record-format")
    state: GameState = new_game(rs)
    state_actions = record_from_json({"variant": args.ruleset, "actions": start}).actions
    for act in state_actions:
        state = state.apply(act)
    items = path_items(args.path or [])
    state, path = follow(state, items)
    fast = compiled_core(rs, args.core)
    position: Position = state if fast is None else fast.position((*state_actions, *path))
    limit = None if args.force else PERFT_LIMIT
    if args.depth is not None and args.depth <= len(path):
        raise UsageError(None, f"--path follows {len(path)} actions: --depth must be more than that")
    try:
        below = args.depth - len(path) if args.depth else None
        counts = perft_counts(position, below, limit) if below else table_depth(position)
        depth = len(counts)
        split = divide(position, depth, limit) if args.divide or path else []
    except UsageError as e:
        raise UsageError(None, f"{e.message}; give a smaller --depth, or --force") from None
    through = " ".join(short(action_to_json(a)) for a in path)
    whole = depth + len(path)
    if args.json:
        out: dict[str, Json] = {"ruleset": rs.canonical, "actions": start,
                                "path": [action_to_json(a) for a in path]}
        if args.divide or path:
            out |= {"depth": whole, "divide": [{"action": a, "nodes": n} for a, n in split],
                    "total": sum(n for _, n in split)}
        else:
            out["counts"] = list(counts)
        print(json.dumps(out, indent=1))
        return 0
    if args.divide or path:
        for action, nodes in split:
            print(f"{json.dumps(action)}: {nodes}")
        print(f"total at depth {whole}" + (f" through {through}" if path else "")
              + f": {sum(n for _, n in split)}")
        return 0
    for d, nodes in enumerate(counts, start=1):
        print(f"depth {d}: {nodes}")
    return 0
