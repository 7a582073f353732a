"""Conformance vectors and perft tables of the nested-classical rulesets, refereed by the nested
reference model; the engine protocol serving a nested-classical game; `qttt perft` on one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from nested_reference import RefIllegal, RefNested, load_nested

from qttt.cli import main
from qttt.conformance.check import check_files
from qttt.conformance.protocol import QtttEngine
from qttt.conformance.suite import (
    committed_suites,
    coverage_variants_dir,
    coverage_vectors_dir,
    nested_vectors_dir,
    suite_path,
    vectors_dir,
)
from qttt.spec import spec_dir
from qttt.variant import load_ruleset
from qttt.vocabulary import NESTED

SOURCES = {"intelligent": "intelligent",
           "intelligent-2016": str(spec_dir() / "editions" / "intelligent-2016.toml"),
           "intelligent-2018": str(spec_dir() / "editions" / "intelligent-2018.toml")}
SUITES = {name: json.loads((nested_vectors_dir() / f"{name}.json").read_text(encoding="utf-8"))
          for name in SOURCES}
# The nested-classical coverage variants of spec/coverage/, refereed like the editions.
for _path in sorted(coverage_variants_dir().glob("*.toml")):
    if load_ruleset(str(_path)).game == NESTED:
        SOURCES[_path.stem] = str(_path)
        SUITES[_path.stem] = json.loads((coverage_vectors_dir() / f"{_path.stem}.json").read_text("utf-8"))


def test_every_nested_ruleset_and_example_has_a_suite() -> None:
    assert "nested-weighted-majority" in SOURCES
    assert sorted(p.stem for p in nested_vectors_dir().glob("*.json")) == sorted(
        n for n, s in SOURCES.items() if not s.startswith(str(coverage_variants_dir())))
    problems, count = check_files(sorted(nested_vectors_dir().glob("*.json")), vectors_dir() / "RETIRED")
    assert problems == [] and count > 30


def _ref_perft(game: RefNested, depth: int) -> int:
    if depth == 0:
        return 1
    total = 0
    for action in game.legal():
        child = RefNested(game.params, game.variant)
        child.__dict__.update({k: (json.loads(json.dumps(v)) if isinstance(v, list) else v)
                               for k, v in game.__dict__.items() if k != "params"})
        child.old_move = game.old_move
        child.apply(action)
        total += _ref_perft(child, depth - 1)
    return total


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_reference_agrees_with_every_case(name: str) -> None:
    params = load_nested(SOURCES[name])
    for case in SUITES[name]["cases"]:
        if "start_error" in case:
            assert case["start_error"]["kind"] == "variant"
            continue
        variant = case["start"]["variant"]
        ref = RefNested(params, variant)
        for action in case["start"]["actions"]:
            ref.apply(action)
        assert case["expect_start"] == {"state": ref.state(), "legal": ref.legal()}, case["id"]
        for k, step in enumerate(case["steps"]):
            try:
                ref.apply(step["action"])
            except RefIllegal as e:
                assert step.get("error", {}).get("rule") == e.rule, (case["id"], k)
            else:
                assert "error" not in step, (case["id"], k)
            assert {"state": step["state"], "legal": step["legal"]} == {
                "state": ref.state(), "legal": ref.legal()}, (case["id"], k)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SOURCES))
def test_reference_recounts_the_perft_tables(name: str) -> None:
    """The reference model's own counts, to depth 2 (the deeper ones cost minutes in the reference)."""
    params = load_nested(SOURCES[name])
    for entry in SUITES[name]["perft"]:
        game = RefNested(params, "v")
        for action in entry["start"]["actions"]:
            game.apply(action)
        for depth, count in enumerate(entry["counts"][:2], start=1):
            assert _ref_perft(game, depth) == count, (entry["id"], depth)


def _ask(engine: QtttEngine, **request: Any) -> dict[str, Any]:
    return engine.handle(request)


def test_engine_protocol_serves_a_nested_game() -> None:
    engine = QtttEngine()
    assert _ask(engine, cmd="new", variant="intelligent")["ok"]
    assert len(_ask(engine, cmd="legal")["legal"]) == 256
    assert _ask(engine, cmd="apply", action={"mark": 84})["ok"]  # (5, 4): O must use block 4
    state = _ask(engine, cmd="state")["state"]
    assert state["target"] == [4] and state["board"][84] == "x1" and state["to_move"] == "o"
    refused = _ask(engine, cmd="apply", action={"mark": 0})
    assert refused["ok"] is False and refused["error"]["rule"] == "nested-route"
    refused = _ask(engine, cmd="apply", action={"place": [0, 1]})
    assert refused["error"] == {"kind": "malformed", "rule": "record-format",
                                "message": "a nested-classical game takes mark actions, not place"}
    go = _ask(engine, cmd="go")
    assert go["ok"] and go["action"] in _ask(engine, cmd="legal")["legal"]
    assert _ask(engine, cmd="perft", depth=1)["nodes"] == 16


def test_perft_command_on_a_nested_ruleset(capsys: pytest.CaptureFixture[str]) -> None:
    expected = SUITES["intelligent"]["perft"][0]["counts"][:2]
    assert main(["perft", "intelligent", "--depth", "2"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"depth {d}: {n}" for d, n in enumerate(expected, start=1)]
    assert main(["perft", "intelligent", "--depth", "1", "--actions", '[{"mark": 0}]', "--divide"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[-1] == "total at depth 1: 15" and lines[0] == '{"mark": 1}: 1'


@pytest.mark.slow
def test_vectors_generate_check_covers_the_nested_suites(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "generate", "--check"]) == 0
    capsys.readouterr()


def test_conform_runs_the_nested_suites_by_default_and_by_name(capsys: pytest.CaptureFixture[str]) -> None:
    every = committed_suites()
    assert {p.name for p in nested_vectors_dir().glob("*.json")} <= {p.name for p in every}
    assert suite_path("intelligent") == nested_vectors_dir() / "intelligent.json"
    factory = "qttt.conformance.protocol:QtttEngine"
    assert main(["conform", "--python", factory, "--ruleset", "intelligent"]) == 0
    cases = len(SUITES["intelligent"]["cases"]) + len(SUITES["intelligent"]["perft"])
    assert capsys.readouterr().out.splitlines()[-1] == (
        f"core: {cases} passed, 0 failed, 0 skipped; strict: {cases} passed, 0 failed, 0 skipped")
