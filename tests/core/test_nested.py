"""The nested-classical family: worked examples from the sources (the 2017 README and simulator),
rule ids of illegal moves, the variant vocabulary, the interchange schemas, and random-play
statistics against the figures the course simulator gives."""

from __future__ import annotations

import json
import random
import tomllib
from fractions import Fraction
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

from qttt import IllegalAction, RecordError, VariantError, load_ruleset
from qttt.family import Mark
from qttt.games import new_game, random_game
from qttt.games import replay_actions as replay
from qttt.nested.engine import NestedState, cell_of
from qttt.notation import Record, record_to_json, state_to_json
from qttt.spec import spec_dir

SCHEMA = spec_dir() / "schema"
RECORD = Draft202012Validator(json.loads((SCHEMA / "record.schema.json").read_text(encoding="utf-8")))
STATE = Draft202012Validator(json.loads((SCHEMA / "state.schema.json").read_text(encoding="utf-8")))
VARIANT = Draft202012Validator(json.loads((SCHEMA / "variant.schema.json").read_text(encoding="utf-8")))


def rc(r: int, c: int) -> int:
    """Cell of (row, column) on the 16×16 board, as the 2017 simulator addresses it."""
    return r * 16 + c


def play(name: str, cells: list[int]) -> NestedState:
    state = new_game(load_ruleset(name))
    for c in cells:
        state = state.apply(Mark(c))
    assert isinstance(state, NestedState)
    return state


def test_geometry_follows_the_simulator() -> None:
    # Block (r // 4, c // 4), position (r % 4, c % 4): (5, 0) is in block 4 at position 4.
    assert cell_of(4, 4, 4) == rc(5, 0)
    assert cell_of(4, 15, 15) == 255 and cell_of(4, 0, 0) == 0
    assert cell_of(3, 4, 4) == 40  # 2016's 9×9 board: the centre cell


def test_correspondence_rule_sends_to_the_block_of_the_cell_position() -> None:
    # README rule 2: a mark in the top-left cell of a block sends the opponent to the top-left block.
    s = play("intelligent", [rc(5, 4)])  # position (1, 0) of block 5
    assert s.target == (4,)
    assert {a.cell for a in s.legal_actions()} == {rc(r, c) for r in range(4, 8) for c in range(0, 4)}
    with pytest.raises(IllegalAction) as e:
        s.apply(Mark(rc(0, 0)))
    assert e.value.rule == "nested-route"


def test_first_move_is_open() -> None:
    s = new_game(load_ruleset("intelligent"))
    assert isinstance(s, NestedState)
    assert len(s.legal_actions()) == 256 and s.target is None and s.to_move == "x"


def win_block_zero_row() -> list[int]:
    """X completes row 0 of block 0; each X move in another block sends O to a block where O's
    position-0 cell sends X back to block 0."""
    return [rc(0, 0), rc(1, 0), rc(4, 1), rc(0, 4), rc(0, 1), rc(1, 5), rc(4, 6), rc(0, 8),
            rc(0, 2), rc(1, 9), rc(4, 7), rc(0, 12), rc(0, 3)]


def test_abandon_rule_and_free_move() -> None:
    moves = win_block_zero_row()
    s = play("intelligent", moves)
    assert s.blocks[0] == "x" and s.blocks.count("open") == 15
    assert s.target == (3,) and s.to_move == "o"
    # O goes to block 4 ((1, 12) is position 4 of block 3); X's (4, 0) sends O to the won block 0.
    free = play("intelligent", [*moves, rc(1, 12), rc(4, 0)])
    assert free.target is None and free.to_move == "o"
    legal = {a.cell for a in free.legal_actions()}
    empty = {c for c in range(256) if free.marks[c] is None}
    block0 = {rc(r, c) for r in range(4) for c in range(4)}
    assert legal == empty - block0  # free move: any empty cell of an open block
    with pytest.raises(IllegalAction) as e:
        free.apply(Mark(rc(3, 3)))
    assert e.value.rule == "nested-block-closed"
    with pytest.raises(IllegalAction) as e:
        free.apply(Mark(rc(0, 0)))
    assert e.value.rule == "nested-cell-empty"


