"""Match records that tell the story: the players, the clock in effect (never null when the
ruleset sets one), the seconds of every action including the one that timed out, the result and
its reason in human notation (squares from 1; the CodeCup letters in a CodeCup match) with the
program's raw line; `qttt replay` shows all of it for a forfeited game."""

from __future__ import annotations

import json
import random
import shlex
import sys
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset
from qttt.cli import main
from qttt.competition.match import story
from qttt.competition.referee import BuiltinSeat, Clock, Watch, describe, play_game
from qttt.games import new_game
from qttt.notation import state_to_json
from qttt.players import RandomPlayer
from qttt.spec import spec_dir

TESTS = Path(__file__).resolve().parents[1] / "support"
ENGINES = f"{shlex.quote(sys.executable)} {shlex.quote(str(TESTS / 'match_engines.py'))}"
SCHEMA = json.loads((spec_dir() / "schema" / "record.schema.json").read_text())


def _one_game(tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["match", *args, "--games", "1", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    (path,) = sorted(tmp_path.glob("game-*.json"))
    rec: dict[str, Any] = json.loads(path.read_text())
    jsonschema.Draft202012Validator(SCHEMA).validate(rec)
    return rec


def test_an_illegal_move_is_told_in_squares_from_1_with_the_programs_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _one_game(tmp_path, capsys, "wikipedia", f"engine:{ENGINES} illegal", "random")
    assert rec["clock"] == {"move_seconds": 10.0, "game_seconds": None, "ack_seconds": 5.0}
    forfeit = rec["result"]["forfeit"]
    line = json.loads(forfeit["line"])
    action = line["action"]["place"]
    assert forfeit["message"].startswith(f"X1:{action[0] + 1}: ")  # one square, numbered from 1
    assert "{" not in forfeit["message"] and forfeit["rule"] == "place-distinct"
    # the seconds of every attempt, the forfeited one included, add up to the time used
    assert len(rec["result"]["action_seconds"]) == len(rec["actions"]) + 1
    assert sum(rec["result"]["action_seconds"]) == pytest.approx(
        rec["result"]["seconds"]["x"] + rec["result"]["seconds"]["o"], abs=0.01)
    replay = tmp_path / "game-0001.json"
    assert main(["replay", str(replay)]) == 0
    out = capsys.readouterr().out
    assert f"players: X engine:{ENGINES} illegal, O random" in out
    assert "clock: 10 s per action, no limit per game, 5 s to acknowledge" in out
    assert "result: X 0 - 1 O, forfeit: X forfeits, illegal: X1:" in out
    assert f"its line: {json.dumps(forfeit['line'])}" in out


def test_a_timed_out_move_counts_in_the_time_used(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = _one_game(tmp_path, capsys, "wikipedia", f"engine:{ENGINES} sleep", "random",
                    "--move-time", "0.3")
    assert rec["clock"]["move_seconds"] == 0.3
    assert rec["result"]["forfeit"]["kind"] == "timeout"
    assert rec["result"]["action_seconds"][-1] >= 0.3
    assert rec["result"]["seconds"]["x"] >= 0.3


def test_a_codecup_bot_is_told_in_its_letters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = "codecup:sh -c 'read line; echo AA; read line'"
    rec = _one_game(tmp_path, capsys, "bonus4x4", bot, "random")
    forfeit = rec["result"]["forfeit"]
    assert forfeit["line"] == "AA" and forfeit["message"].startswith("AA: ")
    assert forfeit["rule"] == "place-distinct"


@settings(max_examples=examples(50), deadline=None)
@given(st.dictionaries(st.sampled_from(["players", "clock", "result", "game", "other"]),
                       st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
                                    | st.text(max_size=5),
                                    lambda inner: st.lists(inner, max_size=3)
                                    | st.dictionaries(st.sampled_from(["x", "o", "end", "scores", "forfeit",
                                                                       "side", "line", "seconds",
                                                                       "move_seconds", "action_seconds"]),
                                                      inner, max_size=4), max_leaves=12)))
def test_story_reads_any_record_fields_without_failing(extra: dict[str, Any]) -> None:
    for line in story(extra):
        assert "\n" not in line


@pytest.mark.parametrize("name", ["wikipedia", "bonus4x4", "intelligent"])
def test_describe_numbers_squares_from_1(name: str) -> None:
    state = new_game(load_ruleset(name))
    cells = len(state_to_json(state)["board"])
    actions = state.legal_actions()
    for action in [*actions[:10], *actions[-10:]]:
        text = describe(state, action)
        numbers = [int(n) for n in text.replace("X1:", "").replace("square ", "").split("-")]
        assert min(numbers) >= 1 and max(numbers) <= cells
    assert describe(state, actions[-1]).endswith(str(cells))  # the last square is numbered n²


def test_each_programs_stderr_is_saved_per_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bot = "codecup:sh -c 'echo thinking hard >&2; read line; echo said AA >&2; echo AA; read line'"
    assert main(["match", "bonus4x4", bot, "random", "--games", "2", "--out", str(tmp_path)]) == 0
    capsys.readouterr()
    for game, side in ((1, "x"), (2, "o")):
        text = (tmp_path / f"game-{game:04d}-{side}.stderr").read_text()
        assert text == "thinking hard\nsaid AA\n"
    assert not list(tmp_path.glob("*-random*")) and len(list(tmp_path.glob("*.stderr"))) == 2


def test_the_live_display_ticks_both_clocks() -> None:
    watch = Watch(players={"x": "alpha", "o": "beta"}, clock=Clock(move=10.0), move=7, thinking="o",
                  since=100.0, used={"x": 3.25, "o": 1.0})
    assert watch.text(102.5) == "X alpha 3.2 s | O beta 3.5 s (thinking, 7.5 s left) | move 7"
    assert watch.text(115.0).endswith("O beta 16.0 s (thinking, 0.0 s left) | move 7")
    idle = Watch(players={"x": "a", "o": "b"}, used={"x": 1.0, "o": 2.0}, move=3)
    assert idle.text(0.0) == "X a 1.0 s | O b 2.0 s | move 3"


def test_the_referee_keeps_the_watch_current() -> None:
    seen: list[str] = []

    class Spy(BuiltinSeat):
        def choose(self, state: Any, limit: float | None, remaining: dict[str, float | None]) -> Any:
            seen.append(watch.text(watch.since))
            return super().choose(state, limit, remaining)

    rs = load_ruleset("wikipedia")
    watch = Watch()
    seats = {s: Spy(RandomPlayer(rng=random.Random(1)), name) for s, name in (("x", "a"), ("o", "b"))}
    result = play_game(rs, "wikipedia", seats, Clock.of(rs), watch=watch)  # type: ignore[arg-type]
    assert seen[0] == "X a 0.0 s (thinking, 10.0 s left) | O b 0.0 s | move 1"
    assert len(seen) == len(result.record.actions) and watch.thinking is None
