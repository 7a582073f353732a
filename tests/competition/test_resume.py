"""Match and tour folders are re-validated when a run resumes (issue 32 item 2): every saved record
is replayed under the referee's rules and must be the game of its file (number, players, clock),
with a result the rules give its actions; anything else is damaged: exit 2, one line naming the
file and the field. tests/cli/test_fuzz_files.py forges records with Hypothesis."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from qttt import load_ruleset, record_from_json
from qttt.chance import CHANCE
from qttt.cli import main
from qttt.games import new_game
from qttt.notation import action_to_json

MATCH = ["wikipedia", "random", "greedy", "--games", "2"]
Edit = Callable[[dict[str, Any]], None]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished two-game match folder (copied by each test)."""
    out = tmp_path_factory.mktemp("match") / "m"
    assert main(["match", *MATCH, "--out", str(out), "--quiet"]) == 0
    return out


def _set(path: str, value: Any) -> Edit:
    def edit(rec: dict[str, Any]) -> None:
        *parents, last = path.split(".")
        for key in parents:
            rec = rec[key]
        rec[last] = value
    return edit


def _illegal_first(rec: dict[str, Any]) -> None:
    rec["actions"][0] = {"place": [4, 4]}


def _forfeit_to_the_winner(rec: dict[str, Any]) -> None:
    rec["actions"] = rec["actions"][:2]  # a game not over
    rec["result"]["end"] = "forfeit"
    rec["result"]["forfeit"] = {"side": "x", "kind": "crash", "rule": None, "message": "gone", "line": None}
    rec["result"]["scores"] = {"x": "1", "o": "0"}  # the forfeit score is 0-1 for O


# Each edit a hand or a forger can make, and the field the refusal names.
EDITS: list[tuple[str, Edit, str]] = [
    ("a score of 1000", _set("result.scores.x", "1000"), "result.scores: 1000 - "),
    ("a player not in the match", _set("players.o", "search"), 'players.o: "search" is not the player'),
    ("game true", _set("game", True), "game: true is not 1"),
    ("another game's number", _set("game", 2), "game: 2 is not 1"),
    ("an illegal action", _illegal_first, "actions[0]: "),
    ("another ruleset", _set("variant", "kumar"), 'variant: "kumar" is not'),
    ("another clock", _set("clock.move_seconds", 99), "clock: "),
    ("an end the actions do not give", _set("result.end", "deadlock"), 'result.end: "deadlock", but'),
    ("a forfeit scored for the side that forfeits", _forfeit_to_the_winner, "rule match-forfeit"),
    ("negative seconds", _set("result.seconds.x", -1), "result.seconds"),
    ("a result that is no object", _set("result", "1-0"), "result: "),
]


