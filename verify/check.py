"""The consistency checker: every catalogue property of a ruleset, with its status, the method
that settled it within which bounds, the time taken and, for a violation, a witness game.

Statuses: `proved` (for every game of the ruleset), `bounded` (holds up to a stated bound),
`unknown` (not settled), `violated` (a witness game shows the failure).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from qttt import Ruleset, load_ruleset

from . import z3_graph as Z
from .abstract import Params, Summary, explore, realize
from .catalogue import BY_ID, PROPERTIES, STATUSES
from .graphs import Tally, enumerate_collapse, enumerate_single_cycle
from .sampled import ABSTRACT, DEADLOCK, LENGTH, SCORES, SHAPE, TOTAL, UNIQUE, Sample, sample
from .scores import end_lines, range_witnesses, tie_verdicts
from .witness import Witness, deadlock_witness, record

CROSS_CHECK_CELLS = 6
QUANTIFIED_UP_TO = 9

Progress = Callable[[str], None]


@dataclass
class Finding:
    """One property of one ruleset, settled (or not)."""

    property: str
    status: str
    method: str
    seconds: float
    witness: Witness | None = None
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """Plain data (without the time taken unless timing)."""
        out: dict[str, Any] = {"property": self.property, "status": self.status, "method": self.method,
                               "rules": list(BY_ID[self.property].rules)}
        if timing:
            out["seconds"] = round(self.seconds, 3)
        if self.witness is not None:
            out["witness"] = {"record": self.witness.record, "shows": self.witness.shows}
        if self.details:
            out["details"] = self.details if timing else _untimed(self.details)
        return out


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

def _sampled_witness(variant: str, s: Sample, prop: str) -> Witness | None:
    if prop not in s.failures:
        return None
    message, actions = s.failures[prop]
    return Witness(record(variant, actions), message)


def graph_finding(prop: str, rs: Ruleset, variant: str, proofs: list[Z.Discharged], s: Sample,
                  sampled_props: Sequence[str]) -> Finding:
    """A graph or collapse property: Z3 for the board, the unreduced encodings and the enumeration
    up to 6 cells, the engine in sampled games. Its time is that of its proofs and enumeration."""
    mine = [d for d in proofs if d.obligation.property == prop
            or (prop == "collapse-totality" and d.obligation.name == "at-least-one-outcome")]
    unreduced = [d for d in unreduced_proofs() if d.obligation.property == prop]
    tally, enum_seconds = enumerations()[prop if prop == "single-cycle-per-move" else "collapse"]
    by_query: dict[str, dict[str, Any]] = {}
    for d in mine:
        entry = by_query.setdefault(d.obligation.name, {"sizes": [], "seconds": 0.0, "status": "proved"})
        entry["sizes"].append(d.obligation.size)
        entry["seconds"] = round(entry["seconds"] + d.seconds, 3)
        entry["status"] = worst([entry["status"], status_of(d.result)])
        if isinstance(d.result, Z.Counterexample):
            entry["counterexample"] = repr(d.result.witness)
    for entry in by_query.values():
        sizes = entry.pop("sizes")
        entry["cells"] = f"{min(sizes)}..{max(sizes)}" if len(sizes) > 1 else str(sizes[0])
    statuses = [e["status"] for e in by_query.values()]
    statuses += [status_of(d.result) for d in unreduced]
    statuses.append("proved" if tally.holds else "violated")
    witness = None
    for p in sampled_props:
        w = _sampled_witness(variant, s, p)
        if w is not None:
            statuses.append("violated")
            witness = witness or w
    z3_seconds = sum(d.seconds for d in mine)
    cells = rs.board * rs.board
    method = (f"Z3 on {cells} cells ({len(mine)} queries); unreduced Z3 up to "
              f"{CROSS_CHECK_CELLS} cells; enumeration of {tally.cases} cases up to {tally.max_vertices} "
              f"cells; engine: {s.positions} positions, {s.measurements} measurements in {s.games} games")
    details = {"z3": by_query, "unreduced_z3": worst([status_of(d.result) for d in unreduced]),
               "enumeration": {"cases": tally.cases, "cells": tally.max_vertices,
                               "failures": list(tally.failures[:3])}}
    seconds = z3_seconds + sum(d.seconds for d in unreduced) + enum_seconds
    return Finding(prop, worst(statuses), method, seconds, witness, details)


def deadlock_finding(rs: Ruleset, variant: str, s: Sample, started: float) -> Finding:
    """No deadlock: the abstraction, then a game for any deadlock it has."""
    summary = abstraction(Params.of(rs))
    details: dict[str, Any] = {"abstract_positions": summary.positions, "simulated_positions": s.simulated}
    mismatch = s.failures.get(ABSTRACT)
    if mismatch:
        details["abstraction_mismatch"] = mismatch[0]
    if not summary.deadlocks:
        method = (f"exhaustive over the component-size abstraction ({summary.positions} positions); "
                  f"engine matched it on {s.simulated} sampled positions")
        return Finding("no-deadlock", "unknown" if mismatch else "proved", method,
                       time.perf_counter() - started, None, details)
    details["abstract_deadlocks"] = [f"{a.phase}, open components {list(a.parts)}" for a in summary.deadlocks]
    witness = _sampled_witness(variant, s, DEADLOCK) or deadlock_witness(rs, variant, end_lines(rs))
    method = (f"exhaustive over the component-size abstraction finds {len(summary.deadlocks)} stuck "
              "position(s); " + ("a game reaches one" if witness else "no game found reaching one"))
    return Finding("no-deadlock", "violated" if witness else "unknown", method, time.perf_counter() - started,
                   witness, details)


def termination_finding(rs: Ruleset, variant: str, s: Sample, started: float) -> Finding:
    """Termination: the longest abstract path, realised by the engine where it can be."""
    summary = abstraction(Params.of(rs))
    longest = realize(rs, summary.longest_path)
    details: dict[str, Any] = {"bound": summary.longest, "longest_replayed": len(longest),
                               "longest_sampled": s.longest}
    if rs.rules.end == "full":
        details["complete_games"] = str(summary.games)
    status = "proved"
    if ABSTRACT in s.failures:
        status, details["abstraction_mismatch"] = "unknown", s.failures[ABSTRACT][0]
    witness = _sampled_witness(variant, s, LENGTH)
    if witness:
        status = "violated"
    method = (f"longest path of the component-size abstraction: {summary.longest} actions; the engine "
              f"replays a game of {len(longest)} actions; sampled games: at most {s.longest}")
    finding = Finding("termination", status, method, time.perf_counter() - started, witness, details)
    if not witness and longest:
        details["longest_game"] = record(variant, longest)
    return finding


def scores_finding(rs: Ruleset, variant: str, s: Sample, started: float) -> Finding:
    """Scores: sampled ends, ties, the declared range."""
    statuses, notes = [], []
    details: dict[str, Any] = {}
    witness = _sampled_witness(variant, s, SCORES)
    if witness:
        statuses.append("violated")
    verdicts = tie_verdicts(rs, variant)
    details["ties"] = [{"component": v.component, "possible": v.possible, "reason": v.reason}
                       for v in verdicts]
    for v in verdicts:
        if v.possible:
            statuses.append("violated" if v.witness else "unknown")
            witness = witness or v.witness
        notes.append(v.reason)
    rng = range_witnesses(rs, variant)
    if rng is None:
        statuses.append("unknown")
        notes.append("range not computed above 4×4")
    else:
        details["range"] = {
            "declared": {"x": [str(v) for v in rng.declared[0]], "o": [str(v) for v in rng.declared[1]]},
            "reached": {"x": [str(v) for v in rng.reached[0]], "o": [str(v) for v in rng.reached[1]]},
            "games": {k: w.record for k, w in rng.witnesses.items()}}
        statuses.append("proved" if rng.tight else "unknown")

        def span(r: tuple[tuple[Any, Any], tuple[Any, Any]]) -> str:
            return f"x {r[0][0]}..{r[0][1]}, o {r[1][0]}..{r[1][1]}"

        notes.append(f"range tight: {span(rng.declared)}" if rng.tight else
                     f"range not shown tight: declared {span(rng.declared)}, games reach {span(rng.reached)}")
    method = (f"{s.games} sampled ends scored; " + "; ".join(notes))
    seconds = time.perf_counter() - started
    return Finding("scores-well-defined", worst(statuses), method, seconds, witness, details)


def default_games(rs: Ruleset) -> int:
    """How many random games to sample: fewer on larger boards."""
    return 1000 if rs.board <= 3 else 200


def check(spec: str, *, games: int | None = None, seed: int = 0, progress: Progress | None = None,
          timeout: float = 60.0) -> Report:
    """Settle every catalogue property of the ruleset named by spec (name, canonical name or file)."""
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
    findings = []
    for prop, props in (("single-cycle-per-move", (SHAPE,)), ("collapse-uniqueness", (UNIQUE,)),
                        ("collapse-totality", (TOTAL,))):
        say(prop)
        findings.append(graph_finding(prop, rs, spec, proofs, s, props))
    say("no-deadlock")
    findings.append(deadlock_finding(rs, spec, s, time.perf_counter()))
    say("termination")
    findings.append(termination_finding(rs, spec, s, time.perf_counter()))
    say("scores-well-defined")
    findings.append(scores_finding(rs, spec, s, time.perf_counter()))
    order = [p.id for p in PROPERTIES]
    findings.sort(key=lambda f: order.index(f.property))
    return Report(spec, rs.name, rs.canonical, rs.board, findings, s.games, sampled)
