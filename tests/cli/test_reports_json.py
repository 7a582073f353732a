"""Every command with a report gives it as JSON (`--json`), standard output holding the JSON alone;
`perft --divide --path` follows actions to any depth."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from contract import one_line, run

from qttt import builtin_names, load_ruleset
from qttt.conformance.perft import perft_counts
from qttt.conformance.suite import suite_path
from qttt.games import new_game
from qttt.notation import action_from_json


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> object:
    status, out, err = run(argv, capsys)
    assert status == 0, err
    return json.loads(out)


def test_variants_json_lists_the_builtin_rulesets(capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(["variants", "--json"], capsys)
    assert isinstance(data, list)
    assert [v["name"] for v in data] == list(builtin_names(None))
    assert all(v["canonical"] == load_ruleset(v["name"]).canonical for v in data)


@pytest.mark.parametrize("core", ["python", "compiled"])
def test_a_path_narrows_a_divide_to_any_depth(core: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Along --path, each level's total is the count the level above gives its action, and the
    divide at the end is the engine's own count one action at a time."""
    root = _json(["perft", "wikipedia", "--depth", "4", "--divide", "--json", "--core", core], capsys)
    assert isinstance(root, dict)
    by_action = {json.dumps(d["action"]): d["nodes"] for d in root["divide"]}
    one = _json(["perft", "wikipedia", "--depth", "4", "--path", "0-8", "--json", "--core", core], capsys)
    assert isinstance(one, dict) and one["total"] == by_action['{"place": [0, 8]}']
    two = _json(["perft", "wikipedia", "--depth", "4", "--path", "0-8", "--path", '{"place": [0, 4]}',
                 "--json", "--core", core], capsys)
    assert isinstance(two, dict)
    assert two["total"] == {json.dumps(d["action"]): d["nodes"] for d in one["divide"]}['{"place": [0, 4]}']
    state = new_game(load_ruleset("wikipedia"))
    for a in ({"place": [0, 8]}, {"place": [0, 4]}):
        state = state.apply(action_from_json(a))
    for d in two["divide"]:
        assert d["nodes"] == perft_counts(state.apply(action_from_json(d["action"])), 1)[-1]
    text = run(["perft", "wikipedia", "--depth", "4", "--path", "0-8 0-4"], capsys)[1]
    assert text.splitlines()[-1] == f"total at depth 4 through 0-8 0-4: {two['total']}"


@pytest.mark.parametrize(("path", "words"), [("0-8 9-4", "'9-4' (action 2) is not a legal action there"),
                                             ("0-8 0-4 1-2", "--depth must be more than that"),
                                             ("{", "--path")])
def test_a_bad_path_is_one_line(path: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["perft", "wikipedia", "--depth", "3", "--path", path], capsys)
    assert (status, out) == (2, "")
    one_line(err, words)


TOUR = """\
[tour]
title = "t"
[[team]]
name = "a"
captain = "a1"
main = ["a1", "a2", "a3", "a4"]
[[team]]
name = "b"
captain = "b1"
main = ["b1", "b2", "b3", "b4"]
[[game]]
board = 1
x = "a"
score = [1, 0]
"""


def test_tour_json_is_the_tour_as_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.toml"
    path.write_text(TOUR, encoding="utf-8")
    data = _json(["tour", str(path), "--json"], capsys)
    assert isinstance(data, dict)
    assert [t["name"] for t in data["teams"]] == ["a", "b"]
    played = [g for g in data["games"] if g["result"] is not None]
    assert played == [{**played[0], "board": 1, "x": "a", "o": "b", "result": {
        "points": {"a": "1", "b": "0"}, "how": "score", "forfeit": None}}]
    assert data["meetings"][0]["individual"] == {"a": "1", "b": "0"}
    assert data["meetings"][0]["complete"] is False


def test_match_json_gives_the_standings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _json(["match", "wikipedia", "random", "greedy", "--games", "2", "--out", str(tmp_path / "m"),
                  "--json", "--quiet"], capsys)
    assert isinstance(data, dict) and data["games"] == 2
    assert sorted(s["player"] for s in data["standings"]) == ["greedy", "random"]
    assert all(s["games"] == 2 and s["won"] + s["drawn"] + s["lost"] == 2 for s in data["standings"])


def test_vectors_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    suite = suite_path("wikipedia")
    data = _json(["vectors", "check", str(suite), "--json"], capsys)
    ids = len(json.loads(suite.read_text(encoding="utf-8"))["cases"])
    assert isinstance(data, dict) and data == {"files": 1, "ids": data["ids"], "problems": []}
    assert data["ids"] >= ids
