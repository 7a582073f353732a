"""The conformance runner: our engine and the reference pass everything at both levels; engines
broken in a rule, or that crash, hang, chatter, lose count or go silent, are reported, never
passed; engines that differ only where the spec allows it (extra fields, no perft, one ruleset,
refusals without rule ids) pass what they should, and every report line is asserted."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import conformance_engines as ce
import jsonschema  # type: ignore[import-untyped]
import pytest

from qttt import builtin_names, load_ruleset
from qttt.conformance.protocol import QtttEngine
from qttt.conformance.report import Report
from qttt.conformance.runner import Engine, InProcessEngine, ProcessEngine, Runner
from qttt.conformance.suite import build_suite, render, suite_path
from qttt.conformance.validator import Validator, load_schema

ENGINES_PY = Path(ce.__file__).resolve()
SUITES = {name: json.loads(suite_path(name).read_text(encoding="utf-8")) for name in builtin_names()}


def _total(names: list[str], perft: bool = True) -> int:
    return sum(len(SUITES[n]["cases"]) + (len(SUITES[n]["perft"]) if perft else 0) for n in names)


def _run(make: Any, names: list[str], perft: bool = False, timeout: float = 5.0,
         cases: slice | None = None, walk_budget: int = 2000) -> tuple[Report, list[str]]:
    """The report of a run, and every line the runner printed."""
    lines: list[str] = []
    runner = Runner(make, timeout=timeout, walk_budget=walk_budget, out=lines.append)
    suites = [SUITES[n] if cases is None else {**SUITES[n], "cases": SUITES[n]["cases"][cases]}
              for n in names]
    report = runner.run(suites, perft=perft)
    return report, [line for line in lines if not line.startswith(DETAILS)]


# The lines of a FAIL block that say what the item tests and how to reproduce it (tested apart).
DETAILS = ("  what: ", "  rules: ", "  record (qttt replay): ")


def _process(name: str) -> Any:
    def make() -> Engine:
        return ProcessEngine(f"{sys.executable} {ENGINES_PY} {name}")
    return make


def _in_process(name: str) -> Any:
    return lambda: InProcessEngine(ce.ENGINES[name]())


def _failed(report: Report, level: str = "core") -> set[str]:
    return {r.item for r in report.results if r.outcome(level) == "failed"}


def _line(level: str, total: int, failed: int = 0, skipped: int = 0) -> str:
    return f"{level}: {total - failed - skipped} passed, {failed} failed, {skipped} skipped"


@pytest.mark.slow
def test_our_engine_passes_everything_over_the_protocol() -> None:
    names = list(builtin_names())
    report, lines = _run(_process("qttt"), names, perft=True)
    total = _total(names)
    assert lines == ['engine: "qttt 0.1.0"; rulesets: any; optional commands: perft, go']
    assert report.summary() == f"{_line('core', total)}; {_line('strict', total)}"
    assert report.status("strict") == 0 and report.could_not_run is None


@pytest.mark.slow
def _walk_cost(counts: list[int], depth: int) -> int:
    """Positions the runner expands to count depth `depth` itself: every node above it."""
    return 1 + sum(counts[:depth - 1])


@pytest.mark.slow
def test_reference_engine_passes_everything_and_unwalkable_perft_is_skipped_not_passed() -> None:
    """The independent reference model (no perft command): cases pass; perft depths too deep to
    walk through the protocol are skipped, and a skipped entry never counts as passed."""
    names = list(builtin_names())
    report, lines = _run(_in_process("reference"), names)
    total = _total(names, False)
    assert report.summary() == f"{_line('core', total)}; {_line('strict', total)}"
    budget = 100
    perft = SUITES["wikipedia"]["perft"]
    walked, lines = _run(_in_process("reference"), ["wikipedia"], perft=True, cases=slice(0, 0),
                         walk_budget=budget)
    expected_lines = []
    for entry in perft:
        counts = entry["counts"]
        deep = [d for d in range(1, len(counts) + 1) if _walk_cost(counts, d) > budget]
        if deep:
            checked = f" (depths 1-{deep[0] - 1} checked)" if deep[0] > 1 else ""
            expected_lines.append(
                f"SKIP {entry['id']}: depth {deep[0]} and deeper not checked: the engine refused perft, "
                f"and walking it through the protocol takes more than {budget} positions{checked}")
    assert expected_lines  # the deepest tables are too big to walk
    assert lines[1:] == expected_lines
    skipped = len(expected_lines)
    assert walked.summary() == (f"{_line('core', len(perft), skipped=skipped)}; "
                                f"{_line('strict', len(perft), skipped=skipped)}")


def test_engine_without_perft_in_hello_is_walked_never_asked() -> None:
    ce.NoPerftListed.perft_requests = 0
    report, lines = _run(_in_process("no-perft-listed"), ["wikipedia"], perft=True, cases=slice(0, 1),
                         walk_budget=40)
    assert ce.NoPerftListed.perft_requests == 0
    assert lines[0] == 'engine: "qttt 0.1.0"; rulesets: any; optional commands: none'
    assert all(line.startswith("SKIP ") and "the engine lists no perft command" in line for line in lines[1:])
    assert report.count("core", "skipped") == len(lines) - 1 >= 1
    assert report.count("core", "passed") == 1 + len(SUITES["wikipedia"]["perft"]) - (len(lines) - 1)


def test_extra_fields_in_states_and_responses_are_ignored() -> None:
    report, lines = _run(_in_process("extra-fields"), ["wikipedia", "bonus4x4"])
    total = _total(["wikipedia", "bonus4x4"], perft=False)
    assert lines == ['engine: "reference ExtraFields"; rulesets: any; optional commands: not listed']
    assert report.summary() == f"{_line('core', total)}; {_line('strict', total)}"


def test_engine_listing_one_ruleset_has_the_others_not_supported() -> None:
    names = ["wikipedia", "russian", "kumar"]
    report, lines = _run(_in_process("wikipedia-only"), names)
    wiki = _total(["wikipedia"], False)
    assert lines == ['engine: "reference WikipediaOnly"; rulesets: wikipedia; optional commands: not listed',
                     f"NOT SUPPORTED russian: ruleset russian is not among the engine's rulesets "
                     f"({_total(['russian'], False)} items)",
                     f"NOT SUPPORTED kumar: ruleset kumar is not among the engine's rulesets "
                     f"({_total(['kumar'], False)} items)"]
    others = _total(["russian", "kumar"], False)
    assert report.summary() == f"{_line('core', wiki)}; {_line('strict', wiki)}; not supported: {others}"
    assert report.status("strict") == 0


def test_unsupported_refusal_of_new_is_not_a_failure_but_an_invalid_ruleset_still_is() -> None:
    """Without a rulesets list, `new russian` refused as unsupported marks each case not
    supported; the cases that start from an invalid ruleset name still run (and pass)."""
    report, lines = _run(_in_process("wikipedia-only-unlisted"), ["russian"])
    invalid = [c["id"] for c in SUITES["russian"]["cases"] if "start_error" in c]
    assert len(invalid) == 3
    assert lines == ['engine: "reference WikipediaOnlyUnlisted"; rulesets: any; '
                     'optional commands: not listed']
    not_supported = [r for r in report.results if r.outcome("core") == "not supported"]
    assert {r.item for r in not_supported} == {c["id"] for c in SUITES["russian"]["cases"]} - set(invalid)
    assert not_supported[0].note == 'new "russian": "this engine plays wikipedia only, not russian"'
    assert report.summary() == (f"{_line('core', 3)}; {_line('strict', 3)}; "
                                f"not supported: {len(not_supported)}")


def test_refusals_without_rule_ids_pass_core_and_fail_strict_with_every_step_listed() -> None:
    suite = SUITES["wikipedia"]
    report, lines = _run(_in_process("no-rule-ids"), ["wikipedia"])
    expected = []
    for case in suite["cases"]:
        steps = [(f"step {i} {json.dumps(s['action'], separators=(',', ':'))}", s["error"]["rule"])
                 for i, s in enumerate(case["steps"], start=1) if "error" in s]
        if "start_error" in case:
            steps = [(f'new "{case["start"]["variant"]}"', case["start_error"]["rule"])]
        if steps:
            expected.append(f"FAIL {case['id']} (strict only; core passed)")
            expected += [f'  strict  {where}: error.rule: expected "{rule}", got null [rule {rule}]'
                         for where, rule in steps]
    assert lines[1:] == expected
    strict_failed = sum(1 for line in expected if line.startswith("FAIL"))
    total = len(suite["cases"])
    assert report.summary() == f"{_line('core', total)}; {_line('strict', total, strict_failed)}"
    assert (report.status("core"), report.status("strict")) == (0, 1)


# Each broken engine, the suites to run, and a case that must be among the failures.
BROKEN = {
    "no-cycle-detection": (["wikipedia"], "wikipedia.two-cycle-measure-0"),
    "creator-measures": (["wikipedia"], "wikipedia.three-cycle-measure-0"),
    "stems-stay": (["wikipedia"], "wikipedia.stems-both-ends-measure-0"),
    "no-forced-last": (["wikipedia"], "wikipedia.forced-last-square"),
    "wrong-simultaneous": (["wikipedia"], "wikipedia.both-players-lines-measure-0"),
    "lines-end-full-games": (["russian"], "russian.both-players-lines-measure-0"),
    "scores-early": (["russian"], "russian.both-players-lines-measure-0"),
    "half-points": (["russian", "kumar"], "russian.long-cycle-full-measure-8"),
    "wrong-rule-named": (["wikipedia"], "wikipedia.illegal-placements"),
    "unsorted-legal": (["wikipedia"], "wikipedia.opening"),
}
STRICT_ONLY = {"wrong-rule-named", "unsorted-legal"}  # rule ids and list order are strict matters


@pytest.mark.parametrize("name", sorted(ce.BROKEN_RULES))
def test_engine_broken_in_a_rule_is_reported(name: str) -> None:
    names, must_fail = BROKEN[name]
    report, lines = _run(_in_process(name), names)
    level = "strict" if name in STRICT_ONLY else "core"
    assert must_fail in _failed(report, level)
    assert _failed(report, "core") <= _failed(report, "strict")
    if name in STRICT_ONLY:
        assert _failed(report, "core") == set()
    assert sum(1 for line in lines if line.startswith("FAIL ")) == len(_failed(report, "strict"))
    assert report.status(level) == 1


def test_early_divergence_lists_every_later_difference() -> None:
    """Creator measures: the state differs after each cycle-closing move; the case goes on and
    reports each one, not only the first."""
    report, lines = _run(_in_process("creator-measures"), ["wikipedia"], cases=slice(5, 6))
    to_move = 'state.to_move: expected "o", got "x" [rule measure-by]'  # who measures a cycle
    assert lines[1:] == ["FAIL wikipedia.long-cycle-half-measure-0",
                         f'  core    step 3 {{"place":[4,0]}}: {to_move}',
                         f'  core    step 8 {{"place":[5,6]}}: {to_move}']
    assert report.summary() == f"{_line('core', 1, 1)}; {_line('strict', 1, 1)}"


def _double_line_owner(state: dict[str, Any]) -> str | None:
    """The player who alone owns two or more lines of the final 3×3 board, if any."""
    board = state["board"]
    cells = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
    owners = [board[a][0] for a, b, c in cells if all(isinstance(board[k], str) for k in (a, b, c))
              and board[a][0] == board[b][0] == board[c][0]]
    return owners[0] if len(owners) > 1 and len(set(owners)) == 1 and state["over"] else None


def test_other_double_line_reading_fails_wikipedia_and_passes_its_own_canonical_name() -> None:
    """An engine scoring a double line 2 (Goff's current site) differs from `wikipedia` exactly
    where one player alone ends with two lines, and is certified as `wikipedia(double_line=2)`."""
    suite = SUITES["wikipedia"]
    expected = []
    for case in suite["cases"]:
        if "start_error" in case:
            continue
        steps = [("start", case["expect_start"])] + [
            (f"step {i} {json.dumps(s['action'], separators=(',', ':'))}", s)
            for i, s in enumerate(case["steps"], start=1)]
        lines = [f'  core    {where}: state.scores.{p}: expected "1", got "2" [rule score-first-line]'
                 for where, step in steps if (p := _double_line_owner(step["state"]))]
        expected += [f"FAIL {case['id']}", *lines] if lines else []
    assert len(expected) >= 4  # at least two cases end in a double line
    _, lines = _run(_in_process("double-line-two"), ["wikipedia"])
    assert lines[1:] == expected
    own = json.loads(render(build_suite(load_ruleset("wikipedia(double_line=2)"))))
    assert own["ruleset"]["canonical"] == "wikipedia(double_line=2)"
    lines = []
    certified = Runner(_in_process("double-line-two"), out=lines.append).run([own], perft=False)
    assert lines == ['engine: "reference DoubleLineTwo"; rulesets: wikipedia, wikipedia(double_line=2); '
                     "optional commands: not listed"]
    total = len(own["cases"])
    assert certified.summary() == f"{_line('core', total)}; {_line('strict', total)}"


def test_accepted_illegal_action_is_undone_and_the_case_goes_on() -> None:
    """An engine accepting placements on classical cells: each acceptance is listed; the runner
    returns to the case's position by replaying it, and the later steps still pass."""
    _, lines = _run(_in_process("accepts-on-classical"), ["wikipedia"], cases=slice(15, 17))
    refused = 'expected a refusal of kind "illegal", got ok [rule place-open]'  # the step's expected rule
    assert lines[1:] == ["FAIL wikipedia.illegal-placements",
                         f'  core    step 1 {{"place":[0,2]}}: {refused}',
                         f'  core    step 2 {{"place":[2,1]}}: {refused}',
                         "FAIL wikipedia.check-order-placements",
                         f'  core    step 1 {{"place":[0,0]}}: {refused}']


def test_refused_needed_action_stops_the_case_and_says_why() -> None:
    _, lines = _run(_in_process("refuses-measurements"), ["wikipedia"], cases=slice(1, 2))
    assert lines[1:] == [
        "FAIL wikipedia.two-cycle-measure-0",
        '  core    step 3 {"measure":0}: expected the action to be accepted, got the refusal '
        '{"kind":"illegal","rule":"measure-pending","message":"no measurements here"} [rule measure-cell]',
        "  stopped at step 3: the engine refused an action the case needs, so the later steps "
        "cannot be played"]


def test_failure_lines_print_json_values() -> None:
    report, lines = _run(_in_process("creator-measures"), ["wikipedia"], cases=slice(1, 2))
    assert lines[1:] == ["FAIL wikipedia.two-cycle-measure-0",
                         '  core    step 2 {"place":[1,0]}: state.to_move: expected "x", got "o" '
                         '[rule measure-by]']
    [result] = report.results
    case = SUITES["wikipedia"]["cases"][1]
    data = result.to_json()
    assert data.pop("seconds") >= 0
    assert data == {
        "suite": "wikipedia", "id": "wikipedia.two-cycle-measure-0", "kind": "case",
        "description": case["description"], "spec_ref": case["spec_ref"],
        "core": "failed", "strict": "failed", "note": None, "error": None,
        "differences": [{"level": "core", "where": 'step 2 {"place":[1,0]}',
                         "text": 'state.to_move: expected "x", got "o"', "also": [], "rule": "measure-by"}],
        "unknown_rules": [],
        "record": {"variant": "wikipedia", "actions": [s["action"] for s in case["steps"][:2]]}}


def test_json_and_junit_reports_agree_with_the_text() -> None:
    report, _ = _run(_in_process("no-rule-ids"), ["wikipedia", "russian"], cases=slice(15, 19))
    data = json.loads(json.dumps(report.to_json("strict")))
    schema = load_schema("conformance-report.schema.json")
    jsonschema.Draft202012Validator.check_schema(schema)
    unstarted = Report(could_not_run="the engine cannot start").to_json("core")
    for doc in (data, report.to_json("core"), unstarted):
        assert Validator(schema).errors(doc) == []
        jsonschema.Draft202012Validator(schema).validate(doc)
    wrong = {**data, "results": [{**data["results"][0], "strict": "ok"}]}
    assert Validator(schema).errors(wrong) and not jsonschema.Draft202012Validator(schema).is_valid(wrong)
    assert data["status"] == "failed" and data["summary"] == report.summary()
    zero = {"error": 0, "skipped": 0, "not_supported": 0}
    assert data["totals"]["core"] == {"passed": 8, "failed": 0, **zero}
    assert data["totals"]["strict"] == {"passed": 0, "failed": 8, **zero}
    assert data["engine"] == {"protocol": 1, "engine": "reference NoRuleIds"}
    for level, failures in (("strict", "4"), ("core", "0")):
        root = ET.fromstring(report.to_junit(level))
        assert root.get("name") == "qttt conform: reference NoRuleIds"
        suites = {str(ts.get("name")): ts for ts in root.iter("testsuite")}
        assert list(suites) == ["wikipedia", "russian"]  # one suite each, every item once
        assert [(ts.get("tests"), ts.get("failures"), ts.get("errors")) for ts in suites.values()] == [
            ("4", failures, "0"), ("4", failures, "0")]
        cases = list(root.iter("testcase"))
        assert len(cases) == len({(c.get("classname"), c.get("name")) for c in cases}) == 8
        assert all(float(str(c.get("time"))) >= 0 for c in cases)
        props = {p.get("name"): p.get("value") for p in cases[0].iter("property")}
        assert props["core"] == "passed" and props["strict"] == "failed" and props["spec_ref"]
    failure = ET.fromstring(report.to_junit("strict")).find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == ('strict  step 1 {"place":[0,2]}: error.rule: '
                                      'expected "place-open", got null [rule place-open]')
    assert "record (qttt replay): " in str(failure.text)


def test_engine_that_cannot_start_is_one_line_not_a_failure_per_case() -> None:
    report, lines = _run(lambda: ProcessEngine("/nonexistent/engine --flag"), ["wikipedia", "kumar"])
    assert lines == [] and report.results == []
    assert report.could_not_run == ("the engine cannot start: cannot start '/nonexistent/engine --flag': "
                                    "No such file or directory")
    assert report.status("core") == 2
    silent, _ = _run(_process("silent"), ["wikipedia"], timeout=0.5)
    assert silent.could_not_run is not None and silent.could_not_run.startswith(
        "the engine cannot start: hello: engine exited (status 0)")


# Misbehaving processes, on the first cases of the wikipedia suite (12 cases, all with a measurement).
@pytest.mark.slow
@pytest.mark.parametrize(("name", "symptom"), [
    ("dies-mid-game", "engine exited (status 3)"),
    pytest.param("hangs-on-measure", "no response within 0.5 s", marks=pytest.mark.slow),
    pytest.param("chatty", "printed garbage: 'info thinking...'", marks=pytest.mark.slow),
    ("wrong-ids", "answered id"),
])
def test_misbehaving_process_is_survived_and_reported(name: str, symptom: str) -> None:
    report, lines = _run(_process(name), ["wikipedia"], timeout=0.5, cases=slice(0, 12))
    errors = report.count("core", "error")
    assert errors >= 1 and report.count("core", "passed") + errors == 12
    assert report.count("core", "failed") == report.count("strict", "failed") == 0
    assert any(symptom in str(r.error) for r in report.results), lines[:4]
    assert all(r.note == "stopped: the engine failed; the next item gets a fresh engine"
               for r in report.results if r.outcome("core") == "error")
    root = ET.fromstring(report.to_junit())
    assert int(str(root.get("errors"))) == errors and root.get("failures") == "0"
    if name == "dies-mid-game":  # cases with fewer than five actions still pass on a fresh engine
        assert report.count("core", "passed") >= 1 and "wikipedia.opening" not in _failed(report)


def test_in_process_engine_that_raises_or_hangs_is_reported() -> None:
    raising, _ = _run(lambda: InProcessEngine(ce.Raises()), ["wikipedia"], cases=slice(0, 2))
    assert raising.count("core", "error") == 2 and raising.count("strict", "failed") == 0
    assert raising.results[0].error == "start: legal: raised RuntimeError: boom"
    hanging, _ = _run(lambda: InProcessEngine(ce.HangsOnMeasure()), ["wikipedia"], timeout=0.3,
                      cases=slice(1, 2))
    assert hanging.count("core", "error") == 1
    assert str(hanging.results[0].error).endswith("apply: no response within 0.3 s")


class MiscountsPerft(QtttEngine):
    """Our engine, whose perft misses the last first action's sequences at depth 3."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        out = super().handle(request)
        if request.get("cmd") == "perft" and request.get("depth") == 3 and out["ok"]:
            if out.get("divide"):
                out["divide"][-1]["nodes"] -= 1
            out["nodes"] -= 1
        return out


def test_wrong_perft_is_reported_with_the_first_disagreement() -> None:
    suite = SUITES["wikipedia"]
    runner = Runner(lambda: InProcessEngine(MiscountsPerft()))
    report = runner.run([{**suite, "cases": [], "perft": suite["perft"][:1]}])
    [result] = report.results
    assert result.item == "wikipedia.perft.start"
    assert result.lines() == ["FAIL wikipedia.perft.start",
                              "  core    depth 3: perft: expected 45432, got 45431",
                              '  core    depth 3: divide: first disagreement at first action '
                              '{"place": [7, 8]}: expected 1262, got 1261',
                              f"  what: {suite['perft'][0]['description']}",
                              '  record (qttt replay): {"variant":"wikipedia","actions":[]}']
