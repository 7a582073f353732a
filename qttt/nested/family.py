"""The nested-classical family (Intelligent Tic-Tac-Toe and its editions) behind the Family interface."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, cast

from ..family import AnyAction, CorePosition, Family, GameState, Mark, Rollout
from ..marks import MarkFamily
from ..ruleset import Ruleset
from . import compiled as nested_core
from .engine import AWARD_RULES, STATE, NestedState, nested_playout
from .svg import nested_svg
from .text import nested_status, nested_text


def _state(state: GameState) -> NestedState:
    assert isinstance(state, NestedState)
    return state


STATE_JSON_COVER = STATE.cover(
    "qttt.nested.family:state_json",
    kept={"ply": "as each mark's number (x1, o12)", "masks": "as each mark's player", "extra": "as bonus",
          "player": "as to_move",
          "last": "as target, the open blocks it sends the next move to: all the rules read of it (rules "
                  "nested-route, nested-free-move)"})


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


def core_state_json(pos: CorePosition, variant: str, actions: Sequence[AnyAction]) -> dict[str, Any]:
    """The v1 state of a position the compiled nested core holds (its view: qttt.nested.compiled):
    each mark's player from the core, its number from the order of the moves applied."""
    core_pos = cast(Any, pos)
    v = core_pos.view()
    number = {a.cell: i for i, a in enumerate(actions, start=1) if isinstance(a, Mark)}
    board: list[Any] = [f"{'x' if v.x >> c & 1 else 'o'}{number[c]}" if (v.x | v.o) >> c & 1 else []
                        for c in range(core_pos.core.cells)]
    return {
        "variant": variant,
        "board": board,
        "to_move": v.to_move,
        "phase": "over" if v.over else "place",
        "move": v.move,
        "cycle": None,
        "over": v.over,
        "scores": {"x": str(v.scores[0]), "o": str(v.scores[1])},
        "blocks": list(v.blocks),
        "target": list(v.target) if v.target is not None else None,
        "bonus": v.bonus,
    }


class NestedFamily(MarkFamily):
    """Classical games on an n×n grid of n×n blocks (rule nested-board)."""

    name = "nested-classical"
    title = "nested-classical family (Intelligent Tic-Tac-Toe)"
    action_types: tuple[type[AnyAction], ...] = (Mark,)
    players: tuple[str, ...] = ("random",)
    scope = "nested-classical"
    vectors = "nested"
    award_rules: Mapping[str, str] = MappingProxyType(AWARD_RULES)
    position_state = STATE
    tools: Mapping[str, str] = MappingProxyType({
             "cases": "qttt.nested.cases", "page": "qttt.nested.pages:nested_ruleset_page",
             "rulebook": "qttt.nested.rulebook:BOOK",
             "play": "qttt.nested.play:play", "check": "verify.nested.check:check_nested",
             "catalogue": "verify.nested.catalogue",
             "frameworks": "qttt.nested.frameworks:codec",
             "core": "qttt.nested.compiled", "tally": "qttt.nested.analysis:tally"})

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

    def score_rows(self, state: GameState) -> list[dict[str, Any]]:
        blocks = _state(state).blocks
        return [{"what": "blocks won", "x": str(blocks.count("x")), "o": str(blocks.count("o")),
                 "x_patterns": [], "o_patterns": []}]

    def rollout(self, rs: Ruleset, core: str) -> Rollout | None:
        if not nested_core.use_compiled(rs, core):
            return None
        fast = nested_core.core_for(rs)
        return lambda state, rng: fast.rollout(_state(state), rng)

    def core_state_json(self, pos: CorePosition, variant: str,
                        actions: Sequence[AnyAction]) -> dict[str, Any]:
        return core_state_json(pos, variant, actions)


FAMILY: Family = NestedFamily()
