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
import re
import shlex
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

from ..notation import Json
from ..text import count
from .blame import known_rules, most_common
from .perft import short

LEVELS = ("core", "strict")
# What an item can come to at a level; `error`: the engine crashed, hung or answered something
# that is not a response, so the item could not be judged to its end.
OUTCOMES = ("passed", "failed", "error", "skipped", "not supported")
FORMAT = 2
# Exit statuses of `qttt conform`.
PASSED, FAILED, COULD_NOT_RUN = 0, 1, 2


ENGINE_FAILED = "the engine failed (crashed, hung or answered garbage)"
PERFT = "perft counts"


def _why(note: str) -> str:
    """A not-supported note without the names it repeats per suite or case."""
    if "is not among the engine's rulesets" in note:
        return "rulesets the engine's hello does not list"
    return note.split(":", 1)[0][:80]


def narrowing(start: dict[str, Json], differences: list[Difference]) -> str:
    """The perft command that follows a count that differs: from the entry's start, divided at the
    depth that differs, along the first action whose count differs when the divide said it."""
    depth = next((d.where.split()[1] for d in differences if d.where.startswith("depth ")), "1")
    path = ""
    for d in differences:
        found = re.search(r"first disagreement at first action (\{.*?\}):", d.text)
        if found:
            path = f" --path {short(json.loads(found.group(1)))}"
    actions = f" --actions '{show(start.get('actions'), None)}'" if start.get("actions") else ""
    return (f"qttt perft {shlex.quote(str(start.get('variant')))}{actions} --depth {depth} --divide{path} "
            "(compare with your engine's divide; add the first action whose count differs to --path)")


