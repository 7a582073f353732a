"""Chance in the game model (rule collapse-chance) and the draw scoring (rule score-draw-second):
worked examples checked by hand and on the reference model (tests/support/reference.py, extended
from the rules text), the engine, the reference and the compiled core in lockstep on random chance
rulesets (Hypothesis), the seeded draw against the reference's own, records and notation, the
validation of p, and what `qttt play` shows."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples
from refbridge import ref_game, ref_replay

from qttt import IllegalAction, VariantError, action_to_json, load_ruleset, state_to_json
from qttt.chance import CHANCE, check_outcomes, draw
from qttt.cli import main
from qttt.notation import Record, record_from_json, record_to_json
from qttt.quantum import compiled
from qttt.quantum.analysis.count import encode
from qttt.quantum.engine import Action, Measure, Outcome, Place, State, playout
from qttt.quantum.family import core_state_json
from qttt.quantum.notation import from_notation, from_position, position, to_notation
from qttt.quantum.play import Game
from qttt.quantum.strategies import make_state_machine, random_rulesets
from qttt.testing.strategies import exact_numbers

MEASURER = "wikipedia(collapse=chance-measurer,p=3/4)"
SECOND = "wikipedia(collapse=chance-second,p=3/4)"
REASON = compiled.available()
SLOW = [HealthCheck.too_slow, HealthCheck.filter_too_much]
CHANCE_RULESETS = random_rulesets(max_board=4).filter(lambda rs: rs.rules.collapse != "choice")


def play(variant: str, actions: list[Action] | list[Place]) -> list[State]:
    """The engine's states along `actions`, each the reference model's state too."""
    rs = load_ruleset(variant)
    states = [State.initial(rs)]
    for act in actions:
        states.append(states[-1].apply(act))
    assert [state_to_json(s, variant) for s in states] == ref_replay(rs, [action_to_json(a) for a in actions],
                                                                     variant)
    return states


def refused(state: State, action: Action) -> str:
    with pytest.raises(IllegalAction) as err:
        state.apply(action)
    return err.value.rule


# x1 and o2 both in squares 1 and 2: o2 closes a 2-cycle, so x (the opponent of its creator) measures.
TWO_CYCLE: list[Action] = [Place(0, 1), Place(0, 1)]


def test_a_chance_measurement_names_a_cell_and_chance_decides() -> None:
    """chance-measurer, p = 3/4: x names square 1; the chance turn offers square 1 (3/4) and
    square 2 (1/4); the outcome square 2 puts o2 there, and x1 in square 1."""
    states = play(MEASURER, [*TWO_CYCLE, Measure(0), Outcome(1)])
    measuring, turn, after = states[2], states[3], states[4]
    assert (measuring.phase, measuring.to_move) == ("measure", "x")
    assert (turn.phase, turn.to_move, turn.cycle, turn.chosen) == ("chance", CHANCE, (0, 1), 0)
    assert turn.chance_outcomes() == ((Outcome(0), Fraction(3, 4)), (Outcome(1), Fraction(1, 4)))
    assert turn.legal_actions() == (Outcome(0), Outcome(1))
    assert state_to_json(turn)["chance"] == [{"action": {"outcome": 0}, "probability": "3/4"},
                                              {"action": {"outcome": 1}, "probability": "1/4"}]
    assert state_to_json(turn)["to_move"] == "chance"
    assert after.classical[:2] == (1, 2) and (after.phase, after.to_move) == ("place", "x")
    assert "chance" not in state_to_json(after)


def test_chance_second_lets_o_name_the_cell_whoever_measures() -> None:
    """chance-second: after o2 closes the cycle x would measure, but o names the cell."""
    states = play(SECOND, [*TWO_CYCLE, Measure(1), Outcome(1)])
    assert states[2].to_move == "o"
    assert states[3].chance_outcomes() == ((Outcome(0), Fraction(1, 4)), (Outcome(1), Fraction(3, 4)))
    assert states[4].classical[:2] == (1, 2)  # o2 lands in square 2 as o named it, x1 in square 1


def test_at_p_one_the_named_cell_is_certain_and_the_other_not_offered() -> None:
    states = play("wikipedia(collapse=chance-measurer,p=1)", [*TWO_CYCLE, Measure(1)])
    turn = states[-1]
    assert turn.chance_outcomes() == ((Outcome(1), Fraction(1)),) and turn.legal_actions() == (Outcome(1),)
    assert refused(turn, Outcome(0)) == "collapse-chance"


def test_at_p_one_half_the_name_changes_no_probability() -> None:
    rs = "wikipedia(collapse=chance-measurer)"
    for named in (0, 1):
        turn = play(rs, [*TWO_CYCLE, Measure(named)])[-1]
        assert [p for _, p in turn.chance_outcomes()] == [Fraction(1, 2)] * 2


def test_chance_turns_refuse_everything_but_an_offered_outcome() -> None:
    """Rule check-order: collapse-chance first (another action during a chance turn, an outcome
    when none is due), then board-cells, then collapse-chance for an outcome not offered."""
    states = play(MEASURER, [*TWO_CYCLE, Measure(0)])
    start, measuring, turn = states[0], states[2], states[3]
    assert refused(turn, Place(4, 5)) == "collapse-chance"
    assert refused(turn, Measure(0)) == "collapse-chance"
    assert refused(turn, Outcome(9)) == "board-cells"
    assert refused(turn, Outcome(4)) == "collapse-chance"
    assert refused(start, Outcome(0)) == "collapse-chance"
    assert refused(measuring, Outcome(0)) == "collapse-chance"
    game = ref_game(turn.ruleset)
    for act in [*TWO_CYCLE, Measure(0)]:
        game.apply(action_to_json(act))
    for act, rule in ((Place(4, 5), "collapse-chance"), (Outcome(9), "board-cells"),
                      (Outcome(4), "collapse-chance")):
        with pytest.raises(reference.RefIllegal) as err:
            game.apply(action_to_json(act))
        assert err.value.rule == rule


# A full board without a line: X in squares 1, 3, 4, 8, 9 and O in 2, 5, 6, 7 (2-cycles measured
# by x so that o's mark lands where o wants it, then the forced last square x9 in 9).
DRAWN: list[Action] = [Place(0, 1), Place(0, 1), Measure(1), Place(2, 4), Place(2, 4), Measure(4),
                       Place(3, 5), Place(3, 5), Measure(5), Place(6, 7), Place(6, 7), Measure(6),
                       Place(8, 8)]


def test_draw_second_moves_points_to_o_in_a_drawn_game() -> None:
    """Rule score-draw-second: wikipedia scores this board 0-0, a drawn game; draw_second = 1/2
    gives O 1/2 and X -1/2."""
    plain = play("wikipedia", DRAWN)[-1]
    assert plain.over and plain.scores == {"x": 0, "o": 0}
    final = play("wikipedia(draw_second=1/2)", DRAWN)[-1]
    assert final.scores == {"x": Fraction(-1, 2), "o": Fraction(1, 2)}


def test_draw_second_leaves_a_won_game_alone() -> None:
    win: list[Action] = [Place(0, 1), Place(0, 1), Measure(1), Place(3, 5), Place(3, 5), Measure(5),
                         Place(6, 7), Place(6, 7), Measure(7)]  # x in squares 1, 4, 7: a column
    assert play("wikipedia(draw_second=1/2)", win)[-1].scores == {"x": 1, "o": 0}


def test_records_hold_the_outcome_and_replay_it() -> None:
    acts = [*TWO_CYCLE, Measure(0), Outcome(1), Place(2, 3)]
    record = Record(MEASURER, tuple(acts))
    data = record_to_json(record)
    assert data["actions"][2:4] == [{"measure": 0}, {"outcome": 1}]
    assert record_from_json(data) == record
    text = to_notation(record)
    assert text == f"[{MEASURER}] X1:1-2 O2:1-2 O2@1 O2=2 X3:3-4"
    assert from_notation(text) == record
    assert record.replay() == play(MEASURER, acts)[-1]


def test_measure_and_outcome_are_different_actions() -> None:
    """One-cell actions compare by type: an outcome is never taken for a measurement."""
    assert Measure(0) != Outcome(0) and Outcome(0) not in (Measure(0), Measure(1))
    assert len({Measure(3), Outcome(3)}) == 2


def test_the_position_string_holds_the_named_cell() -> None:
    turn = play(MEASURER, [*TWO_CYCLE, Measure(1)])[-1]
    text = position(turn)
    assert text.endswith(" @2")
    again = from_position(text)
    assert again == turn and again.chance_outcomes() == turn.chance_outcomes()


@pytest.mark.parametrize(("name", "message"), [
    ("wikipedia(p=3/4)", 'p = 3/4 does not apply with collapse = "choice"; it needs collapse = '
                         '"chance-measurer" or "chance-second"'),
    ("wikipedia(collapse=chance-second,p=1/4)", "allowed: an exact number from 1/2 to 1"),
    ("wikipedia(collapse=chance-second,p=0.75)", "in a name: an integer or a reduced fraction such as 3/4"),
    ("wikipedia(collapse=chance-second,p=6/8)", "in a name: an integer or a reduced fraction such as 3/4"),
    ("wikipedia(collapse=chance-second,measurer=creator)",
     'measurer = creator does not apply with collapse = "chance-second"'),
    ("wikipedia(collapse=chance,p=3/4)", 'allowed: "choice", "chance-measurer", "chance-second"'),
    ("wikipedia(draw_second=-1)", "allowed: an exact number from 0 to 100"),
])
def test_chance_parameters_are_refused_with_precise_messages(name: str, message: str) -> None:
    with pytest.raises(VariantError) as err:
        load_ruleset(name)
    assert message in err.value.message and err.value.rule == "variant-file"


def test_variant_files_take_p_exactly(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[variant]\nname = "g"\nextends = "wikipedia"\n[rules]\ncollapse = "chance-second"\n'
                    'p = "0.75"\n')
    assert load_ruleset(str(good)).canonical == SECOND
    bad = tmp_path / "bad.toml"
    bad.write_text('[variant]\nname = "b"\nextends = "wikipedia"\n[rules]\ncollapse = "chance-second"\n'
                   'p = 0.75\n')
    with pytest.raises(VariantError) as err:
        load_ruleset(str(bad))
    assert "rules.p = 0.75 is not allowed (a float is not exact)" in err.value.message
    inherited = tmp_path / "inherited.toml"
    inherited.write_text(f'[variant]\nname = "i"\nextends = "{good.name}"\n[rules]\ncollapse = "choice"\n')
    with pytest.raises(VariantError) as err:
        load_ruleset(str(inherited))
    assert "p = 3/4 (inherited from" in err.value.message


# -- the seeded draw ------------------------------------------------------------------------------

@given(exact_numbers(Fraction(0), Fraction(1)), st.integers(0, 2 ** 32))
def test_the_draw_is_the_references_draw(p: Fraction, seed: int) -> None:
    """qttt.chance.draw picks the outcome the reference's own reading of the order picks, from the
    same generator, and leaves the generator where the reference leaves it."""
    outcomes = [(c, q) for c, q in ((2, p), (7, 1 - p)) if q > 0]
    mine, theirs = random.Random(seed), random.Random(seed)
    got = draw([(Outcome(c), q) for c, q in outcomes], mine)
    assert got == Outcome(reference.chance_draw(outcomes, theirs))
    assert mine.random() == theirs.random()


def test_the_draw_follows_the_probabilities() -> None:
    rng = random.Random(1)
    outcomes = ((Outcome(0), Fraction(3, 4)), (Outcome(1), Fraction(1, 4)))
    assert check_outcomes(outcomes) is None
    hits = sum(draw(outcomes, rng) == Outcome(0) for _ in range(4000))
    assert 2850 < hits < 3150  # 3000 expected; 5 standard deviations are about 137


# -- engine, reference and compiled core in lockstep -------------------------------------------------

EngineVersusChance = make_state_machine(ref_game, CHANCE_RULESETS)
EngineVersusChance.TestCase.settings = settings(
    max_examples=examples(40), stateful_step_count=50, deadline=None, suppress_health_check=SLOW)
TestEngineVersusChance = EngineVersusChance.TestCase


@settings(max_examples=examples(40), deadline=None, suppress_health_check=SLOW)
@given(CHANCE_RULESETS, st.integers(0, 10_000))
def test_random_chance_games_replay_on_the_reference(rs: object, seed: int) -> None:
    """A seeded random game of a chance ruleset: every state of the engine is the reference's."""
    assert hasattr(rs, "canonical")
    acts, final = playout(rs, random.Random(seed))  # type: ignore[arg-type]
    assert any(isinstance(a, Outcome) for a in acts) or not any(isinstance(a, Measure) for a in acts)
    states = ref_replay(rs, [action_to_json(a) for a in acts], "v")  # type: ignore[arg-type]
    assert states[-1] == state_to_json(final, "v")


