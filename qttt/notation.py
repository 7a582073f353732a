"""Records and states as data, for every game family: the v1 JSON formats and JSON Lines (rules
`record-format`, `record-variant`). A family's human notation is its own (qttt.quantum.notation)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from typing import Any

from .errors import QtttError, RecordError
from .family import AnyAction, GameState, families, family_of
from .games import new_game, replay_actions
from .jsonstream import ScanError, Scanner
from .ruleset import Ruleset
from .variant import load_ruleset

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
        return replay_actions(new_game(self.ruleset()), self.actions)

    def states(self) -> list[GameState]:
        """The initial state and the state after each action."""
        out = [new_game(self.ruleset())]
        for act in self.actions:
            out.append(out[-1].apply(act))
        return out


# -- JSON -------------------------------------------------------------------------------------

@cache
def _action_kinds() -> dict[str, tuple[type[AnyAction], int]]:
    """Every family's action types by JSON key (the type's name in lower case), with their number
    of cells, in family order."""
    kinds: dict[str, tuple[type[AnyAction], int]] = {}
    for family in families():
        for kind in family.action_types:
            arity = len(kind.__match_args__)  # type: ignore[attr-defined]  # a named tuple's fields
            kinds.setdefault(kind.__name__.lower(), (kind, arity))
    return kinds


def action_to_json(action: AnyAction) -> dict[str, Any]:
    """`{"place": [a, b]}`, `{"measure": c}`, `{"mark": c}`: the action's type in lower case, then
    its one cell or the list of its cells."""
    cells = list(action)
    return {type(action).__name__.lower(): cells[0] if len(cells) == 1 else cells}


def split_notation(text: str) -> tuple[str, str]:
    """Human notation split into the bracketed ruleset and the tokens after it (rule
    record-format): `[wikipedia] X1:1-9 O2:1-5` -> ("wikipedia", " X1:1-9 O2:1-5")."""
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
    return text[1:end], text[end + 1:]


def from_notation(text: str) -> Record:
    """A record in its family's human notation, `[ruleset] tokens`: the family of the bracketed
    ruleset reads the tokens (RecordError when the family has no human notation)."""
    variant, tokens = split_notation(text)
    return Record(variant, family_of(load_ruleset(variant)).read_notation(variant, tokens))


def cell_text(action: AnyAction) -> str:
    """A one-cell action as people read it (`square 41`, squares from 1); any other as its JSON."""
    cell = getattr(action, "cell", None)
    return f"square {cell + 1}" if isinstance(cell, int) else str(action_to_json(action))


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _show(value: Any, width: int = 80) -> str:
    """A JSON value for a message, cut to `width` characters."""
    text = json.dumps(value)
    return text if len(text) <= width else text[:width - 3] + "..."


COUNTS = {2: "two", 3: "three", 4: "four"}


def action_from_json(obj: Any) -> AnyAction:
    """Parse one JSON action of any family; RecordError (rule record-format) if it is malformed."""
    kinds = _action_kinds()
    if isinstance(obj, dict) and len(obj) == 1:
        key, v = next(iter(obj.items()))
        if key in kinds:
            kind, n = kinds[key]
            if n == 1 and _is_int(v):
                return kind(v)
            if n > 1 and isinstance(v, list) and len(v) == n and all(_is_int(c) for c in v):
                return kind(*v)
            need = "an integer cell" if n == 1 else f"a list of {COUNTS[n]} integer cells"
            raise RecordError(FORMAT, f"{key} needs {need}, got {_show(v)}")
    forms = [f'{{"{k}": c}}' if n == 1 else f'{{"{k}": [{", ".join("abcd"[:n])}]}}'
             for k, (_, n) in kinds.items()]
    raise RecordError(FORMAT, f"an action is {', '.join(forms[:-1])} or {forms[-1]}, got {_show(obj)}")


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


def state_to_json(state: GameState, variant: str | None = None) -> dict[str, Any]:
    """The v1 state object; `variant` defaults to the ruleset's canonical name."""
    return family_of(state.ruleset).state_to_json(
        state, variant if variant is not None else state.ruleset.canonical)


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


def stream_records(chunks: Iterable[str], *, line: int = 1, json_lines: bool = False
                   ) -> Iterator[RecordReader]:
    """Readers of the records in text arriving in chunks: a JSON document (one record object or a
    list of them, laid out freely) or JSON Lines (one record per line; a broken line is reported
    and the next line read). Each reader must be finished before the next one is produced.
    `line`: the number of the text's first line; `json_lines`: the text is known to be JSON Lines
    (the rest of a file whose first record was on one line).
    """
    scan = Scanner(chunks)
    scan.line = line
    scan.newlines = not json_lines
    if not json_lines and scan.peek() == "[":
        yield from _list_records(scan)
        return
    lines: bool | None = True if json_lines else None  # None: JSON Lines if the first record is on one line
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
        self._keys: set[str] = set()  # the keys read so far: one given twice is refused
        self.skipped = False  # finished by skipping the rest of its line
        self.broken: RecordError | None = None  # the syntax error that stopped the record
        self.extra: dict[str, Any] = {}  # the record's other top-level fields (players, result, ...)

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
                    self.extra[key] = scan.value()
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
        key = str(scan.value())
        if key in self._keys:
            shown = json.dumps(key)
            raise scan.error(f"duplicate key {shown if len(shown) <= 40 else shown[:36] + '...'}")
        self._keys.add(key)
        scan.take(":", "':' after the key")
        return key

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
                if key == "actions":
                    seen = True
                    yield from self._action_list()
                else:
                    self.extra[key] = self._scan.value()
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
