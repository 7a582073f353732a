"""Tests for the consistency checker (verify.quantum.check and its parts): the catalogue, the
component-size abstraction against the engine, designed witness games replayed by the engine and
by the reference model, the score analysis, and `check` / the command line end to end."""

from __future__ import annotations

import itertools
import json
import random
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from refbridge import ref_game

from qttt import IllegalAction, builtin_names, load_ruleset, replay_actions, with_params
from qttt.geometry import lines
from qttt.notation import record_from_json
from qttt.quantum.engine import STATE, Action, Measure, Place, State, playout, quantum_state
from verify import cli
from verify.catalogue import LABELS, STATUSES, properties
from verify.classical import catalogue as classical_catalogue
from verify.nested import catalogue as nested_catalogue
from verify.paths import paths
from verify.quantum import abstract as A
from verify.quantum import check as check_module
from verify.quantum.catalogue import PROPERTIES
from verify.quantum.check import check, run_walks
from verify.quantum.exhaustive import walk_ruleset
from verify.quantum.sampled import Context, check_measurements, check_shape, confirm, expected_refusals
from verify.quantum.scores import (
    declared_range,
    most_cells,
    range_witnesses,
    sole_collapse_game,
    tie_verdicts,
)
from verify.quantum.witness import (
    deadlock_witness,
    plan_actions,
    replay,
    stuck_without_line,
)
from verify.report import Confirmed, Witness, finding

ROOT = Path(__file__).resolve().parents[2]
BUILTINS = ("wikipedia", "russian", "russian-unstable", "bonus4x4", "kumar", "ishizeki-complete")


def replay_record(rec: dict[str, Any]) -> State:
    """The engine's final state of a JSON record."""
    return quantum_state(record_from_json(rec).replay())


def reference_replay(rec: dict[str, Any], rs_name: str | None = None) -> Any:
    """The reference model's game after a JSON record (its own reading of the rules)."""
    rs = load_ruleset(rs_name or rec["variant"])
    game = ref_game(rs)
    for act in rec["actions"]:
        game.apply(act)
    return game


# Catalogue ------------------------------------------------------------------------------------------


def test_catalogue_ids_are_unique_and_rest_on_known_rules() -> None:
    rules = {r["id"] for r in tomllib.loads((ROOT / "spec" / "rules.toml").read_text())["rule"]}
    ids = [p.id for p in properties()]
    assert len(ids) == len(set(ids)) == 20  # ten for the quantum family, five each for nested and classical
    assert ids == [p.id for p in (*PROPERTIES, *nested_catalogue.PROPERTIES, *classical_catalogue.PROPERTIES)]
    for p in properties():
        assert p.statement and p.method and p.applies_to and p.rules
        assert set(p.rules) <= rules, set(p.rules) - rules


# The abstraction ------------------------------------------------------------------------------------


def engine_counts(state: State, depth: int) -> list[int]:
    """Action sequences of each length from state, by brute force over the engine."""
    counts = [0] * depth
    frontier = [state]
    for d in range(depth):
        frontier = [s.apply(a) for s in frontier for a in s.legal_actions()]
        counts[d] = len(frontier)
    return counts


@pytest.mark.parametrize("name", ["kumar", pytest.param("russian-unstable", marks=pytest.mark.slow)])
def test_abstract_counts_equal_engine_brute_force(name: str) -> None:
    rs = load_ruleset(name)
    assert A.nodes_by_depth(A.Params.of(rs), 3) == engine_counts(State.initial(rs), 3)


def test_abstract_game_count_matches_published_and_independent_counts() -> None:
    # Kumar, Ang & Chai (2012): "about 18 trillion" complete QT3 games on their full-board rules;
    # results/analysis/README.md: 18,539,269,580,160 exactly, by an engine-free recursion of qttt.analysis.
    games = A.explore(A.Params.of(load_ruleset("kumar"))).games
    assert games == 18_539_269_580_160


@pytest.mark.parametrize("name", BUILTINS)
def test_longest_game_is_the_bound_and_the_engine_plays_it(name: str) -> None:
    rs = load_ruleset(name)
    summary = A.explore(A.Params.of(rs))
    cells = rs.board * rs.board
    if rs.rules.untouched == "keep":
        # Independent count: every move's mark ends classical in its own cell or as a live edge of a
        # forest on the open cells, so at most n² placements; each measurement fixes >= 2 cells.
        assert summary.longest == cells + cells // 2
    actions = A.realize(rs, summary.longest_path)
    assert len(actions) == summary.longest
    final = replay(rs, actions)
    assert final is not None and final.over


