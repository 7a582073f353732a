"""`qttt play` for a nested-classical ruleset (Intelligent Tic-Tac-Toe): the 16×16 board at the
terminal, a person against a person or against the random player."""

from __future__ import annotations

import argparse
import json
import random
import re
from collections.abc import Callable

from ..errors import IllegalAction
from ..family import Mark
from ..io import save_or_show
from ..notation import Record, record_to_json
from ..ruleset import Ruleset
from .engine import NestedState
from .text import nested_status, nested_text

COMMANDS = {"help": "help", "h": "help", "?": "help", "moves": "moves", "m": "moves", "undo": "undo",
            "u": "undo", "quit": "quit", "q": "quit", "exit": "quit"}
CELL = re.compile(r"(\d+)\s*[\s,]\s*(\d+)$")
HELP = ("Type the cell as row and column, both counted from 0 as on the board's edges (5 4, or 5,4). "
        "The cell's place in its block picks the block your opponent must use next; if that block is "
        "won, drawn or full, they may use any empty cell of an open block. A won block is closed. "
        "Commands: moves (the cells you may use), undo, help, quit.")


def parse(text: str, side: int) -> Mark | str:
    """A cell from `row col` (or a command); ValueError when it is neither."""
    text = text.strip().lower()
    if text in COMMANDS:
        return COMMANDS[text]
    found = CELL.match(text)
    if not found:
        raise ValueError(text)
    r, c = int(found[1]), int(found[2])
    if not (0 <= r < side and 0 <= c < side):
        raise ValueError(text)
    return Mark(r * side + c)


def play(rs: Ruleset, args: argparse.Namespace, read: Callable[[str], str], write: Callable[[str], None],
         colour: bool, seed: int) -> int:
    """Play one nested-classical game; returns the exit status."""
    side = rs.board * rs.board
    rng = random.Random(seed)
    computer = {s: kind != "human" for s, kind in (("x", args.x), ("o", args.o))}
    if any(kind not in ("human", "random") for kind in (args.x, args.o)):
        write("note: nested-classical games have the random computer player only; it plays for "
              f"{' and '.join(s for s, c in computer.items() if c)}\n")
    state = NestedState.initial(rs)
    history: list[tuple[NestedState, Mark]] = []
    write(f"{rs.title or rs.canonical}: x ({args.x}) against o ({args.o})"
          + (f", seed {seed}" if any(computer.values()) else "") + ". Type help for help.\n")
    how = "over"
    while not state.over:
        who = state.to_move or ""
        if computer[who]:
            legal = state.legal_actions()
            act = legal[rng.randrange(len(legal))]
            r, c = divmod(act.cell, side)
            write(f"{who} (random) marks {r} {c}\n")
        else:
            write("\n" + nested_text(state, colour) + "\n")
            try:
                line = read(f"{who}: row column > ")
            except EOFError:
                how = "eof"
                break
            try:
                got = parse(line, side)
            except ValueError:
                write(f"not understood: {line.strip()!r}; type a row and a column such as 5 4, or help\n")
                continue
            if got == "quit":
                how = "quit"
                break
            if got == "help":
                write(HELP + "\n")
                continue
            if got == "moves":
                write("you may mark: " + ", ".join(f"{a.cell // side} {a.cell % side}"
                                                    for a in state.legal_actions()) + "\n")
                continue
            if got == "undo":
                people = [i for i, (before, _) in enumerate(history) if not computer[before.to_move or ""]]
                if not people:
                    write("nothing to take back\n")
                else:
                    state = history[people[-1]][0]
                    del history[people[-1]:]
                continue
            assert isinstance(got, Mark)
            act = got
        try:
            after = state.apply(act)
        except IllegalAction as e:
            write(f"not allowed: {e.message} (rule {e.rule})\n")
            continue
        history.append((state, act))
        state = after
    write("\n" + nested_text(state, colour) + "\n")
    if how == "over":
        write(nested_status(state) + "\n")
    else:
        write({"quit": "game abandoned.", "eof": "input ended; game abandoned."}[how] + "\n")
    if args.record and not _save(args.record, Record(rs.canonical, tuple(a for _, a in history)), write):
        return 2
    return 1 if how == "eof" else 0


def _save(path: str, record: Record, write: Callable[[str], None]) -> bool:
    """The record written to `path`, or shown when it cannot be (io.save_or_show)."""
    return save_or_show(path, json.dumps(record_to_json(record)) + "\n", write,
                        f"record saved to {path} ({len(record.actions)} moves); "
                        f"replay it with: qttt replay {path}\n")
