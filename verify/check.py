"""The consistency checker: every catalogue property of a ruleset, with its status, the method
that settled it within which bounds, the time taken and, for a violation, a witness game.

Statuses, weakest support last: `proved` (for every game: Z3, or exhaustive analysis of the
rules), `exhaustive` (the engine at every reachable position, up to the walk's merging),
`sampled` (the engine in sampled games only), `unknown` (not settled, with why), `violated` (a
witness game shows the failure). A property's status is the weakest of its parts; its label
names each part, such as `sampled (1000 games); proved (Z3, every forest on 9 cells)`.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from qttt import Action, Ruleset, load_ruleset

from . import z3_graph as Z
from .abstract import Params, Summary, explore, realize
from .catalogue import BY_ID, NESTED_PROPERTIES, PROPERTIES, STATUSES
from .exhaustive import Walk, walk, walk_ruleset
from .graphs import Tally, enumerate_collapse, enumerate_single_cycle
from .sampled import ABSTRACT, DEADLOCK, LENGTH, SCORES, SHAPE, TOTAL, TURN, UNIQUE, Sample, sample
from .scores import Range, end_lines, range_witnesses, tie_verdicts
from .witness import Witness, deadlock_witness, record, stuck_without_line

CROSS_CHECK_CELLS = 6

QUANTIFIED_UP_TO = 9

Progress = Callable[[str], None]


Part = tuple[str, str]
"""One way a property was settled: (status, label), such as ("proved", "proved (Z3, every forest on
9 cells)") or ("sampled", "sampled (1000 games)")."""


@dataclass
class Finding:
    """One property of one ruleset, settled (or not): its status is the weakest of its parts, its
    label says how each part was settled, weakest first."""

    property: str
    status: str
    label: str
    method: str
    seconds: float
    witness: Witness | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """Plain data (without the time taken unless timing)."""
        out: dict[str, Any] = {"property": self.property, "status": self.status, "label": self.label,
                               "method": self.method, "rules": list(BY_ID[self.property].rules)}
        if timing:
            out["seconds"] = round(self.seconds, 3)
        if self.witness is not None:
            out["witness"] = {"record": self.witness.record, "shows": self.witness.shows}
        if self.details:
            out["details"] = self.details if timing else _untimed(self.details)
        return out


def finding(prop: str, parts: Sequence[Part], method: str, seconds: float, witness: Witness | None = None,
            details: dict[str, Any] | None = None) -> Finding:
    """A finding from its parts; a witness makes it violated."""
    parts = list(parts) + ([("violated", "violated (witness)")] if witness else [])
    ordered = sorted(dict.fromkeys(parts), key=lambda p: -STATUSES.index(p[0]))
    status = worst([p[0] for p in ordered])
    return Finding(prop, status, "; ".join(p[1] for p in ordered), method, seconds, witness, details or {})


def _untimed(data: Any) -> Any:
    """data without its "seconds" entries."""
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


@dataclass
class Report:
    """Every finding for one ruleset."""

    spec: str
    name: str
    canonical: str
    board: int
    findings: list[Finding]
    games: int
    sampling_seconds: float
    walk: dict[str, Any] | None = None

    @property
    def violated(self) -> bool:
        """Whether some property is violated."""
        return any(f.status == "violated" for f in self.findings)

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """Plain data (without times unless timing: such a report is the same on every run)."""
        out: dict[str, Any] = {"ruleset": self.spec, "name": self.name, "canonical": self.canonical,
                               "board": self.board, "sampled_games": self.games}
        if timing:
            out["sampling_seconds"] = round(self.sampling_seconds, 3)
        if self.walk is not None:
            out["exhaustive"] = self.walk if timing else _untimed(self.walk)
        out["properties"] = [f.to_json(timing) for f in self.findings]
        return out


def worst(statuses: Sequence[str]) -> str:
    """The most severe status."""
    return max(statuses, key=STATUSES.index, default="proved")


def status_of(result: Z.Result[Any]) -> str:
    """A Z3 result as a status."""
    if isinstance(result, Z.Proved):
        return "proved"
    return "violated" if isinstance(result, Z.Counterexample) else "unknown"


# Shared work, done once per process -------------------------------------------------------------

_Z3: dict[tuple[str, int], Z.Discharged] = {}