def test_deadlocks_exactly_when_two_cycles_are_forbidden() -> None:
    for name in ("wikipedia", "russian", "bonus4x4"):
        rs = load_ruleset(name)
        assert A.explore(A.Params.of(rs)).deadlocks == ()
        stuck = A.explore(A.Params.of(with_params(rs, two_cycles=False))).deadlocks
        assert stuck == (A.Abstract("place", (2,)),)


def sampled_states(name: str, games: int = 20) -> list[State]:
    rng = random.Random(1)
    rs, out = load_ruleset(name), []
    for _ in range(games):
        s = State.initial(rs)
        while not s.over and s.legal_actions():
            out.append(s)
            legal = s.legal_actions()
            s = s.apply(legal[rng.randrange(len(legal))])
    return out


@pytest.mark.parametrize("name", BUILTINS)
def test_engine_matches_the_abstraction(name: str) -> None:
    rs = load_ruleset(name)
    p = A.Params.of(rs)
    for s in sampled_states(name, 8):
        assert A.simulates(p, s, rs.rules.end == "first-line") is None


def test_a_wrong_abstraction_is_caught() -> None:
    rs = load_ruleset("wikipedia")
    wrong = A.Params(9, two_cycles=False, last_square="forced", untouched="keep", collapse="choice",
                     p=Fraction(1, 2))
    mismatches = [A.simulates(wrong, s, True) for s in sampled_states("wikipedia", 5)]
    assert any(mismatches)
    also_wrong = A.Params(9, two_cycles=True, last_square="forced", untouched="vanish", collapse="choice",
                          p=Fraction(1, 2))
    assert any(A.simulates(also_wrong, s, True) for s in sampled_states("wikipedia", 5))
    assert all(A.simulates(A.Params.of(rs), s, True) is None for s in sampled_states("wikipedia", 5))


# Witness games --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "two_cycles", "untouched"), [
    ("wikipedia", True, "keep"), ("russian", False, "vanish"), ("bonus4x4", True, "keep"),
    ("bonus4x4", False, "vanish")])
def test_designed_collapse_puts_every_move_where_planned(name: str, two_cycles: bool, untouched: str) -> None:
    rng = random.Random(7)
    rs = with_params(load_ruleset(name), two_cycles=two_cycles, untouched=untouched,
                     end="full", last_square="forced")
    cells = rs.board * rs.board
    for size in range(3, cells + 1):
        chosen = rng.sample(range(cells), size)
        assignment = {c: i + 1 for i, c in enumerate(chosen)}
        state = replay(rs, plan_actions([assignment]))
        assert state is not None
        assert [state.classical[c] for c in chosen] == list(range(1, size + 1))
        assert all(state.classical[c] == 0 for c in range(cells) if c not in assignment)


def test_plan_with_parked_moves_leaves_them_spooky() -> None:
    rs = load_ruleset("bonus4x4")
    acts = plan_actions([{0: 1, 1: 3, 2: 5}], {2: (8, 9), 4: (9, 10)})
    state = replay(rs, acts)
    assert state is not None and state.classical[:3] == (1, 3, 5)
    assert state.edges == {2: (8, 9), 4: (9, 10)}


@pytest.mark.parametrize("name", ["wikipedia", "russian", "russian-unstable", "bonus4x4"])
def test_deadlock_witness_is_stuck_in_engine_and_reference(name: str) -> None:
    rs = with_params(load_ruleset(name), two_cycles=False)
    masks = [p.mask for p in lines(rs.board, rs.rules.end_line)] if rs.rules.end == "first-line" else []
    w = deadlock_witness(rs, rs.canonical, masks)
    assert isinstance(w, Witness)
    final = replay_record(w.record)
    assert not final.over and final.legal_actions() == ()
    game = reference_replay(w.record)
    assert game.phase != "over" and game.legal() == []


def test_no_deadlock_witness_when_two_cycles_are_allowed() -> None:
    rs = load_ruleset("wikipedia")
    assert deadlock_witness(rs, "wikipedia", [p.mask for p in lines(3, 0)], attempts=50) is None


