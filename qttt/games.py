"""The game families behind one entry point: start, replay and play out any ruleset.

A ruleset's `game` parameter picks the engine: quantum (qttt.engine) or nested-classical
(qttt.nested). Both states offer legal_actions, apply (any family's action: one of another
family is a RecordError), over, to_move, move, phase, scores and key.
"""

from __future__ import annotations

import random

from .engine import Action, AnyAction, State, playout
from .errors import RecordError
from .nested import Mark, NestedState, nested_playout
from .variant import NESTED, Ruleset

GameState = State | NestedState


def start(ruleset: Ruleset) -> GameState:
    """The initial state of any ruleset, from its game family."""
    if ruleset.game == NESTED:
        return NestedState.initial(ruleset)
    return State.initial(ruleset)


def random_game(ruleset: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
    """One game of uniformly random legal actions of any family: its actions and final state."""
    if ruleset.game == NESTED:
        marks, final = nested_playout(ruleset, rng)
        return list[AnyAction](marks), final
    actions, state = playout(ruleset, rng)
    return list[AnyAction](actions), state


def quantum_state(state: GameState) -> State:
    """`state` as a quantum State; RecordError (record-variant) for a state of another family."""
    if not isinstance(state, State):
        raise RecordError("record-variant", f"a {state.ruleset.game} state where a quantum one is needed")
    return state


def quantum_action(action: AnyAction) -> Action:
    """`action` as a quantum action; RecordError (record-format) for a nested-classical mark."""
    if isinstance(action, Mark):
        raise RecordError("record-format", "a quantum game takes place and measure actions, not mark")
    return action
