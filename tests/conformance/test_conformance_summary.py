"""The report people act on: the counts, then what to fix first (failures grouped by the rule their
first difference fails, the smallest case first), the items not supported in one counted line, the
rule ids an engine names that spec/rules.toml lacks; each difference tagged with one rule."""

from __future__ import annotations

import json
from typing import Any

import conformance_engines as ce
import pytest

from qttt import load_ruleset
from qttt.cli import main
from qttt.conformance.report import PERFT, Report
from qttt.conformance.runner import InProcessEngine, Runner
from qttt.conformance.scope import rule_ids
from qttt.conformance.suite import suite_path

SUITES = [json.loads(suite_path(n).read_text(encoding="utf-8")) for n in ("wikipedia", "russian")]
# Each engine broken in one rule (tests/support/conformance_engines.py) and the rule it breaks: the
# report must name it first. Left out: lines-end-full-games, which ends games early; at the
# measurement where it ends one, our engine's step exercises no rule of the end, and the report
# names the turn that should follow (turn-after-measure).
BREAKS = {"no-cycle-detection": "cycle-close", "creator-measures": "measure-by",
          "stems-stay": "collapse-component", "no-forced-last": "last-square",
          "wrong-simultaneous": "score-first-line", "scores-early": "score-at-end",
          "half-points": "score-per-pattern", "wrong-rule-named": "place-open",
          "unsorted-legal": "engine-protocol", "accepts-on-classical": "place-open",
          "refuses-measurements": "measure-cell"}


def _report(name: str, perft: bool = False, suites: list[dict[str, Any]] = SUITES) -> Report:
    return Runner(lambda: InProcessEngine(ce.ENGINES[name]())).run(suites, perft=perft)


QUICK = ("no-cycle-detection", "creator-measures", "unsorted-legal")


@pytest.mark.parametrize("name", [n if n in QUICK else pytest.param(n, marks=pytest.mark.slow)
                                  for n in sorted(BREAKS)])
def test_the_broken_rule_comes_first(name: str) -> None:
    report = _report(name)
    groups = report.groups("strict")
    assert groups[0][0] == f"rule {BREAKS[name]}", [(k, len(v)) for k, v in groups]
    text = report.text("strict")
    assert text[0].startswith("summary: ") and text[1].startswith(f"fix this first: rule {BREAKS[name]}: ")
    assert text[-1] == report.summary()


def test_one_root_cause_is_one_group_with_its_smallest_case_first() -> None:
    one_perft = {**SUITES[0], "perft": SUITES[0]["perft"][:1]}  # walked through the protocol: slow
    report = _report("no-cycle-detection", perft=True, suites=[one_perft])
    groups = dict(report.groups("core"))
    assert list(groups) == ["rule cycle-close", PERFT]
    failed = [r for r in report.results if r.outcome("core") == "failed"]
    assert sum(len(v) for v in groups.values()) == len(failed)
    cases = groups["rule cycle-close"]
    assert [r.size() for r in cases] == sorted(r.size() for r in cases)
    smallest = cases[0]
    assert smallest.size() == 2  # two placements on the same cells: the smallest cycle
    assert all(d.rule == "cycle-close" for r in cases for d in r.differences[:1])
    narrow = next(line for line in report.text("core") if "narrow it down" in line)
    assert "qttt perft wikipedia --depth 3 --divide --path 0-1 " in narrow


def test_each_difference_names_one_rule_not_every_rule_of_the_case() -> None:
    report = _report("creator-measures")
    for r in report.results:
        for d in r.differences:
            assert d.rule in rule_ids(load_ruleset(r.suite)), (r.item, d)
        lines = r.lines()
        assert not any(line.startswith("  rules: ") for line in lines)
        assert all(line.endswith(f"[rule {d.rule}]") or "(the same" in line
                   for line, d in zip(lines[1:], r.differences, strict=False) if line.startswith("  core"))


def test_unknown_rule_ids_are_flagged() -> None:
    report = _report("unknown-rule-ids")
    text = report.text("strict")
    flagged = [line for line in text if line.startswith("rule ids the engine named")]
    assert len(flagged) == 1 and "my-place-open" in flagged[0] and "my-measure-pending" in flagged[0]
    assert any('"my-place-open" is not a rule id of spec/rules.toml' in line for line in text)
    data: dict[str, Any] = report.to_json("strict")
    assert {u for r in data["results"] for u in r["unknown_rules"]} >= {"my-place-open"}


def test_not_supported_is_one_counted_line() -> None:
    report = _report("wikipedia-only")
    text = report.text("strict")
    russian = len(SUITES[1]["cases"])
    lines = [line for line in text if line.lower().startswith("not supported")]
    assert len(lines) == 1 and lines[0].startswith(f"not supported: {russian} items of 1 suite: ")
    assert "(russian " in lines[0] and text[0].endswith(f"not supported: {russian}") == text[-1].endswith(
        f"not supported: {russian}") is True


def test_conform_prints_the_summary_first(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["conform", "--python", "conformance_engines:UnknownRuleIds", "--ruleset", "wikipedia",
                   "--no-perft", "--quiet"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1 and out[0].startswith("engine: ") and out[1].startswith("summary: core: ")
    assert out[2].startswith("fix this first: ") and out[-1].startswith("core: ")