def z3_proofs(cells: int, progress: Progress | None = None, timeout: float = 60.0) -> list[Z.Discharged]:
    """Every Z3 obligation for a board of `cells` cells; component queries are shared across boards."""
    out = []
    for ob in Z.obligations(cells, QUANTIFIED_UP_TO):
        key = (ob.name, ob.size) if ob.property != "single-cycle-per-move" else (ob.name, -ob.size)
        if key not in _Z3:
            if progress:
                progress(f"Z3: {ob.name}, {ob.size} cells")
            _Z3[key] = Z.discharge([ob], timeout)[0]
        out.append(_Z3[key])
    return out


@cache
def abstraction(p: Params) -> Summary:
    """The exhaustive exploration of the component-size abstraction (memoised)."""
    return explore(p)


@cache
def unreduced_proofs(timeout: float = 60.0) -> tuple[Z.Discharged, ...]:
    """The claims without symmetry reduction, up to CROSS_CHECK_CELLS cells."""
    return tuple(Z.discharge(Z.unreduced_obligations(CROSS_CHECK_CELLS), timeout))


@cache
def enumerations() -> dict[str, tuple[Tally, float]]:
    """The naive enumeration of every small forest plus edge and every small unicyclic graph, with
    the seconds each took, by the property it checks."""
    out = {}
    for prop, run in (("single-cycle-per-move", enumerate_single_cycle), ("collapse", enumerate_collapse)):
        t = time.perf_counter()
        tally = run(CROSS_CHECK_CELLS)
        out[prop] = (tally, time.perf_counter() - t)
    return out


# Properties -------------------------------------------------------------------------------------

Failures = dict[str, tuple[str, tuple[Action, ...]]]


@dataclass
class Engine:
    """What the engine showed: the sampled games and, with --exhaustive, the walks."""

    sample: Sample
    walk: Walk | None = None
    own_walk: Walk | None = None

    def witness(self, variant: str, prop: str) -> Witness | None:
        """The first failure of prop, as a game record (walks first: their games are shortest)."""
        for failures in self.failures():
            if prop in failures:
                message, actions = failures[prop]
                return Witness(record(variant, actions), message)
        return None

    def failures(self) -> list[Failures]:
        """The failures of each source."""
        return [w.failures for w in (self.walk, self.own_walk) if w is not None] + [self.sample.failures]

    def part(self) -> Part:
        """How the engine was checked, as a part."""
        s, w = self.sample, self.walk
        sampled = f"sampled ({s.games} games)"
        if w is None:
            return "sampled", sampled
        if w.complete:
            return "exhaustive", f"exhaustive (engine, {w.positions} positions)"
        return "sampled", f"{sampled}, after exhaustive (engine, {w.positions} positions to ply {w.max_ply})"


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


def graph_finding(prop: str, rs: Ruleset, variant: str, proofs: list[Z.Discharged], engine: Engine,
                  sampled_props: Sequence[str]) -> Finding:
    """A graph or collapse property: Z3 for the board, the unreduced encodings and the enumeration
    up to 6 cells, the engine in sampled games (and the exhaustive walk). Its time is that of its
    proofs and enumeration."""
    mine = [d for d in proofs if d.obligation.property == prop
            or (prop == "collapse-totality" and d.obligation.name == "at-least-one-outcome")]
    unreduced = [d for d in unreduced_proofs() if d.obligation.property == prop]
    tally, enum_seconds = enumerations()[prop if prop == "single-cycle-per-move" else "collapse"]
    by_query: dict[str, dict[str, Any]] = {}
    for d in mine:
        entry = by_query.setdefault(d.obligation.name, {"sizes": [], "seconds": 0.0, "status": "proved"})
        entry["sizes"].append(d.obligation.size)
        entry["seconds"] = round(entry["seconds"] + d.seconds, 3)
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
        witness = witness or engine.witness(variant, p)
    z3_seconds = sum(d.seconds for d in mine)
    cells = rs.board * rs.board
    s = engine.sample
    method = (f"Z3 on {cells} cells ({len(mine)} queries, each with its premises shown satisfiable); "
              f"unreduced Z3 up to {CROSS_CHECK_CELLS} cells; enumeration of {tally.cases} cases up to "
              f"{tally.max_vertices} cells; engine: {s.positions} positions, {s.measurements} measurements "
              f"in {s.games} games" + _walk_note(engine))
    details = {"z3": by_query, "unreduced_z3": worst([d.status for d in unreduced]),
               "enumeration": {"cases": tally.cases, "cells": tally.max_vertices,
                               "failures": list(tally.failures[:3])}}
    seconds = z3_seconds + sum(d.seconds for d in unreduced) + enum_seconds
    return finding(prop, parts, method, seconds, witness, details)


