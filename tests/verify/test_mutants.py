"""Planted rules bugs: each mutant of the engine, of the scoring or of the compiled core (patched in
for one test, never in the product) must make `verify.quantum.check.check` report a violation with a
witness game that `confirm` replays from the start and sees fail, never "proved"; the unmutated
engine on the same ruleset must not show that violation. Small rulesets (mostly 2×2) keep the cost
low; the 3×3 ones (a label-dependent collapse, a measurement consuming a move number, a placement
on a classical cell, a C-core-only scoring bug, a 2-cycle bug) are slow.

The compiled paths (verify.paths) are planted too: a collapse bug in both the engine and the core
(which once ran the core past its collapse stack inside the checker), a core that segfaults, aborts
or hangs, and a one-line bug in each fast path (the replay writer's player to act, qttt random's
record writer, perft, the solver, the random-game tally): each is a violation with a game that
replays under the real rules, and `qttt check` exits 1, never 139 or 3."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import textwrap
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from cores import changed_core
from views import forget_views

from qttt import IllegalAction, QtttError, load_ruleset
from qttt.cli import main as cli_main
from qttt.geometry import cells_of
from qttt.quantum import compiled, engine, game, scoring
from qttt.quantum.engine import MEASURE, PLACE, Board, Measure, Place
from verify import isolated
from verify.built import as_built
from verify.cli import exit_status
from verify.quantum.check import check, designed
from verify.quantum.exhaustive import walk
from verify.quantum.sampled import Context, confirm
from verify.quantum.witness import replay
from verify.report import Finding, Report

Patch = Callable[[pytest.MonkeyPatch], None]
TWO = "qttt(board=2,end=full)"


def fresh_engine(mp: pytest.MonkeyPatch) -> None:
    """Forget compiled rulesets, so that patched scoring is compiled in."""
    forget_views(mp, game.compile_game)


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


def pending_move_kept(mp: pytest.MonkeyPatch) -> None:
    """A stale pending move: the engine keeps the measured cycle's move as pending after the
    measurement (nothing the rules show reads it; the declared position state does)."""
    original = Board.measure

    def measure(self: Board, cell: int) -> None:
        pending = self.pending
        original(self, cell)
        self.pending = pending
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


def collapse_depends_on_labels(mp: pytest.MonkeyPatch) -> None:
    """Measuring cell 8 while x3 is classical in the centre lands the mark in the other cell: a bug
    that shows only for particular marks, which one position per shape class does not see."""
    original = Board.measure

    def measure(self: Board, cell: int) -> None:
        a, b = self.ends[self.pending]
        original(self, a + b - cell if cell == 8 and self.cls[4] == 3 else cell)
    mp.setattr(Board, "measure", measure)


def measurement_takes_a_move_number(mp: pytest.MonkeyPatch) -> None:
    original = Board.measure

    def measure(self: Board, cell: int) -> None:
        original(self, cell)
        self.move += 1
    mp.setattr(Board, "measure", measure)


def placement_on_classical_cell_accepted(mp: pytest.MonkeyPatch) -> None:
    original = Board._check_place

    def check_place(self: Board, p: Place) -> Place:
        try:
            return original(self, p)
        except IllegalAction as e:
            if e.rule == "place-open":
                return Place(min(p), max(p))
            raise
    mp.setattr(Board, "_check_place", check_place)


def core_source_changed(old: str, new: str) -> Patch:
    """The compiled core built from a copy of _core.c with one line changed: the first place `old`
    is found (the solver's search comes before the expectimax's)."""
    def patch(mp: pytest.MonkeyPatch) -> None:
        changed_core(mp, old, new)
    return patch


# The compiled core keeps a stale pending move after a measurement.
core_keeps_pending = core_source_changed("    p->pending = 0;\n    p->chosen = 0;", "    p->chosen = 0;")
# A C-core-only scoring bug: a player owning two or more lines of a per-pattern award gets one extra.
core_double_counts = core_source_changed("sx += c->points * nx;", "sx += c->points * (nx > 1 ? nx + 1 : nx);")
CHANCE_MEASURER = str(Path(__file__).resolve().parents[2] / "spec" / "coverage" / "chance-measurer.toml")
TWO_CYCLES = str(Path(__file__).resolve().parents[2] / "spec" / "coverage" / "creator-no-2-cycles.toml")


# (id, ruleset, patch, the property that must be violated, a phrase of what the checker says)
MUTANTS: list[tuple[str, str, Patch, str, str]] = [
    ("measured mark lands in the other cell", TWO, measure_other_cell, "collapse-uniqueness", "enumeration"),
    ("a mark of the component stays spooky", TWO, measure_leaves_a_mark_spooky, "collapse-totality",
     "component cells hold"),
    ("pending cycle not cleared", TWO, pending_cycle_not_cleared, "no-deadlock", "raised"),
    ("the creator measures", TWO, creator_measures, "turn-order", "the rules name"),
    ("a stale pending move in the engine", TWO, pending_move_kept, "turn-order", "as pending in phase"),
    ("a stale pending move in the compiled core", TWO, core_keeps_pending, "cores-agree",
     "position-state field pending"),
    ("cycle reported with its stems", TWO, cycle_with_stems, "single-cycle-per-move", "core"),
    ("2-cycles never forbidden", "qttt(board=2,two_cycles=false,end=full)", rules_changed(two_cycles=True),
     "no-deadlock", "abstraction"),
    ("untouched marks kept under vanish", "qttt(board=2,untouched=vanish,end=full)",
     rules_changed(untouched="keep"), "collapse-totality", "outside the component"),
    ("last square not forced", TWO, rules_changed(last_square="end"), "termination", "end rules"),
    ("a line does not end the game", "wikipedia(board=2)", rules_changed(end_masks=()), "termination",
     "end rules"),
    ("a double line scores 2", "wikipedia", double_line_scores_two, "scores-well-defined", "x 2"),
    ("tiebreak on the smallest move number", "wikipedia", tiebreak_on_smallest, "scores-well-defined",
     "scoring components give"),
    ("rank worth halved", "kumar(board=2)", harmonic_off_by_one, "scores-well-defined",
     "scoring components give"),
    ("a measurement consumes a move number (2×2)", TWO, measurement_takes_a_move_number, "turn-order",
     "the rules say"),
    ("a placement on a classical cell accepted (2×2)", TWO, placement_on_classical_cell_accepted,
     "legal-actions", "place-open"),
    ("compiled core doubles o's per-pattern points (2×2)", "russian(board=2)",
     core_source_changed("so += c->points * no;", "so += 2 * c->points * no;"), "cores-agree", "scores"),
]

# The same kinds of bug on 3×3 rulesets, the walk on (the default there): (id, ruleset, patch,
# property, phrase, games sampled besides the walk).
MUTANTS_3X3: list[tuple[str, str, Patch, str, str, int]] = [
    ("label-dependent collapse", "wikipedia", collapse_depends_on_labels, "collapse-uniqueness",
     "enumeration", 1),
    ("a measurement consumes a move number", "wikipedia", measurement_takes_a_move_number, "turn-order",
     "the rules say", 1),
    ("a placement on a classical cell accepted", "wikipedia", placement_on_classical_cell_accepted,
     "legal-actions", "place-open", 1),
    ("compiled core scores a double line once more", "russian", core_double_counts, "cores-agree", "scores",
     1),
    ("2-cycles never forbidden", TWO_CYCLES, rules_changed(two_cycles=True), "legal-actions",
     "place-two-cycle", 1),
    ("a stale pending move", "wikipedia", pending_move_kept, "turn-order", "as pending in phase", 1),
]


# Failures counted under a property besides its own: the engine against the abstraction (no-deadlock).
KINDS = {"no-deadlock": ("abstraction",), "scores-well-defined": ("score-tie-gap",)}


@pytest.fixture(autouse=True)
def real_core() -> Iterator[None]:
    """Each test starts and ends with the compiled core built from the real source."""
    yield
    compiled.library.cache_clear()
    compiled._cores.cache_clear()


@functools.cache
def control(spec: str, exhaustive: bool = True) -> Report:
    """The unmutated engine's report, with the walk or not (shared by the mutants of one ruleset)."""
    return run(spec, exhaustive)