@pytest.mark.parametrize(("edit", "field"), [e[1:] for e in EDITS], ids=[e[0] for e in EDITS])
def test_an_edited_record_is_damaged_on_resume(played: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str], edit: Edit,
                                               field: str) -> None:
    out = tmp_path / "m"
    shutil.copytree(played, out)
    record = out / "game-0001.json"
    rec = json.loads(record.read_text())
    edit(rec)
    record.write_text(json.dumps(rec))
    assert main(["match", *MATCH, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"qttt: match folder {out}: game-0001.json is damaged (") and err.count("\n") == 1
    assert field in err, err
    assert "delete it to play that game again" in err
    assert json.loads(record.read_text()) == rec  # nothing is played over it


def test_records_the_schedule_cannot_hold_are_damaged(played: Path, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    shutil.copytree(played, out)
    shutil.copy(out / "game-0001.json", out / "game-0003.json")  # a two-game schedule
    assert main(["match", *MATCH, "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "game-0003.json is damaged (no game of this schedule of 2 games is named so)" in err
    (out / "game-0003.json").unlink()
    (out / "match.json").unlink()  # the schedule the records belong to is lost
    assert main(["match", "wikipedia", "greedy", "random", "--games", "2", "--out", str(out)]) == 2
    assert "holds game records but no match.json" in capsys.readouterr().err


def test_an_untouched_folder_resumes_and_a_deleted_record_is_played_again(
        played: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m"
    shutil.copytree(played, out)
    def game(path: Path) -> Any:
        rec = json.loads(path.read_text())
        return rec["actions"], rec["players"], rec["result"]["scores"]
    before = game(out / "game-0002.json")
    (out / "game-0002.json").unlink()
    assert main(["match", *MATCH, "--out", str(out)]) == 0
    assert "resuming: 1 of 2 games" in capsys.readouterr().out
    assert game(out / "game-0002.json") == before  # the same seed, the same game


def test_a_chance_outcome_is_the_referees_draw(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Under a chance collapse the referee draws each outcome from the match's seed: a record
    whose outcome is the other, legal, one (a game its owner would rather have had) is damaged."""
    args = ["wikipedia(collapse=chance-measurer)", "random", "greedy", "--games", "1", "--out", str(tmp_path)]
    assert main(["match", *args, "--quiet"]) == 0
    record = tmp_path / "game-0001.json"
    rec = json.loads(record.read_text())
    rs = load_ruleset(rec["variant"])
    state = new_game(rs)
    for i, action in enumerate(record_from_json(rec).actions):
        if state.to_move == CHANCE:
            other = next(a for a, _ in state.chance_outcomes() if a != action)
            rec["actions"][i] = action_to_json(other)
            break
        state = state.apply(action)
    else:
        pytest.fail("the game had no chance turn")
    assert main(["match", *args, "--quiet"]) == 0  # the honest folder resumes
    record.write_text(json.dumps(rec))
    assert main(["match", *args, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"game-0001.json is damaged (actions[{i}]: " in err and "referee drew for this game" in err, err


TOUR = """\
[tour]
title = "bots"
[[team]]
name = "A"
main = ["a1", "a2", "a3", "a4"]
[[team]]
name = "B"
main = ["b1", "b2", "b3", "b4"]
[players]
a1 = "random"
a2 = "random"
a3 = "random"
a4 = "random"
b1 = "greedy"
b2 = "greedy"
b3 = "greedy"
b4 = "greedy"
A = "random"
B = "greedy"
"""


@pytest.fixture(scope="module")
def tour_played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tour of two teams whose ten games `qttt tour --play` has played (copied by each test)."""
    folder = tmp_path_factory.mktemp("tour")
    (folder / "t.toml").write_text(TOUR)
    assert main(["tour", str(folder / "t.toml"), "--play", "--quiet"]) == 0
    return folder


@pytest.mark.parametrize(("edit", "field"), [
    (_set("result.scores.o", "7"), "result.scores: "),
    (_set("players.x", "b4"), "players.x: "),
    (_set("tour.board", 2), "tour: "),
    (_illegal_first, "actions[0]: "),
])
def test_an_edited_tour_record_is_damaged(tour_played: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str], edit: Edit, field: str) -> None:
    folder = tmp_path / "t"
    shutil.copytree(tour_played, folder)
    record = sorted((folder / "t-records").glob("*.json"))[0]
    rec = json.loads(record.read_text())
    edit(rec)
    record.write_text(json.dumps(rec))
    assert main(["tour", str(folder / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"qttt: {folder / 't.toml'}: records: {record} is damaged (")
    assert err.count("\n") == 1
    assert field in err, err


def test_a_loop_behind_a_tour_record_names_the_tour_file(tour_played: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "t"
    shutil.copytree(tour_played, folder)
    record = sorted((folder / "t-records").glob("*.json"))[0]
    record.unlink()
    record.symlink_to(record)
    assert main(["tour", str(folder / "t.toml")]) == 2
    err = capsys.readouterr().err
    assert f"{folder / 't.toml'}: records: " in err and "symbolic link loop" in err and err.count("\n") == 1


def test_a_damaged_tournament_folder_is_called_one(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """The refusal names the folder as the command that wrote it calls it."""
    out = tmp_path / "t"
    argv = ["tournament", "wikipedia", "random", "greedy", "r2=random", "--games", "2", "--out", str(out),
            "--quiet"]
    assert main(argv) == 0
    record = next(iter(sorted(out.glob("game-*.json"))))
    rec = json.loads(record.read_text())
    rec["result"]["scores"]["x"] = "1000"
    record.write_text(json.dumps(rec))
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"qttt: tournament folder {out}: {record.name} is damaged ("), err
