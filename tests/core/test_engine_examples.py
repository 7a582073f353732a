"""The engine on the worked examples of the sources, and every rule of spec/rules.toml it cites.

Expected values are worked out by hand (comments give the reasoning); every example is also
replayed on the reference model, which must give the same states. Squares of the German
Wikipedia text (seed 001) are numbered 1..9 row by row: cell = square - 1.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, TypeVar

import pytest
from cores import no_core
from nested_reference import RefNested, load_nested
from refbridge import ref_replay

from qttt import (
    IllegalAction,
    RecordError,
    VariantError,
    action_to_json,
    load_ruleset,
    record_from_json,
    state_to_json,
    with_params,
)
from qttt.errors import QtttError
from qttt.family import Mark, compiled_core, family_of
from qttt.games import new_game
from qttt.nested.engine import NestedState
from qttt.quantum.engine import Action, Measure, Outcome, Place, State
from qttt.spec import rules, spec_dir

QTTT = Path(__file__).resolve().parents[2] / "qttt"
COVERED: set[str] = set()
F = TypeVar("F", bound=Callable[..., Any])


def covers(*ids: str) -> Callable[[F], F]:
    """Mark a test as exercising the given rule ids (checked against spec/rules.toml)."""
    unknown = set(ids) - set(rules())
    assert not unknown, f"not rule ids: {unknown}"
    COVERED.update(ids)
    return lambda f: f


def play(variant: str, actions: Sequence[Action], **changes: Any) -> State:
    """The engine's state after `actions`, checked against the reference after every action."""
    rs = load_ruleset(variant)
    if changes:
        rs = with_params(rs, **changes)
    states = [State.initial(rs)]
    for act in actions:
        states.append(states[-1].apply(act))
    ref = ref_replay(rs, [action_to_json(a) for a in actions], variant)
    assert [state_to_json(s, variant) for s in states] == ref
    return states[-1]


def scores(state: State) -> dict[str, str]:
    """The scores as exact strings, as the v1 state writes them."""
    return {p: str(v) for p, v in state.scores.items()}


def board(state: State) -> list[Any]:
    return list(state_to_json(state)["board"])


def rejects(state: State, action: Action, rule: str) -> None:
    with pytest.raises(IllegalAction) as err:
        state.apply(action)
    assert err.value.rule == rule, err.value


# -- seed 001: the cycle on squares 1, 4, 8 ------------------------------------------------------
# X1 joins squares 1-4, X3 squares 4-8, O4 squares 8-1 (cells 0, 3, 7); O2 elsewhere (cells 2, 8).
GERMAN: list[Action] = [Place(0, 3), Place(2, 8), Place(3, 7), Place(0, 7)]
# The same with O2 entangling square 1 with square 5: a stem hanging off the cycle.
GERMAN_STEM: list[Action] = [Place(0, 3), Place(0, 4), Place(3, 7), Place(0, 7)]


@covers("turn-order", "mark", "entanglement", "cycle-close", "measure-pending", "measure-by",
        "score-at-end")
def test_german_cycle_pending() -> None:
    state = play("wikipedia", GERMAN)
    assert state_to_json(state) == {
        "variant": "wikipedia",
        "board": [["x1", "o4"], [], ["o2"], ["x1", "x3"], [], [], [], ["x3", "o4"], ["o2"]],
        "to_move": "x",  # O closed the cycle, so X (player 1) measures
        "phase": "measure", "move": 5, "cycle": [0, 3, 7], "over": False,
        "scores": {"x": "0", "o": "0"},
    }
    assert state.legal_actions() == (Measure(0), Measure(7))  # the two cells of O4
    assert state.component[0] == (0, 3, 7)
    assert state.edges == {1: (0, 3), 2: (2, 8), 3: (3, 7), 4: (0, 7)}


@covers("collapse-component", "turn-after-measure", "classical-fixed")
def test_german_x1_in_square_1() -> None:
    # "X1 collapses in square 1: O4 is forced into square 8 and X3 into square 4" = O4 in cell 7
    state = play("wikipedia", [*GERMAN, Measure(7)])
    assert board(state) == ["x1", [], ["o2"], "x3", [], [], [], "o4", ["o2"]]
    assert (state.phase, state.to_move, state.move, state.cycle) == ("place", "x", 5, None)
    rejects(state, Place(0, 4), "place-open")


