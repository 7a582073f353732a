"""The conformance suites: schema, check, determinism, an independent referee, perft by the
reference model, and the protocol served by `qttt engine`."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from reference import RefGame, RefIllegal, load_variant

from qttt import builtin_names, load_ruleset
from qttt.conformance.check import check_files, check_suite
from qttt.conformance.protocol import QtttEngine, respond
from qttt.conformance.scope import rule_ids
from qttt.conformance.suite import (
    build_suite,
    coverage_variants_dir,
    coverage_vectors_dir,
    render,
    suite_path,
    vectors_dir,
)
from qttt.conformance.validator import Validator, load_schema

ROOT = Path(__file__).resolve().parents[2]
SUITES = {name: json.loads(suite_path(name).read_text(encoding="utf-8")) for name in builtin_names()}
# The quantum coverage variants (spec/coverage/): variant file and committed suite, by name.
COVERAGE = {p.stem: (str(p), json.loads((coverage_vectors_dir() / f"{p.stem}.json").read_text("utf-8")))
            for p in sorted(coverage_variants_dir().glob("*.toml"))
            if load_ruleset(str(p)).game == "quantum"}
# Every quantum suite the reference model referees: name -> (ruleset source, suite).
REFEREED = {**{name: (name, suite) for name, suite in SUITES.items()}, **COVERAGE}


def test_every_builtin_has_a_committed_suite() -> None:
    assert sorted(p.stem for p in vectors_dir().glob("*.json")) == sorted(builtin_names())


QUICK_SUITES = ("wikipedia", "kumar")


@pytest.mark.parametrize("name", [n if n in QUICK_SUITES else pytest.param(n, marks=pytest.mark.slow)
                                  for n in builtin_names()])
def test_suite_validates_against_schema_both_validators(name: str) -> None:
    schema = load_schema("vectors.schema.json")
    assert Validator(schema).errors(SUITES[name]) == []
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(SUITES[name])


def _mutations(suite: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for path, value in ((("cases", 0, "extra"), 1), (("cases", 0, "id"), "no-dot"),
                        (("cases", 0, "steps", 0, "state", "phase"), "thinking"),
                        (("cases", 0, "description"), "x" * 200), (("format",), 2),
                        (("cases", 0, "steps", 0, "error"), {"kind": "illegal"}),
                        (("perft", 0, "counts", 0), -1)):
        mutated = copy.deepcopy(suite)
        node: Any = mutated
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
        out.append(mutated)
    missing = copy.deepcopy(suite)
    del missing["cases"][0]["steps"][0]["legal"]
    return [*out, missing]


def test_validator_rejects_what_jsonschema_rejects() -> None:
    schema = load_schema("vectors.schema.json")
    small = {**SUITES["wikipedia"], "cases": SUITES["wikipedia"]["cases"][:2],
             "perft": SUITES["wikipedia"]["perft"][:1]}
    assert Validator(schema).errors(small) == []
    for bad in _mutations(small):
        ours = Validator(schema).errors(bad)
        theirs = list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
        assert ours and theirs, ours


def test_validator_names_odd_keys_as_json_on_one_line() -> None:
    errors = Validator(load_schema("vectors.schema.json")).errors({"\n": None, "ok_key": 1})
    unexpected = [e for e in errors if "unexpected" in e]
    assert unexpected == ['$: unexpected "\\n", ok_key'] and all("\n" not in e for e in errors)


def test_check_passes_and_covers_every_rule_of_every_ruleset() -> None:
    problems, count = check_files(sorted(vectors_dir().glob("*.json")), vectors_dir() / "RETIRED")
    assert problems == []
    assert count == sum(len(s["cases"]) + len(s["perft"]) for s in SUITES.values())
    for name, suite in SUITES.items():
        cited = {ref for case in suite["cases"] for ref in case["spec_ref"]}
        assert set(rule_ids(load_ruleset(name))) <= cited, name


def test_check_catches_retired_duplicate_unresolvable_and_uncovered(tmp_path: Path) -> None:
    suite = copy.deepcopy(SUITES["wikipedia"])
    seen: dict[str, str] = {}
    retired = {suite["cases"][1]["id"]}
    suite["cases"][2]["id"] = suite["cases"][3]["id"]
    suite["cases"][4]["spec_ref"] = ["no-such-rule"]
    suite["cases"][5]["spec_ref"] = ["score-rank"]  # a rule wikipedia does not select
    suite["cases"][6]["description"] = suite["cases"][7]["description"]
    for case in suite["cases"]:
        case["spec_ref"] = [r for r in case["spec_ref"] if r != "over-no-action"]
    problems = "\n".join(check_suite(suite, retired, seen, "w"))
    assert "is retired" in problems
    assert "also used" in problems
    assert "no-such-rule is not a rule" in problems
    assert "score-rank is not a rule of ruleset wikipedia" in problems
    assert "same description" in problems
    assert "over-no-action is not exercised" in problems


def test_generation_is_deterministic_and_matches_the_committed_file() -> None:
    rs = load_ruleset("wikipedia")
    first = render(build_suite(rs))
    assert first == render(build_suite(rs))
    assert first == suite_path("wikipedia").read_text(encoding="utf-8")


# -- the referee: the naive reference model replays every case ---------------------------------

def _ref_error(game: RefGame, action: Any) -> dict[str, str] | None:
    try:
        game.apply(action)
    except RefIllegal as e:
        return {"kind": "malformed" if e.rule == "record-format" else "illegal", "rule": e.rule}
    return None


@pytest.mark.parametrize("name", sorted(REFEREED))
def test_reference_model_agrees_with_every_expectation(name: str) -> None:
    source, suite = REFEREED[name]
    assert suite["ruleset"]["canonical"] == load_ruleset(source).canonical
    params = load_variant(source)
    for case in suite["cases"]:
        variant = case["start"]["variant"]
        if "start_error" in case:
            with pytest.raises(ValueError):
                load_variant(variant)
            rule = "variant-file" if "(" in variant else "record-variant"
            assert case["start_error"] == {"kind": "variant", "rule": rule}, case["id"]
            continue
        game = RefGame(params, variant)
        for action in case["start"]["actions"]:
            game.apply(action)
        assert case["expect_start"] == {"state": game.state(), "legal": game.legal()}, case["id"]
        for i, step in enumerate(case["steps"]):
            where = f"{case['id']} step {i + 1}"
            assert _ref_error(game, step["action"]) == step.get("error"), where
            assert step["state"] == game.state(), where
            assert step["legal"] == game.legal(), where
        assert case["scores"] == game.state()["scores"], case["id"]


def _ref_perft(game: RefGame, depth: int) -> list[int]:
    counts = [0] * depth

    def walk(g: RefGame, level: int) -> None:
        legal = g.legal()
        counts[level] += len(legal)
        if level + 1 < depth:
            for action in legal:
                child = copy.deepcopy(g)
                child.apply(action)
                walk(child, level + 1)

    walk(game, 0)
    return counts


@pytest.mark.parametrize("name", sorted(REFEREED))
def test_reference_model_agrees_with_perft_tables(name: str) -> None:
    """Every entry to depth 2 (3 from the pending 2-cycle), and the divide sums to the count."""
    source, suite = REFEREED[name]
    for entry in suite["perft"]:
        game = RefGame(load_variant(source), suite["ruleset"]["canonical"])
        for action in entry["start"]["actions"]:
            game.apply(action)
        depth = min(len(entry["counts"]), 3 if entry["id"].endswith("pending-two-cycle") else 2)
        assert _ref_perft(game, depth) == entry["counts"][:depth], entry["id"]
        assert sum(d["nodes"] for d in entry["divide"]) == entry["counts"][-1]
        assert [d["action"] for d in entry["divide"]] == game.legal()


def test_perft_start_counts_by_hand() -> None:
    """36 = C(9, 2) placements on the empty 3×3 board (Goff 2006); 2-cycles allowed, so 36² at
    depth 2; 120 = C(16, 2) on 4×4."""
    assert SUITES["wikipedia"]["perft"][0]["counts"][:2] == [36, 36 * 36]
    assert SUITES["bonus4x4"]["perft"][0]["counts"][:2] == [120, 120 * 120]


# -- protocol and command line ----------------------------------------------------------------

def test_protocol_refusals() -> None:
    engine = QtttEngine()
    assert json.loads(respond(engine, "not json")[0])["error"]["kind"] == "protocol"
    assert json.loads(respond(engine, '{"id": 1, "cmd": "state"}')[0]) == {
        "id": 1, "ok": False,
        "error": {"kind": "protocol", "rule": None, "message": "state before new: no game"}}
    assert json.loads(respond(engine, '{"id": 2, "cmd": "dance"}')[0])["error"]["kind"] == "protocol"
    out = json.loads(respond(engine, '{"id": 3, "cmd": "new", "variant": "nope"}')[0])
    assert out["error"]["kind"] == "variant" and out["error"]["rule"] == "record-variant"
    assert respond(engine, '{"id": 4, "cmd": "quit"}') == ('{"id":4,"ok":true}', True)


def _qttt(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "qttt", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120, check=False)


def test_engine_command_serves_the_protocol() -> None:
    requests = [{"id": 1, "cmd": "hello", "protocol": 1}, {"id": 2, "cmd": "new", "variant": "wikipedia"},
                {"id": 3, "cmd": "apply", "action": {"place": [0, 1]}},
                {"id": 4, "cmd": "apply", "action": {"place": [1, 1]}},
                {"id": 5, "cmd": "perft", "depth": 1}, {"id": 6, "cmd": "quit"},
                {"id": 7, "cmd": "hello"}]
    result = _qttt("engine", stdin="".join(json.dumps(r) + "\n" for r in requests))
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["id"] for a in answers] == [1, 2, 3, 4, 5, 6]  # nothing after quit
    assert answers[3]["error"]["rule"] == "place-distinct"
    assert answers[4]["nodes"] == 36  # O to move: C(9, 2) pairs, (0, 1) again as a 2-cycle


@pytest.mark.slow
def test_cli_conform_vectors_check_and_perft() -> None:
    result = _qttt("conform", "--engine", f"{sys.executable} -m qttt engine", "--ruleset", "kumar")
    count = len(SUITES["kumar"]["cases"]) + len(SUITES["kumar"]["perft"])
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == (f"core: {count} passed, 0 failed, 0 skipped; "
                                              f"strict: {count} passed, 0 failed, 0 skipped")
    check = _qttt("vectors", "check")
    assert check.returncode == 0 and " 0 problems" in check.stdout
    perft = _qttt("perft", "wikipedia", "--depth", "2")
    assert perft.stdout.split() == ["depth", "1:", "36", "depth", "2:", "1296"]
    divide = _qttt("perft", "russian", "--depth", "2", "--divide")
    assert divide.stdout.splitlines()[0] == '{"place": [0, 1]}: 36'
    assert divide.stdout.splitlines()[-1] == "total at depth 2: 1296"
    bad = _qttt("conform", "--python", "no_such_module:make")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


@pytest.mark.slow
def test_cli_conform_exit_statuses_and_report_files(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """Exit 0 passed, 1 failed, 2 could not run (one line); --output (JSON) and --junit written."""
    from qttt.cli import main

    engines = ROOT / "tests" / "support" / "conformance_engines.py"
    small = tmp_path / "small.json"  # the refusal cases and a whole game: quick, and strict fails
    small.write_text(json.dumps({**SUITES["wikipedia"], "cases": SUITES["wikipedia"]["cases"][14:20],
                                 "perft": SUITES["wikipedia"]["perft"][:1]}), encoding="utf-8")
    run = ["conform", "--engine", f"{sys.executable} {engines} no-rule-ids", "--suite", str(small),
           "--no-perft", "--output", str(tmp_path / "r.json"), "--junit", str(tmp_path / "r.xml")]
    assert main(run) == 1
    strict = capsys.readouterr()
    assert strict.err == "" and "FAIL wikipedia.illegal-placements (strict only; core passed)" in strict.out
    assert main([*run, "--level", "core"]) == 0
    core = capsys.readouterr()  # what to fix first is judged at --level; both levels are counted
    assert core.out.splitlines()[-1] == strict.out.splitlines()[-1] and "fix this first" not in core.out
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["level"] == "core" and data["status"] == "passed" and data["could_not_run"] is None
    assert data["summary"] == core.out.splitlines()[-1]
    assert (tmp_path / "r.xml").read_text(encoding="utf-8").startswith('<?xml version="1.0"')
    missing = _qttt("conform", "--engine", "/nonexistent/engine", "--output", str(tmp_path / "m.json"))
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr == ("qttt: could not run: the engine cannot start: cannot start "
                              "'/nonexistent/engine': No such file or directory\n")
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["status"] == "could not run"


def test_suite_of_a_changed_ruleset_is_complete_and_passes(tmp_path: Path) -> None:
    """A ruleset no built-in matches (creator measures, no 2-cycles): full coverage, and our
    engine passes its suite through the protocol."""
    from qttt import with_params
    from qttt.conformance.runner import InProcessEngine, Runner

    rs = with_params(load_ruleset("wikipedia"), measurer="creator", two_cycles=False)
    suite = json.loads(render(build_suite(rs, "creator-no-2-cycles")))
    suite["ruleset"]["name"] = "creator-no-2-cycles"
    assert check_suite(suite, set(), {}, "changed") == []
    report = Runner(lambda: InProcessEngine(QtttEngine())).run([suite])
    assert report.count("strict", "passed") == len(report.results)
    assert len(report.results) == len(suite["cases"]) + len(suite["perft"])
