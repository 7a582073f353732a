"""The human notation and the one-line position string of quantum games, and their v1 state JSON
(rule `record-format`).

Human notation, one game per line: the ruleset in brackets, then one token per action, squares
numbered from 1 (square s is cell s-1):
    [wikipedia] X1:1-9 O2:1-5 X3:5-9 X3@9 O4:2-3
`X1:1-9` places move 1 in squares 1 and 9; `X9:5` is a forced last-square placement; `X3@9`
measures the pending cycle, putting the closing mark x3 in square 9 (under a chance collapse:
naming square 9); `X3=5` is the outcome of the chance turn that follows under a chance collapse:
x3 lands in square 5 (rule collapse-chance).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

from ..errors import RecordError
from ..notation import FORMAT, Record, action_to_json, split_notation
from ..variant import load_ruleset
from .engine import (
    CHANCE_TURN,
    MEASURE,
    STATE,
    Action,
    Board,
    Measure,
    Outcome,
    Place,
    State,
    mark_name,
    player_of,
)
from .game import compile_game

STATE_JSON_COVER = STATE.cover(
    "qttt.quantum.notation:state_json",
    kept={"cls": "as each cell's classical mark (x1, o4)", "spk": "as each cell's spooky marks in move order",
          "move": "as is", "phase": "as is",
          "pending": "as move - 1 while the phase is measure or chance (the v1 state has no field of its own "
                     "for it)",
          "chosen": "in the chance field: the outcome of probability p (at p = 1/2 both outcomes are alike "
                    "and the cell named decides nothing)"})
POSITION_COVER = STATE.cover(
    "qttt.quantum.notation:position",
    kept={"cls": "as X1, O4", "spk": "as x3o4", "move": "as is",
          "phase": "read back from the marks: a cycle is a pending measurement, a line or a full board ends "
                   "the game",
          "pending": "read back as move - 1 when the marks hold a cycle",
          "chosen": "as @s, the square named, at a chance turn"})


def board_json(state: State) -> list[str | list[str]]:
    """The cells of the v1 state: each its classical mark, or its spooky marks in move order."""
    return [mark_name(k) if k else [mark_name(m) for m in marks]
            for k, marks in zip(state.classical, state.spooky, strict=True)]


def state_json(state: State, variant: str) -> dict[str, Any]:
    """The v1 state object of a quantum game; during a chance turn with its `chance` field."""
    out: dict[str, Any] = {
        "variant": variant,
        "board": board_json(state),
        "to_move": state.to_move,
        "phase": state.phase,
        "move": state.move,
        "cycle": list(state.cycle) if state.cycle is not None else None,
        "over": state.over,
        "scores": {p: str(v) for p, v in state.scores.items()},
    }
    if state.phase == "chance":
        out["chance"] = chance_json(state.chance_outcomes())
    return out


def chance_json(outcomes: tuple[tuple[Outcome, Fraction], ...]) -> list[dict[str, Any]]:
    """The `chance` field of a state at a chance turn: each outcome's action and its probability
    as an exact value in a string (spec/schema/state.schema.json)."""
    return [{"action": action_to_json(o), "probability": str(p)} for o, p in outcomes]


# -- human notation ---------------------------------------------------------------------------

_PLACE = re.compile(r"([XO])(\d+):(\d+)(?:-(\d+))?$")
_MEASURE = re.compile(r"([XO])(\d+)@(\d+)$")
_OUTCOME = re.compile(r"([XO])(\d+)=(\d+)$")


def to_notation(record: Record) -> str:
    """The record in human notation (squares from 1)."""
    tokens = [f"[{record.variant}]"]
    move = 0
    for act in record.actions:
        if not isinstance(act, (Place, Measure, Outcome)):
            raise RecordError(FORMAT, "human notation writes quantum games only; use the JSON record")
        if isinstance(act, Place):
            move += 1
            mark = mark_name(move).upper()
            squares = f"{act.a + 1}" if act.a == act.b else f"{act.a + 1}-{act.b + 1}"
            tokens.append(f"{mark}:{squares}")
        else:
            sign = "@" if isinstance(act, Measure) else "="
            tokens.append(f"{mark_name(move).upper()}{sign}{act.cell + 1}")
    return " ".join(tokens)


def from_notation(text: str) -> Record:
    """Parse human notation; RecordError naming the bad token."""
    return read_tokens(*split_notation(text))


def read_tokens(variant: str, tokens: str) -> Record:
    """The record of `variant` whose actions `tokens` write; RecordError naming the bad token."""
    actions: list[Action] = []
    move = 0
    for i, token in enumerate(tokens.split()):
        if m := _PLACE.match(token):
            move += 1
            a = int(m[3]) - 1
            b = int(m[4]) - 1 if m[4] is not None else a
            action: Action = Place(a, b)
        elif m := _MEASURE.match(token):
            action = Measure(int(m[3]) - 1)
        elif m := _OUTCOME.match(token):
            action = Outcome(int(m[3]) - 1)
        else:
            raise RecordError(FORMAT, f"token {i + 1} {token!r} is none of X1:1-9, X3@9 and X3=5")
        if int(m[2]) != move or m[1].lower() != player_of(move):
            expected = mark_name(move).upper() if move else "a placement first"
            raise RecordError(FORMAT, f"token {i + 1} {token!r} names {m[1]}{m[2]}; expected {expected}")
        actions.append(action)
    return Record(variant, tuple(actions))


# -- position string --------------------------------------------------------------------------

def position(state: State) -> str:
    """One line: ruleset, board rows (`/`) of cells (`,`), next move number, and during a chance
    turn `@s`, the square the measurement named.

    A cell is `X1` (classical), `x3o4` (spooky marks in move order) or `-` (empty).
    """
    n = state.ruleset.board
    cells = [mark_name(k).upper() if k else "".join(mark_name(m) for m in marks) or "-"
             for k, marks in zip(state.classical, state.spooky, strict=True)]
    rows = "/".join(",".join(cells[r * n:(r + 1) * n]) for r in range(n))
    named = f" @{state.chosen + 1}" if state.chosen is not None else ""
    return f"{state.ruleset.canonical} {rows} {state.move}{named}"


_SPOOKY = re.compile(r"([xo])(\d+)")


def from_position(text: str) -> State:
    """The state a position string describes; RecordError if it is not a reachable shape."""
    parts = text.split()
    named = parts.pop() if len(parts) == 4 and re.fullmatch(r"@[1-9][0-9]*", parts[-1]) else None
    if len(parts) != 3 or not parts[2].isdigit():
        raise RecordError(FORMAT, "a position is: RULESET ROWS MOVE, then @SQUARE during a chance turn")
    rs = load_ruleset(parts[0])
    n, move = rs.board, int(parts[2])
    rows = parts[1].split("/")
    cells = [c for row in rows for c in row.split(",")]
    if len(rows) != n or len(cells) != n * n:
        raise RecordError(FORMAT, f"a position of {rs.canonical} has {n} rows of {n} cells")
    b = Board(compile_game(rs))
    b.move = move
    spooky = _set_cells(b, cells, move)
    for k in sorted(spooky):
        where = spooky[k]
        if len(where) != 2:
            raise RecordError(FORMAT, f"spooky mark {mark_name(k)} stands in {len(where)} cells; it needs 2")
        if b.phase == MEASURE:
            raise RecordError(FORMAT, f"the graph has a cycle closed before {mark_name(k)}")
        b.place_numbered(where[0], where[1], k)
    if b.phase == MEASURE and b.pending != move - 1:
        raise RecordError(FORMAT, f"the pending cycle must be closed by move {move - 1}")
    if named is not None:
        if b.phase != MEASURE or not b.r.chance or int(named[1:]) - 1 not in b.ends[b.pending]:
            raise RecordError(FORMAT, f"{named}: a chance turn needs a chance ruleset and a pending cycle "
                              "whose closing move has that square")
        b.measure(int(named[1:]) - 1)
    if b.phase != MEASURE and b.phase != CHANCE_TURN:
        b.settle()
    used = sorted([*spooky, *[k for k in b.cls if k]])
    if len(set(used)) != len(used):
        raise RecordError(FORMAT, "a move number is used twice")
    return State(b)


def _set_cells(b: Board, cells: list[str], move: int) -> dict[int, list[int]]:
    """Put the classical marks on the board; return the cells of each spooky move number."""
    spooky: dict[int, list[int]] = {}
    for c, tok in enumerate(cells):
        if tok == "-":
            continue
        if m := re.fullmatch(r"([XO])(\d+)", tok):
            k = int(m[2])
            _check_mark(m[1].lower(), k, move, tok)
            b.set_classical(c, k)
            continue
        marks = _SPOOKY.findall(tok)
        if "".join(p + k for p, k in marks) != tok:
            raise RecordError(FORMAT, f"cell {c}: {tok!r} is not X1, x3o4 or -")
        for p, ks in marks:
            _check_mark(p, int(ks), move, tok)
            spooky.setdefault(int(ks), []).append(c)
    return spooky


def _check_mark(player: str, k: int, move: int, tok: str) -> None:
    if k < 1 or k >= move or player_of(k) != player:
        raise RecordError(FORMAT, f"{tok!r}: mark {player}{k} is not a move before move {move} "
                          "of that player")