@covers("collapse-component", "measure-cell")
def test_german_x1_in_square_4() -> None:
    # "X1 collapses in square 4: X3 into square 8, O4 into square 1" = O4 in cell 0
    state = play("wikipedia", [*GERMAN, Measure(0)])
    assert board(state) == ["o4", [], ["o2"], "x1", [], [], [], "x3", ["o2"]]
    assert state.to_move == "x"


@pytest.mark.parametrize("cell", [0, 7])
@covers("collapse-component", "cycle-close")
def test_german_stem_to_square_5(cell: int) -> None:
    before = play("wikipedia", GERMAN_STEM)
    assert before.cycle == (0, 3, 7)  # the stem to square 5 is not part of the cycle
    assert before.component[4] == (0, 3, 4, 7)
    state = play("wikipedia", [*GERMAN_STEM, Measure(cell)])
    assert board(state)[4] == "o2"  # either way O2 is forced into square 5
    assert [board(state)[c] for c in (0, 3, 7)] == (["x1", "x3", "o4"] if cell == 7 else ["o4", "x1", "x3"])
    assert all(board(state)[c] == [] for c in (1, 2, 5, 6, 8))


@covers("measure-by", "turn-after-measure")
def test_creator_measures() -> None:
    state = play("wikipedia", GERMAN, measurer="creator")
    assert state.to_move == "o"  # O4 closed the cycle and measures it
    after = state.apply(Measure(0))
    assert after.to_move == "x"  # then the owner of move 5 places, whoever measured


@covers("collapse-untouched")
def test_untouched_vanish() -> None:
    # O2 (cells 2, 8) is outside the collapsed component: it vanishes
    state = play("russian-unstable", [*GERMAN, Measure(7)])
    assert board(state) == ["x1", [], [], "x3", [], [], [], "o4", []]
    assert state.edges == {}
    assert board(play("russian", [*GERMAN, Measure(7)]))[2] == ["o2"]  # keep


# -- seed 000: the 4×4 examples ------------------------------------------------------------------

def test_seed000_first_placements() -> None:
    # X on (3,1) and (3,3) = cells 13, 15; O on (0,2) and (0,3) = cells 2, 3
    state = play("bonus4x4", [Place(13, 15), Place(2, 3)])
    expected: list[Any] = [[] for _ in range(16)]
    expected[13] = expected[15] = ["x1"]
    expected[2] = expected[3] = ["o2"]
    assert board(state) == expected
    assert (state.to_move, state.move, state.phase) == ("x", 3, "place")


@covers("measure-by", "collapse-component")
def test_seed000_cycle() -> None:
    # x1 (0,0)-(0,1), o2 (0,1)-(1,0), x3 (0,0)-(1,0): X closes, so O measures; O picks (0,0)
    state = play("bonus4x4", [Place(0, 1), Place(1, 4), Place(0, 4)])
    assert board(state)[:5] == [["x1", "x3"], ["x1", "o2"], [], [], ["o2", "x3"]]
    assert (state.phase, state.to_move, state.cycle) == ("measure", "o", (0, 1, 4))
    after = play("bonus4x4", [Place(0, 1), Place(1, 4), Place(0, 4), Measure(0)])
    assert board(after)[:5] == ["x3", "x1", [], [], "o2"]  # x3 takes (0,0), "x1 dies" there
    assert (after.to_move, after.move) == ("o", 4)


def pairs(cells: list[tuple[int, int]]) -> list[Action]:
    """Fix two cells per round: X places {x, o}, O the same cells (a 2-cycle), X measures o."""
    out: list[Action] = []
    for x_cell, o_cell in cells:
        out += [Place(x_cell, o_cell), Place(x_cell, o_cell), Measure(o_cell)]
    return out


# Final board X9 X1 O2 O10 / X3 X11 O12 O4 / O6 O14 X13 X5 / O16 O8 X7 X15: both long diagonals
# complete at the last collapse. Runs of three: X 0-5-10 and 5-10-15, O 3-6-9 and 6-9-12;
# 2×2 squares: X top-left and bottom-right, O top-right and bottom-left.
BONUS = [(1, 2), (4, 7), (11, 8), (14, 13), (0, 3), (5, 6), (10, 9), (15, 12)]


