"""The nested family's score range (verify.nested.check.points_range) is sound for every drawn ruleset,
negative points included: random games end inside it, and Z3 proves every end inside it (the
checker's scores claims), so the checker raises no false alarm."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.nested.engine import NestedState
from qttt.nested.strategies import nested_rulesets
from qttt.ruleset import Ruleset
from verify.nested.check import points_range
from verify.nested.proofs import prove


@settings(max_examples=examples(40), deadline=None)
@given(nested_rulesets(max_board=2), st.integers(0, 2**32 - 1))
def test_random_games_end_inside_the_range(rs: Ruleset, seed: int) -> None:
    rng = random.Random(seed)
    state, played = NestedState.initial(rs), []
    while not state.over and state.legal_actions():
        played.append(rng.choice(state.legal_actions()))
        state = state.apply(played[-1])
    low, high = points_range(rs, state.winner is not None)
    assert all(low <= v <= high for v in state.scores.values()), (state.scores, low, high)
    assert prove(rs, "scores").status == "proved", prove(rs, "scores")
