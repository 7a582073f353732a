"""The quantum family (Goff's quantum tic-tac-toe and its variants) behind the Family interface."""

from __future__ import annotations

import random
from types import MappingProxyType
from typing import Any

from ..family import AnyAction, GameState
from ..notation import Record
from ..players import PLAYERS
from ..svg import board_svg
from ..text import board_text, status_line
from ..variant import Ruleset
from .engine import Measure, Place, State, playout, quantum_action, quantum_state
from .notation import state_json, to_notation


class QuantumFamily:
    """Spooky marks in two cells, cycles measured into classical marks (rules place-open to
    score-at-end)."""

    name = "quantum"
    title = "quantum family"
    action_types: tuple[type[AnyAction], ...] = (Place, Measure)
    players = tuple(PLAYERS)
    scope = "common"
    vectors = ""
    tools = MappingProxyType({"cases": "qttt.quantum.cases", "page": "qttt.docgen.pages:ruleset_page",
             "rulebook": "qttt.docgen.rulebook:QUANTUM_BOOK",
             "play": "qttt.quantum.play:play", "check": "verify.quantum.check:check",
             "frameworks": "qttt.quantum.frameworks:codec",
             "core": "qttt.quantum.compiled"})

    def initial(self, rs: Ruleset) -> GameState:
        return State.initial(rs)

    def side(self, rs: Ruleset) -> int:
        return rs.board

    def playout(self, rs: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
        actions, final = playout(rs, rng)
        return list[AnyAction](actions), final

    def state_to_json(self, state: GameState, variant: str) -> dict[str, Any]:
        return state_json(quantum_state(state), variant)

    def board_text(self, state: GameState, colour: bool) -> str:
        return board_text(quantum_state(state), colour)

    def status_line(self, state: GameState) -> str:
        return status_line(quantum_state(state))

    def svg(self, state: GameState, size: float | None, caption: str | None) -> str:
        return board_svg(quantum_state(state), size, caption)

    def notation(self, variant: str, actions: tuple[AnyAction, ...]) -> str | None:
        return to_notation(Record(variant, tuple(quantum_action(a) for a in actions)))


FAMILY = QuantumFamily()
