"""What a conformance run found: a result per case or perft entry at two levels, and the text,
JSON and JUnit forms of the report (spec/protocol.md, "Reading a report").

- `core`: states, legal actions (as a set), whether an action is refused and with which kind,
  perft counts.
- `strict`: everything of `core`, plus the rule id of each refusal (which, where several rules
  are broken, is the first in check order) and the order of the legal list.

An item passes a level when it has no difference at that level; it is an error when the engine
crashed, hung or answered garbage during it; a skipped or not supported item never counts as
passed.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..notation import Json
from ..text import count

LEVELS = ("core", "strict")
# What an item can come to at a level; `error`: the engine crashed, hung or answered something
# that is not a response, so the item could not be judged to its end.
OUTCOMES = ("passed", "failed", "error", "skipped", "not supported")
FORMAT = 2
# Exit statuses of `qttt conform`.
PASSED, FAILED, COULD_NOT_RUN = 0, 1, 2


def show(value: Json, width: int | None = 160) -> str:
    """A value as compact JSON text (null, not None), cut at `width` characters (None: whole)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if width is None or len(text) <= width else text[:width - 3] + "..."


@dataclass
class Difference:
    """One way the engine differs: the level it counts at, where in the item, and what; `also`
    lists the later places where the very same difference showed again (reported once)."""

    level: str
    where: str
    text: str
    also: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        again = ""
        if self.also:
            again = f" (the same at {count(len(self.also), 'later place')}, up to {self.also[-1]})"
        return f"{self.level:<7} {self.where}: {self.text}{again}"


