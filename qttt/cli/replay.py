"""`qttt replay RECORD`: replay game records and print each final state, as they are read."""

from __future__ import annotations

import argparse
import json
import sys

from ..competition.match import story
from ..errors import FileError, IllegalAction, RecordError, VariantError
from ..family import GameState, family_of
from ..games import new_game
from ..io import text_chunks
from ..notation import FORMAT, RecordReader, state_to_json, stream_records
from ..text import count
from ..variant import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="replay game records and print each final state",
                       description="Replay records (a JSON file, a JSON Lines file, or - for "
                                   "standard input) and print the final state of each. Records are "
                                   "checked as they are read: an illegal action is reported without "
                                   "reading the rest of its record.")
    p.add_argument("record", help="JSON or JSON Lines file, or - for standard input")
    p.add_argument("--json", action="store_true", help="one v1 JSON state per record, one per line")
    p.set_defaults(run=run)


def replay_one(reader: RecordReader) -> tuple[str, GameState, int]:
    """The variant, final state and number of actions of a record, applying each action as it is
    read; errors carry the failing action's index as `.index`."""
    variant = reader.variant()
    state = new_game(load_ruleset(variant))
    count = 0
    for i, act in enumerate(reader.actions()):
        try:
            state = state.apply(act)
        except (IllegalAction, RecordError) as e:
            e.index = i
            raise
        count += 1
    return variant, state, count


def run(args: argparse.Namespace) -> int:
    failed = records = 0
    colour = sys.stdout.isatty() and not args.json
    for reader in stream_records(text_chunks(args.record, FORMAT)):
        records += 1
        where = f"record at line {reader.line}"
        try:
            variant, state, played = replay_one(reader)
        except (IllegalAction, RecordError, VariantError) as e:
            failed += 1
            _report(args, where, e)
            if not reader.finish():
                break
            continue
        if args.json:
            print(json.dumps(state_to_json(state, variant), separators=(", ", ": ")), flush=True)
        else:
            print(f"{where}: {variant}, {count(played, 'action')}")
            print(family_of(state.ruleset).board_text(state, colour), flush=True)
            for line in story(reader.extra):
                print(line, flush=True)
        reader.finish()
    if not records:
        name = "standard input" if args.record == "-" else args.record
        raise FileError(FORMAT, f"{name}: no records (the input is empty)")
    return 1 if failed else 0


def _report(args: argparse.Namespace, where: str, e: IllegalAction | RecordError | VariantError) -> None:
    index = e.index
    at = f", action {index}" if index is not None else ""
    print(f"qttt: {where}{at}: {e}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"error": {"kind": e.kind, "rule": e.rule or None, "message": e.message,
                                    "action": index}}), flush=True)
