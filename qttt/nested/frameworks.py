"""The nested-classical family for game frameworks (qttt.interop): a mark in cell c is c; the
observation planes; the checker's score range; one move per cell at most."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from ..family import AnyAction, GameState, Mark
from ..interop import Codec, Range
from ..marks import mark_text
from ..ruleset import Ruleset
from ..vocabulary import Component
from .engine import NestedState


def codec(rs: Ruleset) -> Codec:
    """The framework view of a nested-classical ruleset."""
    side = rs.board * rs.board
    cells = side * side

    def encode(action: AnyAction) -> int:
        if isinstance(action, Mark):
            return action.cell
        raise ValueError(f"{action!r} is not a nested-classical action")

    def decode(code: int) -> AnyAction | None:
        return Mark(code) if 0 <= code < cells else None

    def planes(state: GameState) -> list[int]:
        """x's marks, o's marks, the legal cells; a bonus move; x to act."""
        assert isinstance(state, NestedState)
        out = [0] * (5 * cells)
        for c, mark in enumerate(state.marks):
            if mark is not None:
                out[(0 if mark[0] == "x" else 1) * cells + c] = 1
        for a in state.legal_actions():
            out[2 * cells + a.cell] = 1
        for plane, on in ((3, state.bonus), (4, state.to_move == "x")):
            if on:
                out[plane * cells:(plane + 1) * cells] = [1] * cells
        return out

    def points(state: GameState) -> tuple[Fraction, Fraction]:
        return state.scores["x"], state.scores["o"]

    return Codec(cells, encode, decode, mark_text, (5, side, side), planes, points,
                 partial(_nested_range, rs), _nested_sums(rs.scoring), cells)


def _nested_range(rs: Ruleset) -> Range:
    """The checker's range of a player's points, won and drawn games together."""
    from verify.nested.check import points_range  # the checker's computation, when asked for

    (won_low, won_high), (drawn_low, drawn_high) = points_range(rs, True), points_range(rs, False)
    low, high = min(won_low, drawn_low), max(won_high, drawn_high)
    return low, high, low, high


def _nested_sums(scoring: tuple[Component, ...]) -> frozenset[Fraction] | None:
    """x + o of a won game (the win points) and of each drawn result; None when block counts
    decide a drawn game's total (draw-blocks)."""
    won = sum((c.get("points") for c in scoring if c.award == "win"), Fraction(0))
    drawn = Fraction(0)
    for c in scoring:
        if c.award == "draw-blocks":
            return None
        if c.award == "draw-majority":
            majority = {c.get("more") + c.get("fewer"), 2 * c.get("equal")}
            if len(majority) != 1:
                return None
            drawn += majority.pop()
    return frozenset({won, drawn})