def test_board_pattern_wins_sixteen_nil() -> None:
    """Random play until someone wins: the winner owns a board pattern of won blocks, 16-0."""
    rs = load_ruleset("intelligent")
    rng = random.Random(4)
    for _ in range(20):
        _, final = random_game(rs, rng)
        assert isinstance(final, NestedState)
        if final.winner is None:
            won = {p: sum(1 for b in final.blocks if b == p) for p in ("x", "o")}
            assert "open" not in final.blocks
            assert final.scores == {"x": won["x"], "o": won["o"]}
            continue
        owned = {i for i, b in enumerate(final.blocks) if b == final.winner}
        lines = [set(range(r * 4, r * 4 + 4)) for r in range(4)] + [set(range(c, 16, 4)) for c in range(4)]
        lines += [{0, 5, 10, 15}, {3, 6, 9, 12}]
        assert any(line <= owned for line in lines)
        assert final.scores[final.winner] == 16 and sum(final.scores.values()) == 16


def test_over_and_malformed_actions() -> None:
    rs = load_ruleset("intelligent")
    _, final = random_game(rs, random.Random(2))
    with pytest.raises(IllegalAction) as e:
        final.apply(Mark(0))
    assert e.value.rule == "over-no-action"
    s = new_game(rs)
    with pytest.raises(IllegalAction) as e:
        s.apply(Mark(256))
    assert e.value.rule == "nested-board"
    with pytest.raises(IllegalAction) as e:
        s.apply(Mark(True))
    assert e.value.rule == "nested-board"


def test_record_and_states_validate_against_the_schemas() -> None:
    rs = load_ruleset("intelligent")
    rng = random.Random(9)
    for _ in range(3):
        actions, _ = random_game(rs, rng)
        record = Record("intelligent", tuple(actions))
        RECORD.validate(record_to_json(record))
        for s in record.states()[::17] + record.states()[-1:]:
            STATE.validate(state_to_json(s, "intelligent"))
    text = (spec_dir() / "variants" / "intelligent.toml").read_text(encoding="utf-8")
    VARIANT.validate(tomllib.loads(text))


def test_quantum_state_with_blocks_is_rejected_by_the_schema() -> None:
    s = state_to_json(play("intelligent", [0, 1]), "intelligent")
    assert STATE.is_valid(s)
    assert not STATE.is_valid({**s, "board": ["x1", ["o2", "x3"], *s["board"][2:]]})
    del s["target"]
    assert not STATE.is_valid(s)


@pytest.mark.parametrize(("rules", "needles"), [
    ('game = "nested-classical"\nmeasurer = "creator"\n', ["measurer", "does not apply", "route"]),
    ('game = "nested-classical"\nroute = [[0]]\n', ["route", "9 lists"]),
    ('game = "nested-classical"\nblock_patterns = ["rows", "rows"]\n', ["block_patterns", "distinct"]),
    ('game = "nested-classical"\nboard_patterns = ["knights"]\n', ["board_patterns", "diamonds"]),
    ('route = "same"\n', ["route", "does not apply", "measurer"]),
])
def test_bad_nested_variant_files(rules: str, needles: list[str], tmp_path: Path) -> None:
    path = tmp_path / "v.toml"
    path.write_text(f'[variant]\nname = "v"\n[rules]\n{rules}', encoding="utf-8")
    with pytest.raises(VariantError) as e:
        load_ruleset(str(path))
    assert e.value.rule == "variant-file" and "\n" not in str(e.value)
    for needle in needles:
        assert needle in str(e.value)


def test_quantum_award_in_a_nested_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "v.toml"
    path.write_text('[variant]\nname = "v"\nextends = "intelligent"\n[[scoring]]\naward = "rank"\n',
                    encoding="utf-8")
    with pytest.raises(VariantError, match='award = "rank" does not apply to game = "nested-classical"'):
        load_ruleset(str(path))


def test_canonical_names_round_trip() -> None:
    rs = load_ruleset("intelligent(bonus=block-win,board_patterns=[\"rows\",\"diamonds\"])")
    assert rs.rules.bonus == "block-win" and rs.rules.board_patterns == ("rows", "diamonds")
    again = load_ruleset(rs.canonical)
    assert again.key() == rs.key() and again.canonical == rs.canonical


def test_random_play_statistics_match_the_course_simulator() -> None:
    """The course simulator's random games leave about 39 of 256 cells empty and last 154 to 249
    moves; 200 of ours must land in that range with a mean of empty cells near 39."""
    rs = load_ruleset("intelligent")
    rng = random.Random(2017)
    lengths, empty = [], []
    for _ in range(200):
        actions, final = random_game(rs, rng)
        assert isinstance(final, NestedState)
        lengths.append(len(actions))
        empty.append(sum(1 for m in final.marks if m is None))
    assert min(lengths) >= 154 and max(lengths) <= 249
    assert 35 <= sum(empty) / len(empty) <= 43


