"""Records and states as data: the v1 JSON formats, JSON Lines, the human notation and the
one-line position string (rules `record-format`, `record-variant`).

Human notation, one game per line: the ruleset in brackets, then one token per action, squares
numbered from 1 (square s is cell s-1):
    [wikipedia] X1:1-9 O2:1-5 X3:5-9 X3@9 O4:2-3
`X1:1-9` places move 1 in squares 1 and 9; `X9:5` is a forced last-square placement; `X3@9`
measures the pending cycle, putting the closing mark x3 in square 9.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from . import games
from .engine import (
    MEASURE,
    Action,
    AnyAction,
    Board,
    Measure,
    Place,
    State,
    mark_name,
    player_of,
    replay_actions,
)
from .errors import QtttError, RecordError
from .game import compile_game
from .games import GameState
from .jsonstream import ScanError, Scanner
from .nested import Mark, NestedState
from .variant import Ruleset, load_ruleset

FORMAT = "record-format"
Json = Any  # a JSON value as json.loads returns it


@dataclass(frozen=True)
class Record:
    """A game record: a ruleset reference and the actions in order."""

    variant: str
    actions: tuple[AnyAction, ...]

    def ruleset(self) -> Ruleset:
        """The ruleset the record names (rule record-variant)."""
        return load_ruleset(self.variant)

    def replay(self) -> GameState:
        """The final state; errors carry the failing action's index as `.index`."""
        return replay_actions(games.start(self.ruleset()), self.actions)

    def states(self) -> list[GameState]:
        """The initial state and the state after each action."""
        out = [games.start(self.ruleset())]
        for act in self.actions:
            out.append(out[-1].apply(act))
        return out


# -- JSON -------------------------------------------------------------------------------------

