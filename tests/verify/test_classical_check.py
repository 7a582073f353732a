"""The classical family's checker (verify/classical): its model of the rules agrees with the tests'
own reference model (tests/support/classical_reference.py); `qttt check` takes a classical ruleset
and proves its rule properties; planted engine bugs are caught with a witness that replays under
the real rules; `--all` checks the classical coverage variant."""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path
from typing import Any

import pytest
from classical_reference import RefClassical
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples
from views import forget_views

from qttt import IllegalAction, load_ruleset
from qttt.classical import engine
from qttt.family import Mark
from verify import cli
from verify.classical.check import AGREES, check_classical, space
from verify.classical.model import Position, rules_of
from verify.classical.proofs import CLAIMS, prove

COVERAGE = str(Path(__file__).resolve().parents[2] / "spec" / "coverage" / "classical-4x4-three.toml")
SMALL = "qttt(game=classical,board=3)"


@settings(max_examples=examples(60), deadline=None)
@given(st.integers(2, 5).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))),
       st.integers(0, 2**32 - 1))
def test_the_model_is_the_reference_model(board: tuple[int, int], seed: int) -> None:
    n, k = board
    rs = load_ruleset(f"qttt(game=classical,board={n},end_line={k})")
    rng = random.Random(seed)
    m, ref = Position.start(rules_of(rs)), RefClassical(n, k, "v")
    while True:
        assert m.state_json("v") == ref.state()
        assert [{"mark": a.cell} for a in m.legal()] == ref.legal()
        for a in space(rs):
            copy = RefClassical(n, k, "v")
            copy.cells, copy.numbers = ref.cells[:], ref.numbers[:]
            copy.moves, copy.winner = ref.moves, ref.winner
            assert m.refusal(a) == copy.apply({"mark": a.cell}), a
        if m.over:
            break
        a = rng.choice(m.legal())
        ref.apply({"mark": a.cell})
        m = m.play(a)


@pytest.mark.slow
@pytest.mark.parametrize("spec", [SMALL, COVERAGE, "qttt(game=classical,board=5,end_line=4)"])
def test_every_claim_holds(spec: str) -> None:
    for which in CLAIMS:
        assert prove(load_ruleset(spec), which).status == "proved", which


@pytest.mark.slow
def test_the_coverage_variant_is_checked_and_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main([COVERAGE, "--games", "20", "--max-ply", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "classical-engine-agrees" in out and "proved (Z3)" in out
    report = check_classical(COVERAGE, games=20, max_ply=3)
    assert {f.property: f.status for f in report.findings if f.property != AGREES} == {
        "classical-legal-move": "proved", "classical-termination": "proved", "classical-one-winner": "proved",
        "classical-scores-defined": "proved"}
    agrees = next(f for f in report.findings if f.property == AGREES)
    assert "classes (qttt(game=classical,end_line=3): every reachable class of positions, 765 classes" \
        in agrees.label  # the 765 positions of tic-tac-toe up to symmetry
    assert cli.uncheckable(COVERAGE) is None


@pytest.mark.slow
def test_a_small_board_is_walked_whole() -> None:
    report = check_classical(SMALL, games=0)
    agrees = next(f for f in report.findings if f.property == AGREES)
    assert agrees.status == "classes", agrees.label


def lines_without(dropped: int) -> Any:
    original = engine.compile_classical

    def compile_without(rs: Any) -> engine.ClassicalRules:
        r = original(rs)
        return dataclasses.replace(r, lines=tuple(m for i, m in enumerate(r.lines) if i != dropped))
    return compile_without


def accepts_a_taken_cell(self: engine.ClassicalState, action: object) -> engine.ClassicalState:
    assert isinstance(action, Mark)
    if not self.over and (self.marks[0] | self.marks[1]) >> action.cell & 1:
        return self  # the move is "played" without a mark
    return ORIGINAL_APPLY(self, action)


ORIGINAL_APPLY = engine.ClassicalState.apply


def draw_scores_one_each(self: engine.ClassicalState) -> dict[str, Any]:
    from fractions import Fraction
    if self.over and self.winner is None:
        return {"x": Fraction(1), "o": Fraction(1)}
    return ORIGINAL_SCORES.fget(self)  # type: ignore[no-any-return]


ORIGINAL_SCORES = engine.ClassicalState.__dict__["scores"]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "spec"), [("a line missed", SMALL), ("a taken cell accepted", SMALL),
                                            ("a draw scores 1 each", SMALL), ("a line missed", COVERAGE)])
def test_planted_engine_bug_is_caught(name: str, spec: str, monkeypatch: pytest.MonkeyPatch) -> None:
    forget_views(monkeypatch, engine.compile_classical)
    if name == "a line missed":
        monkeypatch.setattr(engine, "compile_classical", lines_without(4))
    elif name == "a taken cell accepted":
        monkeypatch.setattr(engine.ClassicalState, "apply", accepts_a_taken_cell)
    else:
        monkeypatch.setattr(engine.ClassicalState, "scores", property(draw_scores_one_each))
    report = check_classical(spec, games=40, max_ply=4)
    f = next(f for f in report.findings if f.property == AGREES)
    assert f.status == "violated" and f.witness is not None, f.label
    rs = load_ruleset(f.witness.record["variant"])
    ref = RefClassical(rs.board, rs.rules.end_line, "v")
    for action in f.witness.record["actions"]:  # the witness replays under the real rules
        assert ref.apply(action) is None, (action, f.witness.record)


def test_the_engine_refusal_is_what_the_model_names() -> None:
    rs = load_ruleset(SMALL)
    state = engine.ClassicalState.initial(rs).apply(Mark(4))
    with pytest.raises(IllegalAction) as e:
        state.apply(Mark(4))
    assert e.value.rule == Position.start(rules_of(rs)).play(Mark(4)).refusal(Mark(4))