def _walk_note(engine: Engine) -> str:
    w = engine.walk
    if w is None:
        return ""
    extent = "every reachable position" if w.complete else f"every position to ply {w.max_ply}"
    return f"; exhaustive walk: {extent} of {w.ruleset}, {w.positions} positions under the shape key"


def turn_finding(variant: str, engine: Engine, started: float) -> Finding:
    """The player to act, at every position the engine was checked on."""
    return finding("turn-order", [engine.part()], "the engine's player to act against the rules"
                   + _walk_note(engine), time.perf_counter() - started, engine.witness(variant, TURN))


def deadlock_finding(rs: Ruleset, variant: str, engine: Engine, started: float) -> Finding:
    """No deadlock: the abstraction, then a game for any deadlock it has; the engine's actions must
    match the abstraction's wherever they were compared."""
    s = engine.sample
    summary = abstraction(Params.of(rs))
    details: dict[str, Any] = {"abstract_positions": summary.positions, "simulated_positions": s.simulated}
    parts: list[Part] = []
    mismatch = engine.witness(variant, ABSTRACT)
    if mismatch:
        details["abstraction_mismatch"] = mismatch.shows
        parts.append(("violated", "violated (the engine's actions differ from the abstraction)"))
    witness = engine.witness(variant, DEADLOCK)
    if not summary.deadlocks:
        method = (f"exhaustive over the component-size abstraction ({summary.positions} positions); "
                  f"engine matched it on {s.simulated} sampled positions" + _walk_note(engine))
        parts += [("proved", f"proved (component-size abstraction, {summary.positions} positions)"),
                  engine.part()]
        return finding("no-deadlock", parts, method, time.perf_counter() - started, witness or mismatch,
                       details)
    details["abstract_deadlocks"] = [f"{a.phase}, open components {list(a.parts)}" for a in summary.deadlocks]
    witness = witness or deadlock_witness(rs, variant, end_lines(rs))
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
    witness = witness or mismatch
    return finding("no-deadlock", parts, method, time.perf_counter() - started, witness, details)


def termination_finding(rs: Ruleset, variant: str, engine: Engine, started: float) -> Finding:
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
    witness = engine.witness(variant, LENGTH)
    method = (f"longest path of the component-size abstraction: {summary.longest} actions; the engine "
              f"replays a game of {len(longest)} actions; sampled games: at most {s.longest}; the engine's "
              "end of game against the end rules at every checked position" + _walk_note(engine))
    if not witness and longest:
        details["longest_game"] = record(variant, longest)
    return finding("termination", parts, method, time.perf_counter() - started, witness, details)


def scores_finding(rs: Ruleset, variant: str, engine: Engine, started: float) -> Finding:
    """Scores: the engine's final scores (against the checker's reading of the scoring and the
    declared range), ties, the declared range reached."""
    s = engine.sample
    parts: list[Part] = []
    notes = []
    details: dict[str, Any] = {}
    witness = engine.witness(variant, SCORES)
    finals = sum(w.final_positions for w in (engine.walk, engine.own_walk) if w is not None)
    extra = f"; plus {finals} final positions of the exhaustive walk" if finals else ""
    parts.append(("sampled", f"sampled ({s.games} games{extra})"))
    verdicts = tie_verdicts(rs, variant)
    details["ties"] = [{"component": v.component, "possible": v.possible, "reason": v.reason}
                       for v in verdicts]
    for v in verdicts:
        if v.possible:
            witness = witness or v.witness
            if not v.witness:
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
        if outside:
            witness = witness or rng.witnesses[outside[0]]
            notes.append(f"a game scores beyond the declared range: declared {span(rng.declared)}, "
                         f"games reach {span(rng.reached)}")
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
    return finding("scores-well-defined", parts, method, time.perf_counter() - started, witness, details)


def _beyond(rng: Range, end: str) -> bool:
    """Whether the game reaching one end of the range scores outside the declared range."""
    who = 0 if end.startswith("x") else 1
    low, high = rng.declared[who]
    value = rng.reached[who][0 if end.endswith("min") else 1]
    return not low <= value <= high


def default_games(rs: Ruleset) -> int:
    """How many random games to sample: fewer on larger boards."""
    return 1000 if rs.board <= 3 else 200


def default_depth(rs: Ruleset) -> int | None:
    """How deep the exhaustive walk goes: every position on 3×3 and smaller, 8 plies above."""
    return None if rs.board <= 3 else 8


