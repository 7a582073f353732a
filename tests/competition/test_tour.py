"""`qttt tour`: the judges' protocol of the Russian school tour (seed 004, "Организация тура").

The expected numbers are worked out by hand from the seed's tour rules (each pair plays one
game as X and one as O, plus an agreed extra pair; the free players are one fifth player;
the team stage's points are tripled; the total is the sum), the russian ruleset's forfeit
score 1-0 (its [match] table) and rule 13 (one point per classical line of three).
"""

from __future__ import annotations

import io
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.cli import main
from qttt.competition.sheet import html_protocol, meeting_rows, text_protocol
from qttt.competition.tour import load_tour

# The lines game of tests/cli/test_play.py: O8 closes the cycle on squares 3, 5, 7, 9 and X puts o8
# in square 5. Under russian rules the game then stops with one open square (rule 12); X owns
# the left column (X1 X3 X7), O the right column (O4 O2 O6), no other line is whole: 1-1.
LINES = [[0, 6], [5, 8], [0, 3], [2, 8], [4, 7], [6, 8], [4, 6], [2, 4]]

TOUR = """\
[tour]
title = "Школьный тур"

[[team]]
name = "Альфа"
captain = "Аня"
main = ["А1", "А2", "А3", "А4"]
free = ["Ф1", "Ф2"]

[[team]]
name = "Бета"
captain = "Борис"
main = ["Б1", "Б2", "Б3", "Б4"]
free = ["Ф3"]

[[game]]
board = 1
x = "Альфа"
score = [1, 0]
[[game]]
board = 1
x = "Бета"
score = [0, 1]

[[game]]
board = 2
x = "Альфа"
score = [0, 1]
[[game]]
board = 2
x = "Бета"
forfeit = "x"

[[game]]
board = 3
x = "Альфа"
score = [1, 1]
[[game]]
board = 3
x = "Бета"
score = [1, 0]
[[game]]
board = 3
x = "Альфа"
extra = true
score = [2, 0]
[[game]]
board = 3
x = "Бета"
extra = true
score = [0, 0]

[[game]]
board = 4
x = "Альфа"
record = "lines.json"
[[game]]
board = 4
x = "Бета"
score = [0, 0]

[[game]]
board = 5
x = "Альфа"
score = [1, 0]
[[game]]
board = 5
x = "Бета"
score = [1, 1]

[[game]]
stage = "team"
x = "Альфа"
score = [2, 1]
[[game]]
stage = "team"
x = "Бета"
score = [1, 1]
"""


@pytest.fixture
def tour_file(tmp_path: Path) -> Path:
    actions = [{"place": p} for p in LINES] + [{"measure": 4}]
    (tmp_path / "lines.json").write_text(json.dumps({"variant": "russian", "actions": actions}))
    path = tmp_path / "tour.toml"
    path.write_text(TOUR, encoding="utf-8")
    return path


def test_hand_computed_protocol(tour_file: Path) -> None:
    tour = load_tour(tour_file)
    (home, away), = tour.meetings()
    m = tour.meeting(home, away)
    # board: player, game 1 (Альфа X), game 2 (Бета X), extra 1, extra 2, sum; the same for Бета
    _, rows = meeting_rows(m, "ru", blank=False)
    assert rows == [
        ["1", "А1", "1", "1", "", "", "2", "Б1", "0", "0", "", "", "0"],
        ["2", "А2", "0", "1*", "", "", "1", "Б2", "1", "0*", "", "", "1"],
        ["3", "А3", "1", "0", "2", "0", "3", "Б3", "1", "1", "0", "0", "2"],
        ["4", "А4", "1", "0", "", "", "1", "Б4", "1", "0", "", "", "1"],
        ["5 (вольные стрелки)", "Ф1, Ф2", "1", "1", "", "", "2", "Ф3", "0", "1", "", "", "1"],
    ]
    assert m.individual == {"Альфа": 9, "Бета": 5}  # 2+1+3+1+2 and 0+1+2+1+1
    assert m.team_raw == {"Альфа": 3, "Бета": 2}  # 2+1 and 1+1
    assert m.team == {"Альфа": 9, "Бета": 6}  # tripled (tour rule 11)
    assert m.total == {"Альфа": 18, "Бета": 11}  # tour rule 12
    assert m.complete