def run(spec: str, exhaustive: bool, games: int | None = None) -> Report:
    games = games or (300 if spec == "wikipedia" else 40)
    return check(spec, games=games, exhaustive=exhaustive, timeout=30)


def shown(report: Report, prop: str) -> tuple[str, str]:
    """The status of prop and what its witness shows (and the engine's mismatch with the abstraction)."""
    f = next(f for f in report.findings if f.property == prop)
    said = " ".join([f.witness.shows if f.witness else "", f.details.get("abstraction_mismatch", "")])
    return f.status, said


def assert_caught(report: Report, spec: str, prop: str, phrase: str) -> Finding:
    """prop is violated (never proved), with a witness that replays from the start under the real
    rules and shows prop failing there again."""
    f = next(f for f in report.findings if f.property == prop)
    assert f.status == "violated" and f.witness is not None, (f.label, f.method)
    assert f.witness.record["actions"], f.witness
    assert phrase in shown(report, prop)[1], shown(report, prop)
    actions = designed(f.witness.record)
    ctx = Context.of(load_ruleset(spec))
    kinds = {prop, *KINDS.get(prop, ())}
    tries = [confirm(ctx, spec, kind, acts) for kind in kinds for acts in (actions, actions[:-1])]
    again = [w for w in tries if w is not None and w.record["actions"] == f.witness.record["actions"]]
    assert again, (kinds, f.witness)
    return f