def show(value: Json, width: int | None = 160) -> str:
    """A value as compact JSON text (null, not None), cut at `width` characters (None: whole)."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if width is None or len(text) <= width else text[:width - 3] + "..."


@dataclass
class Difference:
    """One way the engine differs: the level it counts at, where in the item, what, the rules it may
    fail and the one blamed (qttt.conformance.blame; none for perft counts); `also` lists the later
    places where the very same difference showed again (reported once)."""

    level: str
    where: str
    text: str
    also: list[str] = field(default_factory=list)
    rules: tuple[str, ...] = ()
    rule: str | None = None

    def __str__(self) -> str:
        again = ""
        if self.also:
            again = f" (the same at {count(len(self.also), 'later place')}, up to {self.also[-1]})"
        rule = self.rule or (self.rules[0] if self.rules else None)  # before Report.blame: the likeliest
        return f"{self.level:<7} {self.where}: {self.text}{again}" + (f" [rule {rule}]" if rule else "")


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
    unknown_rules: list[str] = field(default_factory=list)  # rule ids the engine named that we lack
    first_seen: str | None = None  # where a difference at the start first shows, when earlier

    def note_unknown(self, error: Json) -> None:
        """Keep the rule id an engine's refusal names when spec/rules.toml has no such rule."""
        rule = error.get("rule") if isinstance(error, dict) else None
        if isinstance(rule, str) and rule not in known_rules():
            self.unknown_rules.append(rule)

    def add(self, level: str, where: str, text: str, persisting: bool = False,
            rules: tuple[str, ...] = ()) -> None:
        """Record one difference; the first one fixes the record that reproduces the item up to
        it. A `persisting` one (a position compared again) that equals one found at the position
        compared just before is noted on that one instead of repeated."""
        if persisting and len(self.positions) >= 2:
            before = self.positions[-2]
            for d in self.differences:
                if d.level == level and d.text == text and (d.also[-1] if d.also else d.where) == before:
                    d.also.append(where)
                    return
        self.differences.append(Difference(level, where, text, rules=rules))
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
        """What the item tests and how to reproduce it: description and record (the rule each
        difference fails is on its line; every rule the case cites is in the JSON report)."""
        out = [f"what: {self.description}" if self.description else ""]
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
        body += [f"the start differs first {self.first_seen} (the record below stops there)"] \
            if self.first_seen else []
        body += [self.note] if self.note else []
        return [head, *(f"  {line}" for line in body + self.details())]

    def first_rule(self, level: str) -> str | None:
        """The rule the first difference that counts at `level` fails."""
        shown = self.shown(level)
        return shown[0].rule if shown else None

    def size(self) -> int:
        """The actions of the record that reproduces the item (how small a failing case is)."""
        actions = (self.record or {}).get("actions")
        return len(actions) if isinstance(actions, list) else 0

    def to_json(self) -> dict[str, Json]:
        """The item as JSON data."""
        return {"suite": self.suite, "id": self.item, "kind": self.kind,
                "description": self.description, "spec_ref": list(self.spec_ref),
                **{level: self.outcome(level) for level in LEVELS},
                "differences": [{"level": d.level, "where": d.where, "text": d.text, "also": d.also,
                                 "rule": d.rule} for d in self.differences],
                "unknown_rules": sorted(set(self.unknown_rules)),
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

    def blame(self) -> None:
        """Name the rule each difference fails: of its candidates, the one the first differences of
        the most failing items share (`blame.most_common`)."""
        firsts = [r.differences[0].rules for r in self.results if r.differences]
        chosen = most_common(firsts)
        for r in self.results:
            for d in r.differences:
                d.rule = chosen.get(d.rules) or most_common([*firsts, d.rules]).get(d.rules)

    def groups(self, level: str) -> list[tuple[str, list[Result]]]:
        """The items failed or in error at `level`, grouped by where to look: the engine's failures
        first, then by the rule their first difference fails (the group whose smallest case is
        smallest first: the likeliest root cause), then perft counts; each group's items smallest
        first."""
        groups: dict[str, list[Result]] = {}
        for r in self.results:
            outcome = r.outcome(level)
            if outcome == "error":
                key = ENGINE_FAILED
            elif outcome == "failed":
                key = PERFT if r.kind == "perft" else f"rule {r.first_rule(level) or 'unknown'}"
            else:
                continue
            groups.setdefault(key, []).append(r)
        for items in groups.values():
            items.sort(key=lambda r: (r.size(), r.item))
        rank = {ENGINE_FAILED: 0, PERFT: 2}
        return sorted(groups.items(), key=lambda g: (rank.get(g[0], 1), g[1][0].size(), -len(g[1]), g[0]))

    def text(self, level: str) -> list[str]:
        """The report as people read it: the counts, what to fix first (the groups of `groups`,
        each with its smallest case), the items not supported in one line, the rule ids the engine
        named that spec/rules.toml lacks; then every failure, group by group; the counts again."""
        out = [f"summary: {self.summary()}"]
        groups = self.groups(level)
        for i, (key, items) in enumerate(groups):
            head = "fix this first" if i == 0 else "then"
            smallest = items[0]
            d = smallest.shown(level)[0] if smallest.error is None else None
            first = f"engine failed at {smallest.error}" if d is None else f"{d.where}: {d.text}"
            first += f" (first {smallest.first_seen})" if smallest.first_seen else ""
            out.append(f"{head}: {key}: {count(len(items), 'item')}; the smallest: {smallest.item}, {first}")
            if key == PERFT and d is not None and smallest.record is not None:
                out.append(f"  narrow it down: {narrowing(smallest.record, smallest.shown(level))}")
            elif smallest.record is not None:
                out.append(f"  record (qttt replay): {show(smallest.record, None)}")
        unsupported = [r for r in self.results if r.outcome("core") == "not supported"]
        if unsupported:
            suites = dict.fromkeys(r.suite for r in unsupported)
            per = ", ".join(f"{name} {sum(1 for r in unsupported if r.suite == name)}" for name in suites)
            why = "; ".join(dict.fromkeys(_why(r.note) for r in unsupported))
            per = per if len(per) <= 200 else per[:197].rsplit(",", 1)[0] + ", ..."
            out.append(f"not supported: {count(len(unsupported), 'item')} of {count(len(suites), 'suite')}: "
                       f"{why} ({per})")
        unknown = sorted({u for r in self.results for u in r.unknown_rules})
        if unknown:
            out.append("rule ids the engine named that spec/rules.toml does not have: " + ", ".join(unknown))
        out += [line for r in self.results if r.outcome(level) == "skipped" for line in r.lines()]
        if groups:
            out.append("")
            out.append("every failure, grouped as above:")
            for _, items in groups:
                for r in items:
                    out += r.lines()
        out.append(self.summary())
        return out

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
