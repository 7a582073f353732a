"""What a solve gives (`SolveResult`), and the one step from a position to the next (`child`): shared
by the minimax solver (solve.py) and the expectimax of chance rulesets (expectimax.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ...notation import action_to_json
from ..engine import Action, Board, Measure, Place


def child(b: Board, act: Action) -> Board:
    """The position after `act` (a copy)."""
    c = b.copy()
    if isinstance(act, Place):
        c.place(act.a, act.b)
    elif isinstance(act, Measure):
        c.measure(act.cell)
    else:
        c.outcome(act.cell)
    return c



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