@pytest.mark.skipif(REASON is not None, reason=f"compiled core unavailable: {REASON}")
@settings(max_examples=examples(40), deadline=None, suppress_health_check=SLOW)
@given(CHANCE_RULESETS, st.integers(0, 10_000))
def test_the_compiled_core_plays_chance_as_the_engine(rs: object, seed: int) -> None:
    """Both cores play the same seeded games (actions, chance draws, final points); along each
    game the core holds the engine's state, chance outcomes and legal actions."""
    core = compiled.core_for(rs)  # type: ignore[arg-type]
    n2 = core.cells
    fast, slow = random.Random(seed), random.Random(seed)
    for codes, x, o, phase, _ in core.games(fast, 5):
        acts, final = playout(rs, slow)  # type: ignore[arg-type]
        assert codes == [encode(a, n2) for a in acts]
        assert (phase, core.points(x), core.points(o)) == (final.phase, final.scores["x"], final.scores["o"])
        state, pos = State.initial(rs), core.position()  # type: ignore[arg-type]
        for act in acts:
            state = state.apply(act)
            pos.apply(act)
            assert core_state_json(pos, "v") == state_to_json(state, "v")  # type: ignore[arg-type]
            assert pos.chance_outcomes() == state.chance_outcomes()
            assert pos.legal() == list(state.legal_actions())
    assert fast.random() == slow.random()