@covers("pattern-line", "pattern-square", "score-per-pattern", "score-first-line", "end-line")
def test_bonus_min_sum() -> None:
    state = play("bonus4x4", pairs(BONUS))
    assert board(state) == ["x9", "x1", "o2", "o10", "x3", "x11", "o12", "o4",
                            "o6", "o14", "x13", "x5", "o16", "o8", "x7", "x15"]
    # sums: X 9+11+13+15 = 48 < O 10+12+14+16 = 52, so X +15 and O +5; each 2 runs + 2 squares
    assert (state.phase, state.move) == ("over", 17)
    assert scores(state) == {"x": "21", "o": "11"}
    assert state.score_notes == ()


@covers("score-tie-gap")
def test_bonus_equal_sums_fall_back_to_max() -> None:
    # X diagonal 1+3+9+15 = 28, O anti-diagonal 2+4+6+16 = 28: the source is silent; the fallback
    # min-max gives 15 < 16, so X +15, O +5 (same cells as above: 2 runs and 2 squares each)
    order = [(0, 3), (5, 6), (1, 9), (4, 2), (10, 7), (11, 8), (14, 13), (15, 12)]
    state = play("bonus4x4", pairs(order))
    assert [board(state)[c] for c in (0, 5, 10, 15)] == ["x1", "x3", "x9", "x15"]
    assert [board(state)[c] for c in (3, 6, 9, 12)] == ["o2", "o4", "o6", "o16"]
    assert scores(state) == {"x": "21", "o": "11"}
    assert len(state.score_notes) == 1 and "score-tie-gap" in state.score_notes[0]


# -- seed 001: simultaneous lines ------------------------------------------------------------------
# O8 closes the cycle 2-4-6-8 (O8 {2,4}, X7 {4,6}, O6 {6,8}, O4 {8,2}); stems X1 {0,6}, X3 {0,3},
# O2 {5,8}, X5 {4,7}. X measures O8 into the centre: X1 X3 X7 fill the left column (max 7),
# O4 O2 O6 the right column (max 6): O's lower maximum subscript wins 1, X gets 1/2.
LINES: list[Action] = [Place(0, 6), Place(5, 8), Place(0, 3), Place(2, 8), Place(4, 7), Place(6, 8),
                       Place(4, 6), Place(2, 4)]
CENTRE = ["x1", [], "o4", "x3", "o8", "o2", "x7", "x5", "o6"]
CORNER = ["x1", [], "o8", "x3", "x7", "o2", "o6", "x5", "o4"]  # O8 top right: only O's column


@covers("score-first-line", "end-line", "over-no-action", "score-at-end")
def test_lower_maximum_subscript_wins() -> None:
    pending = play("wikipedia", LINES)
    assert (pending.cycle, pending.to_move, scores(pending)) == ((2, 4, 6, 8), "x", {"x": "0", "o": "0"})
    state = play("wikipedia", [*LINES, Measure(4)])
    assert state_to_json(state) == {
        "variant": "wikipedia", "board": CENTRE, "to_move": None, "phase": "over", "move": 9,
        "cycle": None, "over": True, "scores": {"x": "1/2", "o": "1"},
    }
    assert state.legal_actions() == ()
    rejects(state, Place(1, 1), "over-no-action")
    rejects(state, Measure(4), "over-no-action")


@covers("score-first-line")
def test_sole_line_and_complete_win() -> None:
    assert board(play("wikipedia", [*LINES, Measure(2)])) == CORNER
    assert scores(play("wikipedia", [*LINES, Measure(2)])) == {"x": "0", "o": "1"}
    assert scores(play("ishizeki-complete", [*LINES, Measure(4)])) == {"x": "0", "o": "0"}
    assert scores(play("ishizeki-complete", [*LINES, Measure(2)])) == {"x": "0", "o": "1"}


@covers("score-per-pattern", "end-full", "last-square")
def test_russian_scores_every_line() -> None:
    state = play("russian", [*LINES, Measure(4)])  # one cell left, last_square = end
    assert (state.phase, state.move, board(state)[1]) == ("over", 9, [])
    assert scores(state) == {"x": "1", "o": "1"}


@covers("score-rank", "last-square", "end-full")
def test_kumar_rank_and_forced_last_square() -> None:
    state = play("kumar", [*LINES, Measure(4)])
    assert (state.phase, state.to_move, state.legal_actions()) == ("place", "x", (Place(1, 1),))
    final = play("kumar", [*LINES, Measure(4), Place(1, 1)])
    assert board(final) == ["x1", "x9", *CENTRE[2:]]
    assert (final.phase, final.move) == ("over", 10)
    assert scores(final) == {"x": "1/2", "o": "1"}  # times 6 (rank 1, O) and 7 (rank 2, X)


