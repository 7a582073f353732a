"""The classical family behind the Family interface: n×n tic-tac-toe, k in a row winning."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any
from xml.sax.saxutils import escape

from ..family import AnyAction, CorePosition, Family, GameState, Mark, Rollout
from ..games import replay_actions
from ..marks import MarkFamily
from ..ruleset import Ruleset
from ..svg import GRID, INK, document, num
from ..text import COLOURS, paint
from ..variant import load_ruleset
from .engine import STATE, ClassicalState, classical_playout

STATE_JSON_COVER = STATE.cover("qttt.classical.family:ClassicalFamily.state_to_json",
                               kept={"marks": "as each cell's mark", "ply": "as each mark's number (x1, o4)"})


def _state(state: GameState) -> ClassicalState:
    assert isinstance(state, ClassicalState)
    return state


def status(state: ClassicalState) -> str:
    """Who moves next, or the result."""
    if state.over:
        how = f"{state.winner} completes a line" if state.winner else "a full board without a line"
        s = state.scores
        return f"game over: {how}; x {s['x']}, o {s['o']}"
    return f"{state.to_move} to move {state.move}"


def text(state: ClassicalState, colour: bool) -> str:
    """The board with cell numbers from 0 on empty cells, then the status line."""
    n = state.ruleset.board
    width = len(str(n * n - 1))
    rows = []
    for r in range(n):
        cells = []
        for c in range(r * n, r * n + n):
            mark = state.board[c]
            cells.append(paint(mark[0].upper().rjust(width), COLOURS[mark[0]], colour) if mark
                         else str(c).rjust(width))
        rows.append(" " + " | ".join(cells))
    rule = "\n" + "+".join(["-" * (width + 2)] * n)[:-1] + "\n"
    return rule.join(rows) + "\n" + status(state)


def svg(state: ClassicalState, size: float, caption: str | None) -> str:
    """The board as SVG: a grid and each mark as its player's letter."""
    n = state.ruleset.board
    cell = size / n
    body = [f'<g class="classical" data-variant="{escape(state.ruleset.canonical)}">']
    for i in range(1, n):
        p = num(4 + i * cell)
        body.append(f'<line x1="{p}" y1="4" x2="{p}" y2="{num(4 + size)}" stroke="{GRID}" stroke-width="2"/>')
        body.append(f'<line x1="4" y1="{p}" x2="{num(4 + size)}" y2="{p}" stroke="{GRID}" stroke-width="2"/>')
    for c, mark in enumerate(state.board):
        if mark:
            x, y = 4 + (c % n + 0.5) * cell, 4 + (c // n + 0.75) * cell
            body.append(f'<text class="mark {mark[0]}" data-mark="{mark}" x="{num(x)}" y="{num(y)}" '
                        f'font-size="{num(cell * 0.7)}" text-anchor="middle" fill="{INK[mark[0]]}">'
                        f"{mark[0].upper()}</text>")
    body.append("</g>")
    return document(size + 8, size + 8, caption or f"board of {state.ruleset.canonical}", body)


class ClassicalFamily(MarkFamily):
    """Classical tic-tac-toe on an n×n board, k in a row winning (rules classical-board to
    classical-score)."""

    name = "classical"
    title = "classical family (n×n tic-tac-toe, k in a row)"
    action_types: tuple[type[AnyAction], ...] = (Mark,)
    players: tuple[str, ...] = ("random", "greedy", "mcts")
    scope = "classical"
    vectors = "classical"
    award_rules: Mapping[str, str] = MappingProxyType({})
    position_state = STATE
    tools: Mapping[str, str] = MappingProxyType({
             "cases": "qttt.classical.cases", "frameworks": "qttt.classical.frameworks:codec",
             "check": "verify.classical.check:check_classical", "catalogue": "verify.classical.catalogue"})

    def initial(self, rs: Ruleset) -> GameState:
        return ClassicalState.initial(rs)

    def side(self, rs: Ruleset) -> int:
        return rs.board

    def playout(self, rs: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
        moves, final = classical_playout(rs, rng)
        return list[AnyAction](moves), final

    def state_to_json(self, state: GameState, variant: str) -> dict[str, Any]:
        """The v1 state (`STATE_JSON_COVER`)."""
        s = _state(state)
        return {"variant": variant, "board": [m if m is not None else [] for m in s.board],
                "to_move": s.to_move, "phase": s.phase, "move": s.move, "cycle": None, "over": s.over,
                "scores": {p: str(v) for p, v in s.scores.items()}}

    def board_text(self, state: GameState, colour: bool) -> str:
        return text(_state(state), colour)

    def status_line(self, state: GameState) -> str:
        return status(_state(state))

    def svg(self, state: GameState, size: float | None, caption: str | None) -> str:
        return svg(_state(state), size or 80.0 * state.ruleset.board, caption)

    def score_rows(self, state: GameState) -> list[dict[str, Any]]:
        return []

    def rollout(self, rs: Ruleset, core: str) -> Rollout | None:
        return None

    def core_state_json(self, pos: CorePosition, variant: str,
                        actions: Sequence[AnyAction]) -> dict[str, Any]:
        """The family has no compiled core: the engine's state after the same actions."""
        state = replay_actions(self.initial(load_ruleset(variant)), actions)
        return self.state_to_json(state, variant)


FAMILY: Family = ClassicalFamily()
