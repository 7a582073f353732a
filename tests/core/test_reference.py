"""Tests of the naive reference model against the source examples, worked out by hand.

Square numbers of the German Wikipedia text (seed 001) are 1..9 row-major: cell = square - 1.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from reference import RefGame, RefIllegal, load_variant, random_game

BUILT_IN = ["wikipedia", "russian", "russian-unstable", "bonus4x4", "kumar", "ishizeki-complete"]


def play(variant: str | dict[str, Any], actions: list[dict[str, Any]]) -> RefGame:
    """A game of `variant` (name or params) after `actions`."""
    params = load_variant(variant) if isinstance(variant, str) else variant
    game = RefGame(params, variant if isinstance(variant, str) else "custom")
    for action in actions:
        game.apply(action)
    return game


def place(a: int, b: int) -> dict[str, Any]:
    return {"place": [a, b]}


def measure(c: int) -> dict[str, Any]:
    return {"measure": c}


def with_rules(variant: str, **rules: Any) -> dict[str, Any]:
    params = load_variant(variant)
    params.update(rules)
    return params


# ----------------------------------------------------------------- seed 001: squares 1, 4, 8
# X1 joins squares 1 and 4, X3 squares 4 and 8, O4 squares 8 and 1 (cells 0, 3, 7).
# O2 is elsewhere: squares 3 and 9 (cells 2, 8), or the stem to square 5 (cells 0, 4).
GERMAN = [place(0, 3), place(2, 8), place(3, 7), place(0, 7)]
GERMAN_STEM = [place(0, 3), place(0, 4), place(3, 7), place(0, 7)]


def test_german_cycle_pending() -> None:
    state = play("wikipedia", GERMAN).state()
    assert state == {
        "variant": "wikipedia",
        "board": [["x1", "o4"], [], ["o2"], ["x1", "x3"], [], [], [], ["x3", "o4"], ["o2"]],
        "to_move": "x",  # O closed the cycle, so player 1 measures
        "phase": "measure",
        "move": 5,
        "cycle": [0, 3, 7],
        "over": False,
        "scores": {"x": "0", "o": "0"},
    }
    assert play("wikipedia", GERMAN).legal() == [measure(0), measure(7)]


def test_german_choice_one() -> None:
    # "X1 collapses in square 1": O4 goes to square 8, X3 to square 4 (measure O4 in cell 7).
    state = play("wikipedia", [*GERMAN, measure(7)]).state()
    assert state["board"] == ["x1", [], ["o2"], "x3", [], [], [], "o4", ["o2"]]
    assert (state["phase"], state["to_move"], state["move"], state["cycle"]) == (
        "place",
        "x",
        5,
        None,
    )


def test_german_choice_two() -> None:
    # "X1 collapses in square 4": X3 to square 8, O4 to square 1 (measure O4 in cell 0).
    state = play("wikipedia", [*GERMAN, measure(0)]).state()
    assert state["board"] == ["o4", [], ["o2"], "x1", [], [], [], "x3", ["o2"]]
    assert state["to_move"] == "x"


@pytest.mark.parametrize("cell", [0, 7])
def test_german_stem_via_o2(cell: int) -> None:
    before = play("wikipedia", GERMAN_STEM)
    assert before.state()["cycle"] == [0, 3, 7]  # the stem to square 5 is not in the cycle
    assert before.state()["board"][4] == ["o2"]
    state = play("wikipedia", [*GERMAN_STEM, measure(cell)]).state()
    assert state["board"][4] == "o2"  # either way O2 collapses into square 5
    expected = ["x1", "x3", "o4"] if cell == 7 else ["o4", "x1", "x3"]
    assert [state["board"][c] for c in (0, 3, 7)] == expected
    assert all(state["board"][c] == [] for c in (1, 2, 5, 6, 8))


def test_untouched_vanish() -> None:
    state = play("russian-unstable", [*GERMAN, measure(7)]).state()
    assert state["board"] == ["x1", [], [], "x3", [], [], [], "o4", []]


def test_measurer_creator() -> None:
    params = with_rules("wikipedia", measurer="creator")
    game = play(params, GERMAN)
    assert game.state()["to_move"] == "o"
    game.apply(measure(0))
    assert game.state()["to_move"] == "x"  # the owner of move 5, whoever measured


# ----------------------------------------------------------------- seed 001: simultaneous lines
# O8 closes the cycle 2-4-6-8 (O8 {2,4}, X7 {4,6}, O6 {6,8}, O4 {8,2}); stems X1 {0,6},
# X3 {0,3} (to squares 1, 4), O2 {5,8} (to square 6), X5 {4,7} (to square 8).
LINES = [
    place(0, 6),
    place(5, 8),
    place(0, 3),
    place(2, 8),
    place(4, 7),
    place(6, 8),
    place(4, 6),
    place(2, 4),
]
# O8 in the centre: X1 X3 X7 in the left column, O2 O4 O6 in the right column.
CENTRE = ["x1", [], "o4", "x3", "o8", "o2", "x7", "x5", "o6"]
# O8 top right: O8 O2 O4 in the right column, no line for X.
CORNER = ["x1", [], "o8", "x3", "x7", "o2", "o6", "x5", "o4"]


def test_lines_cycle() -> None:
    state = play("wikipedia", LINES).state()
    assert (state["phase"], state["to_move"], state["cycle"], state["move"]) == (
        "measure",
        "x",
        [2, 4, 6, 8],
        9,
    )
    assert state["board"][4] == ["x5", "x7", "o8"]


def test_lines_lower_max_subscript_wins() -> None:
    state = play("wikipedia", [*LINES, measure(4)]).state()
    assert state == {
        "variant": "wikipedia",
        "board": CENTRE,
        "to_move": None,
        "phase": "over",
        "move": 9,
        "cycle": None,
        "over": True,
        "scores": {"x": "1/2", "o": "1"},  # O's max 6 beats X's max 7
    }


def test_lines_other_choice_sole_line() -> None:
    state = play("wikipedia", [*LINES, measure(2)]).state()
    assert state["board"] == CORNER
    assert state["scores"] == {"x": "0", "o": "1"}


def test_lines_ishizeki_complete() -> None:
    assert play("ishizeki-complete", [*LINES, measure(4)]).state()["scores"] == {
        "x": "0",
        "o": "0",
    }
    assert play("ishizeki-complete", [*LINES, measure(2)]).state()["scores"] == {
        "x": "0",
        "o": "1",
    }


def test_lines_russian_every_line_scores() -> None:
    state = play("russian", [*LINES, measure(4)]).state()
    # one open cell, last_square = end: over without a forced placement
    assert (state["phase"], state["move"], state["board"][1]) == ("over", 9, [])
    assert state["scores"] == {"x": "1", "o": "1"}


def test_lines_kumar_forced_last_square() -> None:
    game = play("kumar", [*LINES, measure(4)])
    assert game.state()["phase"] == "place"  # lines do not end a kumar game
    assert game.state()["to_move"] == "x"
    assert game.legal() == [place(1, 1)]
    game.apply(place(1, 1))
    state = game.state()
    assert state["board"] == ["x1", "x9", *CENTRE[2:]]
    assert (state["phase"], state["move"]) == ("over", 10)
    assert state["scores"] == {"x": "1/2", "o": "1"}  # times 6 (rank 1) and 7 (rank 2)
    game = play("kumar", [*LINES, measure(2), place(1, 1)])
    # X9 completes the middle column X9 X7 X5 (time 9, rank 2); O's column has time 8
    assert game.state()["scores"] == {"x": "1/2", "o": "1"}


def test_rank_list() -> None:
    params = load_variant("kumar")
    params["scoring"] = [{**params["scoring"][0], "ranks": ["3"]}]
    game = play(params, [*LINES, measure(4), place(1, 1)])
    assert game.state()["scores"] == {"x": "0", "o": "3"}


# ----------------------------------------------------------------- forced last square, double line
# Two-cycles fix two cells at a time: X places j {x, o}, O places j+1 {x, o}, X measures o.
def pairs(cells: list[tuple[int, int]]) -> list[dict[str, Any]]:
    actions = []
    for x_cell, o_cell in cells:
        a, b = sorted((x_cell, o_cell))
        actions += [place(a, b), place(a, b), measure(o_cell)]
    return actions


DOUBLE = pairs([(1, 4), (2, 5), (3, 7), (6, 8)])


def test_two_cycle_closes() -> None:
    state = play("wikipedia", DOUBLE[:2]).state()
    assert (state["phase"], state["cycle"], state["to_move"]) == ("measure", [1, 4], "x")


def test_forced_double_line_wikipedia() -> None:
    game = play("wikipedia", DOUBLE)
    assert game.state()["board"] == [[], "x1", "x3", "x5", "o2", "o4", "x7", "o6", "o8"]
    assert game.legal() == [place(0, 0)]
    assert (game.state()["phase"], game.state()["to_move"]) == ("place", "x")
    game.apply(place(0, 0))  # X9 completes the top row and the left column at once
    state = game.state()
    assert state["board"][0] == "x9"
    assert (state["phase"], state["move"]) == ("over", 10)
    assert state["scores"] == {"x": "1", "o": "0"}  # two lines of one player score 1


def test_forced_double_line_kumar() -> None:
    game = play("kumar", [*DOUBLE, place(0, 0)])
    assert game.state()["scores"] == {"x": "2", "o": "0"}  # both lines have time 9: rank 1


def test_russian_no_line() -> None:
    state = play("russian", DOUBLE).state()
    assert (state["phase"], state["move"], state["scores"]) == (
        "over",
        9,
        {"x": "0", "o": "0"},
    )


# ----------------------------------------------------------------- seed 000: 4×4
def test_seed000_first_example() -> None:
    state = play("bonus4x4", [place(13, 15), place(2, 3)]).state()
    board: list[Any] = [[] for _ in range(16)]
    board[13] = board[15] = ["x1"]
    board[2] = board[3] = ["o2"]
    assert state["board"] == board
    assert (state["to_move"], state["move"]) == ("x", 3)


def test_seed000_cycle() -> None:
    # x1 (0,0)-(0,1), o2 (0,1)-(1,0), x3 (0,0)-(1,0): X closes, O measures cell (0,0)
    game = play("bonus4x4", [place(0, 1), place(1, 4), place(0, 4)])
    state = game.state()
    assert state["board"][:5] == [["x1", "x3"], ["x1", "o2"], [], [], ["o2", "x3"]]
    assert (state["phase"], state["to_move"], state["cycle"]) == ("measure", "o", [0, 1, 4])
    game.apply(measure(0))
    state = game.state()
    assert state["board"][:5] == ["x3", "x1", [], [], "o2"]  # x1 dies in (0,0)
    assert (state["to_move"], state["move"]) == ("o", 4)


# Final board  X X O O / X X O O / O O X X / O O X X: both long diagonals are lines of four.
# Runs of three: X 2, O 2; 2×2 squares: X 2, O 2.
def test_bonus_min_sum() -> None:
    order = [(1, 2), (4, 7), (11, 8), (14, 13), (0, 3), (5, 6), (10, 9), (15, 12)]
    game = play("bonus4x4", pairs(order))
    state = game.state()
    assert state["board"] == [
        *["x9", "x1", "o2", "o10"],
        *["x3", "x11", "o12", "o4"],
        *["o6", "o14", "x13", "x5"],
        *["o16", "o8", "x7", "x15"],
    ]
    # X's diagonal sums 9+11+13+15 = 48, O's 10+12+14+16 = 52: X +15, O +5
    assert (state["phase"], state["move"]) == ("over", 17)
    assert state["scores"] == {"x": "21", "o": "11"}


ORDER_EQUAL_SUMS = [(0, 3), (5, 6), (1, 9), (4, 2), (10, 7), (11, 8), (14, 13), (15, 12)]


def test_bonus_fallback_min_max() -> None:
    # X: 1+3+9+15 = 28, O: 2+4+6+16 = 28; fallback min-max: 15 < 16, X +15, O +5
    state = play("bonus4x4", pairs(ORDER_EQUAL_SUMS)).state()
    assert state["board"][0:16:5] == ["x1", "x3", "x9", "x15"]
    assert state["board"][3:13:3] == ["o2", "o4", "o6", "o16"]
    assert state["scores"] == {"x": "21", "o": "11"}


def test_bonus_tie_without_fallback() -> None:
    params = load_variant("bonus4x4")
    params["scoring"][2]["fallback"] = []
    state = play(params, pairs(ORDER_EQUAL_SUMS)).state()
    assert state["scores"] == {"x": "6", "o": "6"}  # tie award defaults to 0


# ----------------------------------------------------------------- deadlock and 2-cycles
# X1 {7,8} stays spooky; a 3-cycle on 0,1,2 and a 4-cycle on 3,4,5,6 collapse the rest.
DEADLOCK = [
    place(7, 8),
    place(0, 1),
    place(1, 2),
    place(0, 2),
    measure(0),
    place(3, 4),
    place(4, 5),
    place(5, 6),
    place(3, 6),
    measure(3),
]


def test_deadlock_without_two_cycles() -> None:
    game = play(with_rules("russian", two_cycles=False), DEADLOCK)
    state = game.state()
    assert state["board"][7:] == [["x1"], ["x1"]]
    assert (state["phase"], state["to_move"], state["over"], state["move"]) == (
        "place",
        "x",
        False,
        9,
    )
    assert game.legal() == []
    with pytest.raises(RefIllegal) as err:
        game.apply(place(7, 8))
    assert err.value.rule == "place-two-cycle"


def test_same_position_with_two_cycles() -> None:
    game = play("russian", DEADLOCK)
    assert game.legal() == [place(7, 8)]
    game.apply(place(7, 8))
    assert (game.state()["cycle"], game.state()["to_move"]) == ([7, 8], "o")


# ----------------------------------------------------------------- rejections
def rejects(game: RefGame, action: Any, rule: str) -> None:
    before = game.state()
    with pytest.raises(RefIllegal) as err:
        game.apply(action)
    assert err.value.rule == rule
    assert game.state() == before


def test_reject_place_phase() -> None:
    rejects(play("wikipedia", GERMAN), place(4, 5), "measure-pending")


def test_reject_place_open() -> None:
    game = play("wikipedia", [*GERMAN, measure(7)])
    rejects(game, place(0, 4), "place-open")
    rejects(game, place(4, 3), "place-open")
    rejects(game, place(0, 0), "place-open")
    forced = play("wikipedia", DOUBLE)
    rejects(forced, place(0, 1), "place-open")


def test_reject_place_distinct() -> None:
    rejects(play("wikipedia", []), place(4, 4), "place-distinct")
    rejects(play("wikipedia", GERMAN[:2]), place(0, 0), "place-distinct")


def test_reject_place_two_cycle() -> None:
    game = play(with_rules("wikipedia", two_cycles=False), [place(0, 3)])
    rejects(game, place(3, 0), "place-two-cycle")
    assert place(0, 3) not in game.legal()
    assert len(game.legal()) == 35


def test_reject_board_cells() -> None:
    game = play("wikipedia", [])
    rejects(game, place(0, 9), "board-cells")
    rejects(game, place(-1, 4), "board-cells")
    rejects(play("wikipedia", GERMAN), measure(9), "board-cells")
    rejects(play("bonus4x4", []), place(15, 16), "board-cells")


def test_reject_measure_pending() -> None:
    rejects(play("wikipedia", []), measure(0), "measure-pending")
    rejects(play("wikipedia", [*GERMAN, measure(0)]), measure(7), "measure-pending")


def test_reject_measure_cell() -> None:
    game = play("wikipedia", GERMAN)
    rejects(game, measure(3), "measure-cell")  # on the cycle, but not a cell of O4
    rejects(game, measure(2), "measure-cell")


def test_reject_over_no_action() -> None:
    game = play("wikipedia", [*LINES, measure(4)])
    assert game.legal() == []
    rejects(game, place(1, 1), "over-no-action")
    rejects(game, measure(4), "over-no-action")


@pytest.mark.parametrize(
    "action",
    [
        {"place": [1]},
        {"place": [1, 2, 3]},
        {"place": "ab"},
        {"place": [1.0, 2]},
        {"place": [True, 2]},
        {"measure": "3"},
        {"measure": True},
        {"measure": [3]},
        {"pass": 1},
        {"place": [0, 1], "measure": 3},
        {},
        [0, 1],
        None,
    ],
)
def test_reject_record_format(action: Any) -> None:
    rejects(play("wikipedia", GERMAN[:1]), action, "record-format")


# ----------------------------------------------------------------- variants
def test_initial_state() -> None:
    game = play("wikipedia", [])
    assert game.state() == {
        "variant": "wikipedia",
        "board": [[]] * 9,
        "to_move": "x",
        "phase": "place",
        "move": 1,
        "cycle": None,
        "over": False,
        "scores": {"x": "0", "o": "0"},
    }
    legal = game.legal()
    assert len(legal) == 36  # Goff: 36 placements on an empty 3×3 board
    assert legal[:3] == [place(0, 1), place(0, 2), place(0, 3)]
    assert legal[-1] == place(7, 8)
    assert len(play("bonus4x4", []).legal()) == 120


def test_load_built_in() -> None:
    wikipedia = load_variant("wikipedia")
    assert wikipedia["scoring"] == [
        {
            "award": "first-line",
            "pattern": "line",
            "length": 0,
            "sole": "1",
            "first": "1",
            "second": "1/2",
            "neither": "0",
            "tie": None,
            "double": None,
            "tiebreak": ["min-max"],
            "fallback": [],
        }
    ]
    unstable = load_variant("russian-unstable")
    assert unstable == {**load_variant("russian"), "untouched": "vanish"}
    ishizeki = load_variant("ishizeki-complete")
    assert {k: v for k, v in ishizeki.items() if k != "scoring"} == {
        k: v for k, v in wikipedia.items() if k != "scoring"
    }
    assert ishizeki["scoring"][0]["first"] == "0"
    assert load_variant("kumar")["scoring"] == [
        {"award": "rank", "pattern": "line", "length": 0, "ranks": "harmonic"}
    ]
    assert [c["length"] for c in load_variant("bonus4x4")["scoring"]] == [3, 2, 0]


def test_load_file(tmp_path: Path) -> None:
    child = tmp_path / "mine.toml"
    child.write_text('[variant]\nname = "mine"\nextends = "wikipedia"\n[rules]\nmeasurer = "creator"\n')
    params = load_variant(str(child))
    assert params == {**load_variant("wikipedia"), "measurer": "creator"}
    bare = tmp_path / "bare.toml"
    bare.write_text(
        '[variant]\nname = "bare"\n[[scoring]]\naward = "per-pattern"\npattern = "square"\n'
        '[[scoring]]\naward = "first-line"\n'
    )
    params = load_variant(bare)
    assert params == {
        "game": "quantum",
        "board": 3,
        "measurer": "opponent",
        "collapse": "choice",
        "p": Fraction(1, 2),
        "two_cycles": True,
        "last_square": "forced",
        "untouched": "keep",
        "end": "first-line",
        "end_line": 0,
        "draw_second": Fraction(0),
        "scoring": [
            {"award": "per-pattern", "pattern": "square", "length": 2, "points": "1"},
            {
                "award": "first-line",
                "pattern": "line",
                "length": 0,
                "sole": "0",
                "first": "0",
                "second": "0",
                "neither": "0",
                "tie": None,
                "double": None,
                "tiebreak": [],
                "fallback": [],
            },
        ],
    }
    grandchild = tmp_path / "grand.toml"
    grandchild.write_text('[variant]\nname = "g"\nextends = "bare.toml"\n[rules]\nboard = 4\n')
    assert load_variant(grandchild) == {**params, "board": 4}


# ----------------------------------------------------------------- random play
@pytest.mark.parametrize("variant", BUILT_IN)
def test_random_games_replay(variant: str) -> None:
    params = load_variant(variant)
    rng = random.Random(2024)
    for _ in range(20):
        actions, final = random_game(params, rng, variant)
        game = play(variant, actions)
        assert game.state() == final
        assert game.legal() == []
        if final["over"]:
            assert final["to_move"] is None and final["cycle"] is None
        else:
            assert final["phase"] == "place"
        for player in ("x", "o"):
            Fraction(final["scores"][player])


@pytest.mark.slow
def test_random_kumar_first_player_edge() -> None:
    # Kumar, Ang & Chai: random play gives the first player an expected win of 0.452.
    params = load_variant("kumar")
    rng = random.Random(7)
    total = Fraction(0)
    games = 2000
    for _ in range(games):
        _, final = random_game(params, rng)
        total += Fraction(final["scores"]["x"]) - Fraction(final["scores"]["o"])
    assert abs(float(total / games) - 0.452) < 0.05