# Scores ---------------------------------------------------------------------------------------------


def test_parity_argument_by_enumeration_on_three_by_three() -> None:
    """No x line and disjoint o line on 3×3 have equal sums or equal maxima, whatever the moves."""
    for px, po in itertools.permutations(lines(3, 0), 2):
        if px.mask & po.mask:
            continue
        for xs in itertools.combinations(range(1, 10, 2), 3):
            for os_ in itertools.combinations(range(2, 10, 2), 3):
                assert sum(xs) != sum(os_) and max(xs) != max(os_)


@pytest.mark.parametrize("name", ["wikipedia", "russian", "russian-unstable", "kumar", "ishizeki-complete"])
def test_no_tie_left_open_on_three_by_three(name: str) -> None:
    assert not any(v.possible for v in tie_verdicts(load_ruleset(name), name))


def test_bonus_tie_witness_in_engine_and_reference() -> None:
    (verdict,) = tie_verdicts(load_ruleset("bonus4x4"), "bonus4x4")
    assert verdict.possible and verdict.witness is not None
    final = replay_record(verdict.witness.record)
    assert final.over and any(n.startswith("score-tie-gap") for n in final.score_notes)
    # Independently: both players own a line of 4, and their best (smallest) sums are equal.
    sums = {p: min((sum(final.classical[c] for c in line.cells) for line in lines(4, 0)
                    if all(final.classical[c] and final.classical[c] % 2 == p for c in line.cells)),
                   default=None) for p in (0, 1)}
    assert sums[0] is not None and sums[0] == sums[1]
    game = reference_replay(verdict.witness.record)
    assert game.phase == "over" and game.scores == final.scores


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "bonus4x4" else n
                                  for n in BUILTINS])
def test_range_witnesses_score_what_they_claim_and_sampled_games_stay_inside(name: str) -> None:
    rs = load_ruleset(name)
    found = range_witnesses(rs, name)
    assert found is not None
    for key, w in found.witnesses.items():
        final = replay_record(w.record)
        player, end = key.split()
        value = found.reached[0 if player == "x" else 1][0 if end == "min" else 1]
        assert final.over and final.scores[player] == value
        assert reference_replay(w.record).scores == final.scores
    declared = declared_range(rs)
    assert declared is not None
    values = declared[0]
    rng = random.Random(3)
    for _ in range(300):
        _, final = playout(rs, rng)
        assert values["x min"] <= final.scores["x"] <= values["x max"]
        assert values["o min"] <= final.scores["o"] <= values["o max"]


def test_declared_range_by_hand() -> None:
    # russian: 1 point a line; on a full 3×3 board x holds 5 cells (at most 2 lines), o 4 (1 line).
    values, _ = declared_range(load_ruleset("russian")) or ({}, {})
    assert [values[k] for k in ("x min", "x max", "o min", "o max")] == [0, 2, 0, 1]
    # wikipedia: first-line awards 0, 1/2, 1.
    values, _ = declared_range(load_ruleset("wikipedia")) or ({}, {})
    assert [values[k] for k in ("x min", "x max", "o min", "o max")] == [0, 1, 0, 1]
    # russian-unstable: no player holds 8 of the 9 cells (most_cells), so at most 7; every cell lies
    # on 2 or more of the 8 lines and two cells share at most one: 8 - (2 + 2 - 1) = 5 lines.
    values, _ = declared_range(load_ruleset("russian-unstable")) or ({}, {})
    assert [values[k] for k in ("x min", "x max", "o min", "o max")] == [0, 5, 0, 5]


def test_most_cells_under_vanish_agrees_with_every_game_on_2x2() -> None:
    """Every game of a 2×2 ruleset with vanish and end = full, walked with the engine: the most
    cells each player ends with is what most_cells states (x 3 of 4 by collapses of its own, o 2)."""
    rs = load_ruleset("kumar(board=2,untouched=vanish,last_square=end)")
    most = [0, 0]

    def walk(state: State) -> None:
        if state.over:
            for p in (0, 1):
                most[p] = max(most[p], sum(1 for m in state.classical if m and m % 2 != p))
            return
        for action in state.legal_actions():
            walk(state.apply(action))

    walk(State.initial(rs))
    assert most == [most_cells(rs, 0, True), most_cells(rs, 1, True)] == [3, 2]
    game = sole_collapse_game(rs, 0, 0b0111)
    assert game is not None and game[1].over
    assert [m % 2 for m in game[1].classical] == [1, 1, 1, 0]
    assert sole_collapse_game(rs, 1, 0b0111) is None