# -- forced last square and a double line ----------------------------------------------------------
# X1 in 1, O2 in 4, X3 in 2, O4 in 5, X5 in 3, O6 in 7, X7 in 6, O8 in 8: no line, cell 0 open.
DOUBLE = pairs([(1, 4), (2, 5), (3, 7), (6, 8)])


@covers("place-two-cycle", "cycle-close")
def test_two_cycle_closes() -> None:
    state = play("wikipedia", DOUBLE[:2])
    assert (state.phase, state.cycle, state.to_move) == ("measure", (1, 4), "x")


@covers("last-square", "place-distinct", "end-line")
def test_forced_last_square_double_line() -> None:
    state = play("wikipedia", DOUBLE)
    assert board(state) == [[], "x1", "x3", "x5", "o2", "o4", "x7", "o6", "o8"]
    assert (state.phase, state.to_move, state.legal_actions()) == ("place", "x", (Place(0, 0),))
    final = play("wikipedia", [*DOUBLE, Place(0, 0)])  # X9: top row and left column at once
    assert (board(final)[0], final.phase, final.move) == ("x9", "over", 10)
    assert scores(final) == {"x": "1", "o": "0"}  # two lines of one player still score 1
    assert scores(play("kumar", [*DOUBLE, Place(0, 0)])) == {"x": "2", "o": "0"}  # both time 9, rank 1
    russian = play("russian", DOUBLE)  # last_square = end: no forced placement
    assert (russian.phase, russian.move, scores(russian)) == ("over", 9, {"x": "0", "o": "0"})


@covers("end-line")
def test_end_line_length() -> None:
    # end_line = 2 on 3×3: the first collapse leaving two of a player in a row ends the game;
    # X1 in 1, O2 in 4 after the first round: no pair; X3 in 2 makes 1-2 a line of two for X
    state = play("wikipedia", DOUBLE[:3], end_line=2)
    assert state.phase == "place"
    final = play("wikipedia", DOUBLE[:6], end_line=2)
    assert (final.phase, scores(final)) == ("over", {"x": "0", "o": "0"})  # scoring still lines of 3


# -- rejected actions and the order of checks ---------------------------------------------------------

@covers("place-open", "place-distinct", "board-cells", "measure-pending", "measure-cell",
        "place-two-cycle", "over-no-action")
def test_rejections() -> None:
    empty = play("wikipedia", [])
    rejects(empty, Place(4, 4), "place-distinct")  # same cell twice when not forced
    rejects(empty, Place(0, 9), "board-cells")
    rejects(empty, Place(-1, 4), "board-cells")
    rejects(empty, Measure(0), "measure-pending")  # measuring without a cycle
    pending = play("wikipedia", GERMAN)
    rejects(pending, Place(4, 5), "measure-pending")
    rejects(pending, Measure(3), "measure-cell")  # on the cycle, but not a cell of O4
    rejects(pending, Measure(2), "measure-cell")
    collapsed = play("wikipedia", [*GERMAN, Measure(7)])
    rejects(collapsed, Place(0, 4), "place-open")  # classical cell
    rejects(collapsed, Place(4, 3), "place-open")
    rejects(collapsed, Measure(7), "measure-pending")
    no_two = play("wikipedia", [Place(0, 3)], two_cycles=False)
    rejects(no_two, Place(3, 0), "place-two-cycle")
    assert len(no_two.legal_actions()) == 35
    rejects(play("bonus4x4", []), Place(15, 16), "board-cells")


@covers("check-order")
def test_check_order() -> None:
    pending = play("wikipedia", GERMAN)
    rejects(pending, Place(9, 9), "measure-pending")  # before board-cells
    rejects(pending, Measure(9), "board-cells")  # before measure-cell
    collapsed = play("wikipedia", [*GERMAN, Measure(7)])
    rejects(collapsed, Place(0, 9), "board-cells")  # board-cells of either cell before place-open
    rejects(collapsed, Place(0, 0), "place-open")  # before place-distinct
    over = play("wikipedia", [*LINES, Measure(4)])
    rejects(over, Measure(99), "over-no-action")  # before everything but the format
    no_two = play("wikipedia", [Place(0, 3)], two_cycles=False)
    rejects(no_two, Place(3, 3), "place-distinct")  # before place-two-cycle


