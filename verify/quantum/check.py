"""The consistency checker: every catalogue property of a ruleset, with its status, the method
that settled it within which bounds, the time taken and, for a violation, a witness game.

Statuses (`verify.catalogue.STATUSES`), weakest support last: `proved` (for every game: Z3, or analysis
of the rules), `exhaustive` (the engine at every reachable position), `classes` (the engine at one
position per shape class and relabelled members of each), `sampled` (sampled games only),
`unknown` (not settled, with why), `accepted` (a violation the ambiguity register documents),
`violated`, `error` (the checker itself failed). A property's status is the
weakest of its parts; its label names each part. A violation is reported only with a game that
`sampled.confirm` has replayed from the start under the real ruleset, seeing the property fail.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import threading
import time
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

import z3

from qttt import Ruleset, action_from_json, load_ruleset
from qttt.family import family_of
from qttt.processes import PRIORITY, Mapper, Once, Stopwatch, alongside, serial_mapper, submit
from qttt.quantum import compiled
from qttt.quantum.engine import Action, Measure, Outcome, Place
from qttt.spec import spec_dir

from ..built import as_built
from ..paths import paths, serving
from ..report import Confirmed, Finding, Part, Progress, Report, finding, worst
from . import z3_graph as Z
from .abstract import Params, Summary, explore, realize
from .catalogue import PROPERTIES, SHAPE_KEY
from .exhaustive import RELABELLED, Walk, confirm_class, resumable, walk, walk_ruleset
from .graphs import Tally, enumerate_collapse, enumerate_single_cycle
from .sampled import (
    ABSTRACT,
    CHUNK,
    CORES,
    DEADLOCK,
    LEGAL,
    LENGTH,
    RANDOM,
    SCORES,
    SHAPE,
    TIE,
    TOTAL,
    TURN,
    UNIQUE,
    UNREPRODUCED,
    Context,
    GameFailure,
    Sample,
    chunks,
    compare_games,
    confirm,
    confirm_game,
    core_reason,
    forget_crashes,
    merged,
    sample_chunk,
)
from .scores import Range, end_lines, range_witnesses, tie_verdicts
from .walk_results import cited
from .witness import deadlock_witness, record, stuck_without_line

T = TypeVar("T")

CROSS_CHECK_CELLS = 6

QUANTIFIED_UP_TO = 9

def status_of(result: Z.Result[Any]) -> str:
    """A Z3 result as a status."""
    if isinstance(result, Z.Proved):
        return "proved"
    return "violated" if isinstance(result, Z.Counterexample) else "unknown"


# Shared work, done once per process -------------------------------------------------------------

SHARED = Once(priority=-1)
"""The work rulesets share (Z3 queries, the unreduced cross-checks, the enumerations): each piece
done once per process, on the mapper of the first ruleset that needs it, before any ruleset's own
work (every ruleset waits for it)."""


_Z3_LOCK = threading.Lock()


def discharge(ob: Z.Obligation, timeout: float) -> Z.Discharged:
    """One Z3 obligation: a unit of work, in a Z3 context of its own. The models Z3 shows (the
    premises' model in the report) depend on every term the context has seen before, so the same
    query answered after other queries in the same worker could show another model: a fresh context
    makes the answer a function of the query alone, whichever worker gets it after whichever other
    work. One at a time per process: a context is not safe to share between threads, and a mapper
    in this process runs units on threads."""
    with _Z3_LOCK:
        z3.z3._main_ctx = None  # the next term made starts a new main context (z3.main_ctx)
        started = time.thread_time()
        done = Z.discharge([ob], timeout)[0]
        return dataclasses.replace(done, seconds=time.thread_time() - started)  # CPU, as every unit


def z3_proofs(cells: int, timeout: float = 60.0,
              mapper: Mapper = serial_mapper) -> list[Future[Z.Discharged]]:
    """Every Z3 obligation for a board of `cells` cells; component queries are shared across boards."""
    return SHARED.get(mapper, discharge, [
        (("z3", ob.name, ob.size if ob.property != "single-cycle-per-move" else -ob.size), (ob, timeout))
        for ob in Z.obligations(cells, QUANTIFIED_UP_TO)])


@cache
def abstraction(p: Params) -> Summary:
    """The exhaustive exploration of the component-size abstraction (memoised)."""
    return explore(p)


def unreduced_proofs(timeout: float = 60.0, mapper: Mapper = serial_mapper) -> list[Future[Z.Discharged]]:
    """The claims without symmetry reduction, up to CROSS_CHECK_CELLS cells."""
    return SHARED.get(mapper, discharge, [(("unreduced", ob.name, ob.size), (ob, timeout))
                                          for ob in Z.unreduced_obligations(CROSS_CHECK_CELLS)])


ENUMERATIONS = {"single-cycle-per-move": enumerate_single_cycle, "collapse": enumerate_collapse}
"""The naive enumerations up to CROSS_CHECK_CELLS cells, by the property they check: every small
forest plus an edge, every small unicyclic graph."""


def enumerated(prop: str) -> tuple[Tally, float]:
    """One enumeration of ENUMERATIONS, with the CPU seconds it took: a unit of work."""
    t = time.thread_time()
    tally = ENUMERATIONS[prop](CROSS_CHECK_CELLS)
    return tally, time.thread_time() - t


def enumerations(mapper: Mapper = serial_mapper) -> dict[str, Future[tuple[Tally, float]]]:
    """Each enumeration, with the seconds it took, by the property it checks."""
    keyed = [(("enumeration", p), (p,)) for p in ENUMERATIONS]
    return dict(zip(ENUMERATIONS, SHARED.get(mapper, enumerated, keyed), strict=True))


# Properties -------------------------------------------------------------------------------------

Failures = dict[str, list[tuple[str, tuple[Action, ...], tuple[Action, ...] | None]]]

@dataclass
class Engine:
    """What the engine showed: the sampled games and the walks, and the real ruleset's context,
    under which every witness is replayed (`witness`)."""

    ctx: Context
    variant: str
    sample: Sample
    walk: Walk | None = None
    own_walk: Walk | None = None
    games: dict[str, list[GameFailure]] = field(default_factory=dict)  # the paths compared on games
    unrun: dict[str, str] = field(default_factory=dict)  # paths at games not compared, with why
    seed: int = 0  # of those games: qttt random --seed
    refused: str | None = None  # why the core's load-time self-test refused it, if it did
    _confirmed: dict[str, Confirmed | None] = field(default_factory=dict)

    def witness(self, prop: str) -> Confirmed | None:
        """The first failure of prop that replays from the start under the real rules and fails
        there again (walks first: their games are shortest; for random-games-agree, the paths
        compared on games); failures of an auxiliary walk that do not are dropped."""
        if prop not in self._confirmed:
            self._confirmed[prop] = next(
                (w for failures in self.failures() for _, actions, reference in failures.get(prop, [])
                 if (w := (confirm(self.ctx, self.variant, prop, actions) if reference is None else
                           confirm_class(self.ctx, self.variant, prop, actions, reference))) is not None),
                None)
            if self._confirmed[prop] is None and prop == RANDOM:
                self._confirmed[prop] = next(
                    (w for found in self.games.values() for f in found
                     if (w := confirm_game(self.ctx, self.variant, f)) is not None), None)
        return self._confirmed[prop]

    def confirm(self, prop: str, actions: Sequence[Action]) -> Confirmed | None:
        """A designed game as a witness of prop, when it replays and shows prop failing."""
        return confirm(self.ctx, self.variant, prop, actions)

    def failures(self) -> list[Failures]:
        """The failures of each source (a sampled game's have no representative)."""
        sampled: Failures = {p: [(m, a, None) for m, a in kept] for p, kept in self.sample.failures.items()}
        return [w.failures for w in (self.walk, self.own_walk) if w is not None] + [sampled]

    def part(self) -> Part:
        """How the engine was checked, as a part."""
        s, w = self.sample, self.walk
        sampled = f"sampled ({s.games} game{'s' * (s.games != 1)})"
        if w is None:
            return "sampled", sampled
        if w.resumed_at is not None:  # the plies before it were read from a file, not walked here
            return "sampled", (f"{sampled}, after a walk resumed from a checkpoint at ply {w.resumed_at} "
                               f"({w.positions} positions)")
        if w.key_errors:
            return "error", ("checker error (the walk's shape key merged positions that are not one shape "
                             f"class: {w.key_errors[0]})")
        if w.complete and w.key == "concrete":
            return "exhaustive", f"exhaustive (engine, every reachable position: {w.positions})"
        if w.complete and w.walker == "core":
            return "classes", (f"shape classes ({published(w)}compiled core, one position per shape class, "
                               f"{w.positions} classes, each checked in C against the checker's reading and "
                               f"on up to K = {w.relabelled} other members: {w.members} checked, each with "
                               f"its representative's future; the engine at {w.engine_checked} of the "
                               f"classes ({engine_share(w)}), where both cores are compared; every failure "
                               "the C checks find is replayed by the engine)")
        if w.complete:
            return "classes", (f"shape classes (engine, one position per shape class, {w.positions} classes, "
                               f"each also on up to K = {w.relabelled} other members: {w.members} checked, "
                               f"each with its representative's future)")
        if w.lost is not None:
            return "sampled", (f"{sampled}, after a walk that stopped early ({w.lost}; {w.positions} "
                               "positions)")
        return "sampled", f"{sampled}, after a walk to ply {w.max_ply} ({w.positions} positions)"


def published(w: Walk) -> str:
    """Where a cited walk was published, as the start of its label ("" for a walk of this run)."""
    return "" if w.published is None else f"published walk {w.published}, not re-run by this check: "


def engine_share(w: Walk) -> str:
    """Which classes of the compiled core's walk the engine checked, in words."""
    return (f"every class to ply {w.engine_ply}, then the one in {w.engine_every} whose key hashes to 0"
            + (", and every finished one" if w.walker == "core" and w.final_positions else ""))


def designed(record_: dict[str, Any]) -> list[Action]:
    """The actions of a designed game's record."""
    return [a for a in map(action_from_json, record_["actions"]) if isinstance(a, (Place, Measure, Outcome))]


def z3_part(prop: str, rs: Ruleset, mine: Sequence[Z.Discharged]) -> Part:
    """The Z3 obligations of a property, as a part: proved only when every query is proved from
    premises shown satisfiable."""
    bad = [d for d in mine if d.status != "proved"]
    cells = rs.board * rs.board
    if not bad:
        what = (f"every forest on {cells} cells plus an edge" if prop == "single-cycle-per-move"
                else f"every component of 2..{cells} cells")
        return "proved", f"proved (Z3, {what})"
    d = bad[0]
    if d.status == "violated":
        return "violated", f"violated (Z3 counterexample to {d.obligation.name}, {d.obligation.size} cells)"
    why = ("premises not shown satisfiable" if isinstance(d.result, Z.Proved)
           else f"Z3: {getattr(d.result, 'reason', '')}")
    return "unknown", f"unknown ({d.obligation.name}, {d.obligation.size} cells: {why})"


def graph_finding(prop: str, rs: Ruleset, evidence: Evidence, engine: Engine,
                  sampled_props: Sequence[str]) -> Finding:
    """A graph or collapse property: Z3 for the board, the unreduced encodings and the enumeration
    up to 6 cells (shared by every ruleset: their time is reported once, `shared_work`), the
    engine in sampled games and the walk."""
    mine = [d for d in evidence.proofs if d.obligation.property == prop
            or (prop == "collapse-totality" and d.obligation.name == "at-least-one-outcome")]
    unreduced = [d for d in evidence.unreduced if d.obligation.property == prop]
    tally = evidence.tallies[prop if prop == "single-cycle-per-move" else "collapse"]
    by_query: dict[str, dict[str, Any]] = {}
    for d in mine:
        entry = by_query.setdefault(d.obligation.name, {"sizes": [], "status": "proved"})
        entry["sizes"].append(d.obligation.size)
        entry["status"] = worst([entry["status"], d.status])
        entry.setdefault("premises_model", d.premises.model)
        if isinstance(d.result, Z.Counterexample):
            entry["counterexample"] = repr(d.result.witness)
    for entry in by_query.values():
        sizes = entry.pop("sizes")
        entry["cells"] = f"{min(sizes)}..{max(sizes)}" if len(sizes) > 1 else str(sizes[0])
    parts = [z3_part(prop, rs, mine), z3_part(prop, rs, unreduced) if unreduced else ("proved", ""),
             engine.part()]
    if not tally.holds:
        parts.append(("violated", f"violated (enumeration up to {tally.max_vertices} cells)"))
    parts = [p for p in parts if p[1]]
    if parts[1][1].startswith("proved"):
        parts.pop(1)  # the unreduced cross-check agrees: the reduced proof's label says it
    witness = None
    for p in sampled_props:
        witness = witness or engine.witness(p)
    cells = rs.board * rs.board
    s = engine.sample
    method = (f"Z3 on {cells} cells ({len(mine)} queries, each with its premises shown satisfiable; "
              f"shared by every ruleset of {cells} cells); unreduced Z3 up to {CROSS_CHECK_CELLS} cells; "
              "enumeration of "
              f"{tally.cases} cases up to {tally.max_vertices} cells; engine: {s.positions} positions, "
              f"{s.measurements} measurements in {s.games} games" + _walk_note(engine))
    details = {"z3": by_query, "z3_shared": True, "unreduced_z3": worst([d.status for d in unreduced]),
               "enumeration": {"cases": tally.cases, "cells": tally.max_vertices,
                               "failures": list(tally.failures[:3])}}
    return finding(prop, parts, method, 0.0, witness, details)


def _walk_note(engine: Engine) -> str:
    return _walked(engine) + _chance_note(engine)


def _chance_note(engine: Engine) -> str:
    """How a ruleset with chance had its chance turns explored (rule collapse-chance)."""
    if engine.ctx.collapse == "choice":
        return ""
    return ("; chance turns (collapse-chance): the walk takes every outcome chance can give, the sampled "
            "games draw each outcome uniformly from the checker's seeded generator (not by its probability, "
            "so an unlikely outcome is explored as often), and every chance turn's outcomes and exact "
            "probabilities are checked against the rules")


def _walked(engine: Engine) -> str:
    w = engine.walk
    if w is None:
        return ""
    if w.key == "concrete":
        extent = "every reachable position" if w.complete else f"every position to ply {w.max_ply}"
        return f"; walk: {extent} of {w.ruleset}, {w.positions} positions, none merged"
    extent = "every reachable shape class" if w.complete else f"every shape class to ply {w.max_ply}"
    own = (f" (the ruleset with end = full, whose positions include every position of the real rules; "
           f"then one position per class on the real rules, {engine.own_walk.positions} positions)"
           if engine.own_walk is not None else "")
    varied = ", ".join(f"{f} {n}" for f, n in w.varied.items())
    first = (", those whose move numbers, classical marks or open cells' degrees differ from its "
             "representative's first" if w.walker == "python" else "")
    return (f"; walk: {extent} of {w.ruleset}{own}, {w.positions} classes, each also on up to "
            f"{w.relabelled} other members ({w.members} checked: first other games the walk found reaching "
            f"the class{first}, then games relabelled from its representative's; members differing from "
            f"their representative, by field of the position state: {varied}), each checked as any position "
            f"and its future (phase, player to act, the classes after each legal action) held to its "
            f"representative's; {SHAPE_KEY.lower()[0]}{SHAPE_KEY[1:]}")


def simple_finding(prop: str, what: str, engine: Engine, started: float) -> Finding:
    """A property checked at every position the engine was checked on (turn order, legal actions)."""
    return finding(prop, [engine.part()], what + _walk_note(engine), time.perf_counter() - started,
                   engine.witness(prop))


PROPERTY_AT = {"positions": CORES, "games": RANDOM}
"""The property each kind of registered path (verify.paths, by `at`) is checked under."""


def paths_finding(at: str, rs: Ruleset, engine: Engine, started: float) -> Finding:
    """The registered paths (verify.paths) compared with the engine `at` positions (property
    cores-agree: every position the engine was checked on) or on games (random-games-agree: the
    games of `qttt random --seed`), each run in a child process and named in the details with what
    settled it, or why it was not compared."""
    prop = PROPERTY_AT[at]
    serve, skipped = serving(rs, at)
    s = engine.sample
    if at == "positions":
        status, label = engine.part()
        names = ", ".join(dict.fromkeys(p.name.split(":")[0] for p in serve)) or "compiled core"
        label = (label.replace("(engine", f"(engine and {names}", 1) if "(engine" in label
                 else label.replace(" games)", f" games, engine and {names})", 1))
        where = (f"at {s.positions} positions of {s.games} sampled games"
                 + ("" if engine.walk is None else " and every position of the walk"))
        w = engine.walk
        if w is not None and w.walker == "core" and status == "classes" and w.published is not None:
            # a published walk compared the engine and the compiled core as the file says; this run, the games
            where = f"at {s.positions} positions of {s.games} sampled games"
            status, label = "sampled", (f"sampled ({s.games} games, engine and {names}; the published walk "
                                        f"{w.published} compared the engine and the compiled core at "
                                        f"{w.engine_checked} classes, {engine_share(w)})")
        elif w is not None and w.walker == "core" and status == "classes":
            where = (f"at {s.positions} positions of {s.games} sampled games and {w.engine_checked} classes "
                     f"of the compiled core's walk ({engine_share(w)})")
            status, label = "sampled", (f"sampled (engine and {names} compared at {w.engine_checked} "
                                        f"classes of the compiled core's walk, {engine_share(w)}, and in "
                                        f"{s.games} games)")
    else:
        where = f"on the {s.games} games of qttt random --seed {engine.seed}"
        status, label = "sampled", f"sampled ({where[7:]}, engine and compiled core)"
    settled = {p.name: (status, f"{label.split(' (')[0]}: {p.settles}, {where}") for p in serve}
    if at == "games":
        skipped |= engine.unrun
        serve = tuple(p for p in serve if p.name not in engine.unrun)
    settled |= {name: ("unknown", f"not compared: {why}") for name, why in skipped.items()}
    details: dict[str, Any] = {"paths": [
        {"path": p.name, "symbols": list(p.symbols), "status": (got := settled[p.name])[0], "label": got[1]}
        for p in paths(family_of(rs).name, at)]}
    if not serve:
        reason = core_reason(rs) or "; ".join(dict.fromkeys(skipped.values())) or "no registered path"
        return finding(prop, [("unknown", f"unknown (no compiled path was run: {reason})")], "not compared",
                       time.perf_counter() - started, details=details)
    parts: list[Part] = [(status, label)]
    # a path missing from this machine (an adapter's framework not installed) leaves the property unknown
    # here; one that does not serve the ruleset at all (the solver beyond 3×3) is named in the details only
    parts += [("unknown", f"unknown ({name.split(':')[0]} not compared: {why})")
              for name, why in skipped.items() if "not installed" in why]
    if engine.refused is not None:  # the commands play the Python engine instead: say why, whatever else
        parts.append(("unknown", f"unknown (the compiled core's load-time self-test refuses it, so the "
                                 f"commands play the Python engine: {engine.refused}; compared as built)"))
        details["self_test"] = engine.refused
    unreproduced = [m for failures in engine.failures() for m, _, _ in failures.get(UNREPRODUCED, [])]
    if unreproduced and at == "positions":
        parts.append(("error", f"checker error (no single game reproduces a crash: {unreproduced[0]})"))
    method = ("each registered path (verify.paths) in a child process, against the engine (a crash, an abort "
              f"or a hang is a violation with the game that shows it), {where}: "
              + "; ".join(f"{p.name}: {p.settles}" for p in serve)
              + "".join(f"; not compared: {name} ({why})" for name, why in skipped.items())
              + (_walk_note(engine) if at == "positions" else ""))
    return finding(prop, parts, method, time.perf_counter() - started, engine.witness(prop), details)


def deadlock_finding(rs: Ruleset, engine: Engine, started: float) -> Finding:
    """No deadlock: the abstraction, then a game for any deadlock it has; the engine's actions must
    match the abstraction's wherever they were compared."""
    s = engine.sample
    summary = abstraction(Params.of(rs))
    details: dict[str, Any] = {"abstract_positions": summary.positions, "simulated_positions": s.simulated}
    parts: list[Part] = []
    mismatch = engine.witness(ABSTRACT)
    if mismatch:
        details["abstraction_mismatch"] = mismatch.shows
    witness = engine.witness(DEADLOCK)
    if not summary.deadlocks:
        method = (f"exhaustive over the component-size abstraction ({summary.positions} positions); "
                  f"engine matched it on {s.simulated} sampled positions" + _walk_note(engine))
        parts += [("proved", f"proved (component-size abstraction, {summary.positions} positions)"),
                  engine.part()]
        return finding("no-deadlock", parts, method, time.perf_counter() - started, witness or mismatch,
                       details)
    details["abstract_deadlocks"] = [f"{a.phase}, open components {list(a.parts)}" for a in summary.deadlocks]
    if witness is None:
        game = deadlock_witness(rs, engine.variant, end_lines(rs))
        witness = engine.confirm(DEADLOCK, designed(game.record)) if game else None
    method = (f"exhaustive over the component-size abstraction finds {len(summary.deadlocks)} stuck "
              "position(s); " + ("a game reaches one" if witness else "no designed game reaches one"))
    two_open = all(a.phase == "place" and a.open == 2 for a in summary.deadlocks)
    if not witness and two_open and not stuck_without_line(rs):
        method += ("; every stuck position has all cells but two classical with no line owned, and "
                   "every owner colouring of all cells but two completes an end line")
        parts += [("proved", "proved (every colouring of all cells but two completes an end line, so "
                             "the game ends before it can get stuck)"), engine.part()]
    if not witness and not parts:
        parts.append(("unknown", "unknown (the abstraction gets stuck; no game found reaching it)"))
    if mismatch is not None:  # the engine disagrees with the abstraction: a violation, whatever else
        return finding("no-deadlock", parts, method, time.perf_counter() - started, mismatch, details)
    gap = documented_deadlock(rs) if witness is not None else None
    return finding("no-deadlock", parts, method, time.perf_counter() - started, witness, details,
                   accepted=gap)


def termination_finding(rs: Ruleset, engine: Engine, started: float) -> Finding:
    """Termination: the longest abstract path, realised by the engine where it can be."""
    s = engine.sample
    summary = abstraction(Params.of(rs))
    longest = realize(rs, summary.longest_path)
    details: dict[str, Any] = {"bound": summary.longest, "longest_replayed": len(longest),
                               "longest_sampled": s.longest}
    if rs.rules.end == "full":
        details["complete_games"] = str(summary.games)
    parts = [("proved", f"proved (longest path of the component-size abstraction: {summary.longest} "
                        "actions)"), engine.part()]
    if engine.walk is not None:
        details["longest_walked"] = len(engine.walk.positions_by_ply) - 1
    witness = engine.witness(LENGTH)
    method = (f"longest path of the component-size abstraction: {summary.longest} actions; the engine "
              f"replays a game of {len(longest)} actions; sampled games: at most {s.longest}; the engine's "
              "end of game against the end rules at every checked position" + _walk_note(engine))
    if not witness and longest:
        details["longest_game"] = record(engine.variant, longest)
    return finding("termination", parts, method, time.perf_counter() - started, witness, details)


@cache
def register() -> tuple[dict[str, Any], ...]:
    """The points of the ambiguity register (spec/ambiguities.toml)."""
    with open(spec_dir() / "ambiguities.toml", "rb") as f:
        return tuple(tomllib.load(f)["point"])


def documented_gap(rs: Ruleset) -> str | None:
    """The documented gap a tie of rs's first-line awards falls into, as `score-tie-gap, ...`:
    every first-line component of rs resolves ties by stated fallback criteria (the vocabulary's
    criteria no source states, reported under rule score-tie-gap), named with the ambiguity-register
    point that reads ties with the same fallback when there is one. None when a tie would be
    undocumented (no fallback stated)."""
    lined = [c for c in rs.scoring if c.award == "first-line"]
    if not lined or not all(c.get("fallback") for c in lined):
        return None
    fallbacks = {"fallback = " + json.dumps(list(c.get("fallback"))).replace(", ", ",") for c in lined}
    for point in register():
        reading = point.get("reading", "").replace(", ", ",")
        if "score-tie-gap" in point.get("rules", ()) and all(f in reading for f in fallbacks):
            return f"score-tie-gap, ambiguity {point['id']}"
    criteria = " / ".join("/".join(c.get("fallback")) for c in lined)
    return f"score-tie-gap, the ruleset's stated fallback {criteria}"


def documented_deadlock(rs: Ruleset) -> str | None:
    """The documented gap a deadlock of rs falls into, as `deadlock, ambiguity ID`: rs forbids
    2-cycles, and the register's point on that parameter says this can leave a player with no
    legal placement. None when a deadlock would be undocumented."""
    if rs.rules.two_cycles:
        return None
    for point in register():
        if point.get("parameter") == "two_cycles" and "deadlock" in point.get("other", ""):
            return f"deadlock with two_cycles = false, ambiguity {point['id']}"
    return None


def scores_finding(rs: Ruleset, engine: Engine, started: float) -> Finding:
    """Scores: the engine's final scores (against the checker's reading of the scoring and the
    declared range), ties, the declared range reached."""
    s = engine.sample
    variant = engine.variant
    parts: list[Part] = []
    notes = []
    details: dict[str, Any] = {}
    witness = engine.witness(SCORES)
    tie = engine.witness(TIE)
    finals = sum(w.final_positions for w in (engine.walk, engine.own_walk) if w is not None)
    extra = f"; plus {finals} final positions of the walk" if finals else ""
    parts.append(("sampled", f"sampled ({s.games} games{extra})"))
    verdicts = tie_verdicts(rs, variant)
    details["ties"] = [{"component": v.component, "possible": v.possible, "reason": v.reason}
                       for v in verdicts]
    for v in verdicts:
        if v.possible:
            tie = tie or (engine.confirm(TIE, designed(v.witness.record)) if v.witness else None)
            if not tie:
                parts.append(("unknown", f"unknown ({v.reason})"))
        notes.append(v.reason)
    if verdicts and not any(v.possible for v in verdicts):
        parts.append(("proved", "proved (case analysis of the tiebreak)"))
    rng = range_witnesses(rs, variant)
    if rng is None:
        parts.append(("unknown", "unknown (range not computed above 4×4)"))
        notes.append("range not computed above 4×4")
    else:
        details["range"] = {
            "declared": {"x": [str(v) for v in rng.declared[0]], "o": [str(v) for v in rng.declared[1]]},
            "reached": {"x": [str(v) for v in rng.reached[0]], "o": [str(v) for v in rng.reached[1]]},
            "games": {k: w.record for k, w in rng.witnesses.items()}}

        def span(r: tuple[tuple[Any, Any], tuple[Any, Any]]) -> str:
            return f"x {r[0][0]}..{r[0][1]}, o {r[1][0]}..{r[1][1]}"

        outside = [k for k in rng.witnesses if _beyond(rng, k)]
        beyond = next((w for k in outside
                       if (w := engine.confirm(SCORES, designed(rng.witnesses[k].record)))), None)
        if outside:
            witness = witness or beyond
            notes.append(f"a game scores beyond the declared range: declared {span(rng.declared)}, "
                         f"games reach {span(rng.reached)}")
            if not beyond:
                parts.append(("error", "checker error (a designed game beyond the declared range does not "
                                       "replay as one)"))
        elif rng.tight:
            parts.append(("proved", "proved (declared range, every end reached by a game)"))
            notes.append(f"range tight: {span(rng.declared)}")
        else:
            parts.append(("unknown", f"unknown (range not shown tight: declared {span(rng.declared)}, "
                                     f"games reach {span(rng.reached)})"))
            notes.append(f"range not shown tight: declared {span(rng.declared)}, games reach "
                         f"{span(rng.reached)}")
    method = (f"{s.games} sampled ends{extra} scored against the checker's own reading of the scoring "
              "and the declared range; " + "; ".join(notes))
    if witness is None and tie is not None:
        gap = documented_gap(rs)
        return finding(SCORES, parts, method, time.perf_counter() - started, tie, details, accepted=gap)
    return finding(SCORES, parts, method, time.perf_counter() - started, witness, details)


def _beyond(rng: Range, end: str) -> bool:
    """Whether the game reaching one end of the range scores outside the declared range."""
    who = 0 if end.startswith("x") else 1
    low, high = rng.declared[who]
    value = rng.reached[who][0 if end.endswith("min") else 1]
    return not low <= value <= high


def default_games(rs: Ruleset) -> int:
    """How many random games to sample: fewer on larger boards."""
    return 1000 if rs.board <= 3 else 200


def default_depth(rs: Ruleset, cores: bool = True) -> int | None:
    """How deep the walk goes: the whole game on 3×3 and smaller and where the compiled core walks
    (`core_walks`), 8 plies above."""
    return None if rs.board <= 3 or core_walks(rs, cores) else 8


ENGINE_PLY = 9
"""Where the compiled core walks: the engine checks every class up to this ply,"""
ENGINE_EVERY = 64
"""and after it the classes whose key hashes to 0 modulo this (about one in 64)."""


def core_walks(rs: Ruleset, cores: bool = True) -> bool:
    """Whether the compiled core walks rs (and checks every class in C; the engine a share of them):
    boards above 3×3 that it plays, where the engine at every class would take CPU-hours, without
    chance (the core's walk keys a chance turn by no class: rule collapse-chance)."""
    return (cores and rs.board > 3 and core_reason(rs) is None
            and Params.of(rs).collapse == "choice")


def walks_by_default(rs: Ruleset) -> bool:
    """Whether `check` walks rs without being asked: boards up to 3×3, where the walk completes
    within about a minute (bench/bench_exhaustive.py)."""
    return rs.board <= 3


WALK_SHARDS = 16
"""Units of work in a walk's ply (shards of its classes by key, `verify.quantum.exhaustive.shard_of`):
enough to keep 16 workers busy; the walk finds the same whatever their number."""


def walk_key(rs: Ruleset) -> str:
    """The walk's key: every concrete position on 2×2, where they are few; shape classes above."""
    return "concrete" if rs.board <= 2 else "shape"


def run_walks(rs: Ruleset, spec: str, max_ply: int | None, mapper: Mapper = serial_mapper,
              progress: Progress | None = None, checkpoint: str | None = None, cores: bool = True,
              shards: int = 0) -> tuple[Walk, Walk | None]:
    """The walk of rs: of every concrete position (`walk_key`), or of the shape classes of
    `walk_ruleset(rs)` with K other members each and, when that differs from rs, a second
    walk on rs itself checking the end rules and final scores. Findings of a walk on other rules
    than rs count only once `confirm` replays them under rs. `mapper` runs the walks' shards
    (`shards` per ply, default `WALK_SHARDS`); where the compiled core walks rs (`core_walks`), it
    checks every class in C and the engine a share of them."""
    key = walk_key(rs)
    target = walk_ruleset(rs) if key == "shape" else rs
    bound = abstraction(Params.of(target)).longest
    members = RELABELLED if key == "shape" else 0

    def told(ply: int, done: int, total: int, what: str = "walk") -> None:
        if progress:
            progress(f"{what}: ply {ply}, {done}/{total} positions")

    params = {"end": "full"} if target is not rs else {}
    core = key == "shape" and core_walks(rs, cores)
    walker, engine_ply, engine_every = ("core", ENGINE_PLY, ENGINE_EVERY) if core else ("python", -1, 0)
    own = None  # the second walk goes along with the first (neither waits for the other; one worker: first)
    if target is not rs:
        own = alongside(mapper, functools.partial(
            walk, rs, max_ply=max_ply, bound=bound, mapper=mapper, workers=shards or WALK_SHARDS, load=spec,
            cores=cores, walker=walker, engine_ply=engine_ply, engine_every=engine_every, finals=core,
            progress=functools.partial(told, what="walk of the real rules")))
    structural = walk(target, max_ply=max_ply, bound=bound, mapper=mapper, workers=shards or WALK_SHARDS,
                      progress=told,
                      checkpoint=checkpoint, load=spec, params=params, key=key, members=members, cores=cores,
                      walker=walker, engine_ply=engine_ply, engine_every=engine_every)
    return structural, own.result() if own is not None else None


def _walk_json(structural: Walk, own: Walk | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleset": structural.ruleset, "key": structural.key, "complete": structural.complete,
        "positions": structural.positions, "positions_by_ply": structural.positions_by_ply,
        "members_per_class": structural.relabelled, "members_checked": structural.members,
        "members_differing_by_field": structural.varied,
        "partition_classes": structural.partition_classes, "final_positions": structural.final_positions,
        "seconds": round(structural.seconds, 3)}
    if structural.max_ply is not None:
        out["max_ply"] = structural.max_ply
    if structural.resumed_at is not None:
        out["resumed_at"] = structural.resumed_at
    if structural.walker == "core":
        out["walker"] = "compiled core"
        out["engine_checked"] = structural.engine_checked
    if structural.published is not None:
        out["published"] = structural.published
    if structural.lost is not None:
        out["lost"] = structural.lost
    if own is not None:
        out["own_rules"] = {"ruleset": own.ruleset, "positions": own.positions,
                            "final_positions": own.final_positions, "seconds": round(own.seconds, 3)}
    return out


def guarded(prop: str, build: Callable[[], Finding]) -> Finding:
    """A finding, or the checker's own error naming what failed (never a crash, never `unknown`)."""
    started = time.perf_counter()
    try:
        return build()
    except Exception as e:
        return finding(prop, [("error", f"checker error ({type(e).__name__}: {e})")],
                       "not settled: the checker failed", time.perf_counter() - started)


@dataclass(frozen=True)
class Evidence:
    """What the properties of a ruleset are settled from: the sampled games, the walks, the Z3
    proofs for its board, the unreduced cross-checks and the enumerations (by property)."""

    sample: Sample
    walk: Walk | None
    own_walk: Walk | None
    proofs: tuple[Z.Discharged, ...]
    unreduced: tuple[Z.Discharged, ...]
    tallies: dict[str, Tally]
    games: dict[str, list[GameFailure]] = field(default_factory=dict)  # the paths compared on games
    unrun: dict[str, str] = field(default_factory=dict)  # paths at games not compared, with why
    seed: int = 0  # of those games: qttt random --seed
    refused: str | None = None  # why the core's load-time self-test refused it, if it did


def settle_property(prop: str, rs: Ruleset, spec: str, bound: int | None, cores: bool,
                    evidence: Evidence) -> Finding:
    """The finding of one property of rs from the evidence: a unit of work (witnesses are
    replayed under rs, named spec in their records)."""
    engine = Engine(Context.of(rs, bound, cores), spec, evidence.sample, evidence.walk, evidence.own_walk,
                    evidence.games, evidence.unrun, evidence.seed, evidence.refused)
    started = time.perf_counter()
    build: dict[str, Callable[[], Finding]] = {
        SHAPE: lambda: graph_finding(SHAPE, rs, evidence, engine, (SHAPE,)),
        UNIQUE: lambda: graph_finding(UNIQUE, rs, evidence, engine, (UNIQUE,)),
        TOTAL: lambda: graph_finding(TOTAL, rs, evidence, engine, (TOTAL,)),
        TURN: lambda: simple_finding(
            TURN, "the checker's own count of the placements played (next move number, pending move, who "
            "acts) against the engine's at every checked position", engine, started),
        LEGAL: lambda: simple_finding(
            LEGAL, "every action of the action space at every checked position: the engine's legal list "
            "against the rules, every other action refused under the rule check-order names", engine,
            started),
        CORES: lambda: paths_finding("positions", rs, engine, started),
        RANDOM: lambda: paths_finding("games", rs, engine, started),
        DEADLOCK: lambda: deadlock_finding(rs, engine, started),
        LENGTH: lambda: termination_finding(rs, engine, started),
        SCORES: lambda: scores_finding(rs, engine, started),
    }
    cpu = time.thread_time()
    found = guarded(prop, build[prop])
    found.seconds = time.thread_time() - cpu  # its own work: CPU, as every unit
    graph = prop in (SHAPE, UNIQUE, TOTAL)
    found.shared = ("walk",) * (evidence.walk is not None) + ("games",) + ("z3",) * graph
    found.next = next_step(prop, rs, evidence) if found.status in ("unknown", "sampled") else ""
    return found


def next_step(prop: str, rs: Ruleset, evidence: Evidence) -> str:
    """What would settle prop better, where a flag or a tool would: Z3 given more time, the
    compiled core built."""
    gave_up = [d.result.seconds for d in evidence.proofs
               if d.obligation.property == prop and isinstance(d.result, Z.Unknown)]
    if gave_up and prop in (SHAPE, UNIQUE, TOTAL):
        most = max(gave_up)
        return f"Z3 gave up after {most:.0f} s on a query: --timeout {4 * most:.0f} gives it longer"
    if prop == CORES and core_reason(rs) is not None and compiled.supports(rs) is None:
        return (f"the compiled core was not compared ({core_reason(rs)}): with a C compiler (cc) on the "
                "path, check builds it")
    return ""


def waited(futures: Sequence[Future[T]], say: Progress, what: str) -> list[T]:
    """The results of futures, in order, telling how many are in (`what` names them)."""
    out = []
    for i, f in enumerate(futures):
        if not f.done():
            say(f"{what}: {i}/{len(futures)}")
        out.append(f.result())
    return out


def check(spec: str, *, games: int | None = None, seed: int = 0, progress: Progress | None = None,
          timeout: float = 60.0, exhaustive: bool | None = None, max_ply: int | None = None,
          mapper: Mapper = serial_mapper, checkpoint: str | None = None, cores: bool = True) -> Report:
    """Settle every catalogue property of the ruleset named by spec (name, canonical name or file).
    The walk runs when `exhaustive`, or by default (None) where `walks_by_default`; to max_ply,
    default `default_depth`. With `cores`, every registered path (verify.paths) is compared with
    the engine wherever it plays the ruleset, the compiled core as its source builds it even where
    its load-time self-test refuses it (`verify.built.as_built`). The units of work (Z3 queries,
    chunks of sampled games, a walk's batches of positions, properties) go to `mapper`, all of them
    handed out as soon as they can be: the report is the same whichever mapper runs them."""
    with as_built(compiled) if cores else contextlib.nullcontext() as refused:
        return settle(spec, games=games, seed=seed, progress=progress, timeout=timeout, exhaustive=exhaustive,
                      max_ply=max_ply, mapper=mapper, checkpoint=checkpoint, cores=cores, refused=refused)


def settle(spec: str, *, games: int | None, seed: int, progress: Progress | None, timeout: float,
           exhaustive: bool | None, max_ply: int | None, mapper: Mapper, checkpoint: str | None,
           cores: bool, refused: str | None) -> Report:
    """`check`'s work, `refused` saying why the core's self-test refused it (None: it did not)."""
    rs = load_ruleset(spec)
    say = progress or (lambda _: None)
    forget_crashes()
    walks = exhaustive or (exhaustive is None and walks_by_default(rs))
    if walks and checkpoint is not None and Path(checkpoint).is_file():  # damaged: named before any work
        key = walk_key(rs)
        resumable(walk_ruleset(rs) if key == "shape" else rs, Path(checkpoint), key,
                  "core" if key == "shape" and core_walks(rs, cores) else "python")
    say("Z3 queries and enumerations")  # on one worker, done before the next line (`waited` says no more)
    proofs = z3_proofs(rs.board * rs.board, timeout, mapper)
    unreduced = unreduced_proofs(timeout, mapper)
    tallies = enumerations(mapper)
    bound = abstraction(Params.of(rs)).longest
    games = games or default_games(rs)
    say(f"sampling {games} games")
    token = PRIORITY.set(PRIORITY.get() + 0.5)  # the walk's plies, a chain, go first; the games fill in
    try:
        sampled = submit(mapper, sample_chunk, chunks(rs, games, seed, bound=bound, cores=cores))
    finally:
        PRIORITY.reset(token)
    walked, own, walk_data = None, None, None
    walking = Stopwatch(mapper)
    if walks:
        depth = max_ply if max_ply is not None else default_depth(rs, cores)
        walked, own = run_walks(rs, spec, depth, walking, say, checkpoint, cores)
        walk_data = _walk_json(walked, own)
    elif exhaustive is None and cores and (found := cited(rs)) is not None:
        walked, own = found
        walk_data = _walk_json(walked, own)
    s = merged(waited(sampled, say, f"sampling {games} games, chunks of {CHUNK} in"))
    counted = waited(list(tallies.values()), say, "enumerations")
    found_games: dict[str, list[GameFailure]] = {}
    unrun: dict[str, str] = {}
    if cores:
        say("compiled paths on the games of qttt random")
        found_games, unrun = compare_games(Context.of(rs, bound, cores), spec, seed, s.games)
    evidence = Evidence(s, walked, own, tuple(waited(proofs, say, "Z3 queries done")),
                        tuple(waited(unreduced, say, "Z3 cross-checks up to 6 cells done")),
                        {p: t for p, (t, _) in zip(tallies, counted, strict=True)}, found_games, unrun, seed,
                        refused)
    props = [SHAPE, UNIQUE, TOTAL, TURN, LEGAL, *([CORES] if cores else []), DEADLOCK, LENGTH, SCORES]
    units = dataclasses.replace(evidence, games={})  # a game failure reruns its path here: not sent
    findings = waited(submit(mapper, settle_property, [(p, rs, spec, bound, cores, units) for p in props]),
                      say, "properties settled")
    if cores:  # its witnesses rerun the paths on games of qttt random, in this process
        findings.append(settle_property(RANDOM, rs, spec, bound, cores, evidence))
    order = [p.id for p in PROPERTIES]
    findings.sort(key=lambda f: order.index(f.property))
    cells = rs.board * rs.board
    shared = {"walk": ("the walk", walking.seconds)} if walked is not None else {}
    shared["games"] = (f"{s.games} sampled games", s.seconds)
    shared["z3"] = (f"Z3 on {cells} cells (with every ruleset of {cells} cells)",
                    sum(d.seconds for d in evidence.proofs))
    return Report(spec, rs.name, rs.canonical, rs.board, findings, s.games, s.seconds, walk_data,
                  compared(rs, cores), shared=shared)


def compared(rs: Ruleset, cores: bool) -> str:
    """What the report's title says was run: the engine, and the registered paths compared with it
    (`verify.paths`: cores-agree and random-games-agree name each with what settled it)."""
    found = serving(rs)[0] if cores else ()
    if not found:
        why = (core_reason(rs) or "no registered path serves it") if cores else "not asked for"
        return f"engine (Python) only: {why}"
    return (f"engine (Python); compared with it: {len(found)} compiled path{'s' * (len(found) != 1)} "
            "(cores-agree, random-games-agree name each)")


def shared_work() -> dict[str, Any]:
    """The work every ruleset shares, done once per process: the Z3 proofs (component queries
    serve every board), the unreduced cross-checks and the enumeration (queries, seconds)."""
    done: dict[Any, Any] = SHARED.results()
    ds = [d for k, d in done.items() if k[0] == "z3"]
    out: dict[str, Any] = {"z3": {"queries": len(ds), "seconds": round(sum(d.seconds for d in ds), 3),
                                  "status": worst([d.status for d in ds])}}
    un = [d for k, d in done.items() if k[0] == "unreduced"]
    if un:
        out["unreduced_z3"] = {"cells": CROSS_CHECK_CELLS, "queries": len(un),
                               "seconds": round(sum(d.seconds for d in un), 3)}
    counted = {prop: done[("enumeration", prop)] for prop in ENUMERATIONS if ("enumeration", prop) in done}
    if counted:
        out["enumeration"] = {prop: {"cases": t.cases, "seconds": round(sec, 3)}
                              for prop, (t, sec) in counted.items()}
    return out