@pytest.mark.skipif(REASON is not None, reason=f"compiled core unavailable: {REASON}")
def test_the_compiled_core_refuses_as_the_engine_at_a_chance_turn() -> None:
    rs = load_ruleset(MEASURER)
    pos = compiled.core_for(rs).position([*TWO_CYCLE, Measure(0)])
    state = play(MEASURER, [*TWO_CYCLE, Measure(0)])[-1]
    for act in (Place(4, 5), Measure(0), Outcome(9), Outcome(4)):
        with pytest.raises(IllegalAction) as err:
            pos.apply(act)
        assert err.value.rule == refused(state, act)


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_qttt_random_gives_the_same_chance_games_on_both_cores(core: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    if core == "compiled" and REASON is not None:
        pytest.skip(REASON)
    assert main(["random", SECOND, "--seed", "1", "-n", "50", "--core", core]) == 0
    out = capsys.readouterr().out
    assert main(["random", SECOND, "--seed", "1", "-n", "50", "--core", "python"]) == 0
    assert capsys.readouterr().out == out
    games = [json.loads(line) for line in out.splitlines()]
    assert any("outcome" in a for g in games for a in g["actions"])


# -- qttt play ------------------------------------------------------------------------------------

def test_play_shows_each_draw_with_its_probability(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", SECOND, "--x", "random", "--o", "random", "--seed", "3", "--no-colour"]) == 0
    out = capsys.readouterr().out
    assert "chance: X7's mark lands on square 2 (probability 3/4)" in out
    assert ("naming square 2 for x7: chance decides (square 1 with probability 1/4, square 2 with "
            "probability 3/4)") in out


def test_undo_does_not_draw_again() -> None:
    """A person who takes back a measurement and names the same cell meets the same outcome."""
    rs = load_ruleset(MEASURER)
    said: list[str] = []
    script = iter(["1 2", "1 2", "1", "undo", "1", "quit"])
    game = Game(State.initial(rs), {"x": None, "o": None}, False, lambda _: next(script), said.append,
                rng=random.Random(0))
    assert game.play() == "quit"
    draws = [line for line in said if line.startswith("chance:")]
    assert len(draws) == 2 and draws[0] == draws[1]


def test_the_solver_values_chance_by_expectimax(capsys: pytest.CaptureFixture[str]) -> None:
    """Minimax over a chance turn would be wrong: `analyze solve` gives the expected value (the
    expectimax, tests/analysis/test_expectimax.py), and the minimax core still refuses chance."""
    assert main(["analyze", "solve", "wikipedia(board=2,collapse=chance-second)"]) == 0
    out = capsys.readouterr().out
    assert "expected value x − o under perfect play at p = 1/2" in out
    assert compiled.solver_supports(load_ruleset(SECOND)) is not None