@covers("board-cells", "turn-order", "mark")
def test_initial_state() -> None:
    state = play("wikipedia", [])
    assert state_to_json(state) == {
        "variant": "wikipedia", "board": [[]] * 9, "to_move": "x", "phase": "place", "move": 1,
        "cycle": None, "over": False, "scores": {"x": "0", "o": "0"},
    }
    assert len(state.legal_actions()) == 36  # Goff: 36 placements on an empty 3×3 board
    assert len(play("bonus4x4", []).legal_actions()) == 120  # 16·15/2
    second = play("wikipedia", [Place(8, 0)])
    assert (second.to_move, board(second)[0], board(second)[8]) == ("o", ["x1"], ["x1"])


@covers("record-format", "record-variant", "variant-file")
def test_record_and_variant_errors(tmp_path: Path) -> None:
    with pytest.raises(RecordError) as err:
        record_from_json({"variant": "wikipedia", "actions": [{"place": [0, 1]}, {"measure": "3"}]})
    assert (err.value.rule, err.value.index) == ("record-format", 1)
    with pytest.raises(VariantError) as verr:
        load_ruleset("no-such-ruleset")
    assert verr.value.rule == "record-variant"
    bad = tmp_path / "bad.toml"
    bad.write_text('[variant]\nname = "bad"\n[rules]\nboard = 1\n')
    with pytest.raises(VariantError) as ferr:
        load_ruleset(str(bad))
    assert ferr.value.rule == "variant-file"


# -- the rule ids the engine cites --------------------------------------------------------------------

RULE_ID = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
ERRORS = ("IllegalAction", "RecordError", "VariantError", "QtttError")
CORE_MODULES = ("engine", "game", "scoring", "notation", "text", "svg", "family")
FAMILY_PACKAGES = ("quantum", "nested", "classical")


def cited_ids() -> tuple[set[str], set[str]]:
    """(ids in any string literal of the rules core: qttt/*.py and the rules, notation and drawing
    modules of each family package; first arguments of the error constructors)."""
    literals: set[str] = set()
    raised: set[str] = set()
    core = [*QTTT.glob("*.py"), *(p for p in QTTT.glob("*/*.py")
                                  if p.parent.name in FAMILY_PACKAGES and p.stem in CORE_MODULES)]
    for path in sorted(core):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = {t.id: n.value.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
                     for t in n.targets if isinstance(t, ast.Name)
                     and isinstance(n.value, ast.Constant) and isinstance(n.value.value, str)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                literals.update(RULE_ID.findall(node.value))
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                    and node.func.id in ERRORS and node.args):
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    raised.add(first.value)
                elif isinstance(first, ast.Name) and first.id in constants:
                    raised.add(constants[first.id])
    return literals, raised


def test_engine_cites_only_catalogue_rules() -> None:
    literals, raised = cited_ids()
    catalogue = set(rules())
    assert raised, "no error constructors found"
    assert raised <= catalogue, f"errors cite unknown rule ids: {raised - catalogue}"
    assert {"board-cells", "place-open", "measure-cell", "record-format"} <= raised
    assert literals & catalogue >= raised


@covers("core-compiled")
@pytest.mark.parametrize("name", ["wikipedia", "intelligent"])
def test_the_compiled_core_is_refused_when_it_cannot_be_built(name: str, monkeypatch: pytest.MonkeyPatch,
                                                              tmp_path: Path) -> None:
    rs = load_ruleset(name)
    with no_core(monkeypatch, tmp_path):
        assert compiled_core(rs, "auto") is None and compiled_core(rs, "python") is None
        with pytest.raises(QtttError) as e:
            compiled_core(rs, "compiled")
        assert e.value.rule == "core-compiled" and "no C compiler" in e.value.message


@covers("core-compiled")
def test_a_family_without_a_compiled_core_plays_in_python_and_refuses_compiled() -> None:
    rs = load_ruleset(str(spec_dir() / "coverage" / "classical-4x4-three.toml"))
    assert "core" not in family_of(rs).tools
    assert compiled_core(rs, "auto") is None and compiled_core(rs, "python") is None
    with pytest.raises(QtttError) as e:
        compiled_core(rs, "compiled")
    assert e.value.rule == "core-compiled" and "the classical family has no compiled core" in e.value.message