@dataclass
class Result:
    """One case or perft entry: its differences, why it stopped, was skipped or not run, the
    engine failure that ended it (`error`), what it tests (description, spec_ref), the record
    that reaches its first difference, and the seconds it took."""

    suite: str
    item: str
    kind: str  # "case" or "perft"
    differences: list[Difference] = field(default_factory=list)
    status: str = "run"  # "run", "skipped" or "not supported"
    note: str = ""
    error: str | None = None
    description: str = ""
    spec_ref: list[str] = field(default_factory=list)
    record: dict[str, Json] | None = None
    seconds: float = 0.0
    at: dict[str, Json] | None = field(default=None, repr=False)  # the record played so far
    positions: list[str] = field(default_factory=list, repr=False)  # the places compared so far

    def add(self, level: str, where: str, text: str, persisting: bool = False) -> None:
        """Record one difference; the first one fixes the record that reproduces the item up to
        it. A `persisting` one (a position compared again) that equals one found at the position
        compared just before is noted on that one instead of repeated."""
        if persisting and len(self.positions) >= 2:
            before = self.positions[-2]
            for d in self.differences:
                if d.level == level and d.text == text and (d.also[-1] if d.also else d.where) == before:
                    d.also.append(where)
                    return
        self.differences.append(Difference(level, where, text))
        if self.record is None and self.at is not None:
            self.record = json.loads(json.dumps(self.at))

    def fail(self, where: str, message: str) -> None:
        """The engine failed (crashed, hung, answered garbage): the item ends in error."""
        self.error = f"{where}: {message}"
        if self.record is None and self.at is not None:
            self.record = json.loads(json.dumps(self.at))

    def outcome(self, level: str) -> str:
        """passed, failed, error, skipped or not supported, at `level`."""
        if self.status == "not supported":
            return "not supported"
        if self.error is not None:
            return "error"
        if any(d.level == "core" or level == "strict" for d in self.differences):
            return "failed"
        return "skipped" if self.status == "skipped" else "passed"

    def shown(self, level: str) -> list[Difference]:
        """The differences that count at `level`."""
        return [d for d in self.differences if level == "strict" or d.level == "core"]

    def details(self) -> list[str]:
        """What the item tests and how to reproduce it: description, spec_ref, record."""
        out = [f"what: {self.description}" if self.description else ""]
        out.append(f"rules: {', '.join(self.spec_ref)}" if self.spec_ref else "")
        if self.record is not None:
            out.append(f"record (qttt replay): {show(self.record, None)}")
        return [line for line in out if line]

    def lines(self) -> list[str]:
        """The report lines of this item: none when it passes at both levels."""
        core, strict = self.outcome("core"), self.outcome("strict")
        if core == strict == "passed" or core == "not supported":
            return []
        if core == strict == "skipped":
            return [f"SKIP {self.item}: {self.note}"]
        if core == "error":
            head = f"ERROR {self.item}"
        else:
            head = f"FAIL {self.item}" + ("" if core == "failed" else f" (strict only; core {core})")
        body = [str(d) for d in self.differences] + ([f"engine failed at {self.error}"] if self.error else [])
        body += [self.note] if self.note else []
        return [head, *(f"  {line}" for line in body + self.details())]

    def to_json(self) -> dict[str, Json]:
        """The item as JSON data."""
        return {"suite": self.suite, "id": self.item, "kind": self.kind,
                "description": self.description, "spec_ref": list(self.spec_ref),
                **{level: self.outcome(level) for level in LEVELS},
                "differences": [{"level": d.level, "where": d.where, "text": d.text, "also": d.also}
                                for d in self.differences],
                "error": self.error, "note": self.note or None, "record": self.record,
                "seconds": round(self.seconds, 6)}


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
        """`core: 36 passed, 0 failed, 3 skipped` (and the errors, if any)."""
        errors = self.count(level, "error")
        return (f"{level}: {self.count(level, 'passed')} passed, {self.count(level, 'failed')} failed, "
                + (f"{count(errors, 'error')}, " if errors else "")
                + f"{self.count(level, 'skipped')} skipped")

    def summary(self) -> str:
        """The closing line: both levels, and the items the engine does not support."""
        unsupported = self.count("core", "not supported")
        return "; ".join([self.level_summary("core"), self.level_summary("strict")]
                         + ([f"not supported: {unsupported}"] if unsupported else []))

    def status(self, level: str) -> int:
        """PASSED when something passed and nothing failed or erred at `level`, FAILED, or
        COULD_NOT_RUN."""
        if self.could_not_run is not None:
            return COULD_NOT_RUN
        if self.count(level, "failed") or self.count(level, "error"):
            return FAILED
        return PASSED if self.count(level, "passed") else COULD_NOT_RUN

    def engine_name(self) -> str:
        """The name the engine gives in its hello, or `unknown engine`."""
        name = (self.hello or {}).get("engine")
        return name if isinstance(name, str) and name else "unknown engine"

    def to_json(self, level: str) -> dict[str, Json]:
        """The whole report as JSON data (`qttt conform --json`)."""
        totals = {lv: {o.replace(" ", "_"): self.count(lv, o) for o in OUTCOMES} for lv in LEVELS}
        return {"report": "qttt-conformance-report", "format": FORMAT, "engine": self.hello,
                "level": level, "status": {PASSED: "passed", FAILED: "failed",
                                           COULD_NOT_RUN: "could not run"}[self.status(level)],
                "could_not_run": self.could_not_run, "summary": self.summary(), "totals": totals,
                "seconds": round(sum(r.seconds for r in self.results), 6),
                "results": [r.to_json() for r in self.results]}

    def to_junit(self, level: str = "strict") -> str:
        """The report as JUnit XML: one test suite per suite, one test case per item, judged at
        `level` (both levels' outcomes are properties of the test case); an engine that crashed,
        hung or answered garbage is an error, a difference a failure."""
        engine = self.engine_name()
        root = ET.Element("testsuites", name=f"qttt conform: {engine}")
        totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
        seconds = 0.0
        for name in dict.fromkeys(r.suite for r in self.results):
            items = [r for r in self.results if r.suite == name]
            outcomes = [r.outcome(level) for r in items]
            counts = {"tests": len(items), "failures": outcomes.count("failed"),
                      "errors": outcomes.count("error"),
                      "skipped": sum(o in ("skipped", "not supported") for o in outcomes)}
            took = sum(r.seconds for r in items)
            ts = ET.SubElement(root, "testsuite", {"name": name, "time": f"{took:.3f}",
                                                   **{k: str(v) for k, v in counts.items()}})
            props = ET.SubElement(ts, "properties")
            for key, value in (("engine", engine), ("level", level)):
                ET.SubElement(props, "property", name=key, value=value)
            for r, outcome in zip(items, outcomes, strict=True):
                tc = ET.SubElement(ts, "testcase", classname=name, name=r.item, time=f"{r.seconds:.3f}")
                tprops = ET.SubElement(tc, "properties")
                for lv in LEVELS:
                    ET.SubElement(tprops, "property", name=lv, value=r.outcome(lv))
                if r.spec_ref:
                    ET.SubElement(tprops, "property", name="spec_ref", value=" ".join(r.spec_ref))
                text = "\n".join([str(d) for d in r.shown(level)] + ([r.note] if r.note else [])
                                 + r.details())
                if outcome == "error":
                    ET.SubElement(tc, "error", message=f"the engine failed at {r.error}").text = text
                elif outcome == "failed":
                    ET.SubElement(tc, "failure", message=str(r.shown(level)[0])).text = text
                elif outcome != "passed":
                    ET.SubElement(tc, "skipped", message=f"{outcome}: {r.note}")
            for k, v in counts.items():
                totals[k] += v
            seconds += took
        root.attrib.update({k: str(v) for k, v in totals.items()}, time=f"{seconds:.3f}")
        if self.could_not_run is not None:
            ET.SubElement(root, "system-err").text = f"could not run: {self.could_not_run}"
        ET.indent(root)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
