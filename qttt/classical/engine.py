"""The rules engine of the classical family: n×n tic-tac-toe, k marks in a row winning.

Each step names the rule of spec/rules.toml it implements. `ClassicalState` is immutable: every
action makes a new one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..boardstate import Derived, Field, PositionState
from ..errors import IllegalAction, RecordError
from ..family import Mark
from ..geometry import lines
from ..ruleset import PerRuleset, Ruleset

PLAYERS = ("x", "o")
WIN, LOSS, HALF = Fraction(1), Fraction(0), Fraction(1, 2)


@dataclass(frozen=True)
class ClassicalRules:
    """A classical ruleset compiled for the engine: the board size and its winning lines as masks."""

    ruleset: Ruleset
    n: int
    cells: int
    lines: tuple[int, ...]  # rule classical-line: every k-in-a-row as a bitmask


def _compile_classical(rs: Ruleset) -> ClassicalRules:
    n = rs.board
    return ClassicalRules(rs, n, n * n, tuple(p.mask for p in lines(n, rs.rules.end_line)))


compile_classical = PerRuleset(_compile_classical)
"""The engine's view of a classical ruleset (built once per ruleset: `PerRuleset`)."""


STATE = PositionState("classical", fields=(
    Field("marks", "the cells of x and of o, as bitmasks", ("classical-turn", "classical-cell-empty",
                                                             "classical-line", "classical-full")),
    Field("ply", "per cell, the number of the move that marked it (0: empty); no rule reads it", ()),
), derived=(
    Derived("move", "the number of the next move", ("ply",)),
    Derived("winner", "the player holding a line, if any (the game ends at the first)", ("marks",)),
), fixed=("_r",))
"""The classical family's position state (`qttt.boardstate`): the attributes of `ClassicalState`."""
KEY_COVER = STATE.cover("qttt.classical.engine:ClassicalState.key", kept={"marks": "as is"},
                        forgotten={"ply": "no rule reads a mark's number: the player to move is x exactly "
                                          "when both have marked as many cells (rule classical-turn)"})


class ClassicalState:
    """An immutable position: `marks[p]` the cells of player p as a bitmask, `ply[c]` the number of
    the move that marked cell c (0: empty), `move` the next move's number, `winner` x, o or None."""

    __slots__ = ("_r", "marks", "move", "ply", "winner")

    def __init__(self, r: ClassicalRules, marks: tuple[int, int], ply: tuple[int, ...], winner: str | None,
                 ) -> None:
        self._r, self.marks, self.ply, self.winner = r, marks, ply, winner
        self.move = sum(1 for k in ply if k) + 1

    @classmethod
    def initial(cls, ruleset: Ruleset) -> ClassicalState:
        """The empty board, X to move (rule classical-turn)."""
        r = compile_classical(ruleset)
        return cls(r, (0, 0), (0,) * r.cells, None)

    @property
    def ruleset(self) -> Ruleset:
        return self._r.ruleset

    @property
    def over(self) -> bool:
        """Rules classical-line and classical-full: a line completed, or a full board."""
        return self.winner is not None or self.move > self._r.cells

    @property
    def phase(self) -> str:
        """place or over."""
        return "over" if self.over else "place"

    @property
    def to_move(self) -> str | None:
        """x or o; None when over."""
        return None if self.over else PLAYERS[(self.move - 1) % 2]

    @property
    def scores(self) -> dict[str, Fraction]:
        """Rule classical-score: 1 to the winner, 1/2 each for a draw (0 each until the end)."""
        if not self.over:
            return {"x": LOSS, "o": LOSS}
        if self.winner is None:
            return {"x": HALF, "o": HALF}
        return {p: WIN if p == self.winner else LOSS for p in PLAYERS}

    @property
    def score_notes(self) -> tuple[str, ...]:
        """No classical score rests on an unstated rule."""
        return ()

    @property
    def board(self) -> tuple[str | None, ...]:
        """Per cell: its mark (player and move number, such as x1 or o4), or None."""
        return tuple(f"{PLAYERS[(k - 1) % 2]}{k}" if k else None for k in self.ply)

    def legal_actions(self) -> tuple[Mark, ...]:
        """Every empty cell, in order (rule classical-cell-empty); none when the game is over."""
        if self.over:
            return ()
        taken = self.marks[0] | self.marks[1]
        return tuple(Mark(c) for c in range(self._r.cells) if not taken >> c & 1)

    def apply(self, action: object) -> ClassicalState:
        """The state after `action`; IllegalAction naming the rule it breaks, RecordError for an
        action of another family."""
        if not isinstance(action, Mark):
            kind = type(action).__name__.lower()
            raise RecordError("record-format", f"a classical game takes mark actions, not {kind}")
        if self.over:
            raise IllegalAction("over-no-action", "the game is over; no action is legal")
        c = action.cell
        if not 0 <= c < self._r.cells:
            raise IllegalAction("classical-board", f"cell {c} is not on the board (cells 0 to "
                                f"{self._r.cells - 1})")
        if (self.marks[0] | self.marks[1]) >> c & 1:
            raise IllegalAction("classical-cell-empty", f"cell {c} already holds a mark")
        p = (self.move - 1) % 2
        mine = self.marks[p] | 1 << c
        marks = (mine, self.marks[1]) if p == 0 else (self.marks[0], mine)
        ply = (*self.ply[:c], self.move, *self.ply[c + 1:])
        won = any(m & mine == m for m in self._r.lines if m >> c & 1)  # rule classical-line
        return ClassicalState(self._r, marks, ply, PLAYERS[p] if won else None)

    def key(self) -> tuple[Any, ...]:
        """Hashable identity of the position within its ruleset: its marks (`KEY_COVER`)."""
        return self.marks

    def fields(self) -> dict[str, Any]:
        """The declared position state (`STATE`), by field name."""
        return STATE.of(self)

    def chance_outcomes(self) -> tuple[tuple[Mark, Fraction], ...]:
        """Classical games have no chance turn."""
        return ()

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, ClassicalState) and self.ruleset.key() == other.ruleset.key()
                and self.marks == other.marks)

    def __hash__(self) -> int:
        return hash(self.marks)


def classical_playout(ruleset: Ruleset, rng: random.Random) -> tuple[list[Mark], ClassicalState]:
    """One game of uniformly random legal moves: its moves and final state."""
    state = ClassicalState.initial(ruleset)
    moves: list[Mark] = []
    while not state.over:
        legal = state.legal_actions()
        act = legal[int(rng.random() * len(legal))]
        moves.append(act)
        state = state.apply(act)
    return moves, state
