"""`qttt match` and `qttt tournament`: the referee, forfeits, records, resumption, the engine
protocol's go command and the CodeCup 2012 dialogue.

Misbehaving engines are tests/support/match_engines.py; the CodeCup bot is
tests/support/codecup_bot.py, which keeps its own board with the reference model. Expected forfeit
scores are the [match] tables of the variant files (20-0 for bonus4x4 from the CodeCup rule that
the other program wins, 1-0 elsewhere); every saved record is replayed by the engine and checked
against its result.
"""

from __future__ import annotations

import csv
import io
import json
import re
import shlex
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]
import pytest

from qttt import load_ruleset, record_from_json
from qttt.cli import main
from qttt.competition.match import plan, standings
from qttt.competition.referee import BuiltinSeat, Clock, play_game
from qttt.errors import MatchError, VariantError
from qttt.players import GreedyPlayer, SearchPlayer, margin
from qttt.quantum.codecup import letters
from qttt.quantum.engine import Measure, Place
from qttt.quantum.notation import from_notation
from qttt.spec import spec_dir
from qttt.variant import builtin_names

TESTS = Path(__file__).resolve().parents[1] / "support"
ENGINES = f"{shlex.quote(sys.executable)} {shlex.quote(str(TESTS / 'match_engines.py'))}"
BOT = f"{shlex.quote(sys.executable)} {shlex.quote(str(TESTS / 'codecup_bot.py'))}"


def records(out: Path) -> list[dict[str, Any]]:
    return [json.loads(p.read_text()) for p in sorted(out.glob("game-*.json"))]


def check_record(rec: dict[str, Any]) -> None:
    """The record validates, replays, and its result agrees with the replayed game."""
    schema = json.loads((spec_dir() / "schema" / "record.schema.json").read_text())
    jsonschema.validate(rec, schema)
    state = record_from_json(rec).replay()
    result = rec["result"]
    if result["end"] == "over":
        assert state.over
        assert {p: str(v) for p, v in state.scores.items()} == result["scores"]
    elif result["end"] == "forfeit":
        assert not state.over
        won, lost = load_ruleset(rec["variant"]).match.forfeit
        loser = result["forfeit"]["side"]
        winner = "o" if loser == "x" else "x"
        assert result["scores"] == {loser: str(lost), winner: str(won)}