@covers("collapse-chance")
def test_a_chance_collapse_names_a_cell_and_chance_decides() -> None:
    """x1 and o2 in squares 1 and 2: o2 closes a 2-cycle, x measures by naming square 1; chance
    offers square 1 at 3/4 and square 2 at 1/4, and its outcome square 2 puts o2 there, x1 in 1."""
    turn = play("wikipedia(collapse=chance-measurer,p=3/4)", [Place(0, 1), Place(0, 1), Measure(0)])
    assert (turn.phase, turn.to_move, turn.chosen) == ("chance", "chance", 0)
    assert [str(p) for _, p in turn.chance_outcomes()] == ["3/4", "1/4"]
    rejects(turn, Place(2, 3), "collapse-chance")
    after = play("wikipedia(collapse=chance-measurer,p=3/4)",
                 [Place(0, 1), Place(0, 1), Measure(0), Outcome(1)])
    assert after.classical[:2] == (1, 2) and after.to_move == "x"


@covers("score-draw-second")
def test_a_drawn_game_moves_draw_second_points_to_o() -> None:
    """2-cycles measured so that X holds squares 1, 3, 4, 8 and 9 and O squares 2, 5, 6 and 7: no
    line, 0-0 under wikipedia; with draw_second = 1/2, X -1/2 and O 1/2."""
    drawn: list[Action] = [Place(0, 1), Place(0, 1), Measure(1), Place(2, 4), Place(2, 4), Measure(4),
                           Place(3, 5), Place(3, 5), Measure(5), Place(6, 7), Place(6, 7), Measure(6),
                           Place(8, 8)]
    assert scores(play("wikipedia(draw_second=1/2)", drawn)) == {"x": "-1/2", "o": "1/2"}


@covers("framework-action")
def test_an_action_number_standing_for_no_action_is_refused_under_framework_action() -> None:
    from qttt.interop import rules_of
    rules = rules_of("wikipedia")
    start = rules.start()
    legal = rules.legal(start)
    assert rules.refusal(start, legal[0]) is None
    beyond = rules.refusal(start, rules.codec.actions)  # one past the last action number
    assert beyond is not None and beyond.rule == "framework-action" and "no action" in beyond.message


def test_every_cited_rule_is_exercised() -> None:
    literals, _ = cited_ids()
    cited = literals & set(rules())
    assert len(cited) >= 25
    assert cited <= COVERED, f"rules the engine cites but no test here exercises: {cited - COVERED}"


# -- the nested-classical family (seed 002, Intelligent Tic-Tac-Toe) -------------------------------
# Small boards make the examples checkable by hand: with board = 2 the board is 4×4 cells in four
# 2×2 blocks. Cell c is (row c // 4, column c % 4); its block is (row // 2) * 2 + column // 2 and its
# position in the block (row % 2) * 2 + column % 2, so cells 0 1 4 5 are block 0 at positions
# 0 1 2 3, cells 2 3 6 7 block 1, cells 8 9 12 13 block 2 and cells 10 11 14 15 block 3.


def nested(variant: str | Path, cells: Sequence[int], **changes: Any) -> NestedState:
    """The engine's state after marking `cells`, checked against the nested reference model
    (tests/nested_reference.py) after every move: states and legal sets."""
    rs = load_ruleset(str(variant))
    if changes:
        rs = with_params(rs, **changes)
    params = {**load_nested(variant), **dict(rs.params)}
    ref = RefNested(params, "v")
    state = new_game(rs)
    for c in [*cells, None]:
        assert isinstance(state, NestedState)
        assert state_to_json(state, "v") == ref.state()
        assert [action_to_json(a) for a in state.legal_actions()] == ref.legal()
        if c is None:
            return state
        ref.apply({"mark": c})
        state = state.apply(Mark(c))
    raise AssertionError("unreachable")


@covers("nested-board", "nested-first-move", "nested-turn", "nested-route")
def test_nested_first_moves_and_routing() -> None:
    s = nested("intelligent", [])
    assert len(s.legal_actions()) == 256 and s.target is None and s.to_move == "x"  # any cell
    rejects_nested(s, 256, "nested-board")
    # X marks (5, 4): block 5, position 4 (row 1, column 0 of its block), so O must use block 4.
    s = nested("intelligent", [5 * 16 + 4])
    assert s.target == (4,) and s.to_move == "o" and s.marks[84] == "x1"
    assert {a.cell for a in s.legal_actions()} == {r * 16 + c for r in range(4, 8) for c in range(4)}
    rejects_nested(s, 0, "nested-route")


def rejects_nested(state: NestedState, cell: int, rule: str) -> None:
    with pytest.raises(IllegalAction) as err:
        state.apply(Mark(cell))
    assert err.value.rule == rule, err.value