@pytest.mark.parametrize("name", ["russian-unstable", "kumar(untouched=vanish,last_square=end)",
                                  "wikipedia(untouched=vanish,end=full,two_cycles=false)"])
def test_under_vanish_and_end_full_each_player_holds_a_cell_of_a_finished_game(name: str) -> None:
    """The premise of most_cells' bound under vanish, on games the engine plays."""
    rs = load_ruleset(name)
    rng = random.Random(11)
    finished = 0
    for _ in range(300):
        _, final = playout(rs, rng)
        if final.over:  # (with no 2-cycles a game can also stall with two open cells)
            finished += 1
            marks = [m for m in final.classical if m]
            assert any(m & 1 for m in marks) and any(not m & 1 for m in marks)
    assert finished > 200


# Engine checks catch broken outcomes ----------------------------------------------------------------


class Liar:
    """A state whose measurement outcomes or cycle are tampered with, for the checks' negative tests."""

    def __init__(self, state: State, cycle: tuple[int, ...] | None = None, swap: bool = False) -> None:
        self._s, self._cycle, self._swap = state, cycle, swap

    def __getattr__(self, name: str) -> Any:
        return getattr(self._s, name)

    @property
    def cycle(self) -> tuple[int, ...] | None:
        return self._cycle if self._cycle is not None else self._s.cycle

    def apply(self, act: Action) -> State:
        if self._swap:
            a, b = self._s.edges[self._s.pending or 0]
            act = type(act)(b if act[0] == a else a)  # type: ignore[call-arg]
        return self._s.apply(act)


def a_measure_state() -> State:
    """x1 0-1, o2 5-6, x3 1-2, o4 0-2 (closes the cycle 0-1-2; o2 is outside it)."""
    s = State.initial(load_ruleset("wikipedia"))
    for a, b in ((0, 1), (5, 6), (1, 2), (0, 2)):
        s = s.apply(Place(a, b))
    assert s.pending == 4 and s.cycle == (0, 1, 2)
    return s


def test_shape_and_measurement_checks_pass_on_the_engine_and_fail_on_lies() -> None:
    s = a_measure_state()
    assert check_shape(s) is None and check_measurements(s, vanish=False) == (None, None)
    assert check_shape(Liar(s, cycle=(0, 1)))  # type: ignore[arg-type]
    unique, _ = check_measurements(Liar(s, swap=True), vanish=False)  # type: ignore[arg-type]
    assert unique and "enumeration" in unique
    _, total = check_measurements(s, vanish=True)  # under vanish o2 would have had to go
    assert total is not None and "outside" in total


# check and the command line -------------------------------------------------------------------------


EXPECTED = {name: {p.id: "sampled" for p in PROPERTIES} for name in BUILTINS}
EXPECTED["bonus4x4"]["scores-well-defined"] = "accepted"
# Up to 3×3 the walk runs by default: one position per shape class (and relabelled members).
# random-games-agree is settled on the games qttt random plays, walk or not.
SAMPLED_ALL_THE_SAME = dict.fromkeys(("scores-well-defined", "random-games-agree"), "sampled")
WALKED = {name: {p: "classes" for p in statuses} | SAMPLED_ALL_THE_SAME
          for name, statuses in EXPECTED.items()}


# 4×4: the compiled core's walk of the whole game, published (verify.quantum.published) and cited;
# the engine and the core compared at a share of its classes, so cores-agree stays sampled.
WALKED["bonus4x4"] = WALKED["bonus4x4"] | {"cores-agree": "sampled", "scores-well-defined": "accepted"}