def run_match(capsys: pytest.CaptureFixture[str], args: list[str]) -> tuple[int, str, str]:
    code = main(["match", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", builtin_names(None))
def test_builtin_players_complete_a_match_on_every_ruleset(ruleset: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_match(capsys, [ruleset, "random", "greedy", "--games", "2",
                                        "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    recs = records(tmp_path)
    assert [r["game"] for r in recs] == [1, 2]
    assert [r["players"] for r in recs] == [{"x": "random", "o": "greedy"}, {"x": "greedy", "o": "random"}]
    for rec in recs:
        assert rec["result"]["end"] in ("over", "deadlock")
        check_record(rec)
    assert "match: " + ruleset in out and "forfeits" in out


@pytest.mark.slow
def test_search_player_completes_every_ruleset() -> None:
    for name in builtin_names():
        rs = load_ruleset(name)
        seats = {"x": BuiltinSeat(SearchPlayer(seed=1, seconds=None, playouts=5), "search"),
                 "o": BuiltinSeat(GreedyPlayer(seed=2), "greedy")}
        result = play_game(rs, name, seats, Clock())  # type: ignore[arg-type]
        assert result.end in ("over", "deadlock") and result.forfeit is None
        check_record(result.to_json())


@pytest.mark.slow
def test_search_player_completes_intelligent() -> None:
    rs = load_ruleset("intelligent")
    seats = {"x": BuiltinSeat(SearchPlayer(seed=1, seconds=None, playouts=5), "search"),
             "o": BuiltinSeat(GreedyPlayer(seed=2), "greedy")}
    result = play_game(rs, "intelligent", seats, Clock())  # type: ignore[arg-type]
    assert result.end == "over" and result.forfeit is None
    check_record(result.to_json())


@pytest.mark.slow
def test_search_player_beats_greedy() -> None:
    """Four games on wikipedia, colours alternating: the search player wins at least three."""
    rs = load_ruleset("wikipedia")
    wins = 0
    for g in range(4):
        search = SearchPlayer(seed=g, seconds=None, playouts=1000)
        greedy = GreedyPlayer(seed=10 + g)
        me = "x" if g % 2 == 0 else "o"
        other = "o" if me == "x" else "x"
        seats = {me: BuiltinSeat(search, "search"), other: BuiltinSeat(greedy, "greedy")}
        result = play_game(rs, "wikipedia", seats, Clock())  # type: ignore[arg-type]
        wins += result.scores[me] > result.scores[other]
    assert wins >= 3


@pytest.mark.parametrize(("mode", "kind", "words"), [
    ("illegal", "illegal", "place-distinct"),
    pytest.param("sleep", "timeout", "no answer to go within 0.50 s", marks=pytest.mark.slow),
    ("exit", "crash", "exited with status 7"),
    ("garbage", "garbage", "not JSON"),
    pytest.param("silent", "timeout", "no answer to go within 0.50 s", marks=pytest.mark.slow),
    ("refuse", "protocol", "refused apply"),
])
def test_misbehaving_engine_loses_by_forfeit(mode: str, kind: str, words: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    engine = f"engine:{ENGINES} {mode}"
    # generous clocks unless the clock is under test: the machine may be busy
    move, ack = ("0.5" if mode in ("sleep", "silent") else "5"), ("0.5" if mode == "mute" else "10")
    code, out, err = run_match(capsys, ["wikipedia", engine, "random", "--games", "1", "--move-time",
                                        move, "--ack-time", ack, "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    recs = records(tmp_path)
    assert len(recs) == 1  # the engine plays X; test_forfeit_score_is_the_rulesets has it as O
    for rec in recs:
        side = "x" if rec["players"]["x"] == engine else "o"
        forfeit = rec["result"]["forfeit"]
        assert rec["result"]["end"] == "forfeit"
        assert (forfeit["side"], forfeit["kind"]) == (side, kind)
        assert words in forfeit["message"] + str(forfeit["rule"])
        assert rec["result"]["scores"][side] == "0"
        check_record(rec)
    assert f"{kind}" in out


def test_intelligent_forfeit_is_16_to_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 002: an invalid move gives the opponent 16 points and the player 0."""
    code, _, _ = run_match(capsys, ["intelligent", f"engine:{ENGINES} illegal", "random", "--games", "1",
                                    "--ack-time", "10", "--out", str(tmp_path)])
    assert code == 0
    (rec,) = records(tmp_path)
    assert rec["result"]["forfeit"]["kind"] == "illegal" and rec["result"]["scores"] == {"x": "0", "o": "16"}
    check_record(rec)
    assert Clock.of(load_ruleset("intelligent")) == Clock(move=15, game=None)
    code = main(["match", "intelligent", "human", "random", "--out", str(tmp_path / "h")])
    assert code == 2 and "people play it with qttt play" in capsys.readouterr().err


def test_forfeit_score_is_the_rulesets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run_match(capsys, ["bonus4x4", "random", f"engine:{ENGINES} garbage", "--games", "1",
                                    "--out", str(tmp_path)])
    assert code == 0
    (rec,) = records(tmp_path)
    assert rec["result"]["scores"] == {"x": "20", "o": "0"}
    assert rec["actions"] == [rec["actions"][0]] and "place" in rec["actions"][0]  # X's first move stands


@pytest.mark.slow
def test_qttt_engine_answers_go_and_plays_a_full_match(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    engine = f"engine:{shlex.quote(sys.executable)} -m qttt engine --player greedy --seed 3"
    code, _, err = run_match(capsys, ["wikipedia", engine, "random", "--games", "2", "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    for rec in records(tmp_path):
        assert rec["result"]["end"] == "over"
        check_record(rec)


def test_go_in_process() -> None:
    from qttt.conformance.protocol import QtttEngine
    engine = QtttEngine(GreedyPlayer(seed=1))
    assert engine.handle({"cmd": "new", "variant": "wikipedia"}) == {"ok": True}
    first = engine.handle({"cmd": "go", "move_ms": 100, "x_ms": None, "o_ms": None})
    assert first["ok"] and "place" in first["action"]
    assert engine.handle({"cmd": "state"})["state"]["move"] == 1  # go does not apply its choice


def test_resume_plays_only_missing_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["wikipedia", "random", "greedy", "--games", "4", "--out", str(tmp_path)]
    assert run_match(capsys, args)[0] == 0
    first = records(tmp_path)
    (tmp_path / "game-0003.json").unlink()
    (tmp_path / "game-0004.json").write_text('{"game": 4, "varia')  # records are saved whole: damage
    code = main(["match", *args])
    err = capsys.readouterr().err
    assert code == 2 and f"{tmp_path}: game-0004.json is damaged (not JSON" in err
    (tmp_path / "game-0004.json").unlink()
    code, out, _ = run_match(capsys, args)
    assert code == 0 and "resuming: 2 of 4 games" in out
    assert re.findall(r"^game (\d)/4:", out, re.M) == ["3", "4"]  # played again
    def games(recs: list[dict[str, Any]]) -> list[Any]:
        return [(r["actions"], r["players"], r["result"]["scores"]) for r in recs]
    assert games(records(tmp_path)) == games(first)  # same seeds, same games
    code = main(["match", "wikipedia", "random", "search", "--out", str(tmp_path)])
    assert code == 2
    assert "holds another schedule" in capsys.readouterr().err
    code = main(["match", "wikipedia", "random", "greedy", "--games", "6", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and "games 4 there, 6 now" in err  # a changed schedule is refused on resume
    assert len(records(tmp_path)) == 4


@pytest.mark.slow
def test_parallel_workers_save_every_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run_match(capsys, ["wikipedia", "random", "greedy", "--games", "4", "--workers", "2",
                                    "--out", str(tmp_path)])
    assert code == 0
    assert [r["game"] for r in records(tmp_path)] == [1, 2, 3, 4]


def test_tournament_cross_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tournament", "wikipedia", "r=random", "g=greedy", "s=search:0.02", "--games", "2",
                 "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 0 and "cross-table" in out
    recs = records(tmp_path)
    assert len(recs) == 6  # three pairs, two games each
    pairs = [frozenset(r["players"].values()) for r in recs]
    assert all(pairs.count(p) == 2 for p in pairs)
    rows = standings(["r", "g", "s"], recs)
    for row in rows:
        mine = sum(Fraction(r["result"]["scores"][side]) for r in recs for side in "xo"
                   if r["players"][side] == row.player)
        assert row.points == mine == sum(row.against.values())
        assert row.games == 4


@pytest.mark.parametrize(("args", "message"), [
    (["wikipedia", "random", "random"], "named twice"),
    (["wikipedia", "random", "robot"], "unknown player 'robot'"),
    (["wikipedia", "random", "engine:"], "needs a command"),
    (["wikipedia", "random", "codecup:bot"], "4×4 games"),
    (["wikipedia", "random", "greedy", "--move-time", "-1"], "seconds >= 0"),
    (["wikipedia", "random", "greedy", "--game-time", "nan"], "seconds >= 0"),
    (["wikipedia", "random", "greedy", "--ack-time", "0"], "seconds > 0"),
])
def test_bad_arguments_one_line(args: list[str], message: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    try:
        code = main(["match", *args, "--out", str(tmp_path)])
    except SystemExit as e:  # a flag out of range, refused by the parser
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1
    assert "match-forfeit" not in err and "match-clock" not in err  # a usage error, not a forfeit


def test_one_game_is_one_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["wikipedia", "random", "greedy", "--games", "1", "--out", str(tmp_path)]
    code, out, _ = run_match(capsys, args)
    assert code == 0 and "wikipedia, 1 game" in out and "1 games" not in out


def test_match_table_validated(tmp_path: Path) -> None:
    bad = tmp_path / "v.toml"
    for table, words in [("move_seconds = -1", "seconds >= 0"), ("forfeit = [1]", "match.forfeit"),
                         ("clock = 3", "unknown key match.clock"), ("game_seconds = 'x'", "game_seconds")]:
        bad.write_text(f'[variant]\nname = "v"\nextends = "wikipedia"\n[match]\n{table}\n')
        with pytest.raises(VariantError, match=words):
            load_ruleset(str(bad))
    bad.write_text('[variant]\nname = "v"\nextends = "bonus4x4"\n[match]\nmove_seconds = 2.5\n')
    rs = load_ruleset(str(bad))
    assert (rs.match.move_seconds, rs.match.forfeit) == (Fraction(5, 2), (Fraction(20), Fraction(0)))


def test_every_builtin_ruleset_declares_match_settings() -> None:
    for name in builtin_names():
        m = load_ruleset(name).match
        assert m.forfeit[0] > m.forfeit[1] and m.move_seconds > 0


def test_plan_alternates_colours() -> None:
    jobs = plan("wikipedia", ["a=random", "b=greedy"], 3, seed=1)
    assert [(j.x, j.o) for j in jobs] == [("a=random", "b=greedy"), ("b=greedy", "a=random"),
                                         ("a=random", "b=greedy")]
    with pytest.raises(MatchError):
        plan("wikipedia", ["random"], 2, seed=1)


# -- the CodeCup 2012 dialogue ------------------------------------------------------------

@pytest.mark.slow
def test_codecup_bot_plays_full_matches_as_x_and_as_o(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Eight games against the random player: the dialogue carries collapses both ways and the
    forced last square, and every game ends by the rules, never by a forfeit."""
    log = tmp_path / "dialogue.txt"
    bot = f"bot=codecup:{BOT} 1 {shlex.quote(str(log))}"  # seeds chosen for a forced square each way
    code, _, err = run_match(capsys, ["bonus4x4", bot, "random", "--games", "8", "--seed", "3",
                                      "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    recs = records(tmp_path)
    seen = {"x-measures": False, "o-measures": False, "forced-by-bot": False, "forced-to-bot": False}
    for rec in recs:
        assert rec["result"]["end"] == "over", rec["result"]
        check_record(rec)
        bot_side = "x" if rec["players"]["x"] == "bot" else "o"
        states = record_from_json(rec).states()
        for before, act in zip(states, record_from_json(rec).actions, strict=False):
            who = before.to_move
            if isinstance(act, Measure):
                seen[f"{bot_side}-measures"] |= who == bot_side
            if isinstance(act, Place) and act.a == act.b:
                seen["forced-by-bot" if who == bot_side else "forced-to-bot"] = True
    assert all(seen.values()), seen
    lines = log.read_text().splitlines()
    assert lines.count("< Start") == 4  # as X in games 1, 3, 5, 7
    assert lines[0] == "< Quit"  # the greeting before the first game: started, then let go
    assert lines.count("< Quit") == 1 + 8
    reads = [line[2:] for line in lines if line.startswith("< ") and line not in ("< Start", "< Quit")]
    assert any(len(r) == 3 for r in reads)  # a collapse letter before the opponent's move
    assert any(len(r) >= 2 and r[-1] == r[-2] for r in reads)  # the forced last move, square twice


def test_codecup_bot_plays_both_colours(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_match(capsys, ["bonus4x4", f"bot=codecup:{BOT} 2", "random", "--games", "2",
                                      "--out", str(tmp_path)])
    assert (code, err) == (0, "")
    for rec in records(tmp_path):
        assert rec["result"]["end"] == "over"
        check_record(rec)


def test_codecup_garbage_and_silence_forfeit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = run_match(capsys, ["bonus4x4", "codecup:sh -c 'echo hello; read a; read b'", "random",
                                    "--games", "1",
                                    "--out", str(tmp_path)])
    assert code == 0
    (rec,) = records(tmp_path)
    assert rec["result"]["forfeit"]["kind"] in ("garbage", "crash")
    assert rec["result"]["scores"] == {"x": "0", "o": "20"}


def test_codecup_answer_parsing() -> None:
    from qttt.competition.referee import Forfeit
    from qttt.quantum.codecup import letters, parse_answer
    rs = load_ruleset("bonus4x4")
    from qttt.quantum.engine import State
    s = State.initial(rs)
    assert parse_answer("FG\n", s) == [Place(5, 6)]
    for bad in ("fg", "F", "FGH", "Z1", ""):
        with pytest.raises(Forfeit):
            parse_answer(bad, s)
    # X1 A-B, O2 A-B closes a 2-cycle: X answers the collapse letter, then its move
    s = s.apply(Place(0, 1)).apply(Place(0, 1))
    assert parse_answer("ACD", s) == [Measure(0), Place(2, 3)]
    with pytest.raises(Forfeit, match="a move must follow"):
        parse_answer("A", s)
    assert letters(Measure(15)) == "P" and letters(Place(15, 15)) == "PP"
    assert margin(s, "x") == 0


def test_person_at_the_terminal_resigns_by_quit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 9\n1 1\nquit\n"))
    code, out, _ = run_match(capsys, ["wikipedia", "human", "random", "--games", "1", "--out", str(tmp_path)])
    assert code == 0
    assert "not allowed" in out and "place-distinct" in out  # 1 1 explained, asked again
    (rec,) = records(tmp_path)
    assert rec["actions"][0] == {"place": [0, 8]} and len(rec["actions"]) == 2
    assert rec["result"]["forfeit"] == {"side": "x", "kind": "resigned", "rule": None,
                                        "message": "quit at the prompt", "line": None}
    assert rec["result"]["scores"] == {"x": "0", "o": "1"}
    check_record(rec)


@pytest.mark.slow
def test_game_clock_runs_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    engine = f"engine:{ENGINES} sleep"
    code, _, _ = run_match(capsys, ["wikipedia", engine, "random", "--games", "1", "--move-time", "0",
                                    "--game-time", "0.6", "--ack-time", "10", "--out", str(tmp_path)])
    assert code == 0
    (rec,) = records(tmp_path)
    assert rec["result"]["forfeit"]["kind"] == "timeout"
    assert "within 0.60 s" in rec["result"]["forfeit"]["message"]


def test_clock_limit() -> None:
    assert Clock(move=10, game=None).limit(100) == 10
    assert Clock(move=10, game=25).limit(20) == 5
    assert Clock(move=None, game=25).limit(30) == 0
    assert Clock().limit(5) is None
    assert Clock.of(load_ruleset("russian")) == Clock(move=40, game=None)
    assert Clock.of(load_ruleset("russian"), move=0) == Clock()


@pytest.mark.parametrize(("player", "words"), [
    (f"engine:{ENGINES} mute", "no answer to hello within 0.50 s"),
    (f"engine:{ENGINES} nogo", "lists no go command"),
    ("engine:no-such-program-qttt --flag", "cannot start no-such-program-qttt --flag"),
    ("codecup:no-such-bot-qttt", "cannot start no-such-bot-qttt"),
    ("codecup:sh -c 'exit 3'", "exited with status 3"),
])
def test_a_dead_player_stops_the_match_before_the_first_game(
        player: str, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ruleset = "bonus4x4" if player.startswith("codecup:") else "wikipedia"
    ack = "0.5" if player.endswith("mute") else "10"
    code, out, err = run_match(capsys, [ruleset, player, "random", "--games", "4", "--ack-time", ack,
                                        "--out", str(tmp_path)])
    assert code == 2 and words in err and "nothing was played" in err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert records(tmp_path) == [] and "game 1" not in out


def _rec(game: int, x: str, o: str, sx: str, so: str) -> dict[str, Any]:
    return {"game": game, "variant": "wikipedia", "actions": [], "players": {"x": x, "o": o},
            "result": {"end": "over", "scores": {"x": sx, "o": so}}}


def test_standings_break_ties_as_stated_and_rate_by_elo() -> None:
    # a, b and c all score 2; b beat a in their game (head-to-head), c has the same points
    # against the tied players as a but more wins; names break what is left.
    recs = [_rec(1, "a", "b", "0", "1"), _rec(2, "a", "c", "1", "0"), _rec(3, "b", "c", "0", "1"),
            _rec(4, "c", "a", "1/2", "1/2"), _rec(5, "b", "a", "1/2", "1/2"), _rec(6, "c", "b", "1/2", "1/2")]
    rows = standings(["a", "b", "c"], recs)
    assert [r.points for r in rows] == [2, 2, 2]
    mutual = {r.player: sum(r.against.values()) for r in rows}
    assert mutual == {"a": 2, "b": 2, "c": 2}
    assert [r.player for r in rows] == sorted(["a", "b", "c"], key=lambda p: (
        -next(r.wins for r in rows if r.player == p), -next(r.elo for r in rows if r.player == p), p))
    # Elo recomputed here, game by game, from 1500 with K = 20
    elo = {"a": 1500.0, "b": 1500.0, "c": 1500.0}
    for rec in recs:
        x, o = rec["players"]["x"], rec["players"]["o"]
        sx, so = (Fraction(rec["result"]["scores"][s]) for s in "xo")
        result = 1.0 if sx > so else 0.5 if sx == so else 0.0
        expect = 1 / (1 + 10 ** ((elo[o] - elo[x]) / 400))
        elo[x], elo[o] = elo[x] + 20 * (result - expect), elo[o] - 20 * (result - expect)
    assert {r.player: round(r.elo, 6) for r in rows} == {p: round(v, 6) for p, v in elo.items()}


def test_head_to_head_decides_before_wins() -> None:
    recs = [_rec(1, "a", "b", "1", "0"), _rec(2, "b", "c", "1", "0"), _rec(3, "b", "c", "1", "0"),
            _rec(4, "c", "a", "1", "0"), _rec(5, "c", "a", "1", "0")]
    rows = standings(["a", "b", "c"], recs)
    # b and c are tied on 2 with 2 wins each; between them b scored 2, c 0: b ranks first
    expected = [("b", Fraction(2), 2), ("c", Fraction(2), 2), ("a", Fraction(1), 1)]
    assert [(r.player, r.points, r.wins) for r in rows] == expected


def test_exports_move_lists_and_cross_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_match(capsys, ["bonus4x4", "random", "greedy", "--games", "2", "--out", str(tmp_path)])
    assert code == 0 and "ties broken by" in out
    recs = records(tmp_path)
    moves = (tmp_path / "moves.txt").read_text().splitlines()
    assert len(moves) == 3 * len(recs)
    for i, rec in enumerate(recs):
        human, codecup = moves[3 * i + 1].strip(), moves[3 * i + 2].strip()
        assert from_notation(human).actions == record_from_json(rec).actions
        assert codecup == "codecup: " + " ".join(letters(a) for a in record_from_json(rec).actions)
    rows = list(csv.reader((tmp_path / "crosstable.csv").read_text().splitlines()))
    assert rows[0][:2] == ["rank", "player"] and {r[1] for r in rows[1:]} == {"random", "greedy"}
    page = (tmp_path / "crosstable.html").read_text()
    assert "<table>" in page and "ties broken by" in page


CHANCE_RULESET = "wikipedia(collapse=chance-second,p=3/4)"


def test_the_referee_draws_chance_outcomes_from_its_seed_and_records_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Rule collapse-chance: the referee plays each chance turn itself, from a generator seeded by
    the match seed; the records hold the outcomes, replay, validate, and a second run of the same
    seed gives the same games; an engine seat is told each outcome with apply."""
    engine = f"engine:{shlex.quote(sys.executable)} -m qttt engine --player random --seed 3"
    runs = []
    for out in (tmp_path / "a", tmp_path / "b"):
        code, _, err = run_match(capsys, [CHANCE_RULESET, engine, "greedy", "--games", "2", "--seed", "5",
                                          "--out", str(out)])
        assert (code, err) == (0, "")
        runs.append([r["actions"] for r in records(out)])
        for rec in records(out):
            assert rec["result"]["end"] == "over"
            assert len(rec["result"]["action_seconds"]) == len(rec["actions"])
            check_record(rec)
    assert runs[0] == runs[1]
    assert any("outcome" in a for game in runs[0] for a in game)


def test_go_at_a_chance_turn_is_refused() -> None:
    from qttt.conformance.protocol import QtttEngine
    engine = QtttEngine(GreedyPlayer(seed=1))
    assert engine.handle({"cmd": "new", "variant": CHANCE_RULESET}) == {"ok": True}
    for action in ({"place": [0, 1]}, {"place": [0, 1]}, {"measure": 0}):
        assert engine.handle({"cmd": "apply", "action": action}) == {"ok": True}
    answer = engine.handle({"cmd": "go", "move_ms": 100, "x_ms": None, "o_ms": None})
    assert not answer["ok"] and answer["error"]["kind"] == "protocol"
    assert "chance" in answer["error"]["message"]
    assert engine.handle({"cmd": "apply", "action": {"outcome": 1}}) == {"ok": True}
    assert engine.handle({"cmd": "state"})["state"]["board"][:2] == ["x1", "o2"]
