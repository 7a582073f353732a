"""The engine's legality and collapse properties explored symbolically: Hypothesis with the
CrossHair backend (hypothesis-crosshair), which runs the engine on symbolic integers and asks Z3
for inputs that take new branches. A lane of its own (`pytest -m crosshair`), bounded by
max_examples paths per test.

Explored: State.apply and State.legal_actions, hence Board.check, _check_cell, _check_place,
_check_measure, legal, place, place_numbered, measure and settle, on the initial position, a
position with live moves and positions with a pending 2-cycle and 3-cycle, under three rulesets
(first-line, vanish, full board); cells range over -2..10 (off the board included)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qttt import IllegalAction, RecordError, load_ruleset
from qttt.quantum.engine import Measure, Place, State

pytest.importorskip("hypothesis_crosshair_provider")

pytestmark = [pytest.mark.crosshair, pytest.mark.slow]

RULESETS = ("wikipedia", "russian-unstable", "kumar")
PREFIXES = ((), (Place(0, 1), Place(1, 2)), (Place(0, 1), Place(0, 1)),
            (Place(0, 1), Place(1, 2), Place(0, 2)))
PATHS = 60  # CrossHair paths per test: about half a minute each

symbolic = settings(backend="crosshair", max_examples=PATHS, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck))


def position(which: int, prefix: int) -> State:
    state = State.initial(load_ruleset(RULESETS[which]))
    for act in PREFIXES[prefix]:
        state = state.apply(act)
    return state


@symbolic
@given(st.integers(0, 2), st.integers(0, 3), st.integers(-2, 10), st.integers(-2, 10), st.booleans())
def test_apply_accepts_exactly_the_legal_actions(which: int, prefix: int, a: int, b: int,
                                                 measure: bool) -> None:
    state = position(which, prefix)
    act = Measure(a) if measure else Place(a, b)
    normal = act if measure else Place(min(a, b), max(a, b))
    try:
        after = state.apply(act)
    except (IllegalAction, RecordError):
        assert normal not in state.legal_actions()
        return
    assert normal in state.legal_actions()
    assert after.move == state.move + (0 if measure else 1)


@symbolic
@given(st.integers(0, 2), st.integers(2, 3), st.integers(-2, 10))
def test_a_legal_measurement_makes_the_pending_component_classical(which: int, prefix: int,
                                                                   cell: int) -> None:
    state = position(which, prefix)
    assert state.pending is not None
    component = state.component[state.edges[state.pending][0]]
    try:
        after = state.apply(Measure(cell))
    except IllegalAction:
        assert cell not in state.edges[state.pending]
        return
    assert after.pending is None and all(after.classical[c] for c in component)
    assert after.classical[cell] == state.pending


START = State.initial(load_ruleset("wikipedia"))


@symbolic
@given(st.integers(-2, 10), st.integers(-2, 10))
def test_the_first_placement_is_accepted_exactly_when_legal(a: int, b: int) -> None:
    try:
        START.apply(Place(a, b))
    except (IllegalAction, RecordError):
        assert Place(min(a, b), max(a, b)) not in START.legal_actions()
        return
    assert Place(min(a, b), max(a, b)) in START.legal_actions()


def test_the_lane_finds_a_planted_legality_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cell check that lets cell -2 through (as cell 0) is found: the lane can fail. The
    planted branch is probed on the first placement alone, where the 60 paths always reach it
    (across all positions and rulesets they sometimes did not)."""
    from qttt.quantum.engine import Board

    check_cell = Board._check_cell

    def lax(self: Board, c: object) -> int:
        return 0 if isinstance(c, int) and c == -2 else check_cell(self, c)
    monkeypatch.setattr(Board, "_check_cell", lax)
    with pytest.raises(AssertionError):
        test_the_first_placement_is_accepted_exactly_when_legal()
