"""The conformance runner: our engine and the reference pass everything; engines broken in a
rule, or that crash, hang, chatter, lose count or go silent, are reported, never passed."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import conformance_engines as ce
import pytest

from qttt import builtin_names
from qttt.conformance.protocol import QtttEngine
from qttt.conformance.runner import Engine, InProcessEngine, ProcessEngine, Runner
from qttt.conformance.suite import suite_path

ENGINES_PY = Path(ce.__file__).resolve()
SUITES = {name: json.loads(suite_path(name).read_text(encoding="utf-8")) for name in builtin_names()}


def _total(names: list[str], perft: bool = True) -> int:
    return sum(len(SUITES[n]["cases"]) + (len(SUITES[n]["perft"]) if perft else 0) for n in names)


def _run(make: Any, names: list[str], perft: bool = False, timeout: float = 5.0,
         cases: slice | None = None, walk_budget: int = 2000) -> Runner:
    runner = Runner(make, timeout=timeout, walk_budget=walk_budget)
    try:
        for name in names:
            suite = SUITES[name]
            if cases is not None:
                suite = {**suite, "cases": suite["cases"][cases]}
            runner.run_suite(suite, perft=perft)
    finally:
        runner.close()
    return runner


def _process(name: str) -> Any:
    def make() -> Engine:
        return ProcessEngine(f"{sys.executable} {ENGINES_PY} {name}")
    return make


def test_our_engine_passes_everything_over_the_protocol() -> None:
    names = list(builtin_names())
    runner = _run(_process("qttt"), names, perft=True)
    assert runner.report.failures == []
    assert runner.report.passed == _total(names)
    assert runner.report.skipped == []


@pytest.mark.slow
def test_reference_engine_passes_everything_in_process() -> None:
    """The independent reference model, walked for perft where the table is shallow enough."""
    names = list(builtin_names())
    runner = _run(lambda: InProcessEngine(ce.RefEngine()), names)
    assert runner.report.failures == []
    assert runner.report.passed == _total(names, perft=False)
    walked = _run(lambda: InProcessEngine(ce.RefEngine()), ["wikipedia"], perft=True,
                  cases=slice(0, 0), walk_budget=100)
    assert walked.report.failures == []
    assert walked.report.passed == len(SUITES["wikipedia"]["perft"])
    assert walked.report.skipped  # the deepest tables are too big to walk through the protocol


# Each broken engine, the suites to run, and a case that must be among the failures.
BROKEN = {
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


@pytest.mark.parametrize("name", sorted(ce.BROKEN_RULES))
def test_engine_broken_in_a_rule_is_reported(name: str) -> None:
    names, must_fail = BROKEN[name]
    runner = _run(lambda: InProcessEngine(ce.BROKEN_RULES[name]()), names)
    report = runner.report
    failed = {f.item for f in report.failures}
    assert must_fail in failed
    assert report.failed == len(failed) and report.passed + report.failed == _total(names, perft=False)
    for failure in report.failures:
        assert failure.problems and all(p for p in failure.problems)
    assert report.summary() == f"{report.passed} passed, {report.failed} failed"


def test_failure_names_case_step_expected_and_actual() -> None:
    runner = _run(lambda: InProcessEngine(ce.BROKEN_RULES["creator-measures"]()), ["wikipedia"],
                  cases=slice(1, 2))
    [failure] = runner.report.failures
    assert str(failure) == ('FAIL wikipedia.two-cycle-measure-0 step 2 {"place":[1,0]}: '
                            'state.to_move: expected "x", got "o"')


# Misbehaving processes, on the first cases of the wikipedia suite (12 cases, all with a measurement).
@pytest.mark.parametrize(("name", "symptom"), [
    ("dies-mid-game", "engine exited (status 3)"),
    pytest.param("hangs-on-measure", "no response within 0.5 s", marks=pytest.mark.slow),
    pytest.param("chatty", "printed garbage: 'info thinking...'", marks=pytest.mark.slow),
    ("wrong-ids", "answered id"),
    ("silent", "engine exited (status 0)"),
])
def test_misbehaving_process_is_survived_and_reported(name: str, symptom: str) -> None:
    runner = _run(_process(name), ["wikipedia"], timeout=0.5, cases=slice(0, 12))
    report = runner.report
    assert report.failed >= 1 and report.passed + report.failed == 12
    assert any(symptom in p for f in report.failures for p in f.problems), report.failures[:2]
    if name == "dies-mid-game":  # cases with fewer than five actions still pass on a fresh engine
        assert report.passed >= 1 and "wikipedia.opening" not in {f.item for f in report.failures}


def test_in_process_engine_that_raises_or_hangs_is_reported() -> None:
    raising = _run(lambda: InProcessEngine(ce.Raises()), ["wikipedia"], cases=slice(0, 2))
    assert raising.report.failed == 2
    assert "legal: raised RuntimeError: boom" in raising.report.failures[0].problems[0]
    hanging = _run(lambda: InProcessEngine(ce.HangsOnMeasure()), ["wikipedia"], timeout=0.3,
                   cases=slice(1, 2))
    assert hanging.report.failed == 1
    assert "no response within 0.3 s" in hanging.report.failures[0].problems[0]


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
    runner.run_suite({**suite, "cases": [], "perft": suite["perft"][:1]})
    runner.close()
    [failure] = runner.report.failures
    assert failure.item == "wikipedia.perft.start" and failure.where == "depth 3"
    assert failure.problems == ["perft: expected 45432, got 45431",
                                'divide: first disagreement at first action {"place": [7, 8]}: '
                                "expected 1262, got 1261"]
