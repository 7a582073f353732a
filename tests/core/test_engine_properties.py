"""Property tests of the engine: Hypothesis over random rulesets and states, and a state machine
that plays the engine against the reference model (tests/support/reference.py) in lockstep."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples
from refbridge import ref_game

from qttt import IllegalAction, builtin_names, load_ruleset, with_params
from qttt.quantum.engine import Action, Measure, Place, State, playout
from qttt.quantum.game import compile_game
from qttt.quantum.strategies import (
    actions,
    builtin_rulesets,
    check_collapse,
    check_round_trips,
    cycle_count,
    make_state_machine,
    random_rulesets,
    rulesets,
    states,
)

EngineVersusBuiltins = make_state_machine(ref_game, builtin_rulesets())
EngineVersusBuiltins.TestCase.settings = settings(
    max_examples=examples(60), stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestEngineVersusBuiltins = pytest.mark.slow(EngineVersusBuiltins.TestCase)

EngineVersusRandom = make_state_machine(ref_game, random_rulesets(max_board=4))
EngineVersusRandom.TestCase.settings = settings(
    max_examples=examples(60), stateful_step_count=60, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestEngineVersusRandom = pytest.mark.slow(EngineVersusRandom.TestCase)


CHECK_ORDER = ("over-no-action", "collapse-chance", "measure-pending", "board-cells", "place-open",
               "place-distinct", "place-two-cycle", "measure-cell")


@given(states(rulesets()), st.data())
@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_apply_accepts_exactly_the_legal_actions(state: State, data: st.DataObject) -> None:
    """An action is accepted iff it (or its mirror) is in legal_actions(); a rejection names a
    rule of the check-order list and leaves the state as it was."""
    action = data.draw(actions(state))
    before = state.key()
    listed = state.legal_actions()
    mirror = Place(action.b, action.a) if isinstance(action, Place) else action
    try:
        state.apply(action)
    except IllegalAction as e:
        assert action not in listed and mirror not in listed
        assert e.rule in CHECK_ORDER
    else:
        assert action in listed or mirror in listed
    assert state.key() == before


@pytest.mark.parametrize("name", builtin_names())
def test_playouts_keep_invariants(name: str) -> None:
    """Random playouts: forest outside measure, one cycle inside, collapses, round trips, bound."""
    rs = load_ruleset(name)
    rng = random.Random(11)
    for _ in range(40):
        acts, final = playout(rs, rng)
        state = State.initial(rs)
        placements = 0
        for i, act in enumerate(acts):
            nxt = state.apply(act)
            if isinstance(act, Measure):
                check_collapse(state, act.cell, nxt)
            else:
                placements += 1
            state = nxt
            assert cycle_count(state) == (1 if state.phase == "measure" else 0), i
        assert state == final
        assert final.over
        assert placements <= compile_game(rs).length_bound
        check_round_trips(rs, name, tuple(acts), final)


def test_vanish_games_can_exceed_n_squared() -> None:
    """Vanishing marks let a game run past n² placements (hence the larger bound), never past it."""
    rs = load_ruleset("russian-unstable")
    assert compile_game(rs).length_bound == 9 + 7 + 5 + 3 + 1
    rng = random.Random(5)
    longest = max(sum(isinstance(a, Place) for a in playout(rs, rng)[0]) for _ in range(500))
    assert 9 < longest <= compile_game(rs).length_bound


# X1 {7,8} stays spooky; a 3-cycle on 0,1,2 and a 4-cycle on 3,4,5,6 collapse the rest.
DEADLOCK: list[Action] = [Place(7, 8), Place(0, 1), Place(1, 2), Place(0, 2), Measure(0),
            Place(3, 4), Place(4, 5), Place(5, 6), Place(3, 6), Measure(3)]


def test_deadlock_without_two_cycles() -> None:
    rs = with_params(load_ruleset("russian"), two_cycles=False)
    state = State.initial(rs)
    for act in DEADLOCK:
        state = state.apply(act)
    assert (state.phase, state.over, state.to_move, state.open_cells) == ("place", False, "x", (7, 8))
    assert state.legal_actions() == ()
    with pytest.raises(IllegalAction) as err:
        state.apply(Place(8, 7))
    assert err.value.rule == "place-two-cycle"


def test_deadlock_reached_by_random_play() -> None:
    """Random play without 2-cycles reaches a deadlock: not over, nothing legal."""
    rs = with_params(load_ruleset("russian"), two_cycles=False)
    rng = random.Random(3)
    finals = [playout(rs, rng)[1] for _ in range(300)]
    stuck = [f for f in finals if not f.over]
    assert stuck, "no deadlock in 300 random games"
    for f in stuck:
        assert f.legal_actions() == () and f.phase == "place"
        assert len(f.open_cells) == 2 and list(f.edges.values()) == [f.open_cells]
