"""The nested-classical family (Intelligent Tic-Tac-Toe and its editions) behind the Family interface."""

from __future__ import annotations

import random
from types import MappingProxyType
from typing import Any

from ..family import AnyAction, GameState, Mark
from ..variant import Ruleset
from .engine import NestedState, nested_playout
from .svg import nested_svg
from .text import nested_status, nested_text


def _state(state: GameState) -> NestedState:
    assert isinstance(state, NestedState)
    return state


def state_json(state: NestedState, variant: str) -> dict[str, Any]:
    """The v1 state of a nested-classical game: a cell is its mark (x1, o2, …) or [] when empty;
    `blocks` gives each block's status, `target` the blocks the next move must use (null: any
    open block), `bonus` whether the next move is a bonus move; `cycle` is always null."""
    return {
        "variant": variant,
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


class NestedFamily:
    """Classical games on an n×n grid of n×n blocks (rule nested-board)."""

    name = "nested-classical"
    title = "nested-classical family (Intelligent Tic-Tac-Toe)"
    action_types: tuple[type[AnyAction], ...] = (Mark,)
    players = ("random",)
    scope = "nested-classical"
    vectors = "nested"
    tools = MappingProxyType({"cases": "qttt.nested.cases", "page": "qttt.nested.pages:nested_ruleset_page",
             "rulebook": "qttt.nested.rulebook:BOOK",
             "play": "qttt.nested.play:play", "check": "verify.nested.check:check_nested",
             "frameworks": "qttt.nested.frameworks:codec",
             "core": "qttt.nested.compiled"})

    def initial(self, rs: Ruleset) -> GameState:
        return NestedState.initial(rs)

    def side(self, rs: Ruleset) -> int:
        return rs.board * rs.board

    def playout(self, rs: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
        moves, final = nested_playout(rs, rng)
        return list[AnyAction](moves), final

    def state_to_json(self, state: GameState, variant: str) -> dict[str, Any]:
        return state_json(_state(state), variant)

    def board_text(self, state: GameState, colour: bool) -> str:
        return nested_text(_state(state), colour)

    def status_line(self, state: GameState) -> str:
        return nested_status(_state(state))

    def svg(self, state: GameState, size: float | None, caption: str | None) -> str:
        return nested_svg(_state(state), size or 480, caption)

    def notation(self, variant: str, actions: tuple[AnyAction, ...]) -> str | None:
        return None


FAMILY = NestedFamily()
