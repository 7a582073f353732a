"""The compiled solver core (qttt/quantum/_core.c): its scores equal the engine's, its values equal
the Python solver's and plain minimax, finer keys give the same values, and `solve` with it gives
the same results and a principal variation the engine replays to the value."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest
from cores import no_core
from positions import THREE, midgame

from qttt import load_ruleset
from qttt.analysis.results import load_results, result_path
from qttt.cli import main
from qttt.conformance.suite import suite_path
from qttt.errors import QtttError
from qttt.native import CoreUnavailable
from qttt.notation import action_from_json
from qttt.quantum import compiled
from qttt.quantum.analysis.count import board_after, encode
from qttt.quantum.analysis.fairness import scoring_variants
from qttt.quantum.analysis.solve import Solver, choose_solver, minimax, solve
from qttt.quantum.engine import State, playout, quantum_action
from qttt.quantum.game import compile_game
from qttt.ruleset import Ruleset, with_params
from qttt.vocabulary import Component

REASON = compiled.available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"compiled solver unavailable: {REASON}")


def _other_rules() -> list[Ruleset]:
    """3×3 rulesets exercising the parameters the built-ins leave at one value."""
    kumar, wiki, russian = load_ruleset("kumar"), load_ruleset("wikipedia"), load_ruleset("russian")
    squares = Component("per-pattern", "square", 2, (("points", Fraction(1, 3)),))
    pairs = Component("first-line", "line", 2, (
        ("sole", Fraction(2)), ("first", Fraction(3, 2)), ("second", Fraction(1, 4)),
        ("neither", Fraction(1)), ("tie", Fraction(1, 5)), ("tiebreak", ("min-sum",)),
        ("fallback", ("min-max",))))
    ranks = Component("rank", "line", 0, (("ranks", (Fraction(2), Fraction(0), Fraction(1, 3))),))
    return [
        with_params(kumar, measurer="creator"),
        with_params(russian, two_cycles=False),  # deadlocks possible
        with_params(wiki, untouched="vanish", two_cycles=False),
        with_params(wiki, end_line=2, last_square="end"),
        replace(russian, scoring=(*russian.scoring, squares, pairs, ranks), name="mixed", path=None),
        *list(scoring_variants(kumar))[:3],
        *list(scoring_variants(wiki))[:3],
        load_ruleset("wikipedia(double_line=2)"), load_ruleset("wikipedia(double_line=3/2)"),
    ]


def _random_codes(rs: Ruleset, rng: random.Random) -> list[int]:
    actions, _ = playout(rs, rng)
    return [encode(a, 9) for a in actions]


@pytest.mark.parametrize("rs", [load_ruleset(n) for n in THREE] + _other_rules(), ids=lambda r: r.name)
def test_scores_equal_the_engine_on_random_games(rs: Ruleset) -> None:
    fs = compiled.FastSolver(rs, 4)
    scale = compile_game(rs).scale
    rng = random.Random(11)
    for _ in range(150):
        codes = _random_codes(rs, rng)
        b = board_after(rs, codes)
        phase, v = fs.score(codes)
        assert phase == ("place", "measure", "over")[b.phase]
        assert Fraction(v, scale) == b.score_difference()


@pytest.mark.parametrize("name", THREE)
@pytest.mark.parametrize("seed", [4, 5, pytest.param(6, marks=pytest.mark.slow)])
def test_values_equal_python_solver_and_minimax(name: str, seed: int) -> None:
    rs = load_ruleset(name)
    start = midgame(name, seed, 2000)
    fs = compiled.FastSolver(rs, 16)
    expected = minimax(board_after(rs, start))
    assert fs.exact_value(start) == expected
    assert Solver(rs).exact_value(board_after(rs, start)) == expected
    # every window answers consistently (fail-soft bounds on the right side)
    v = fs.exact(start)
    for lo, hi in ((v - 1, v + 1), (v, v + 1), (v - 1, v), (-fs.bound - 1, fs.bound + 1)):
        got = fs.search(start, lo, hi)
        assert got == v if lo < v < hi else (got >= hi if v >= hi else got <= lo)


@pytest.mark.slow
@pytest.mark.parametrize("rs", _other_rules(), ids=lambda r: r.name)
def test_other_rules_equal_minimax_near_the_end(rs: Ruleset) -> None:
    rng = random.Random(3)
    fs = compiled.FastSolver(rs, 16)
    checked = 0
    for _ in range(20):
        codes = _random_codes(rs, rng)
        for cut in range(len(codes) + 1):
            b = board_after(rs, codes[:cut])
            if b.open.bit_count() <= 5:  # few open cells: plain minimax is quick
                assert fs.exact_value(codes[:cut]) == minimax(b)
                checked += 1
    assert checked >= 10


@pytest.mark.slow
@pytest.mark.parametrize(("name", "back"), [
    ("kumar", 6), ("russian", 6), ("russian-unstable", 6), ("wikipedia", 4), ("ishizeki-complete", 4),
    pytest.param("wikipedia", 6, marks=pytest.mark.deep),  # 2 to 4 minutes on two cores
    pytest.param("ishizeki-complete", 6, marks=pytest.mark.deep),
])
def test_deeper_positions_equal_python_solver(name: str, back: int) -> None:
    """Positions `back` actions before the end of random games (the Python solver is the bound)."""
    rs = load_ruleset(name)
    fs = compiled.FastSolver(rs, 18)
    rng = random.Random(21)
    for _ in range(3):
        codes = _random_codes(rs, rng)
        start = codes[:max(0, len(codes) - back)]
        assert fs.exact_value(start) == Solver(rs).exact_value(board_after(rs, start))


@pytest.mark.slow
@pytest.mark.parametrize("name", THREE)
def test_finer_keys_give_the_same_values(name: str) -> None:
    """No board symmetries and move numbers kept: keys that merge fewer positions."""
    rs = load_ruleset(name)
    coarse = compiled.FastSolver(rs, 20)
    fine = compiled.FastSolver(rs, 20, symmetries=False, numbered=True)
    rng = random.Random(8)
    for _ in range(2):
        codes = _random_codes(rs, rng)[:3]
        assert coarse.exact(codes) == fine.exact(codes)


def test_solve_with_either_core_agrees_and_the_pv_replays() -> None:
    rs = load_ruleset("kumar")
    start = midgame("kumar", 6, 20000)
    by_c = solve(rs, start=start, core="compiled")
    by_py = solve(rs, start=start, core="python")
    assert by_c.value == by_py.value
    assert by_c.first == by_py.first
    state = State(board_after(rs, start))
    for act in by_c.pv:
        state = state.apply(act)
    assert state.over
    assert state.scores["x"] - state.scores["o"] == by_c.value


@pytest.mark.slow
def test_cli_solve_reproduces_the_saved_russian_result(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "russian.json"
    assert main(["analyze", "solve", "russian", "--core", "compiled", "--quiet", "-o", str(out)]) == 0
    assert "value x − o under perfect play = 0" in capsys.readouterr().out
    saved = load_results(result_path(load_ruleset("russian")))
    assert json.loads(out.read_text())["solve"] == saved["solve"]


def test_without_a_compiler_auto_falls_back_and_compiled_is_refused(monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str],
                                                             tmp_path: Path) -> None:
    with no_core(monkeypatch, tmp_path):
        rs = load_ruleset("russian")
        assert choose_solver(rs, "auto") == "python"
        with pytest.raises(CoreUnavailable, match="no C compiler"):
            choose_solver(rs, "compiled")
        assert main(["analyze", "solve", "russian", "--core", "compiled"]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "no C compiler" in err


@pytest.mark.parametrize("name", THREE)
def test_perft_equals_the_committed_tables(name: str) -> None:
    """The core's own move generator counts every committed perft table, and its divide, so the
    core is checked at every position of those trees, not only on whole games."""
    suite = json.loads(suite_path(name).read_text(encoding="utf-8"))
    rs = load_ruleset(name)
    fs = compiled.FastSolver(rs, 10)
    for entry in suite["perft"]:
        assert entry["start"]["variant"] == name
        start = [encode(quantum_action(action_from_json(a)), 9) for a in entry["start"]["actions"]]
        counts = entry["counts"]
        depth = len(counts)
        assert fs.perft(start, depth) == counts, entry["id"]
        for d in entry.get("divide", []):
            after = [*start, encode(quantum_action(action_from_json(d["action"])), 9)]
            nodes = fs.perft(after, depth - 1)[-1] if depth > 1 else 1
            assert nodes == d["nodes"], (entry["id"], d["action"])
    with pytest.raises(QtttError, match="not legal"):
        fs.perft([0, 0], 1)  # a placement needs two different cells