@covers("nested-block-win", "nested-board-win", "nested-score-win", "nested-patterns")
def test_nested_win() -> None:
    # board = 2, all patterns: any two own marks in a block win it, any two own blocks the game.
    # x0 (block 0, position 0) sends O to block 0; o4 (b0 p2) -> X to b2; x9 (b2 p1) -> O to b1;
    # o7 (b1 p3) -> X to b3; x10 (b3 p0) -> O to b0; o1 (b0 p1): with o4 the anti-diagonal of
    # block 0, O wins it; -> X to b1; x3 (b1 p1) -> O to b1; o6 (b1 p2): with o7 the bottom row,
    # O wins block 1, and blocks 0 and 1 are the top row of blocks: O wins 16-0.
    s = nested("intelligent", [0, 4, 9, 7, 10, 1, 3], board=2)
    assert s.blocks == ("o", "open", "open", "open") and not s.over
    s = nested("intelligent", [0, 4, 9, 7, 10, 1, 3, 6], board=2)
    assert s.over and s.winner == "o" and s.blocks == ("o", "o", "open", "open")
    assert {p: str(v) for p, v in s.scores.items()} == {"x": "0", "o": "16"}
    assert s.legal_actions() == ()
    rejects_nested(s, 2, "over-no-action")


DRAW = [0, 5, 14, 13, 15, 1, 3, 7, 4, 12, 2]


@covers("nested-block-closed", "nested-cell-empty", "nested-free-move", "nested-block-draw",
        "nested-end-closed", "nested-score-draw-blocks", "nested-check-order")
def test_nested_draw_scores_blocks() -> None:
    # board = 2, blocks won by rows only, the game by the two diagonals of blocks only.
    # x0 -> O to b0; o5 -> X to b3; x14 -> O to b2; o13 -> X to b3; x15: row 14-15, X wins block 3;
    # O is sent to block 3 (position 3), which is closed: a free move.
    kw: dict[str, Any] = {"board": 2, "block_patterns": ("rows",), "board_patterns": ("diagonals",)}
    s = nested("intelligent", DRAW[:5], **kw)
    assert s.blocks == ("open", "open", "open", "x") and s.target is None and s.to_move == "o"
    rejects_nested(s, 11, "nested-block-closed")
    rejects_nested(s, 15, "nested-cell-empty")  # occupied and closed: the cell is reported first
    # o1 -> X to b1; x3 -> O to b1; o7 -> X to b3 (closed: free); x4 fills block 0 as x o / x o:
    # no row, so block 0 is drawn; -> O to b2; o12: row 12-13, O wins block 2; -> X free;
    # x2: row 2-3, X wins block 1. X holds blocks 1 and 3, O block 2: no diagonal, every block is
    # closed: nobody wins and each scores the blocks won, 2 and 1.
    s = nested("intelligent", DRAW[:9], **kw)
    assert s.blocks == ("drawn", "open", "open", "x")
    s = nested("intelligent", DRAW, **kw)
    assert s.over and s.winner is None and s.blocks == ("drawn", "x", "o", "x")
    assert {p: str(v) for p, v in s.scores.items()} == {"x": "2", "o": "1"}
    assert s.marks[6] is None  # empty cells remain in a won block


@covers("nested-score-draw-majority")
def test_nested_draw_majority_with_weights(tmp_path: Path) -> None:
    path = tmp_path / "majority.toml"
    path.write_text('[variant]\nname = "majority"\nextends = "intelligent"\n[rules]\nboard = 2\n'
                    'block_patterns = ["rows"]\nboard_patterns = ["diagonals"]\n[[scoring]]\n'
                    'award = "draw-majority"\nweights = ["3", "1", "1", "1"]\n', encoding="utf-8")
    # The same game: X's blocks 1 and 3 are worth 1 + 1, O's block 2 is worth 1: X has more.
    s = nested(path, DRAW)
    assert {p: str(v) for p, v in s.scores.items()} == {"x": "1", "o": "0"}
    # Weights 1, 1, 3, 1: O's block 2 is worth 3 against X's 2: O has more.
    path.write_text(path.read_text(encoding="utf-8").replace('"3", "1", "1", "1"', '"1", "1", "3", "1"'),
                    encoding="utf-8")
    s = nested(path, DRAW)
    assert {p: str(v) for p, v in s.scores.items()} == {"x": "0", "o": "1"}
    path.write_text(path.read_text(encoding="utf-8").replace('"1", "1", "3", "1"', '"1", "1", "2", "1"'),
                    encoding="utf-8")
    s = nested(path, DRAW)  # 2 against 2: equal, 1/2 each by default
    assert {p: str(v) for p, v in s.scores.items()} == {"x": "1/2", "o": "1/2"}


