"""`qttt replay RECORD`: replay game records and print each final state."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import QtttError
from ..notation import parse_records, state_to_json
from ..text import board_text


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="replay game records and print each final state",
                       description="Replay records (a JSON file, a JSON Lines file, or - for "
                                   "standard input) and print the final state of each.")
    p.add_argument("record", help="JSON or JSON Lines file, or - for standard input")
    p.add_argument("--json", action="store_true", help="one v1 JSON state per record, one per line")
    p.set_defaults(run=run)


def read_text(source: str) -> str:
    """The text of a file argument, or of standard input for `-`."""
    return sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")


def run(args: argparse.Namespace) -> int:
    failed = 0
    colour = sys.stdout.isatty() and not args.json
    for line, item in parse_records(read_text(args.record)):
        where = f"record at line {line}"
        if isinstance(item, QtttError):
            failed += 1
            _report(args, where, item)
            continue
        try:
            state = item.replay()
        except QtttError as e:
            failed += 1
            _report(args, where, e)
            continue
        if args.json:
            print(json.dumps(state_to_json(state, item.variant), separators=(", ", ": ")))
        else:
            print(f"{where}: {item.variant}, {len(item.actions)} actions")
            print(board_text(state, colour))
    return 1 if failed else 0


def _report(args: argparse.Namespace, where: str, e: QtttError) -> None:
    index = getattr(e, "index", None)
    at = f", action {index}" if index is not None else ""
    print(f"qttt: {where}{at}: {e}", file=sys.stderr)
    if args.json:
        print(json.dumps({"error": {"kind": e.kind, "rule": e.rule, "message": e.message,
                                    "action": index}}))