def test_replay_of_a_quantum_action_in_a_nested_game_is_malformed() -> None:
    from qttt.quantum.engine import Place
    with pytest.raises(RecordError) as e:
        replay(new_game(load_ruleset("intelligent")), [Place(0, 1)])
    assert e.value.rule == "record-format" and e.value.index == 0


EXAMPLES = spec_dir() / "editions"


def test_2016_routes_to_the_two_adjacent_blocks_and_the_centre() -> None:
    # The 2016 evaluator: top-left cell -> blocks 1 and 3; centre cell -> centre block only.
    path = str(EXAMPLES / "intelligent-2016.toml")
    s = play(path, [0])  # (0, 0): the top-left cell of block 0
    assert s.target == (1, 3)
    block1 = {r * 9 + c for r in range(3) for c in range(3, 6)}
    block3 = {r * 9 + c for r in range(3, 6) for c in range(3)}
    expected = block1 | block3
    assert {a.cell for a in s.legal_actions()} == expected
    s = play(path, [4 * 9 + 4])  # (4, 4): the centre cell of the centre block
    assert s.target == (4,) and {a.cell for a in s.legal_actions()} == {
        r * 9 + c for r in range(3, 6) for c in range(3, 6)} - {40}


def test_2018_draws_weigh_corners_edges_and_centre() -> None:
    rs = load_ruleset(str(EXAMPLES / "intelligent-2018.toml"))
    assert rs.match.move_seconds == 16 and rs.match.forfeit == (Fraction(68), Fraction(0))
    worth = {b: 6 if b in (0, 3, 12, 15) else 3 if b in (5, 6, 9, 10) else 4 for b in range(16)}
    assert sum(worth.values()) == 68
    rng = random.Random(18)
    seen = set()
    for _ in range(30):
        _, final = random_game(rs, rng)
        assert isinstance(final, NestedState)
        if final.winner is None:
            expect = {p: sum(worth[b] for b, s in enumerate(final.blocks) if s == p) for p in ("x", "o")}
            assert final.scores == expect
            seen.add("draw")
        else:
            assert final.scores[final.winner] == 68
            seen.add("win")
    assert seen == {"draw", "win"}


def test_intelligent_match_defaults() -> None:
    rs = load_ruleset("intelligent")
    assert rs.match.move_seconds == 15 and rs.match.forfeit == (Fraction(16), Fraction(0))


def test_svg_shows_block_states_and_the_target() -> None:
    import xml.etree.ElementTree as ET

    from qttt.nested.svg import nested_svg
    moves = win_block_zero_row()
    s = play("intelligent", moves)  # X won block 0; O must use block 3
    root = ET.fromstring(nested_svg(s, caption="after x13"))
    ns = "{http://www.w3.org/2000/svg}"
    rects = {r.get("data-block"): r.get("class") for r in root.iter(f"{ns}rect")}
    assert rects["0"] == "block x" and rects["3"] == "block open target"
    assert sum(1 for r in rects.values() if r == "block open") == 14
    marks = [t for t in root.iter(f"{ns}text") if (t.get("class") or "").startswith("mark")]
    assert len(marks) == len(moves) and {t.get("data-mark") for t in marks} >= {"x1", "o2", "x13"}
    assert [t.text for t in root.iter(f"{ns}text") if t.get("class") == "won x"] == ["X"]


def test_play_at_the_terminal() -> None:
    import argparse

    from qttt.nested.play import play as play_nested
    answers = iter(["help", "moves", "9 9", "0 0", "nonsense", "quit"])
    out: list[str] = []
    args = argparse.Namespace(x="human", o="random", record=None)
    status = play_nested(load_ruleset("intelligent"), args, lambda _: next(answers), out.append, False, 3)
    text = "".join(out)
    assert status == 0 and "game abandoned" in text and "row and column" in text
    assert "you may mark: 0 0, 0 1" in text  # the first move is free: every cell
    assert "o (random) marks" in text and "not understood: 'nonsense'" in text
    assert "blocks:" in text and " 0  1  2  3 │" in text  # the 16×16 board with its map of blocks
