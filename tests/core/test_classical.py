"""The classical family (n×n tic-tac-toe, k in a row), the worked example of adding a family:
its engine against the naive reference model, its place behind the family interface, its suite."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import Any

import pytest
from classical_reference import RefClassical
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

import qttt
from qttt import Mark, RecordError, Ruleset, VariantError, builtin_names, load_ruleset, new_game
from qttt.classical.engine import ClassicalState
from qttt.conformance.perft import perft_counts
from qttt.conformance.suite import build_suite
from qttt.conformance.validator import Validator, load_schema
from qttt.errors import IllegalAction
from qttt.family import family_names, family_of
from qttt.notation import action_from_json, action_to_json, state_to_json


def classical(n: int = 3, k: int = 0) -> Ruleset:
    return load_ruleset(f"qttt(game=classical,board={n},end_line={k})")


@st.composite
def games(draw: st.DrawFn) -> tuple[Ruleset, list[dict[str, Any]]]:
    """A classical ruleset (board 2 to 5, k 0 to n) and actions: mostly legal-looking marks, some
    off the board, some of another family."""
    n = draw(st.integers(2, 5))
    k = draw(st.integers(0, n))
    cell = st.integers(-1, n * n)
    action = st.one_of(cell.map(lambda c: {"mark": c}), st.just({"place": [0, 1]}))
    return classical(n, k), draw(st.lists(action, max_size=3 * n * n))


@settings(max_examples=examples(300), deadline=None)
@given(games())
def test_engine_agrees_with_the_naive_model(game: tuple[Ruleset, list[dict[str, Any]]]) -> None:
    rs, actions = game
    state = new_game(rs)
    ref = RefClassical(rs.board, rs.rules.end_line, "v")
    for action in actions:
        assert state_to_json(state, "v") == ref.state()
        assert [action_to_json(a) for a in state.legal_actions()] == ref.legal()
        broken = ref.apply(action)
        try:
            state = state.apply(action_from_json(action))
        except (IllegalAction, RecordError) as e:
            assert e.rule == broken
        else:
            assert broken is None
    assert state_to_json(state, "v") == ref.state()


def test_line_length_and_draw() -> None:
    s = new_game(classical())
    for c in (0, 3, 1, 4):
        s = s.apply(Mark(c))
    assert not s.over
    s = s.apply(Mark(2))  # x: 0 1 2
    assert s.over and s.scores == {"x": 1, "o": 0} and s.legal_actions() == ()
    short = new_game(classical(4, 2)).apply(Mark(0)).apply(Mark(15)).apply(Mark(5))  # x: 0 5 diagonal
    assert short.over and isinstance(short, ClassicalState) and short.winner == "x"
    draw = new_game(classical())
    for c in (0, 1, 2, 4, 3, 5, 7, 6, 8):  # x o x / x o o / o x x: no line
        draw = draw.apply(Mark(c))
    assert draw.over and draw.scores == {"x": Fraction(1, 2), "o": Fraction(1, 2)}


def test_perft_of_tic_tac_toe() -> None:
    # no line before move 5: 9·8·7·6; then the known 9·8·7·6·5 = 15120 and the wins at move 5
    assert perft_counts(new_game(classical()), 5) == [9, 72, 504, 3024, 15120]


@pytest.mark.slow
def test_every_game_of_tic_tac_toe() -> None:
    """The well-known count of complete games of 3×3 tic-tac-toe: 255,168."""
    def games(s: Any) -> int:
        return 1 if s.over else sum(games(s.apply(a)) for a in s.legal_actions())
    assert games(new_game(classical())) == 255_168


def test_every_ruleset_starts_through_new_game() -> None:
    names = [*builtin_names(None), "qttt(game=classical)"]
    families = {family_of(load_ruleset(n)).name for n in names}
    assert families == set(family_names()) == {"quantum", "nested-classical", "classical"}
    for name in names:
        rs = load_ruleset(name)
        actions, final = qttt.random_game(rs, random.Random(7))
        assert qttt.replay_actions(new_game(rs), actions) == final
        assert json.loads(json.dumps(state_to_json(final)))["over"] == final.over


def test_its_parameters_are_its_own() -> None:
    with pytest.raises(VariantError, match="measurer does not apply to game = \"classical\""):
        load_ruleset("qttt(game=classical,measurer=creator)")
    with pytest.raises(VariantError, match="end_line = 4"):
        classical(3, 4)


def test_its_suite_validates_and_cites_its_rules() -> None:
    suite = build_suite(classical(), "tictactoe")
    assert Validator(load_schema("vectors.schema.json")).errors(suite) == []
    cited = {r for case in suite["cases"] for r in case["spec_ref"]}
    assert {r for r in suite["rules"] if r.startswith("classical-")} <= cited | {"classical-full"}
    assert suite["perft"][0]["counts"][:2] == [9, 72]
