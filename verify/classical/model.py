"""The checker's own model of the classical rules (n×n tic-tac-toe, k in a row), written from the
rule statements classical-* of spec/rules.toml and the v1 state schema, not from qttt/classical:
it reads a ruleset's board and end_line and nothing the engine compiles from them. As in
verify/nested/model.py, each rule component is a function over a `Logic` (verify.claims): run on
values it plays games the checker compares with the engine; run on Z3 terms it is what
`verify.classical.proofs` proves things about.

What the rules read of a position is its marks (whose, in which cell): move numbers never, and the
mover and the move number follow from the count. `Position.key` is the same for a position and its
images under the symmetries of the square that map the lines onto lines (`proofs.symmetry_claims`
proves the rules look the same after them), so the walk merges them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from operator import itemgetter
from typing import Any

from qttt import Ruleset
from qttt.family import Mark
from qttt.geometry import board_symmetries

from ..claims import PY, Logic

PLAYERS = ("x", "o")
DIRECTIONS = ((0, 1), (1, 0), (1, 1), (1, -1))  # along a row, a column and both diagonals


def lines(n: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Rule classical-line: every k consecutive cells of an n×n board in one row, one column or one
    diagonal in either direction (cells row by row from 0, rule classical-board)."""
    found = []
    for row in range(n):
        for col in range(n):
            for dr, dc in DIRECTIONS:
                run = [(row + i * dr, col + i * dc) for i in range(k)]
                if all(0 <= r < n and 0 <= c < n for r, c in run):
                    found.append(tuple(sorted(r * n + c for r, c in run)))
    return tuple(dict.fromkeys(found))


@dataclass(frozen=True)
class Rules:
    """A classical ruleset as the model reads it: the board side and the winning lines; its
    symmetries (the relabellings of the cells, each given by what it takes each image from)."""

    n: int
    k: int
    lines: tuple[tuple[int, ...], ...]
    symmetries: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    pick: tuple[Callable[[Sequence[Any]], tuple[Any, ...]], ...] = field(init=False, repr=False,
                                                                       compare=False)

    def __post_init__(self) -> None:
        n = self.n
        lines = {frozenset(line) for line in self.lines}
        kept = [g for g in board_symmetries(n) if {frozenset(g[c] for c in line) for line in lines} == lines]
        back = [tuple(sorted(range(n * n), key=g.__getitem__)) for g in kept]  # the cell g takes to each
        object.__setattr__(self, "symmetries", tuple(kept))
        object.__setattr__(self, "pick", tuple(itemgetter(*b) for b in back))

    @property
    def cells(self) -> int:
        return self.n * self.n


@cache
def rules_of(rs: Ruleset) -> Rules:
    """The model's reading of a classical ruleset: k is end_line, or n when end_line is 0."""
    k = rs.rules.end_line or rs.board
    return Rules(rs.board, k, lines(rs.board, k))


# The rule components, over a Logic -----------------------------------------------------------------


def completes(logic: Logic, rules: Rules, mine: Sequence[Any]) -> Any:
    """Rule classical-line: the marks `mine` (one flag per cell) fill a whole line."""
    return logic.any(logic.all(mine[c] for c in line) for line in rules.lines)


def allowed(logic: Logic, empty: Sequence[Any], over: Any) -> list[Any]:
    """Rules classical-cell-empty and over-no-action: the empty cells, none once the game is over."""
    return [logic.all([e, logic.not_(over)]) for e in empty]


def points(logic: Logic, x_wins: Any, o_wins: Any) -> tuple[Any, Any]:
    """Rule classical-score: 1 to the winner and 0 to the other; 1/2 each without a winner."""
    one, zero, half = logic.number(Fraction(1)), logic.number(Fraction(0)), logic.number(Fraction(1, 2))
    return (logic.ite(x_wins, one, logic.ite(o_wins, zero, half)),
            logic.ite(o_wins, one, logic.ite(x_wins, zero, half)))


# Positions -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A position: per cell its owner (x, o or None) and move number (0 when empty), the winner."""

    rules: Rules
    owner: tuple[str | None, ...]
    number: tuple[int, ...]
    winner: str | None = None

    @classmethod
    def start(cls, rules: Rules) -> Position:
        """The empty board, x to move (rule classical-turn)."""
        return cls(rules, (None,) * rules.cells, (0,) * rules.cells)

    @property
    def move(self) -> int:
        """The next move's number."""
        return self.rules.cells - self.owner.count(None) + 1

    @property
    def over(self) -> bool:
        """Rules classical-line and classical-full: a line completed, or every cell marked."""
        return self.winner is not None or None not in self.owner

    @property
    def mover(self) -> str:
        """Rule classical-turn: x moves first and the players alternate."""
        return PLAYERS[(self.move - 1) % 2]

    @cached_property
    def _legal(self) -> tuple[Mark, ...]:
        may = allowed(PY, [o is None for o in self.owner], self.over)
        return tuple(Mark(c) for c in range(self.rules.cells) if may[c])

    def legal(self) -> tuple[Mark, ...]:
        """The legal moves, by cell."""
        return self._legal

    def refusal(self, action: Mark) -> str | None:
        """The rule a move breaks (over-no-action, then classical-board, then classical-cell-empty),
        None if legal."""
        if self.over:
            return "over-no-action"
        if not 0 <= action.cell < self.rules.cells:
            return "classical-board"
        return "classical-cell-empty" if self.owner[action.cell] is not None else None

    def play(self, action: Mark) -> Position:
        """The position after a legal move."""
        c, p = action.cell, self.mover
        owner = (*self.owner[:c], p, *self.owner[c + 1:])
        number = (*self.number[:c], self.move, *self.number[c + 1:])
        won = completes(PY, self.rules, [o == p for o in owner])
        return Position(self.rules, owner, number, p if won else None)

    @property
    def scores(self) -> tuple[Fraction, Fraction]:
        """The points of x and o: 0 each until the end (rule score-at-end)."""
        if not self.over:
            return Fraction(0), Fraction(0)
        x, o = points(PY, self.winner == "x", self.winner == "o")
        return Fraction(x), Fraction(o)

    def key(self) -> tuple[Any, ...]:
        """The marks, the same for every image of the position under a symmetry of the rules."""
        shown = tuple(o or "." for o in self.owner)
        return min(pick(shown) for pick in self.rules.pick), self.winner

    def state_json(self, variant: str) -> dict[str, Any]:
        """The v1 state (spec/schema/state.schema.json) of a classical game."""
        x, o = self.scores
        return {"variant": variant,
                "board": [f"{p}{k}" if p is not None else []
                          for p, k in zip(self.owner, self.number, strict=True)],
                "to_move": None if self.over else self.mover, "phase": "over" if self.over else "place",
                "move": self.move, "cycle": None, "over": self.over, "scores": {"x": str(x), "o": str(o)}}