@covers("nested-block-draw")
def test_nested_full_block_with_a_pattern() -> None:
    # board = 2, rows only: x15 -> O to b3; o10 -> X to b0; x5 -> O to b3; o14 -> X to b2;
    # x13 -> O to b3; o11 fills block 3 (o10 o11 / o14 x15) completing the row 10-11.
    kw: dict[str, Any] = {"board": 2, "block_patterns": ("rows",), "board_patterns": ("diagonals",)}
    moves = [15, 10, 5, 14, 13, 11]
    assert nested("intelligent", moves, **kw).blocks[3] == "o"  # pattern-first (2017)
    assert nested("intelligent", moves, full_block="drawn-first", **kw).blocks[3] == "drawn"  # 2016, early


@covers("nested-bonus")
def test_nested_bonus_move() -> None:
    # board = 2, bonus = block-win, the game won by the diagonals of blocks only.
    # x6 (b1 p2) -> O to b2; o8 -> X to b0; x5 -> O to b3; o10 -> X to b0; x1: column 1-5, X wins
    # block 0 and moves again, routed by position 1 to block 1 ...
    kw: dict[str, Any] = {"board": 2, "bonus": "block-win", "board_patterns": ("diagonals",)}
    s = nested("intelligent", [6, 8, 5, 10, 1], **kw)
    assert s.to_move == "x" and s.bonus and s.target == (1,) and s.move == 6
    # ... x3: with x6 the anti-diagonal of block 1, X wins it during the bonus move: no second
    # bonus. O moves, routed to block 1 (position 1), which is closed: a free move.
    s = nested("intelligent", [6, 8, 5, 10, 1, 3], **kw)
    assert s.to_move == "o" and not s.bonus and s.target is None and s.marks[3] == "x6"
    assert s.blocks == ("x", "x", "open", "open") and not s.over
    # Without the bonus the same first five moves pass the turn to O.
    s = nested("intelligent", [6, 8, 5, 10, 1], board=2, board_patterns=("diagonals",))
    assert s.to_move == "o" and not s.bonus


def test_nested_diamonds_are_the_2018_simulators() -> None:
    # The 2018 simulator's diamonds on a 4×4 grid, as (row, column) cells.
    from qttt.geometry import grid_patterns
    expected = [{(1, 0), (0, 1), (2, 1), (1, 2)}, {(1, 1), (0, 2), (2, 2), (1, 3)},
                {(2, 0), (1, 1), (3, 1), (2, 2)}, {(2, 1), (1, 2), (3, 2), (2, 3)}]
    got = [{divmod(c, 4) for c in p.cells} for p in grid_patterns(4, ("diamonds",))]
    assert sorted(map(sorted, got)) == sorted(map(sorted, expected))


# -- the classical family (n×n tic-tac-toe, the worked example of adding a family) -----------------


@covers("classical-board", "classical-turn", "classical-cell-empty", "classical-line", "classical-full",
        "classical-score")
def test_classical_examples() -> None:
    rs = load_ruleset("qttt(game=classical)")
    s = new_game(rs)
    with pytest.raises(IllegalAction) as off:
        s.apply(Mark(9))
    assert off.value.rule == "classical-board"
    s = s.apply(Mark(4))  # x1 in the centre
    assert state_to_json(s, "v")["board"][4] == "x1" and s.to_move == "o"
    with pytest.raises(IllegalAction) as taken:
        s.apply(Mark(4))
    assert taken.value.rule == "classical-cell-empty"
    for c in (0, 2, 6, 3, 5, 8, 7):  # o0 x2 o6 x3 o5 x8 o7: every line of x is blocked by an o
        s = s.apply(Mark(c))
        assert not s.over
    full = s.apply(Mark(1))  # the board O X X / X X O / O O X: full, no line
    assert full.over and full.scores == {"x": Fraction(1, 2), "o": Fraction(1, 2)}
    line = new_game(rs)
    for c in (0, 3, 1, 4, 2):  # x completes the top row at move 5
        line = line.apply(Mark(c))
    assert line.over and line.scores == {"x": 1, "o": 0} and line.legal_actions() == ()
