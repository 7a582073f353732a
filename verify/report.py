"""What the checker reports, for every family: a finding per property (its status the weakest of
the parts that settled it, each part labelled), a report per ruleset, and the witness games of
violations (`Confirmed`: replayed from the start under the real ruleset by the family's checker)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from qttt.processes import Mapper, serial_mapper

from .catalogue import STATUSES, by_id


@dataclass(frozen=True)
class Witness:
    """A game record (JSON, version 1) and what its final position shows."""

    record: dict[str, Any]
    shows: str


class Confirmed(Witness):
    """A witness of a violation: made only by a family checker's confirm (such as
    `verify.quantum.sampled.confirm`), after replaying the game from the start under the real
    ruleset and seeing the property fail there."""


Progress = Callable[[str], None]

VERDICTS = ("clean", "unknown", "finding")
"""A design property is clean (settled: the rules are not at odds there), not settled, or a
finding (settled: something cannot matter, or the rules contradict each other)."""
KINDS = {
    "value-matters": "Every value that is not the default changes some game.",
    "award-earned": "Every scoring component changes some game: some game earns it.",
    "end-reached": "Every way the game can end is reached by some game.",
    "end-scored": "A game that ends on a line has a line some scoring award counts.",
}
"""The kinds of design property (verify.design), each with what holds when it is clean."""


@dataclass
class Design:
    """One design property of a ruleset: its kind (KINDS), what it is about (`key`: a setting's
    field or a rule id, as the ambiguity register names it), the verdict, a sentence saying what
    holds, how that was settled, the rules it rests on, the game that shows it (replayed) and the
    ambiguity-register point that keeps a finding on purpose."""

    kind: str
    key: str
    subject: str
    verdict: str
    statement: str
    settled: str
    rules: tuple[str, ...]
    witness: Witness | None = None
    documented: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain data."""
        out: dict[str, Any] = {"kind": self.kind, "key": self.key, "subject": self.subject,
                               "verdict": self.verdict, "statement": self.statement, "settled": self.settled,
                               "rules": list(self.rules)}
        if self.witness is not None:
            out["witness"] = {"record": self.witness.record, "shows": self.witness.shows}
        if self.documented is not None:
            out["documented"] = self.documented
        return out



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
    parts: list[Part] = field(default_factory=list)
    shared: tuple[str, ...] = ()
    """The work it rests on that other properties share (keys of its report's `shared`): its
    `seconds` are its own work only."""
    next: str = ""
    """What would settle it better, when something would (a flag, a tool)."""

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """Plain data (without the time taken unless timing)."""
        out: dict[str, Any] = {"property": self.property, "status": self.status, "label": self.label,
                               "method": self.method, "rules": list(by_id()[self.property].rules)}
        if timing:
            out["seconds"] = round(self.seconds, 3)
        if self.shared:
            out["shared"] = list(self.shared)
        if self.next:
            out["next"] = self.next
        if self.witness is not None:
            out["witness"] = {"record": self.witness.record, "shows": self.witness.shows}
        if self.details:
            out["details"] = self.details if timing else _untimed(self.details)
        return out


def finding(prop: str, parts: Sequence[Part], method: str, seconds: float, witness: Confirmed | None = None,
            details: dict[str, Any] | None = None, accepted: str | None = None) -> Finding:
    """A finding from its parts. A witness (only from `sampled.confirm`) makes it violated, or
    `accepted` when the ambiguity register documents the failure (accepted names the gap); a part
    claiming a violation without such a game is the checker's own error."""
    parts = [p if p[0] not in ("violated", "accepted") else
             ("error", f"checker error (a violation no replayed game shows: {p[1]})") for p in parts]
    if witness is not None:
        if not isinstance(witness, Confirmed):
            raise TypeError("a violation's witness must be a game replayed by confirm")
        parts.append(("accepted", f"violated (accepted: {accepted})") if accepted else
                     ("violated", "violated (a game replayed under the real rules shows it)"))
    ordered = sorted(dict.fromkeys(parts), key=lambda p: -STATUSES.index(p[0]))
    status = worst([p[0] for p in ordered])
    return Finding(prop, status, "; ".join(p[1] for p in ordered), method, seconds, witness, details or {},
                   ordered)


def _untimed(data: Any) -> Any:
    """data without its "seconds" entries."""
    if isinstance(data, dict):
        return {k: _untimed(v) for k, v in data.items() if k != "seconds"}
    if isinstance(data, list):
        return [_untimed(v) for v in data]
    return data


@dataclass
class Report:
    """Every finding for one ruleset, and its design properties (verify.design: rules that cannot
    matter, findings of their own kind, never violations)."""

    spec: str
    name: str
    canonical: str
    board: int
    findings: list[Finding]
    games: int
    sampling_seconds: float
    walk: dict[str, Any] | None = None
    cores: str = "engine (Python)"
    design: list[Design] = field(default_factory=list)
    shared: dict[str, tuple[str, float]] = field(default_factory=dict)
    """The work several of its properties rest on, by key: what it is and the seconds it took
    (summed over the units of work, wherever they ran)."""

    def has(self, status: str) -> bool:
        """Whether some property has this status."""
        return any(f.status == status for f in self.findings)

    @property
    def violated(self) -> bool:
        """Whether some property is violated (accepted findings aside)."""
        return self.has("violated")

    @property
    def design_findings(self) -> list[Design]:
        """The design properties settled as findings (`--strict` fails on them)."""
        return [d for d in self.design if d.verdict == "finding"]

    def to_json(self, timing: bool = True) -> dict[str, Any]:
        """Plain data (without times unless timing: such a report is the same on every run)."""
        out: dict[str, Any] = {"ruleset": self.spec, "name": self.name, "canonical": self.canonical,
                               "board": self.board, "cores": self.cores, "sampled_games": self.games}
        if timing:
            out["sampling_seconds"] = round(self.sampling_seconds, 3)
        if self.walk is not None:
            out["exhaustive"] = self.walk if timing else _untimed(self.walk)
        if self.shared:
            out["shared"] = {k: {"what": what, **({"seconds": round(sec, 3)} if timing else {})}
                             for k, (what, sec) in self.shared.items()}
        out["properties"] = [f.to_json(timing) for f in self.findings]
        if self.design:
            out["design"] = [d.to_json() for d in self.design]
        return out


def worst(statuses: Sequence[str]) -> str:
    """The most severe status."""
    return max(statuses, key=STATUSES.index, default="proved")


def one_unit(settle: Callable[..., Report], spec: str, mapper: Mapper, progress: Progress | None,
             options: dict[str, Any]) -> Report:
    """A family checker's whole check of spec (`settle(spec, progress=..., **options)`, a
    module-level function) as one unit of work on mapper: in this process its stages are told to
    progress, on a worker only that it runs there."""
    if mapper is serial_mapper:
        return settle(spec, progress=progress, **options)
    if progress is not None:
        progress("walks, games and Z3 on one worker")
    report: Report = next(iter(mapper(partial(settle, **options), [(spec,)])))
    return report
