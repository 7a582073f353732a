"""`qttt play` driven with scripted standard input, and the computer players of qttt/players.py.

Squares are 1-based (square s is cell s-1). Expected games and scores are worked out by hand
from the German Wikipedia text (seed 001), as in tests/core/test_reference.py.
"""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from qttt import load_ruleset, record_from_json
from qttt.cli import main
from qttt.players import PLAYERS, GreedyPlayer, RandomPlayer
from qttt.quantum.engine import Measure, Place, State
from qttt.quantum.notation import from_position
from qttt.spec import rules
from qttt.vocabulary import PARAMETER_BY_NAME

# O8 closes the cycle on squares 3, 5, 7, 9; X measures, putting o8 in square 5: X1 X3 X7 in
# the left column (max 7), O2 O4 O6 in the right column (max 6), so O scores 1 and X 1/2.
LINES_INPUT = ["1 7", "6-9", "1,4", "3 9", "5 8", "7 9", "5 7", "3 5"]
LINES_CELLS = [[0, 6], [5, 8], [0, 3], [2, 8], [4, 7], [6, 8], [4, 6], [2, 4]]
CENTRE = ["x1", [], "o4", "x3", "o8", "o2", "x7", "x5", "o6"]
# X1 squares 1-4, O2 3-9, X3 4-8, O4 8-1: O4 closes the cycle 1, 4, 8 and X measures.
GERMAN_INPUT = ["1 4", "3 9", "4 8", "1 8"]


def play(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str],
         lines: list[str], eof: bool = True) -> tuple[int, str, str]:
    """Run `qttt play ARGS` on the given input lines; returns (status, stdout, stderr)."""
    text = "".join(line + "\n" for line in lines)
    monkeypatch.setattr(sys, "stdin", io.StringIO(text))
    code = main(["play", *args])
    out, err = capsys.readouterr()
    return code, out, err


def after(out: str, typed: str) -> list[str]:
    """The output lines that follow the echo of the input line `typed`."""
    lines = out.splitlines()
    i = next(i for i, line in enumerate(lines) if line.endswith("> " + typed))
    return lines[i + 1:]


def test_german_lines_game_two_people(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                      tmp_path: Path) -> None:
    rec = tmp_path / "game.json"
    code, out, err = play(monkeypatch, capsys, ["--o", "human", "--record", str(rec)],
                          [*LINES_INPUT, "5"])
    assert (code, err) == (0, "")
    assert "x measures the cycle on squares 3, 5, 7 and 9: put o8 in square 3 or 5 > 5" in out
    assert after(out, "5")[:2] == ["collapsed: X1 in square 1, O4 in 3, X3 in 4, O8 in 5, O2 in 6, X7 in 7, "
                                   "X5 in 8,", "  O6 in 9"]  # the board CENTRE below
    assert ("result: x 1/2, o 1: o wins\n  x's line: squares 1, 4 and 7 (X1 X3 X7)\n"
            "  o's line: squares 3, 6 and 9 (O4 O2 O6)\n") in out
    record = record_from_json(json.loads(rec.read_text()))
    assert record.variant == "wikipedia"
    assert [list(a) for a in record.actions] == [*LINES_CELLS, [4]]
    assert isinstance(record.actions[-1], Measure)
    replayed = subprocess.run([sys.executable, "-m", "qttt", "replay", str(rec), "--json"],
                              capture_output=True, text=True, check=True)
    state = json.loads(replayed.stdout)
    assert (state["board"], state["scores"], state["over"]) == (CENTRE, {"x": "1/2", "o": "1"}, True)


