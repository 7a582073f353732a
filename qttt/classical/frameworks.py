"""The classical family for game frameworks (qttt.interop): a mark in cell c is c; the observation
planes; scores 0 to 1, summing to 1 (rule classical-score); one move per cell at most."""

from __future__ import annotations

from fractions import Fraction

from ..family import AnyAction, GameState, Mark
from ..interop import Codec
from ..marks import mark_text
from ..ruleset import Ruleset
from .engine import ClassicalState


def codec(rs: Ruleset) -> Codec:
    """The framework view of a classical ruleset."""
    n = rs.board
    cells = n * n

    def encode(action: AnyAction) -> int:
        if isinstance(action, Mark):
            return action.cell
        raise ValueError(f"{action!r} is not a classical action")

    def decode(code: int) -> AnyAction | None:
        return Mark(code) if 0 <= code < cells else None

    def planes(state: GameState) -> list[int]:
        """x's marks, o's marks, x to act."""
        assert isinstance(state, ClassicalState)
        out = [0] * (3 * cells)
        for c, mark in enumerate(state.board):
            if mark is not None:
                out[(0 if mark[0] == "x" else 1) * cells + c] = 1
        if state.to_move == "x":
            out[2 * cells:] = [1] * cells
        return out

    def points(state: GameState) -> tuple[Fraction, Fraction]:
        return state.scores["x"], state.scores["o"]

    zero, one = Fraction(0), Fraction(1)
    return Codec(cells, encode, decode, mark_text, (3, n, n), planes, points,
                 lambda: (zero, one, zero, one), frozenset({one}), cells)