def run_walks(rs: Ruleset, spec: str, max_ply: int | None, processes: int,
              progress: Progress | None = None, checkpoint: str | None = None) -> tuple[Walk, Walk | None]:
    """The structural walk (on `walk_ruleset(rs)`) and, when that differs from rs, the walk on rs
    itself checking the end rules and final scores."""
    target = walk_ruleset(rs)
    bound = abstraction(Params.of(target)).longest

    def told(ply: int, done: int, total: int) -> None:
        if progress:
            progress(f"exhaustive walk: ply {ply}, {done}/{total} positions")

    params = {"end": "full"} if target is not rs else {}
    structural = walk(target, max_ply=max_ply, bound=bound, processes=processes, progress=told,
                      checkpoint=checkpoint, load=spec, params=params)
    own = None
    if target is not rs:
        own = walk(rs, max_ply=max_ply, bound=bound, processes=processes, progress=told, load=spec)
        own.failures = {k: v for k, v in own.failures.items() if k in (SCORES, LENGTH, TURN, DEADLOCK)}
    return structural, own


def _walk_json(structural: Walk, own: Walk | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleset": structural.ruleset, "key": structural.key, "complete": structural.complete,
        "positions": structural.positions, "positions_by_ply": structural.positions_by_ply,
        "partition_classes": structural.partition_classes, "final_positions": structural.final_positions,
        "seconds": round(structural.seconds, 3)}
    if structural.max_ply is not None:
        out["max_ply"] = structural.max_ply
    if own is not None:
        out["own_rules"] = {"ruleset": own.ruleset, "positions": own.positions,
                            "final_positions": own.final_positions, "seconds": round(own.seconds, 3)}
    return out


def guarded(prop: str, build: Callable[[], Finding]) -> Finding:
    """A finding, or an unknown one naming the error when building it failed (never a crash)."""
    started = time.perf_counter()
    try:
        return build()
    except Exception as e:
        return finding(prop, [("unknown", f"unknown (the check failed: {type(e).__name__}: {e})")],
                       "not settled", time.perf_counter() - started)


def check(spec: str, *, games: int | None = None, seed: int = 0, progress: Progress | None = None,
          timeout: float = 60.0, exhaustive: bool = False, max_ply: int | None = None,
          processes: int = 1, checkpoint: str | None = None) -> Report:
    """Settle every catalogue property of the ruleset named by spec (name, canonical name or file);
    with `exhaustive`, also walk every position (to max_ply, default `default_depth`)."""
    rs = load_ruleset(spec)
    say = progress or (lambda _: None)
    cells = rs.board * rs.board
    proofs = z3_proofs(cells, progress, timeout)
    say("Z3 cross-checks up to 6 cells")
    unreduced_proofs(timeout)
    say("enumeration up to 6 cells")
    enumerations()
    say(f"sampling {games or default_games(rs)} games")
    t = time.perf_counter()
    s = sample(rs, games or default_games(rs), seed, bound=abstraction(Params.of(rs)).longest)
    sampled = time.perf_counter() - t
    engine = Engine(s)
    walk_data = None
    if exhaustive:
        depth = max_ply if max_ply is not None else default_depth(rs)
        engine.walk, engine.own_walk = run_walks(rs, spec, depth, processes, say, checkpoint)
        walk_data = _walk_json(engine.walk, engine.own_walk)
    findings = []
    for prop, props in (("single-cycle-per-move", (SHAPE,)), ("collapse-uniqueness", (UNIQUE,)),
                        ("collapse-totality", (TOTAL,))):
        say(prop)
        build = functools.partial(graph_finding, prop, rs, spec, proofs, engine, props)
        findings.append(guarded(prop, build))
    say("turn-order")
    findings.append(guarded("turn-order", lambda: turn_finding(spec, engine, time.perf_counter())))
    say("no-deadlock")
    findings.append(guarded("no-deadlock", lambda: deadlock_finding(rs, spec, engine, time.perf_counter())))
    say("termination")
    findings.append(guarded("termination",
                            lambda: termination_finding(rs, spec, engine, time.perf_counter())))
    say("scores-well-defined")
    findings.append(guarded("scores-well-defined",
                            lambda: scores_finding(rs, spec, engine, time.perf_counter())))
    order = [p.id for p in PROPERTIES if p not in NESTED_PROPERTIES]
    findings.sort(key=lambda f: order.index(f.property))
    return Report(spec, rs.name, rs.canonical, rs.board, findings, s.games, sampled, walk_data)