def test_protocol_text_and_languages(tour_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tour", str(tour_file)]) == 0
    ru = capsys.readouterr().out
    for words in ("Протокол тура: Школьный тур", "капитан: Аня", "3 × 3 = 9", "2 × 3 = 6",
                  "техническое поражение", "40 с на обсуждение хода"):
        assert words in ru, words
    flat = re.sub(r"\s+", " ", ru)
    assert "Итого за индивидуальный этап | 9 | 5" in flat and "Итог тура | 18 | 11" in flat
    assert main(["tour", str(tour_file), "--lang", "en"]) == 0
    en = capsys.readouterr().out
    assert "Tour protocol: Школьный тур" in en and "Tour total" in en and "free players" in en


def test_printable_page_and_blank_sheet(tour_file: Path, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    page = tmp_path / "protocol.html"
    assert main(["tour", str(tour_file), "--html", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "size: A4" in text and "<td>18</td>" in text and "А1" in text and 'lang="ru"' in text
    capsys.readouterr()
    assert main(["tour", str(tour_file), "--blank", "--lang", "en", "--html", str(page)]) == 0
    blank = page.read_text(encoding="utf-8")
    assert "А1" in blank and "Ф1, Ф2" in blank and 'lang="en"' in blank
    assert "<td>20</td>" not in blank and "<td>11</td>" not in blank and "× 3 =" not in blank
    tour = load_tour(tour_file)
    assert html_protocol(tour, "en", True) == blank
    assert all(c in ("", "А1", "Б1", "1") for c in meeting_rows(tour.meeting(*tour.meetings()[0]), "en",
                                                                   True)[1][0])


def _three_teams(tmp_path: Path) -> Path:
    lines = ['[tour]\ntitle = "three"\n']
    for t in "ABC":
        lines.append(f'[[team]]\nname = "{t}"\nmain = ["{t}1", "{t}2", "{t}3", "{t}4"]\n')
    team_scores = {("A", "B"): {"A": [1, 0], "B": [0, 0]}, ("A", "C"): {"A": [0, 0], "C": [0, 0]},
                   ("B", "C"): {"B": [0, 1], "C": [1, 0]}}
    for (h, a), by_x in team_scores.items():
        for board in range(1, 5):
            for x in (h, a):
                lines.append(f'[[game]]\nmeeting = ["{h}", "{a}"]\nboard = {board}\nx = "{x}"\n'
                             'score = [0, 0]\n')
        for x, score in by_x.items():
            lines.append(f'[[game]]\nmeeting = ["{h}", "{a}"]\nstage = "team"\nx = "{x}"\nscore = {score}\n')
    path = tmp_path / "three.toml"
    path.write_text("\n".join(lines))
    return path


def test_three_teams_every_pair_meets_with_standings(tmp_path: Path) -> None:
    tour = load_tour(_three_teams(tmp_path))
    assert [(a.name, b.name) for a, b in tour.meetings()] == [("A", "B"), ("A", "C"), ("B", "C")]
    # A-B: A 1 -> 3, B 0; A-C: 0-0; B-C: C scores 1 as O and 1 as X -> 6, B 0. No free players,
    # so no fifth board. Standings: C and A won one and drew one; C has more points; B lost both.
    assert [(s.team, s.won, s.drawn, s.lost, s.points) for s in tour.standings()] == [
        ("C", 1, 1, 0, Fraction(6)), ("A", 1, 1, 0, Fraction(3)), ("B", 0, 0, 2, Fraction(0))]
    assert len(meeting_rows(tour.meeting(*tour.meetings()[0]), "en", False)[1]) == 4
    assert "Standings" in text_protocol(tour, "en")


def test_play_missing_games_with_builtin_players(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.toml"
    names = {"A": ["a1", "a2", "a3", "a4"], "B": ["b1", "b2", "b3", "b4"]}
    text = '[tour]\ntitle = "bots"\n'
    for t, ps in names.items():
        text += f'[[team]]\nname = "{t}"\nmain = {json.dumps(ps)}\nfree = ["{t.lower()}f"]\n'
    text += "[players]\n" + "".join(f'{p} = "random"\n' for ps in names.values() for p in ps)
    text += 'af = "greedy"\nbf = "random"\nA = "greedy"\nB = "random"\n'
    path.write_text(text)
    assert main(["tour", str(path), "--play"]) == 0
    out = capsys.readouterr().out
    assert out.count("game ") == 12  # five boards and the team stage, two games each
    tour = load_tour(path)
    m = tour.meeting(*tour.meetings()[0])
    assert m.complete and len(list((tmp_path / "t-records").glob("*.json"))) == 12
    assert all(o.how == "played" for o in tour.outcomes.values())
    assert m.total["A"] == m.individual["A"] + 3 * m.team_raw["A"]


TWO = '[[team]]\nname = "{a}"\nmain = {am}\n[[team]]\nname = "B"\nmain = ["b1", "b2", "b3", "b4"]\n'


@pytest.mark.parametrize(("text", "words"), [
    ('[[team]]\nname = "A"\nmain = ["a"]\n', "four main players"),
    (TWO.format(a="A", am='["a1", "a2", "a3"]'), 'main = ["a1", "a2", "a3"]; allowed'),  # JSON, no repr
    (TWO.format(a="A", am='["a1", "a2", "a3", "b4"]'), '"b4" is a player of A and a player of B'),
    (TWO.format(a="A", am='["a1", "a2", "a3", "a1"]'), '"a1" is a player of A and a player of A'),
    (TWO.format(a="A", am='["a1", "a2", "a3", "B"]'), '"B" is a player of A and a team'),
    (TWO.format(a=" ", am='["a1", "a2", "a3", "a4"]'), 'name = " "; allowed: a string with a letter'),
    (TWO.format(a="A", am='["a1", "a2", "a3", "\\t"]'), 'main = ["a1", "a2", "a3", "\\t"]; allowed'),
    ('[tour]\nlength = 3\n', "unknown key tour.length"),
    ('[[team]]\nname = "A"\nmain = ["a", "b", "c", "d"]\n', "at least two"),
    ('[[team]]\nname = "A"\nmain = ["a", "b", "c", "d"]\n[[team]]\nname = "B"\nmain = ["e", "f", "g", "h"]\n'
     '[players]\nz = "random"\n', "players.z: not a player"),
])
def test_bad_tour_file_one_line(text: str, words: str, tmp_path: Path,
                                capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    assert main(["tour", str(path)]) == 2
    err = capsys.readouterr().err
    assert words in err and err.count("\n") == 1 and "tour-protocol" in err


def test_bad_game_entries(tour_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for extra, words in [('board = 6\nx = "Альфа"\nscore = [0, 0]', "board = 6"),
                         ('board = 1\nx = "Гамма"\nscore = [0, 0]', 'x = "Гамма"'),
                         ('board = 1\nx = "Альфа"\nscore = [0, 0]', "given twice"),
                         ('board = 1\nx = "Альфа"\nextra = true\nscore = [0, 0]\nforfeit = "x"', "one of")]:
        tour_file.write_text(TOUR + "[[game]]\n" + extra + "\n", encoding="utf-8")
        assert main(["tour", str(tour_file)]) == 2
        assert words in capsys.readouterr().err


def test_people_play_the_missing_game_at_the_terminal(tour_file: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The last team game has no result: `--play` seats the two captains at the terminal; Бета's
    captain (X) types one move, Альфа's answers one, then Бета's resigns: a forfeit, 1-0 to
    Альфа, so the team stage is 2+1 = 3 (tripled 9) against 1+0 = 1 (tripled 3)."""
    text = TOUR[:TOUR.rindex("[[game]]")]
    tour_file.write_text(text, encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("1 9\n2 3\nquit\n"))
    assert main(["tour", str(tour_file), "--play"]) == 0
    out = capsys.readouterr().out
    assert "x 0, o 1: forfeit" in out
    tour = load_tour(tour_file)
    m = tour.meeting(*tour.meetings()[0])
    assert m.team_raw == {"Альфа": 3, "Бета": 1} and m.team == {"Альфа": 9, "Бета": 3}
    assert m.total == {"Альфа": 18, "Бета": 8}
    (saved,) = (tour_file.parent / "tour-records").glob("*.json")
    rec = json.loads(saved.read_text())
    assert rec["players"] == {"x": "Бета", "o": "Альфа"} and len(rec["actions"]) == 2


def test_the_sheet_names_the_rules_the_winner_and_who_signs(tour_file: Path) -> None:
    text = tour_file.read_text(encoding="utf-8").replace(
        'title = "Школьный тур"', 'title = "Школьный тур"\ndate = "12 мая 2024"\nplace = "Школа № 5"')
    tour_file.write_text(text, encoding="utf-8")
    tour = load_tour(tour_file)
    ru = text_protocol(tour, "ru")
    assert "правила: Квантовые крестики-нолики: правила школьного турнира" in ru
    assert "правила: russian" not in ru
    assert "Дата: 12 мая 2024" in ru and "Место: Школа № 5" in ru
    assert "Победитель встречи: команда «Альфа»" in ru  # 18 against 11
    assert "Партия 1: крестиками играет команда «Альфа»" in ru
    assert "Главный судья: ___" in ru and "Капитан команды «Бета»: ___" in ru and "(подпись)" in ru
    en = text_protocol(tour, "en")
    assert "rules: Russian school 3×3" in en and "Winner of the meeting: \u201cАльфа\u201d" in en
    page = html_protocol(tour, "ru")
    assert "Победитель встречи: команда «Альфа»" in page and "Главный судья" in page


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_blank_sheet_has_the_legend_and_lines_to_fill_in(tour_file: Path, lang: str) -> None:
    tour = load_tour(tour_file)
    for sheet in (text_protocol(tour, lang, blank=True), html_protocol(tour, lang, blank=True)):
        assert "* " in sheet and ("техническое поражение" in sheet or "forfeit" in sheet)
        assert "______" in sheet  # date, place, winner and signatures to fill in by hand


@given(st.text(st.characters(categories=("L", "N", "Zs")), min_size=1, max_size=60).map(str.strip)
       .filter(bool), st.text(st.characters(categories=("L", "N")), min_size=1, max_size=60))
@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_text_protocol_fits_100_columns(tour_file: Path, team: str, player: str) -> None:
    # from the file as the fixture wrote it, whatever an earlier example wrote; TOML takes the
    # characters as they are (json.dumps's \ud800-style escapes of astral letters are not TOML)
    text = TOUR.replace('"Бета"', json.dumps(team, ensure_ascii=False))
    text = text.replace('"Б1"', json.dumps(player, ensure_ascii=False))
    if team in ("Альфа", player) or player in ("А1", "А2", "А3", "А4", "Б2", "Б3", "Б4", "Ф1", "Ф2", "Ф3"):
        return
    tour_file.write_text(text, encoding="utf-8")
    tour = load_tour(tour_file)
    for lang in ("ru", "en"):
        for blank in (False, True):
            width = max(len(line) for line in text_protocol(tour, lang, blank).splitlines())
            assert width <= 100, (lang, blank, width)


@pytest.mark.parametrize(("score", "words"), [
    ("[9, 0]", "X scores 9, but a game of russian gives X 0 to 2"),
    ("[0, 2]", "O scores 2, but a game of russian gives O 0 to 1"),
])
def test_implausible_scores_are_refused_and_games_count_from_1(
        tour_file: Path, score: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = tour_file.read_text(encoding="utf-8").replace("score = [1, 0]", f"score = {score}", 1)
    tour_file.write_text(text, encoding="utf-8")
    assert main(["tour", str(tour_file)]) == 2
    err = capsys.readouterr().err
    assert words in err and ": game 1: " in err and err.count("\n") == 1
