"""Reports implementers act on: every failure of every broken engine carries its description,
spec_ref and a record that `qttt replay` accepts and that reaches the position of the first
difference; a difference that persists is reported once with the later places it showed again;
engine messages are quoted whole; a crashing engine is an error (JUnit errors > 0, failures 0),
also through the command line."""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import conformance_engines as ce
import pytest

from qttt import builtin_names
from qttt.cli import main
from qttt.conformance.protocol import QtttEngine
from qttt.conformance.runner import InProcessEngine, Runner
from qttt.conformance.suite import suite_path
from qttt.notation import Json

SUITES = [json.loads(suite_path(n).read_text(encoding="utf-8")) for n in builtin_names()]
SUITE = SUITES[0]
ENGINES_PY = Path(ce.__file__).resolve()


def _expected_state(case: dict[str, Any], where: str) -> Json:
    """The state the case expects at a report's `where` (start, or step N)."""
    if where == "start":
        return case["expect_start"]["state"]
    step = case["steps"][int(where.split()[1]) - 1]
    return step["state"]


def _replayed(engine: Any, record: Json) -> tuple[Json, Json]:
    """The state and legal actions an in-process engine reports after the record's actions."""
    assert isinstance(record, dict)
    engine.handle({"id": 0, "cmd": "new", "variant": record["variant"]})
    for i, action in enumerate(record["actions"]):
        engine.handle({"id": i + 1, "cmd": "apply", "action": action})
    state, legal = engine.handle({"id": -1, "cmd": "state"}), engine.handle({"id": -2, "cmd": "legal"})
    return state.get("state"), legal.get("legal")


QUICK = ("creator-measures", "wrong-rule-named", "accepts-on-classical")


@pytest.mark.parametrize("name", [n if n in QUICK else pytest.param(n, marks=pytest.mark.slow)
                                  for n in [*ce.BROKEN_RULES, *ce.DIVERGING]])
def test_every_failure_carries_a_record_that_replays_to_its_first_difference(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = Runner(lambda: InProcessEngine(ce.ENGINES[name]())).run(SUITES, perft=False)
    cases = {c["id"]: c for s in SUITES for c in s["cases"]}
    failed = [r for r in report.results if r.outcome("strict") == "failed"]
    assert failed, name
    for result in failed:
        case = cases[result.item]
        assert result.description == case["description"] and result.spec_ref == case["spec_ref"]
        assert result.record is not None
        text = "\n".join(result.lines())
        assert f"what: {case['description']}" in text and "record (qttt replay): " in text
        if "start_error" in case:
            assert result.record == case["start"]
            continue
        path = tmp_path / "record.json"
        path.write_text(json.dumps(result.record))
        capsys.readouterr()
        assert main(["replay", str(path), "--json"]) == 0, (name, result.item)
        state = json.loads(capsys.readouterr().out)
        if result.first_seen is None:
            assert state == _expected_state(case, result.differences[0].where), (name, result.item)
            continue
        # the start differs before its end: the record is the shortest start that differs already,
        # and the engine under test, replaying it, differs from our state there
        actions = result.record["actions"]
        assert isinstance(actions, list) and actions == case["start"]["actions"][:len(actions)]
        ours = _replayed(QtttEngine(), result.record)
        assert ours[0] == state and _replayed(ce.ENGINES[name](), result.record) != ours, (name, result.item)


def test_a_persisting_difference_is_reported_once_with_its_later_places() -> None:
    class WrongVariantName(QtttEngine):
        """Our engine, whose states name the ruleset wrongly."""

        def handle(self, request: dict[str, Json]) -> dict[str, Json]:
            out = super().handle(request)
            if request.get("cmd") == "state" and out.get("ok"):
                out = {**out, "state": {**out["state"], "variant": "other"}}
            return out

    report = Runner(lambda: InProcessEngine(WrongVariantName())).run(
        [{**SUITE, "cases": SUITE["cases"][5:6]}], perft=False)
    [result] = report.results
    case = SUITE["cases"][5]
    [difference] = result.differences
    assert difference.where == "start"
    assert len(difference.also) == len(case["steps"])
    assert result.lines()[1].endswith(f"(the same at {len(case['steps'])} later places, up to "
                                      f"{difference.also[-1]}) [rule record-variant]")


def test_engine_messages_are_quoted_whole() -> None:
    message = "refused because " + "the engine explains at length " * 20

    class RefusesEverything(QtttEngine):
        def handle(self, request: dict[str, Json]) -> dict[str, Json]:
            if request.get("cmd") == "apply":
                return {"ok": False, "error": {"kind": "illegal", "rule": None, "message": message}}
            return super().handle(request)

    report = Runner(lambda: InProcessEngine(RefusesEverything())).run(
        [{**SUITE, "cases": SUITE["cases"][1:2]}], perft=False)
    assert any(message in d.text for r in report.results for d in r.differences)
    assert any(message in line for r in report.results for line in r.lines())


def test_a_crashing_engine_is_an_error_in_every_report(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    junit, data, suite_file = tmp_path / "report.xml", tmp_path / "report.json", tmp_path / "suite.json"
    suite_file.write_text(json.dumps({**SUITE, "cases": SUITE["cases"][:8]}))
    status = main(["conform", "--engine", f"{sys.executable} {ENGINES_PY} dies-mid-game",
                   "--suite", str(suite_file), "--no-perft", "--junit", str(junit), "--json", str(data)])
    out = capsys.readouterr().out
    assert status == 1
    root = ET.fromstring(junit.read_text())
    assert int(str(root.get("errors"))) > 0 and root.get("failures") == "0"
    assert float(str(root.get("time"))) > 0
    assert root.get("name") == "qttt conform: qttt 0.1.0"
    [suite] = root.iter("testsuite")
    names = [c.get("name") for c in suite.iter("testcase")]
    assert len(names) == len(set(names)) == 8
    error = suite.find("testcase/error")
    assert error is not None and "engine exited" in str(error.get("message"))
    report = json.loads(data.read_text())
    assert report["format"] == 2
    assert report["totals"]["strict"]["error"] == int(str(root.get("errors")))
    assert report["totals"]["strict"]["failed"] == 0
    assert "ERROR wikipedia." in out and "error" in out.splitlines()[-1]
