"""Planted rules bugs: each mutant of the engine or of the scoring (patched in for one test, never
in the product) must make `verify.check.check` report a violation with a witness game, never
"proved"; the unmutated engine on the same ruleset must not show that violation. Small rulesets
(mostly 2×2) keep the cost low."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from qttt.geometry import cells_of
from qttt.quantum import engine, game, scoring
from qttt.quantum.engine import MEASURE, PLACE, Board
from verify.check import Report, check

Patch = Callable[[pytest.MonkeyPatch], None]
TWO = "qttt(board=2,end=full)"


def fresh_engine(mp: pytest.MonkeyPatch) -> None:
    """Forget compiled rulesets, so that patched scoring is compiled in."""
    mp.setattr(game, "_COMPILED", {})
    mp.setattr(game, "_BY_ID", {})


def rules_changed(**changes: Any) -> Patch:
    """The engine compiles a ruleset with some fields changed (a parameter misread)."""
    def patch(mp: pytest.MonkeyPatch) -> None:
        original = game.compile_game
        fresh_engine(mp)
        mp.setattr(engine, "compile_game", lambda rs: dataclasses.replace(original(rs), **changes))
    return patch


def measure_other_cell(mp: pytest.MonkeyPatch) -> None:
    original = Board.measure

    def measure(self: Board, cell: int) -> None:
        a, b = self.ends[self.pending]
        original(self, a + b - cell)
    mp.setattr(Board, "measure", measure)


def measure_leaves_a_mark_spooky(mp: pytest.MonkeyPatch) -> None:
    original = Board.measure

    def measure(self: Board, cell: int) -> None:
        component = self.comp[cell]
        original(self, cell)
        other = next(c for c in range(self.r.cells) if component >> c & 1 and c != cell)
        self.cls[other] = 0
        self.xmask &= ~(1 << other)
        self.omask &= ~(1 << other)
        self.open |= 1 << other
        self.comp[other] = 1 << other
    mp.setattr(Board, "measure", measure)


def pending_cycle_not_cleared(mp: pytest.MonkeyPatch) -> None:
    original = Board.measure

    def measure(self: Board, cell: int) -> None:
        pending = self.pending
        original(self, cell)
        if self.phase == PLACE:
            self.phase, self.pending = MEASURE, pending
    mp.setattr(Board, "measure", measure)


def creator_measures(mp: pytest.MonkeyPatch) -> None:
    mp.setattr(Board, "measurer", lambda self: engine.player_of(self.pending))


def cycle_with_stems(mp: pytest.MonkeyPatch) -> None:
    original = Board.cycle

    def cycle(self: Board) -> tuple[int, ...] | None:
        found = original(self)
        if found is None:
            return None
        return cells_of(self.comp[found[0]])
    mp.setattr(Board, "cycle", cycle)


def double_line_scores_two(mp: pytest.MonkeyPatch) -> None:
    fresh_engine(mp)
    evaluate = scoring.FirstLine.evaluate

    def twice(self: scoring.FirstLine, cls: Sequence[int], x: int, o: int) -> scoring.Points:
        dx, do, notes = evaluate(self, cls, x, o)
        xs, os_ = scoring.owned(self.patterns, x, o)
        return dx * max(1, len(xs)), do * max(1, len(os_)), notes
    mp.setattr(scoring.FirstLine, "evaluate", twice)


def tiebreak_on_smallest(mp: pytest.MonkeyPatch) -> None:
    fresh_engine(mp)

    def line_key(cls: Sequence[int], p: Any, criteria: tuple[str, ...]) -> tuple[int, ...]:
        moves = [cls[c] for c in p.cells]
        return tuple(min(moves) if c == "min-max" else sum(moves) for c in criteria)
    mp.setattr(scoring, "line_key", line_key)


def harmonic_off_by_one(mp: pytest.MonkeyPatch) -> None:
    fresh_engine(mp)
    worth = scoring.Rank.worth
    mp.setattr(scoring.Rank, "worth", lambda self, rank: worth(self, rank) / 2)


# (id, ruleset, patch, the property that must be violated, a phrase of what the checker says)
MUTANTS: list[tuple[str, str, Patch, str, str]] = [
    ("measured mark lands in the other cell", TWO, measure_other_cell, "collapse-uniqueness", "enumeration"),
    ("a mark of the component stays spooky", TWO, measure_leaves_a_mark_spooky, "collapse-totality",
     "component cells hold"),
    ("pending cycle not cleared", TWO, pending_cycle_not_cleared, "no-deadlock", "raised"),
    ("the creator measures", TWO, creator_measures, "turn-order", "the rules name"),
    ("cycle reported with its stems", TWO, cycle_with_stems, "single-cycle-per-move", "core"),
    ("2-cycles never forbidden", "qttt(board=2,two_cycles=false,end=full)", rules_changed(two_cycles=True),
     "no-deadlock", "abstraction"),
    ("untouched marks kept under vanish", "qttt(board=2,untouched=vanish,end=full)",
     rules_changed(vanish=False), "collapse-totality", "outside the component"),
    ("last square not forced", TWO, rules_changed(forced_last=False), "termination", "end rules"),
    ("a line does not end the game", "wikipedia(board=2)", rules_changed(end_masks=()), "termination",
     "end rules"),
    ("a double line scores 2", "wikipedia", double_line_scores_two, "scores-well-defined", "x 2"),
    ("tiebreak on the smallest move number", "wikipedia", tiebreak_on_smallest, "scores-well-defined",
     "scoring components give"),
    ("rank worth halved", "kumar(board=2)", harmonic_off_by_one, "scores-well-defined",
     "scoring components give"),
]


@functools.cache
def control(spec: str) -> Report:
    """The unmutated engine's exhaustive report (shared by the mutants of one ruleset)."""
    return run(spec, exhaustive=True)


def run(spec: str, exhaustive: bool) -> Report:
    games = 300 if spec == "wikipedia" else 40
    return check(spec, games=games, exhaustive=exhaustive, timeout=30)


def shown(report: Report, prop: str) -> tuple[str, str]:
    """The status of prop and what its witness shows (and the engine's mismatch with the abstraction)."""
    f = next(f for f in report.findings if f.property == prop)
    said = " ".join([f.witness.shows if f.witness else "", f.details.get("abstraction_mismatch", "")])
    return f.status, said


@pytest.mark.slow
@pytest.mark.parametrize(("name", "spec", "patch", "prop", "phrase"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_planted_bug_is_caught(name: str, spec: str, patch: Patch, prop: str, phrase: str,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    unmutated = shown(control(spec), prop)
    assert phrase not in unmutated[1], unmutated
    patch(monkeypatch)
    for exhaustive in (True, False):
        report = run(spec, exhaustive)
        f = next(f for f in report.findings if f.property == prop)
        assert f.status == "violated" and f.witness is not None, (exhaustive, f.label, f.method)
        assert f.witness.record["actions"], f.witness
        assert phrase in shown(report, prop)[1], (exhaustive, shown(report, prop))
        assert not any(f.status == "proved" for f in report.findings if f.property == prop)


def test_mutant_list_is_long_enough() -> None:
    assert len({m[0] for m in MUTANTS}) >= 10

