"""The implementer's guide (docs/implementers.md): its JavaScript engine, written from the rule
pages alone, passes the wikipedia suite at both levels through the runner under Node, and the
guide's worked exchange is what that engine (and, game for game, ours) answers."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from qttt import builtin_names
from qttt.conformance.runner import Engine, ProcessEngine, Runner, load_suites
from qttt.conformance.suite import suite_path

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "implementers.md"
ENGINE_JS = ROOT / "docs" / "implementers" / "qttt-wikipedia.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed (.ci/run installs it): "
                                                     "the JavaScript engine cannot be run")


def test_node_is_there_in_ci() -> None:
    """.ci/run installs Node.js: in CI the JavaScript engine is never skipped."""
    if os.environ.get("CI") and NODE is None:
        pytest.fail("CI is set but node is not installed; .ci/run should have installed nodejs")


def _node_engine() -> Engine:
    return ProcessEngine(f"{NODE} {ENGINE_JS}")


@needs_node
def test_javascript_engine_passes_core_and_strict_on_the_wikipedia_suite() -> None:
    lines: list[str] = []
    suite = load_suites([suite_path("wikipedia")])
    report = Runner(_node_engine, out=lines.append).run(suite, perft=True)
    total = len(suite[0]["cases"]) + len(suite[0]["perft"])
    assert lines == ['engine: "qttt-wikipedia.js 1"; rulesets: wikipedia; optional commands: perft']
    assert report.summary() == (f"core: {total} passed, 0 failed, 0 skipped; "
                                f"strict: {total} passed, 0 failed, 0 skipped")
    assert report.status("strict") == 0


@pytest.mark.slow
@needs_node
def test_javascript_engine_reports_the_other_rulesets_as_not_supported() -> None:
    others = [n for n in builtin_names() if n != "wikipedia"]
    lines: list[str] = []
    suites = load_suites([suite_path(n) for n in others])
    report = Runner(_node_engine, out=lines.append).run(suites, perft=False)
    assert lines[1:] == [f"NOT SUPPORTED {s['ruleset']['name']}: ruleset {s['ruleset']['canonical']} is "
                         f"not among the engine's rulesets ({len(s['cases'])} items)" for s in suites]
    assert report.summary() == ("core: 0 passed, 0 failed, 0 skipped; strict: 0 passed, 0 failed, "
                                f"0 skipped; not supported: {sum(len(s['cases']) for s in suites)}")
    assert report.status("core") == 2  # nothing was run: not a pass


def _exchange() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    text = GUIDE.read_text(encoding="utf-8")
    block = re.search(r"```\n(> .*?)\n```", text, re.S)
    assert block is not None
    lines = block[1].splitlines()
    pairs = list(zip(lines[::2], lines[1::2], strict=True))
    assert all(a.startswith("> ") and b.startswith("< ") for a, b in pairs)
    return [(json.loads(a[2:]), json.loads(b[2:])) for a, b in pairs]


def _serve(command: list[str], requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = subprocess.run(command, input="".join(json.dumps(r) + "\n" for r in requests), text=True,
                         capture_output=True, timeout=60, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


@needs_node
def test_the_worked_exchange_is_what_the_javascript_engine_answers() -> None:
    pairs = _exchange()
    assert _serve([str(NODE), str(ENGINE_JS)], [r for r, _ in pairs]) == [a for _, a in pairs]


def test_our_engine_agrees_with_the_worked_exchange_game_for_game() -> None:
    """Same ok, error kind and rule, state and legal list; ours also plays russian."""
    pairs = _exchange()
    ours = _serve([sys.executable, "-m", "qttt", "engine"], [r for r, _ in pairs])
    for (request, theirs), mine in zip(pairs, ours, strict=True):
        if request["cmd"] == "hello" or request.get("variant") == "russian":
            continue
        assert mine.get("ok") == theirs.get("ok"), request
        for key in ("state", "legal"):
            assert mine.get(key) == theirs.get(key), request
        if not mine["ok"]:
            assert (mine["error"]["kind"], mine["error"]["rule"]) == (
                theirs["error"]["kind"], theirs["error"]["rule"])


def test_javascript_engine_has_no_dependencies_and_no_code_of_ours() -> None:
    source = ENGINE_JS.read_text(encoding="utf-8")
    assert re.findall(r"require\(\"([^\"]+)\"\)", source) == ["readline"]
    assert "import " not in source and "python" not in source.lower()