def action_to_json(action: AnyAction) -> dict[str, Any]:
    """`{"place": [a, b]}`, `{"measure": c}`, or `{"mark": c}` (nested-classical)."""
    if isinstance(action, Place):
        return {"place": [action.a, action.b]}
    if isinstance(action, Mark):
        return {"mark": action.cell}
    return {"measure": action.cell}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _show(value: Any, width: int = 80) -> str:
    """A JSON value for a message, cut to `width` characters."""
    text = json.dumps(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def action_from_json(obj: Any) -> AnyAction:
    """Parse one JSON action; RecordError (rule record-format) if it is malformed."""
    if isinstance(obj, dict) and len(obj) == 1:
        if "place" in obj:
            v = obj["place"]
            if isinstance(v, list) and len(v) == 2 and all(_is_int(c) for c in v):
                return Place(v[0], v[1])
            raise RecordError(FORMAT, f"place needs a list of two integer cells, got {_show(v)}")
        if "measure" in obj:
            v = obj["measure"]
            if _is_int(v):
                return Measure(v)
            raise RecordError(FORMAT, f"measure needs an integer cell, got {_show(v)}")
        if "mark" in obj:
            v = obj["mark"]
            if _is_int(v):
                return Mark(v)
            raise RecordError(FORMAT, f"mark needs an integer cell, got {_show(v)}")
    raise RecordError(FORMAT, f"an action is {{\"place\": [a, b]}}, {{\"measure\": c}} or "
                      f"{{\"mark\": c}}, got {_show(obj)}")


def record_from_json(obj: Any) -> Record:
    """Parse a JSON record; RecordError with `.index` set for a malformed action."""
    if not isinstance(obj, dict):
        raise RecordError(FORMAT, "a record is a JSON object with variant and actions")
    variant, actions = obj.get("variant"), obj.get("actions")
    if not isinstance(variant, str):
        raise RecordError(FORMAT, "record has no variant string")
    if not isinstance(actions, list):
        raise RecordError(FORMAT, "record has no actions list")
    parsed = []
    for i, a in enumerate(actions):
        try:
            parsed.append(action_from_json(a))
        except RecordError as e:
            e.index = i
            raise
    return Record(variant, tuple(parsed))


def record_to_json(record: Record) -> dict[str, Any]:
    """The v1 record object."""
    return {"variant": record.variant, "actions": [action_to_json(a) for a in record.actions]}


def cell_json(state: State, cell: int) -> str | list[str]:
    """A cell of the v1 state: its classical mark, or its spooky marks in move order."""
    k = state.classical[cell]
    return mark_name(k) if k else [mark_name(m) for m in state.spooky[cell]]


def state_to_json(state: GameState, variant: str | None = None) -> dict[str, Any]:
    """The v1 state object; `variant` defaults to the ruleset's canonical name."""
    if isinstance(state, NestedState):
        return nested_state_json(state, variant)
    return {
        "variant": variant if variant is not None else state.ruleset.canonical,
        "board": [cell_json(state, c) for c in range(len(state.classical))],
        "to_move": state.to_move,
        "phase": state.phase,
        "move": state.move,
        "cycle": list(state.cycle) if state.cycle is not None else None,
        "over": state.over,
        "scores": {p: str(v) for p, v in state.scores.items()},
    }


def nested_state_json(state: NestedState, variant: str | None = None) -> dict[str, Any]:
    """The v1 state of a nested-classical game: a cell is its mark (x1, o2, …) or [] when empty;
    `blocks` gives each block's status, `target` the blocks the next move must use (null: any
    open block), `bonus` whether the next move is a bonus move; `cycle` is always null."""
    return {
        "variant": variant if variant is not None else state.ruleset.canonical,
        "board": [m if m is not None else [] for m in state.marks],
        "to_move": state.to_move,
        "phase": state.phase,
        "move": state.move,
        "cycle": None,
        "over": state.over,
        "scores": {p: str(v) for p, v in state.scores.items()},
        "blocks": list(state.blocks),
        "target": list(state.target) if state.target is not None else None,
        "bonus": state.bonus,
    }


def parse_records(text: str) -> Iterator[tuple[int, Record | QtttError]]:
    """Records of a JSON document or of JSON Lines, with the line each starts on."""
    for reader in stream_records([text]):
        try:
            variant = reader.variant()
            yield reader.line, Record(variant, tuple(reader.actions()))
        except RecordError as e:
            yield reader.line, e
        finally:
            reader.finish()


def stream_records(chunks: Iterable[str]) -> Iterator[RecordReader]:
    """Readers of the records in text arriving in chunks: a JSON document (one record object or a
    list of them, laid out freely) or JSON Lines (one record per line; a broken line is reported
    and the next line read). Each reader must be finished before the next one is produced.
    """
    scan = Scanner(chunks)
    if scan.peek() == "[":
        yield from _list_records(scan)
        return
    lines: bool | None = None  # undecided until the first record ends: JSON Lines if on one line
    while True:
        ch = scan.peek()
        if ch == "\n":
            scan.skip_line()
            continue
        if not ch:
            return
        reader = RecordReader(scan, in_list=False)
        yield reader
        if not reader.finish():
            return
        if lines is None:
            lines = reader.skipped or scan.line == reader.line
            scan.newlines = not lines
        if lines and not reader.skipped:
            if scan.peek() in ("\n", ""):
                scan.skip_line()
            else:
                extra = RecordReader(scan, in_list=False)
                extra.broken = scan.error("extra data after the record")
                yield extra
                extra.finish()


def _list_records(scan: Scanner) -> Iterator[RecordReader]:
    """Readers of the records of a JSON list, the scanner at its `[`."""
    try:
        scan.take("[", "[")
        if scan.peek() == "]":
            scan.take("]", "]")
        else:
            while True:
                reader = RecordReader(scan, in_list=True)
                yield reader
                if not reader.finish():
                    return
                if scan.peek() == "]":
                    scan.take("]", "]")
                    break
                scan.take(",", "',' or ']' between records")
        if scan.peek():
            raise scan.error("extra data after the list of records")
    except ScanError as e:
        bad = RecordReader(scan, in_list=True)
        bad.broken = e
        yield bad


class RecordReader:
    """One record being read: `variant()`, then `actions()` one at a time, then `finish()`."""

    def __init__(self, scan: Scanner, in_list: bool) -> None:
        self.line = scan.line
        self._scan = scan
        self._in_list = in_list
        self._variant: str | None = None
        self._buffered: list[AnyAction] | None = None  # actions met before the variant
        self._state = "start"  # start, value, keys (inside the object), actions, done
        self._count = 0
        self.skipped = False  # finished by skipping the rest of its line
        self.broken: RecordError | None = None  # the syntax error that stopped the record

    def _fail(self, e: RecordError) -> RecordError:
        if isinstance(e, ScanError):
            self.broken = e
        return e

    def variant(self) -> str:
        """The variant string; reads (and keeps) any actions that come before it."""
        if self.broken is not None:
            raise self.broken
        scan = self._scan
        try:
            if scan.peek() != "{":
                self._state = "value"
                raise RecordError(FORMAT, "a record is a JSON object with variant and actions")
            scan.take("{", "{")
            self._state = "keys"
            while self._variant is None:
                key = self._key()
                if key is None:
                    raise RecordError(FORMAT, "record has no variant string")
                if key == "variant":
                    value = scan.value()
                    if not isinstance(value, str):
                        raise RecordError(FORMAT, "record has no variant string")
                    self._variant = value
                elif key == "actions":
                    self._buffered = list(self._action_list())
                else:
                    scan.value()
            return self._variant
        except RecordError as e:
            raise self._fail(e) from None

    def _key(self) -> str | None:
        """The next key of the object, or None at its end."""
        scan = self._scan
        ch = scan.peek()
        if ch == "}":
            scan.take("}", "}")
            self._state = "done"
            return None
        if self._count:
            scan.take(",", "',' or '}' in the record")
        self._count += 1
        if scan.peek() != '"':
            raise scan.error("expecting a key in double quotes")
        key = scan.value()
        scan.take(":", "':' after the key")
        return str(key)

    def _action_list(self) -> Iterator[AnyAction]:
        scan = self._scan
        if scan.peek() != "[":
            scan.value()
            raise RecordError(FORMAT, "record has no actions list")
        scan.take("[", "[")
        self._state = "actions"
        i = 0
        if scan.peek() == "]":
            scan.take("]", "]")
            self._state = "keys"
            return
        while True:
            obj = scan.value()
            try:
                yield action_from_json(obj)
            except RecordError as e:
                e.index = i
                raise
            i += 1
            ch = scan.peek()
            if ch == "]":
                scan.take("]", "]")
                self._state = "keys"
                return
            scan.take(",", "',' or ']' between actions")

    def actions(self) -> Iterator[AnyAction]:
        """The record's actions in order, read as they are consumed; RecordError with `.index`
        for a malformed one; at the end the rest of the record is read and checked."""
        try:
            seen = self._buffered is not None
            if seen:
                yield from self._buffered or ()
            while True:
                key = self._key()
                if key is None:
                    break
                if key in ("variant", "actions") and (key == "variant" or seen):
                    raise RecordError(FORMAT, f"record has {key} twice")
                if key == "actions":
                    seen = True
                    yield from self._action_list()
                else:
                    self._scan.value()
            if not seen:
                raise RecordError(FORMAT, "record has no actions list")
        except RecordError as e:
            raise self._fail(e) from None

    def finish(self) -> bool:
        """Move past whatever is left of the record; False when the text cannot be read further
        (a syntax error outside JSON Lines)."""
        scan = self._scan
        if self._state == "done":
            return True
        if not self._in_list and (not scan.newlines or scan.line == self.line):
            scan.skip_line()  # JSON Lines, or still on the first line: the rest is this record's
            self._state, self.skipped = "done", True
            return True
        if self.broken is not None:
            return False
        try:
            if self._state in ("start", "value"):
                if scan.peek():
                    scan.value()
            elif self._state == "keys":
                scan.skip_container_rest(1)
            elif self._state == "actions":
                scan.skip_container_rest(2)
        except ScanError as e:
            self.broken = e
            return False
        self._state = "done"
        return True


# -- human notation ---------------------------------------------------------------------------

_PLACE = re.compile(r"([XO])(\d+):(\d+)(?:-(\d+))?$")
_MEASURE = re.compile(r"([XO])(\d+)@(\d+)$")


def to_notation(record: Record) -> str:
    """The record in human notation (squares from 1)."""
    tokens = [f"[{record.variant}]"]
    move = 0
    for act in record.actions:
        if isinstance(act, Mark):
            raise RecordError(FORMAT, "human notation writes quantum games only; use the JSON record")
        if isinstance(act, Place):
            move += 1
            mark = mark_name(move).upper()
            squares = f"{act.a + 1}" if act.a == act.b else f"{act.a + 1}-{act.b + 1}"
            tokens.append(f"{mark}:{squares}")
        else:
            tokens.append(f"{mark_name(move).upper()}@{act.cell + 1}")
    return " ".join(tokens)


def from_notation(text: str) -> Record:
    """Parse human notation; RecordError naming the bad token."""
    text = text.strip()
    if not text.startswith("["):
        raise RecordError(FORMAT, "notation starts with the ruleset in brackets, as [wikipedia]")
    depth, end = 0, -1
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if depth == 0:
            end = i
            break
    if end < 0:
        raise RecordError(FORMAT, "the ruleset bracket is not closed")
    variant, actions, move = text[1:end], [], 0
    for i, token in enumerate(text[end + 1:].split()):
        if m := _PLACE.match(token):
            move += 1
            a = int(m[3]) - 1
            b = int(m[4]) - 1 if m[4] is not None else a
            action: Action = Place(a, b)
        elif m := _MEASURE.match(token):
            action = Measure(int(m[3]) - 1)
        else:
            raise RecordError(FORMAT, f"token {i + 1} {token!r} is neither X1:1-9 nor X3@9")
        if int(m[2]) != move or m[1].lower() != player_of(move):
            expected = mark_name(move).upper() if move else "a placement first"
            raise RecordError(FORMAT, f"token {i + 1} {token!r} names {m[1]}{m[2]}; expected {expected}")
        actions.append(action)
    return Record(variant, tuple(actions))


# -- position string --------------------------------------------------------------------------

def position(state: State) -> str:
    """One line: ruleset, board rows (`/`) of cells (`,`), next move number.

    A cell is `X1` (classical), `x3o4` (spooky marks in move order) or `-` (empty).
    """
    n = state.ruleset.board
    cells = []
    for c in range(n * n):
        k = state.classical[c]
        cells.append(mark_name(k).upper() if k else "".join(mark_name(m) for m in state.spooky[c]) or "-")
    rows = "/".join(",".join(cells[r * n:(r + 1) * n]) for r in range(n))
    return f"{state.ruleset.canonical} {rows} {state.move}"


_SPOOKY = re.compile(r"([xo])(\d+)")


def from_position(text: str) -> State:
    """The state a position string describes; RecordError if it is not a reachable shape."""
    parts = text.split()
    if len(parts) != 3 or not parts[2].isdigit():
        raise RecordError(FORMAT, "a position is: RULESET ROWS MOVE")
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
    if b.phase != MEASURE:
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