# wikipedia's default walk by shape classes takes minutes on two cores: the deep lane's (CI walks
# wikipedia with the planted stale pending move and unmutated, tests/verify/test_mutants.py).
@pytest.mark.slow
@pytest.mark.parametrize("name", [pytest.param("wikipedia", marks=pytest.mark.deep), "bonus4x4"])
def test_check_builtin(name: str) -> None:
    report = check(name, games=60)
    expected = WALKED[name]
    assert {f.property: f.status for f in report.findings} == expected
    turn = next(f for f in report.findings if f.property == "turn-order")
    if name == "wikipedia":  # the walk says what it covered, never "exhaustive"
        assert report.walk is not None and "exhaustive" not in turn.label
        classes, members = report.walk["positions"], report.walk["members_checked"]
        assert f"one position per shape class, {classes} classes" in turn.label
        assert f"K = 4 other members: {members} checked" in turn.label and members > 2 * classes
        assert set(report.walk["members_differing_by_field"]) == set(STATE.names)
    assert "compiled paths" in report.cores
    named = {d["path"]: d["status"] for f in report.findings
             if f.property in ("cores-agree", "random-games-agree") for d in f.details["paths"]}
    assert set(named) == {p.name for p in paths("quantum")}  # every registered path, by name
    unknown = [n for n, s in named.items() if s == "unknown"]
    # the expectimax serves only rulesets with chance turns, the solver no 4×4 board
    chance_only = "compiled core: expectimax (qttt analyze solve and curve on chance rulesets)"
    assert unknown == ([chance_only] if name == "wikipedia"
                       else ["compiled core: solver (qttt analyze solve)", chance_only])
    for f in report.findings:
        if f.status in ("violated", "accepted"):
            assert f.witness is not None
            replay_record(f.witness.record)


@pytest.mark.slow
def test_check_finds_the_deadlock_of_a_variant_file(tmp_path: Path) -> None:
    path = tmp_path / "strict.toml"
    path.write_text('[variant]\nname = "strict"\nextends = "wikipedia"\n\n[rules]\ntwo_cycles = false\n')
    report = check(str(path), games=60, exhaustive=False)  # sampled games reach it; the walk is slow
    status = {f.property: f.status for f in report.findings}
    # The ambiguity register (point two-cycles) documents this deadlock: accepted, not violated.
    assert status["no-deadlock"] == "accepted" and not report.violated and report.has("accepted")
    (f,) = [f for f in report.findings if f.property == "no-deadlock"]
    assert f.witness is not None and f.witness.record["variant"] == str(path)
    final = replay_record(f.witness.record)
    assert not final.over and final.legal_actions() == ()


