"""What a conformance run found: a result per case or perft entry at two levels, and the text,
JSON and JUnit forms of the report (spec/protocol.md, "Reading a report").

- `core`: states, legal actions (as a set), whether an action is refused and with which kind,
  perft counts.
- `strict`: everything of `core`, plus the rule id of each refusal (which, where several rules
  are broken, is the first in check order) and the order of the legal list.

An item passes a level when it has no difference at that level; a skipped or not supported item
never counts as passed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..notation import Json

LEVELS = ("core", "strict")
FORMAT = 1
# Exit statuses of `qttt conform`.
PASSED, FAILED, COULD_NOT_RUN = 0, 1, 2


def show(value: Json) -> str:
    """A value as compact JSON text (null, not None), cut at 160 characters."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= 160 else text[:157] + "..."


@dataclass(frozen=True)
class Difference:
    """One way the engine differs: the level it counts at, where in the item, and what."""

    level: str
    where: str
    text: str

    def __str__(self) -> str:
        return f"{self.level:<7} {self.where}: {self.text}"


@dataclass
class Result:
    """One case or perft entry: its differences, and why it stopped, was skipped or not run."""

    suite: str
    item: str
    kind: str  # "case" or "perft"
    differences: list[Difference] = field(default_factory=list)
    status: str = "run"  # "run", "skipped" or "not supported"
    note: str = ""

    def add(self, level: str, where: str, text: str) -> None:
        """Record one difference."""
        self.differences.append(Difference(level, where, text))

    def outcome(self, level: str) -> str:
        """passed, failed, skipped or not supported, at `level`."""
        if self.status == "not supported":
            return "not supported"
        if any(d.level == "core" or level == "strict" for d in self.differences):
            return "failed"
        return "skipped" if self.status == "skipped" else "passed"

    def lines(self) -> list[str]:
        """The report lines of this item: none when it passes at both levels."""
        core, strict = self.outcome("core"), self.outcome("strict")
        if core == strict == "passed" or core == "not supported":
            return []
        if core == strict == "skipped":
            return [f"SKIP {self.item}: {self.note}"]
        head = f"FAIL {self.item}" + ("" if core == "failed" else f" (strict only; core {core})")
        return [head, *(f"  {d}" for d in self.differences)] + ([f"  {self.note}"] if self.note else [])

    def to_json(self) -> dict[str, Json]:
        """The item as JSON data."""
        return {"suite": self.suite, "id": self.item, "kind": self.kind,
                **{level: self.outcome(level) for level in LEVELS},
                "differences": [{"level": d.level, "where": d.where, "text": d.text}
                                for d in self.differences],
                "note": self.note or None}


@dataclass
class Report:
    """Every result of a run, the engine's hello, and why the run stopped early if it did."""

    results: list[Result] = field(default_factory=list)
    hello: dict[str, Json] | None = None
    could_not_run: str | None = None
    unsupported_suites: list[str] = field(default_factory=list)

    def count(self, level: str, outcome: str) -> int:
        """How many items have `outcome` at `level`."""
        return sum(1 for r in self.results if r.outcome(level) == outcome)

    def level_summary(self, level: str) -> str:
        """`core: 36 passed, 0 failed, 3 skipped`."""
        return (f"{level}: {self.count(level, 'passed')} passed, {self.count(level, 'failed')} failed, "
                f"{self.count(level, 'skipped')} skipped")

    def summary(self) -> str:
        """The closing line: both levels, and the items the engine does not support."""
        unsupported = self.count("core", "not supported")
        return "; ".join([self.level_summary("core"), self.level_summary("strict")]
                         + ([f"not supported: {unsupported}"] if unsupported else []))

    def status(self, level: str) -> int:
        """PASSED when something passed and nothing failed at `level`, FAILED, or COULD_NOT_RUN."""
        if self.could_not_run is not None:
            return COULD_NOT_RUN
        if self.count(level, "failed"):
            return FAILED
        return PASSED if self.count(level, "passed") else COULD_NOT_RUN

    def to_json(self, level: str) -> dict[str, Json]:
        """The whole report as JSON data (`qttt conform --json`)."""
        totals = {lv: {o.replace(" ", "_"): self.count(lv, o)
                       for o in ("passed", "failed", "skipped", "not supported")} for lv in LEVELS}
        return {"report": "qttt-conformance-report", "format": FORMAT, "engine": self.hello,
                "level": level, "status": {PASSED: "passed", FAILED: "failed",
                                           COULD_NOT_RUN: "could not run"}[self.status(level)],
                "could_not_run": self.could_not_run, "summary": self.summary(), "totals": totals,
                "results": [r.to_json() for r in self.results]}

    def to_junit(self) -> str:
        """The report as JUnit XML: one test suite per suite and level, one test case per item."""
        root = ET.Element("testsuites", name="qttt conform")
        suites = list(dict.fromkeys(r.suite for r in self.results))
        for level in LEVELS:
            for name in suites:
                items = [r for r in self.results if r.suite == name]
                outcomes = [r.outcome(level) for r in items]
                ts = ET.SubElement(root, "testsuite", name=f"{name} [{level}]", tests=str(len(items)),
                                   failures=str(outcomes.count("failed")), errors="0",
                                   skipped=str(len(items) - outcomes.count("passed")
                                               - outcomes.count("failed")))
                for r, outcome in zip(items, outcomes, strict=True):
                    tc = ET.SubElement(ts, "testcase", classname=f"{name}.{level}", name=r.item)
                    if outcome == "failed":
                        shown = [d for d in r.differences if level == "strict" or d.level == "core"]
                        ET.SubElement(tc, "failure", message=str(shown[0])).text = "\n".join(
                            [str(d) for d in shown] + ([r.note] if r.note else []))
                    elif outcome != "passed":
                        ET.SubElement(tc, "skipped", message=f"{outcome}: {r.note}")
        if self.could_not_run is not None:
            ET.SubElement(root, "system-err").text = f"could not run: {self.could_not_run}"
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