WALKED_IN_CI = {"a stale pending move in the engine", "a stale pending move in the compiled core"}
"""The mutants CI also plants under the walk, those the issue found passing under the walk's labels
(each walk compares every registered path at every position: half a minute to a minute and a half
under CI's load); the deep lane walks every mutant, 3×3 boards included. Every mutant is planted
under sampled games in CI."""


def _modes(m: tuple[str, str, Patch, str, str]) -> list[Any]:
    """A mutant with the walk and with sampled games only."""
    deep = [] if m[0] in WALKED_IN_CI else [pytest.mark.deep]
    return [pytest.param(*m, True, id=f"{m[0]}-walk", marks=deep),
            pytest.param(*m, False, id=f"{m[0]}-sampled")]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "spec", "patch", "prop", "phrase", "exhaustive"),
                         [p for m in MUTANTS for p in _modes(m)])
def test_planted_bug_is_caught(name: str, spec: str, patch: Patch, prop: str, phrase: str, exhaustive: bool,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    unmutated = control(spec, exhaustive)
    assert not unmutated.violated and not unmutated.has("error"), \
        [(f.property, f.label) for f in unmutated.findings]
    assert phrase not in shown(unmutated, prop)[1]
    patch(monkeypatch)
    assert_caught(run(spec, exhaustive), spec, prop, phrase)


CI_3X3 = "a stale pending move"
"""The one 3×3 mutant CI plants, with the walk to ply CI_PLY (each whole walk of a 3×3 game takes
minutes on two cores); the deep lane plants them all with the whole walk."""
CI_PLY = 4


@pytest.mark.slow
@pytest.mark.parametrize(("name", "spec", "patch", "prop", "phrase", "games", "depth"),
                         [*(pytest.param(*m, None, id=m[0], marks=pytest.mark.deep) for m in MUTANTS_3X3),
                          *(pytest.param(*m, CI_PLY, id=f"{m[0]}-to-ply-{CI_PLY}")
                            for m in MUTANTS_3X3 if m[0] == CI_3X3)])
def test_planted_bug_on_three_by_three_is_caught(name: str, spec: str, patch: Patch, prop: str, phrase: str,
                                                 games: int, depth: int | None,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """With the default walk (to ply `depth` in CI) and a single sampled game: the walk alone (its
    shape classes and their other members, every registered path compared) finds each bug."""
    patch(monkeypatch)
    assert_caught(check(spec, games=games, timeout=30, exhaustive=True, max_ply=depth), spec, prop, phrase)


@pytest.mark.slow
@pytest.mark.parametrize("spec", ["wikipedia", *(pytest.param(s, marks=pytest.mark.deep)
                                                 for s in ("russian", TWO_CYCLES))])
def test_unmutated_control_stays_clean(spec: str) -> None:
    report = check(spec, games=1, timeout=30)
    assert not report.violated and not report.has("error"), [(f.property, f.label) for f in report.findings]
    for f in report.findings:  # an accepted finding (a documented gap) still comes with its game
        assert f.status != "accepted" or f.witness is not None


def test_mutant_list_is_long_enough() -> None:
    assert len({m[0] for m in MUTANTS}) >= 15
    assert {m[0] for m in MUTANTS} >= WALKED_IN_CI and CI_3X3 in {m[0] for m in MUTANTS_3X3}
    kinds = {m[3] for m in MUTANTS_3X3}
    assert kinds >= {"collapse-uniqueness", "turn-order", "legal-actions", "cores-agree"}


def test_failures_found_before_a_checkpoint_survive_the_resume(monkeypatch: pytest.MonkeyPatch,
                                                               tmp_path: Path) -> None:
    """A walk resumed from its checkpoint keeps the failures of the plies walked before it (saved
    as actions, reported only once `confirm` replays them), so a resumed run cannot read clean."""
    measure_other_cell(monkeypatch)
    rs = load_ruleset(TWO)
    saved = tmp_path / "walk.json"
    first = walk(rs, max_ply=3, checkpoint=saved)
    assert first.failures, "the mutant shows by ply 3"
    resumed = walk(rs, max_ply=4, checkpoint=saved)
    for prop, kept in first.failures.items():
        assert set(kept) <= set(resumed.failures.get(prop, [])), prop
    ctx = Context.of(rs, cores=False)
    assert any(confirm(ctx, rs.canonical, prop, list(acts)) is not None
               for prop, kept in resumed.failures.items() for _, acts, _ in kept)


# The compiled paths --------------------------------------------------------------------------------


def engine_source_changed(method: str, old: str, new: str) -> Patch:
    """The engine's Board.<method> compiled from its own source with one line changed."""
    def patch(mp: pytest.MonkeyPatch) -> None:
        source = textwrap.dedent(inspect.getsource(getattr(Board, method)))
        assert old in source
        space: dict[str, Any] = {}
        exec(source.replace(old, new, 1), vars(engine), space)  # a planted bug, in a test
        mp.setattr(Board, method, space[method])
    return patch


def measure_starts_with(line: str) -> Patch:
    """The C core's measure with a line planted at its start."""
    start = "    uint16_t component = p->comp[cell];\n"
    return core_source_changed(start, start + f"    {line}\n")


def both(*patches: Patch) -> Patch:
    def patch(mp: pytest.MonkeyPatch) -> None:
        for p in patches:
            p(mp)
    return patch


# The measured component stays open, in the engine and in the C core alike (one author, one
# misreading): later placements reuse its cells and the live graph gets a second cycle, which ran
# the core's collapse stack past its end (a segmentation fault of the whole checker) before the
# core bounded it and reported the position inconsistent.
component_stays_open = both(
    engine_source_changed("collapse", "    self.open &= ~component\n", ""),
    core_source_changed("    p->open &= (uint16_t)~component;\n", ""))

# (id, ruleset, patch, property, phrase, games, walk)
PATH_MUTANTS: list[tuple[str, str, Patch, str, str, int, bool]] = [
    ("a collapse bug in both the engine and the core", "wikipedia", component_stays_open, "legal-actions",
     "place-open", 100, False),
    ("the core segfaults on a measurement", TWO,
     measure_starts_with("if (p->pending == 3) *(volatile int *)0 = 0;"), "cores-agree", "SIGSEGV", 40, True),
    ("the core aborts on a measurement", TWO, measure_starts_with("if (p->pending == 3) abort();"),
     "cores-agree", "SIGABRT", 40, False),
    ("the core hangs on a measurement", TWO, measure_starts_with("while (p->pending == 3) {}"),
     "cores-agree", "no progress", 20, False),
    ("replay --json names the wrong player during a measurement", TWO,
     core_source_changed('v[3] ? PUT(o, "\\"o\\"") : PUT(o, "\\"x\\"")',
                         '(v[3] ^ (v[0] == MEASURE)) ? PUT(o, "\\"o\\"") : PUT(o, "\\"x\\"")'),
     "cores-agree", '"to_move": "x"', 40, False),
    ("perft miscounts measurements at depth 2", TWO,
     core_source_changed("    counts[level] += (uint64_t)n;",
                         "    counts[level] += (uint64_t)n - (level == 1 && p->phase == MEASURE);"),
     "cores-agree", "perft", 40, False),
    ("the solver lets the measurer choose for the other player", "wikipedia",
     core_source_changed("    int maxi = x_moves(r, p);\n    Pos kids[NPAIR + 2];\n"
                         "    int idx[NPAIR + 2];\n    int mv",
                         "    int maxi = x_moves(r, p) ^ (p->phase == MEASURE);\n    Pos kids[NPAIR + 2];\n"
                         "    int idx[NPAIR + 2];\n    int mv"),
     "cores-agree", "solver", 40, False),
    ("the shape key forgets the parity during a measurement", TWO,
     core_source_changed("    key = key << 1 | (p->move & 1); n += 1;",
                         "    key = key << 1 | ((p->move & 1) & (p->phase != MEASURE)); n += 1;"),
     "cores-agree", "shape key", 40, False),
    ("the core's random games leave the final phase out of their digests", TWO,
     core_source_changed("digest_step(digest_step(digest_step(d, p.phase), xs), os)",
                         "digest_step(digest_step(d, xs), os)"),
     "random-games-agree", "the compiled core's digest", 20, False),
    ("qttt random's writer drops the comma after the first action", TWO,
     core_source_changed("            if (k) out[at++] = ',';", "            if (k > 1) out[at++] = ',';"),
     "random-games-agree", "qttt random's compiled writer", 40, False),
    ("the expectimax takes a chance turn's constant from the named outcome", CHANCE_MEASURER,
     core_source_changed("    out->c[0] = other->c[0];", "    out->c[0] = named->c[0];"),
     "cores-agree", "compiled expectimax", 40, False),
    ("qttt analyze random counts o's sole line as x's", "wikipedia",
     core_source_changed("        if (kx < 0) return 2;", "        if (kx < 0) return 1;"),
     "random-games-agree", "compiled tally", 100, False),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "spec", "patch", "prop", "phrase", "games", "walked"), PATH_MUTANTS,
                         ids=[m[0] for m in PATH_MUTANTS])
def test_planted_path_bug_is_caught(name: str, spec: str, patch: Patch, prop: str, phrase: str, games: int,
                                    walked: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """A violation whose witness replays under the real rules (for cores-agree, `confirm` sees the
    paths fail there again), exit status 1, and no property the checker failed on."""
    if phrase == "no progress":  # each hang is waited out: briefly, once per path
        monkeypatch.setattr(isolated, "TIMEOUT", 0.5)
        monkeypatch.setattr(isolated, "MOST", 1)
    else:  # a path that works stands still for no more than this, even under CI's load
        monkeypatch.setattr(isolated, "TIMEOUT", 2.0)
    patch(monkeypatch)
    report = check(spec, games=games, exhaustive=walked, timeout=30)
    assert exit_status([report], False) == 1
    assert not report.has("error"), [(f.property, f.label) for f in report.findings if f.status == "error"]
    f = next(f for f in report.findings if f.property == prop)
    assert f.status == "violated" and f.witness is not None, (f.label, f.method)
    assert phrase in f.witness.shows, f.witness.shows
    actions = designed(f.witness.record)
    if prop == "cores-agree":
        ctx = Context.of(load_ruleset(spec))
        again = [w for acts in (actions, actions[:-1])
                 if (w := confirm(ctx, spec, prop, acts)) is not None and w.record == f.witness.record]
        assert again, f.witness
    if patch is component_stays_open:  # the core, as buggy as the engine, differs from it all the same
        cores = next(f for f in report.findings if f.property == "cores-agree")
        assert cores.status == "violated" and cores.witness is not None, cores.label
    monkeypatch.undo()  # the real rules: the witness is a game they allow, up to any action it shows refused
    fresh_engine(monkeypatch)
    rs = load_ruleset(spec)  # (the last action may be one the witness shows refused or accepted wrongly)
    assert replay(rs, actions) is not None or replay(rs, actions[:-1]) is not None, f.witness.record


def test_every_registered_path_has_a_planted_bug() -> None:
    """Each path of the registry is caught by one of the mutants above (by the phrase naming it)."""
    named = {"positions": "SIGSEGV", "qc_replay_jsonl": "to_move", "perft": "perft", "solver": "solver",
             "keys": "shape key", "qc_jsonl": "qttt random's compiled writer",
             "qc_games": "the compiled core's digest", "qc_sample": "compiled tally",
             "expectimax": "compiled expectimax"}
    from verify.paths import paths
    phrases = {m[4] for m in PATH_MUTANTS}
    for p in paths("quantum"):
        if p.compare.startswith("verify.quantum.adapters:"):
            continue  # the adapters' planted bugs: tests/verify/test_adapter_mutants.py (every adapter)
        key = next(k for k in named if k in p.name)  # every path has its planted bug
        assert any(named[key] in phrase for phrase in phrases), p.name


@pytest.mark.slow
def test_an_inconsistent_position_is_reported_not_overrun(monkeypatch: pytest.MonkeyPatch) -> None:
    """The core alone with the collapse bug, given the game the checker found with the bug in both:
    after cells of a measured component are placed in again, the pending cycle has no path closing
    it; the core says the position is inconsistent (QtttError, rule core-compiled) instead of
    reading before its parent array, as it did (checked in a child process, where an overrun cannot
    take the tests down; the core as built, which its load-time self-test refuses)."""
    core_source_changed("    p->open &= (uint16_t)~component;\n", "")(monkeypatch)
    rs = load_ruleset("wikipedia")
    game = [Place(3, 7), Place(4, 5), Place(0, 3), Place(2, 4), Place(5, 8), Place(5, 7), Place(3, 8),
            Measure(8), Place(5, 6), Place(3, 5)]

    def view(items: Sequence[int], mark: isolated.Mark) -> list[str]:
        mark(0)
        try:
            compiled.core_for(rs).position(game).view()
        except QtttError as e:
            return [e.message]
        return ["no error"]
    with as_built(compiled) as refused:
        got = isolated.run(view, [0])[0]
    assert refused is not None and "self-test" in refused
    assert isinstance(got, str) and got.startswith("position inconsistent"), got


@pytest.mark.slow
def test_a_core_its_self_test_refuses_is_compared_by_every_worker(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`qttt check --workers 2` compares the core as built in its pool's workers too (they are
    forked inside verify.built.every_core_as_built): a worker forked before would load the core its
    self-test refuses as no core at all, and the check would exit 0 with cores-agree unknown."""
    core_source_changed("    p->open &= (uint16_t)~component;\n", "")(monkeypatch)  # a collapse bug
    assert compiled.available() is not None  # the self-test refuses it: qttt plays the Python engine
    status = cli_main(["check", TWO, "--no-walk", "--games", "40", "--workers", "2", "--quiet",
                       "--json-document"])
    out, err = capsys.readouterr()
    assert out, err
    report = json.loads(out)
    (cores,) = [f for f in report["rulesets"][0]["properties"] if f["property"] == "cores-agree"]
    assert status == 1 and cores["status"] == "violated", cores["label"]
    assert "self-test" in cores["label"]