@pytest.mark.slow
def test_cli_exit_status_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["wikipedia", "--games", "30", "--no-walk", "--workers", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "single-cycle-per-move" in out and "proved" in out
    assert "1 ruleset checked, 1 without findings; nothing violated; exit status 0" in out
    # bonus4x4's tie gap is documented (ambiguity bonus-simultaneous): accepted, exit 0; --strict: 1.
    assert cli.main(["bonus4x4", "--games", "20", "--workers", "1", "--json-document"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["id"] for c in data["catalogue"]] == [p.id for p in properties()]
    (rep,) = data["rulesets"]
    statuses = {p["property"]: p["status"] for p in rep["properties"]}
    assert statuses == WALKED["bonus4x4"]  # the published walk, cited
    witness = next(p["witness"] for p in rep["properties"] if p["status"] == "accepted")
    assert replay_record(witness["record"]).over
    label = next(p["label"] for p in rep["properties"] if p["status"] == "accepted")
    assert "accepted: score-tie-gap" in label
    assert data["summary"].endswith("exit status 0")
    assert cli.main(["bonus4x4", "--games", "20", "--workers", "1", "--strict", "--quiet"]) == 1
    assert "exit status 1 (--strict)" in capsys.readouterr().out
    assert cli.main([]) == 2


# Every built-in checked: 6 minutes on two cores. CI checks a ruleset of each kind against the
# committed report (tests/verify/test_verification_report.py) and two built-ins here.
@pytest.mark.deep
def test_check_every_builtin_without_the_walk() -> None:
    for name in BUILTINS:
        report = check(name, exhaustive=False)
        assert {f.property: f.status for f in report.findings} == EXPECTED[report.spec]


@pytest.mark.slow
def test_simultaneous_lines_without_criteria_or_tie_award_are_a_gap(tmp_path: Path) -> None:
    """A first-line award with no tiebreak and no stated tie award leaves simultaneous lines
    undecided by the rules as written: the checker reports it with a game the engine replays."""
    variant = tmp_path / "no-tiebreak.toml"
    variant.write_text('[variant]\nname = "no-tiebreak"\nextends = "wikipedia"\n\n[[scoring]]\n'
                       'award = "first-line"\nsole = "1"\nfirst = "1"\nsecond = "1/2"\ntiebreak = []\n',
                       encoding="utf-8")
    report = check(str(variant), games=50, exhaustive=False)  # the tie search finds it, walk or not
    finding = next(f for f in report.findings if f.property == "scores-well-defined")
    assert finding.status == "violated" and finding.witness is not None
    rec = record_from_json(finding.witness.record)
    final = replay_actions(State.initial(load_ruleset(str(variant))), rec.actions)
    assert final.over and final.scores == {"x": 0, "o": 0}
    assert any(n.startswith("score-tie-gap") for n in final.score_notes)
    # Stating the tie award closes the gap.
    variant.write_text(variant.read_text(encoding="utf-8") + 'tie = "1/2"\n', encoding="utf-8")
    stated = check(str(variant), games=50, exhaustive=False)
    assert next(f for f in stated.findings if f.property == "scores-well-defined").status != "violated"


def test_first_equal_second_needs_no_tie_award(tmp_path: Path) -> None:
    """first = second = 1/2 with no tiebreak and no stated tie: simultaneous lines give 1/2 each
    whichever is counted first; the engine awards it and the checker finds no gap."""
    variant = tmp_path / "halves.toml"
    variant.write_text('[variant]\nname = "halves"\nextends = "wikipedia"\n\n[[scoring]]\n'
                       'award = "first-line"\nsole = "1"\nfirst = "1/2"\nsecond = "1/2"\ntiebreak = []\n',
                       encoding="utf-8")
    (verdict,) = tie_verdicts(load_ruleset(str(variant)), str(variant))
    assert not verdict.possible and "first = second = 1/2" in verdict.reason
    gap = tmp_path / "gap.toml"
    text = variant.read_text(encoding="utf-8")
    gap.write_text(text.replace('first = "1/2"', 'first = "1"'), encoding="utf-8")
    (open_gap,) = tie_verdicts(load_ruleset(str(gap)), str(gap))
    assert open_gap.possible and open_gap.witness is not None
    final = replay_actions(State.initial(load_ruleset(str(variant))),
                           record_from_json(open_gap.witness.record).actions)
    assert final.over and final.scores == {"x": Fraction(1, 2), "o": Fraction(1, 2)}
    assert final.score_notes == ()
    assert reference_replay(open_gap.witness.record, str(variant)).scores == final.scores


@pytest.mark.slow
def test_two_cycles_forbidden_with_lines_of_two_is_decided() -> None:
    """The abstraction gets stuck, but every colouring of 7 cells of the 3×3 board holds a line of
    two for someone, so the game is over first: no deadlock, decided rather than unknown."""
    report = check("wikipedia(two_cycles=false,end_line=2)", games=40, exhaustive=False)
    f = next(f for f in report.findings if f.property == "no-deadlock")
    assert f.status == "sampled" and "proved (every colouring" in f.label and f.witness is None
    assert stuck_without_line(load_ruleset("wikipedia(two_cycles=false)"))
    assert not stuck_without_line(load_ruleset("wikipedia(two_cycles=false,end_line=2)"))


# Two walks of a 3×3 game: 4 minutes on two cores (CI: test_confirm_replays_under_the_real_rules_only).
@pytest.mark.deep
def test_relaxed_walk_deadlocks_are_never_reported_without_a_replaying_witness() -> None:
    """With 2-cycles forbidden and lines of two ending the game, the walk on the relaxed rules
    (end = full) gets stuck at positions the real game never reaches (a line of two ends it first):
    such findings are dropped, and nothing is reported violated."""
    spec = "wikipedia(two_cycles=false,end_line=2)"
    rs = load_ruleset(spec)
    relaxed, _ = run_walks(rs, spec, None)
    assert relaxed.ruleset == walk_ruleset(rs).canonical != rs.canonical
    stuck = relaxed.failures.get("no-deadlock", [])
    assert stuck, "the relaxed walk finds deadlocks"
    ctx = Context.of(rs, cores=False)
    assert all(confirm(ctx, spec, "no-deadlock", actions) is None for _, actions, _ in stuck)
    report = check(spec, games=20)
    assert not report.violated and not report.has("error")
    for f in report.findings:
        assert f.witness is None or isinstance(f.witness, Confirmed)


def test_a_violation_needs_a_confirmed_witness() -> None:
    """finding() refuses a witness confirm did not make, and a violated part without one is the
    checker's own error, never a violation."""
    with pytest.raises(TypeError):
        finding("turn-order", [("sampled", "sampled (1 game)")], "", 0.0,
                Witness({"variant": "wikipedia", "actions": []}, "made up"))  # type: ignore[arg-type]
    f = finding("collapse-uniqueness", [("violated", "violated (Z3 counterexample)")], "", 0.0)
    assert f.status == "error" and f.witness is None


def test_confirm_replays_under_the_real_rules_only() -> None:
    """A game that ends earlier under the real rules (a line) is no witness of what a relaxed walk
    saw; a real failure replays."""
    rs = load_ruleset("wikipedia")
    ctx = Context.of(rs, cores=False)
    acts: list[Action] = [Place(0, 1), Place(0, 1), Measure(0)]
    assert confirm(ctx, "wikipedia", "no-deadlock", acts) is None
    assert confirm(ctx, "wikipedia", "turn-order", acts) is None
    assert confirm(ctx, "wikipedia", "legal-actions", [*acts, Place(0, 2)]) is None  # not replayable


def test_refusals_follow_check_order() -> None:
    rs = with_params(load_ruleset("wikipedia"), two_cycles=False)
    ctx = Context.of(rs, cores=False)
    state = replay_actions(State.initial(rs), [Place(0, 1), Place(2, 3), Place(0, 2), Place(1, 3)])
    want = expected_refusals(ctx, state)
    assert state.pending == 4
    assert want[Place(4, 5)] == "measure-pending" and want[Measure(5)] == "measure-cell"
    assert want[Measure(9)] == "board-cells" and want[Measure(1)] is None
    state = state.apply(Measure(1))
    want = expected_refusals(ctx, state)
    assert want[Place(0, 4)] == "place-open" and want[Place(4, 4)] == "place-distinct"
    assert want[Measure(4)] == "measure-pending" and want[Place(0, 9)] == "board-cells"
    after = state.apply(Place(4, 5))
    assert expected_refusals(ctx, after)[Place(4, 5)] == "place-two-cycle"
    for act, rule in want.items():
        if rule is None:
            assert act in state.legal_actions()
        else:
            with pytest.raises(IllegalAction) as err:
                state.apply(act)
            assert err.value.rule == rule


@pytest.mark.slow  # a whole check run, walk included
def test_checker_error_is_its_own_status_and_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """A KeyError inside a sub-check is `error` (never `unknown`), and the exit status is 3."""
    def broken(*_: Any) -> Any:
        raise KeyError("x min")
    monkeypatch.setattr(check_module, "range_witnesses", broken)
    assert cli.main(["wikipedia(board=2)", "--games", "5", "--quiet"]) == 3
    out = capsys.readouterr().out
    assert "checker error (KeyError: 'x min')" in out and "checker errors: wikipedia(board=2)" in out
    assert "exit status 3" in out


def test_all_means_every_shipped_ruleset() -> None:
    names = cli.shipped()
    assert set(builtin_names(None)) <= set(names)
    coverage = sorted((ROOT / "spec" / "coverage").glob("*.toml"))
    assert coverage and len(names) == len(builtin_names(None)) + len(coverage)
    assert {load_ruleset(n).canonical for n in names} >= {load_ruleset(str(p)).canonical for p in coverage}


def test_no_status_is_settled_by_hand() -> None:
    """Every status names what a machine did (issue 30: nothing `argued` remains)."""
    assert "argued" not in STATUSES and "argued" not in LABELS


def test_report_text_reads_right() -> None:
    assert cli.plural(1, "ruleset") == "1 ruleset" and cli.plural(2, "query") == "2 queries"
    assert cli.settled_by([("classes", "shape classes (engine, one position per shape class, 9 classes)"),
                           ("proved", "proved (Z3, every forest on 9 cells plus an edge)")]) \
        == "shape classes (engine) + proved (Z3)"
    accepted = ("accepted", "violated (accepted: score-tie-gap, ambiguity bonus-simultaneous)")
    assert cli.settled_by([accepted]) == "violated (accepted: score-tie-gap)"
