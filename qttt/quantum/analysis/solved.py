"""What a solve gives (`SolveResult`), and the one step from a position to the next (`child`): shared
by the minimax solver (solve.py) and the expectimax of chance rulesets (expectimax.py)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

from ...bounds import CODE
from ...errors import FileError
from ...io import read_checkpoint
from ...notation import action_to_json
from ...ruleset import Ruleset
from ..engine import Action


@dataclass
class SolveResult:
    """The value of a position, its principal variation and the value of each distinct first action."""

    ruleset: str
    value: Fraction
    pv: list[Action]
    first: list[tuple[Action, Fraction]] = field(default_factory=list)
    nodes: int = 0
    positions: int = 0

    def to_json(self) -> dict[str, Any]:
        """Plain data: fractions as strings, actions in the record format."""
        return {"ruleset": self.ruleset, "value": str(self.value),
                "pv": [action_to_json(a) for a in self.pv],
                "first_moves": [{"action": action_to_json(a), "value": str(v)} for a, v in self.first]}


CHECKPOINT = {"ruleset": str, "start": [CODE], "values": object}
V = TypeVar("V")


def _code(key: str) -> int:
    """A first action's code as a key of the checkpoint field `values`."""
    if not re.fullmatch(r"-?[0-9]{1,6}", key):
        raise ValueError(f"values: {json.dumps(key)[:30]} is not an encoded action")
    return int(key)


def saved_values(cp: Path | None, rs: Ruleset, start: tuple[int, ...], codes: list[int],
                 value: Callable[[str, Any], V]) -> dict[int, V]:
    """The first actions' values a checkpoint of this run holds (none without one): `value` reads one
    (a ValueError naming why it is not a value); a checkpoint of another run is refused before any
    value is read."""
    if cp is None or not cp.is_file():
        return {}

    def parse(data: dict[str, Any]) -> tuple[Any, Any, dict[int, V]]:
        if data["ruleset"] != rs.canonical or data["start"] != list(start):
            return data["ruleset"], data["start"], {}  # of another run: its values mean nothing here
        saved = {int(k): value(k, v) for k, v in data["values"].items() if _code(k) in codes}
        return data["ruleset"], data["start"], saved
    ruleset, saved_start, values = read_checkpoint(cp, CHECKPOINT, parse)
    if ruleset != rs.canonical or saved_start != list(start):
        raise FileError(None, f"checkpoint {cp} is of another run ({json.dumps(ruleset)} from "
                        f"{json.dumps(saved_start)}, not {json.dumps(rs.canonical)} from "
                        f"{json.dumps(list(start))}); run with its arguments, or delete it to start "
                        "afresh")
    return values