def test_prompts_name_the_move(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = play(monkeypatch, capsys, ["--o", "human"], ["1 9"])
    assert "x to place x1: two squares, e.g. 1 9 > 1 9" in out
    assert "o to place o2: two squares, e.g. 1 2 > " in out  # 1 9 would close a 2-cycle with x1


def test_illegal_input_explained_and_asked_again(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # after the German cycle X measures: x1 stays in square 1, X3 in 4, O4 in 8 (choice 1)
    lines = [*GERMAN_INPUT, "2", "9", "8", "1 5", "5 5", "5 hello", "0 10", "2 4", "5 6"]
    code, out, _ = play(monkeypatch, capsys, ["--o", "human"], lines)
    assert code == 1  # input ended before the game did
    cycle = "x measures the cycle on squares 1, 4 and 8: put o4 in square 1 or 8 > "
    assert after(out, "2")[:2] == [
        "not allowed: square 2 is not a square of o4, the move that closed the cycle: choose 1 or 8 "
        "(rule measure-cell)",
        cycle + "9"]
    assert after(out, "9")[0].endswith("(rule measure-cell)")
    assert "X1" in out and "X3" in out and "O4" in out  # the measurement with 8 was accepted
    place = "x to place x5: two squares, e.g. 2 9 > "
    assert after(out, "1 5")[:2] == [
        "not allowed: square 1 is classical (X1) and takes no more marks (rule place-open)", place + "5 5"]
    assert after(out, "5 5")[:2] == [
        "not allowed: x5 needs two different squares unless one square is left (rule place-distinct)",
        place + "5 hello"]
    assert after(out, "5 hello")[:2] == [
        "not understood: '5 hello'; type two squares such as 2 9, or help, moves, undo, quit",
        place + "0 10"]
    assert after(out, "0 10")[:2] == [
        "not allowed: square 0 is not on the board: squares are 1 to 9 (rule board-cells)",
        place + "2 4"]
    assert after(out, "2 4")[0].endswith("(rule place-open)")
    assert "o to place o6" in out  # 5 6 was accepted
    assert "Traceback" not in out


def test_placement_while_measuring_names_the_rule(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = play(monkeypatch, capsys, ["--o", "human"], [*GERMAN_INPUT, "2 3"])
    assert after(out, "2 3")[0] == ("not allowed: a cycle is pending: x must first put o4 in square 1 "
                                    "or 8 (type one square) (rule measure-pending)")


def test_rule_ids_cited_exist() -> None:
    source = (Path(__file__).resolve().parents[2] / "qttt" / "quantum" / "play.py").read_text()
    cited = {r for r in rules() if f'"{r}"' in source}
    assert {"board-cells", "place-open", "place-distinct", "place-two-cycle", "measure-pending",
            "measure-cell"} <= cited


def test_two_cycle_forbidden_explained(monkeypatch: pytest.MonkeyPatch,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = play(monkeypatch, capsys, ["wikipedia(two_cycles=false)", "--o", "human"], ["1 9", "9 1"])
    assert after(out, "9 1")[0] == ("not allowed: squares 9 and 1 already share x1, and this ruleset "
                                    "forbids 2-cycles (rule place-two-cycle)")


def test_eof_ends_cleanly_and_saves(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    rec = tmp_path / "part.json"
    code, out, err = play(monkeypatch, capsys, ["--o", "human", "--record", str(rec)], ["1 9"])
    assert (code, err) == (1, "")
    assert "input ended; game abandoned." in out
    assert json.loads(rec.read_text()) == {"variant": "wikipedia", "actions": [{"place": [0, 8]}]}


def test_quit(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = play(monkeypatch, capsys, [], ["quit", "1 9"])
    assert code == 0
    assert out.rstrip().endswith("game abandoned.")


def test_moves_and_help(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = play(monkeypatch, capsys, ["--o", "human"], ["moves", "help", *GERMAN_INPUT, "moves"])
    # Goff 2006: 36 placements on an empty 3×3 board
    assert after(out, "moves")[0].startswith("legal (36): 1-2 1-3 1-4")
    assert "8-9" in "\n".join(after(out, "moves")[:3])
    assert PARAMETER_BY_NAME["measurer"].reading("opponent") in " ".join(after(out, "help"))
    assert "> moves\nlegal: square 1 or 8\n" in out


def test_undo_against_computer(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                               tmp_path: Path) -> None:
    rec = tmp_path / "u.json"
    lines = ["undo", "1 9", "undo", "2 8", "quit"]
    code, out, _ = play(monkeypatch, capsys, ["--seed", "4", "--record", str(rec)], lines)
    assert code == 0
    assert after(out, "undo")[0] == "nothing to take back"
    assert out.count("taken back.") == 1
    actions = json.loads(rec.read_text())["actions"]
    assert actions[0] == {"place": [1, 7]} and len(actions) == 2  # 1 9 and greedy's reply undone


def test_undo_two_people_takes_back_one(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    rec = tmp_path / "u.json"
    play(monkeypatch, capsys, ["--o", "human", "--record", str(rec)], ["1 9", "2 8", "undo", "quit"])
    assert json.loads(rec.read_text())["actions"] == [{"place": [0, 8]}]


def test_forced_last_square(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # kumar plays on after the lines: square 2 is left for x9. Final board X1 X9 O4 / X3 O8 O2 /
    # X7 X5 O6: O's column ends at move 6 (rank 1: 1 point), X's at 7 (rank 2: 1/2).
    code, out, _ = play(monkeypatch, capsys, ["kumar", "--o", "human"], [*LINES_INPUT, "5", "3", "2"])
    assert code == 0
    assert "x: only square 2 is left: put x9 there (type 2) > 3" in out
    assert after(out, "3")[0].endswith("(rule place-open)")
    assert "result: x 1/2, o 1: o wins" in out


@pytest.mark.parametrize(("ruleset", "seed"), [("wikipedia", 1), ("russian", 2), ("kumar", 3),
                                               ("wikipedia(two_cycles=false)", 5),
                                               pytest.param("bonus4x4", 6, marks=pytest.mark.slow)])
def test_random_against_greedy(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                               tmp_path: Path, ruleset: str, seed: int) -> None:
    rec = tmp_path / "g.json"
    code, out, _ = play(monkeypatch, capsys, [ruleset, "--x", "random", "--o", "greedy",
                                              "--seed", str(seed), "--record", str(rec)], [])
    assert code == 0
    record = record_from_json(json.loads(rec.read_text()))
    state = record.replay()
    assert len(out.splitlines()) > len(record.actions)
    if state.over:
        s = state.scores
        assert f"result: x {s['x']}, o {s['o']}" in out
    else:  # a deadlock: no legal placement left
        assert state.legal_actions() == ()
        assert "(rule place-two-cycle)" in out
    again = tmp_path / "g2.json"
    play(monkeypatch, capsys, [ruleset, "--x", "random", "--o", "greedy", "--seed", str(seed),
                               "--record", str(again)], [])
    assert again.read_text() == rec.read_text()


@pytest.mark.parametrize(("tty", "flag", "env", "coloured"), [
    (False, [], None, False), (True, [], None, True), (True, ["--no-colour"], None, False),
    (True, [], "1", False)])
def test_colour_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                   tty: bool, flag: list[str], env: str | None, coloured: bool) -> None:
    monkeypatch.setattr(sys.stdout, "isatty", lambda: tty)
    if env is None:
        monkeypatch.delenv("NO_COLOR", raising=False)
    else:
        monkeypatch.setenv("NO_COLOR", env)
    _, out, _ = play(monkeypatch, capsys, ["--x", "random", "--o", "random", "--seed", "1", *flag], [])
    assert ("\x1b[" in out) == coloured


# -- players ------------------------------------------------------------------------------------

# X1 X3 classical in squares 1, 2; O2 in 5, O4 in 9; x5 and o6 both in squares 3 and 6: o6
# closed a 2-cycle and X measures. o6 in square 6 sends x5 to square 3: X1 X3 X5 on the top row,
# X wins 1-0. o6 in square 3 sends x5 to 6: no line, play goes on.
WIN = "wikipedia X1,X3,x5o6/-,O2,x5o6/-,-,O4 7"

# X1 in square 1, X3 in 9; O2 O4 in squares 4, 5; x5 in 6 and 7, o6 in 6 and 8; X to place.
# x7 in 7-8 or 6-8 closes a cycle and O measures; with o6 in square 6 O completes 4-5-6 (max 6)
# and X 7-8-9 (max 7): O 1, X 1/2. Any other placement gives O no finishing reply.
TRAP = "wikipedia X1,-,-/O2,O4,x5o6/x5,o6,X3 7"
DANGER = {Place(6, 7), Place(5, 7)}


def test_greedy_takes_immediate_win() -> None:
    state = from_position(WIN)
    assert state.apply(Measure(5)).scores == {"x": 1, "o": 0}
    assert not state.apply(Measure(2)).over
    for seed in range(10):
        assert GreedyPlayer(seed).choose(state) == Measure(5)
    assert {RandomPlayer(seed).choose(state) for seed in range(10)} == {Measure(2), Measure(5)}


def test_greedy_avoids_giving_a_win() -> None:
    state = from_position(TRAP)
    for a in DANGER:
        assert state.apply(a).apply(Measure(7)).scores == {"x": Fraction(1, 2), "o": 1}
    choices = {GreedyPlayer(seed).choose(state) for seed in range(20)}
    assert choices and not choices & DANGER
    assert len(choices) > 1  # ties are drawn at random
    assert {RandomPlayer(seed).choose(state) for seed in range(40)} & DANGER


def test_greedy_prefers_the_better_ending() -> None:
    # the German lines position: o8 in square 5 gives X 1/2 (O 1), in square 3 X 0 (O 1)
    state = State.initial(load_ruleset("wikipedia"))
    for a, b in LINES_CELLS:
        state = state.apply(Place(a, b))
    assert GreedyPlayer(0).choose(state) == Measure(4)


def test_players_are_seeded() -> None:
    rs = load_ruleset("wikipedia")
    for make in (RandomPlayer, GreedyPlayer):
        games = []
        for _ in range(2):
            player, state, actions = make(seed=11), State.initial(rs), []
            while not state.over:
                actions.append(player.choose(state))
                state = state.apply(actions[-1])
            games.append(actions)
        assert games[0] == games[1]
    rng = random.Random(3)
    assert RandomPlayer(rng=rng).rng is rng


def test_drawing_marks_the_cycle_and_classical_marks() -> None:
    from qttt.quantum.text import board_text, drawing
    state = State.initial(load_ruleset("wikipedia"))
    for a, b in LINES_CELLS:
        state = state.apply(Place(a, b))
    plain = drawing(state)
    labels = {int(m) for m in re.findall(r"(\d+)\*\|", plain)}
    assert labels == {3, 5, 7, 9}  # the cycle's squares, by hand from the German text
    assert plain.count("[o8]") == 2 and "o8 3-5" in plain
    assert "\x1b[" not in plain
    coloured = drawing(state, colour=True)
    assert "\x1b[43m" in coloured and "*" not in re.sub(r"\x1b\[[0-9;]*m", "", coloured).split("entangled")[0]
    assert board_text(state).endswith("x measures, putting o8 in square 3 or 5")
    final = drawing(state.apply(Measure(4)))
    assert final.count("( O") == 4 and final.count("\\    /") == 4  # o2 o4 o6 o8, x1 x3 x5 x7
    assert "entangled" not in final and "x" not in final.replace("\\    /", "")


def test_deadlock_reported(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                           tmp_path: Path) -> None:
    from reference import RefGame, load_variant
    rec = tmp_path / "d.json"
    code, out, _ = play(monkeypatch, capsys, ["wikipedia(two_cycles=false)", "--x", "random", "--o", "greedy",
                                              "--seed", "3", "--record", str(rec)], [])
    assert code == 0
    assert "every pair of open squares already shares a spooky mark (rule place-two-cycle)" in out
    params = load_variant("wikipedia")
    params["two_cycles"] = False
    game = RefGame(params, "custom")  # the naive reference model agrees: stuck, not over
    for action in json.loads(rec.read_text())["actions"]:
        game.apply(action)
    assert game.legal() == [] and not game.state()["over"]


def test_help_names_every_player_of_the_registry(capsys: pytest.CaptureFixture[str]) -> None:
    """`qttt play --help` lists the players from qttt.players.PLAYERS, each with its summary, and
    the command list's line names them too."""
    with pytest.raises(SystemExit):
        main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name, cls in PLAYERS.items():
        assert f"{name} ({cls.summary})" in text
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = " ".join(capsys.readouterr().out.split())
    assert f"computer player: {', '.join(PLAYERS)}" in listing
