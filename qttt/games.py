"""Any ruleset through its family (qttt.family): start, replay and play out a game of any family.

A ruleset's `game` parameter picks the family; these functions never ask which one it is.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from typing import TypeVar

from .errors import IllegalAction, RecordError
from .family import AnyAction, GameState, family_of
from .ruleset import Ruleset

S = TypeVar("S", bound=GameState)


def new_game(ruleset: Ruleset) -> GameState:
    """The initial state of any ruleset, from its game family."""
    return family_of(ruleset).initial(ruleset)



def random_game(ruleset: Ruleset, rng: random.Random) -> tuple[list[AnyAction], GameState]:
    """One game of uniformly random legal actions of any family: its actions and final state."""
    return family_of(ruleset).playout(ruleset, rng)


def replay_actions(state: S, actions: Iterable[object]) -> S:
    """Apply actions in order to a state of any game family; the error carries the failing
    index as `.index`."""
    for i, act in enumerate(actions):
        try:
            state = state.apply(act)  # type: ignore[assignment]  # a family's apply keeps its type
        except (IllegalAction, RecordError) as e:
            e.index = i
            raise
    return state
