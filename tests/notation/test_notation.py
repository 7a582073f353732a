"""Records and states as text: JSON and JSON Lines parsing, the human notation and the one-line
position string, their round trips and their error messages (rule record-format)."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples
from refbridge import ref_replay

from qttt import (
    Record,
    RecordError,
    Ruleset,
    VariantError,
    action_to_json,
    load_ruleset,
    parse_records,
    record_from_json,
    record_to_json,
    state_to_json,
)
from qttt.games import random_game
from qttt.quantum.engine import Measure, Place, State, playout, quantum_state
from qttt.quantum.notation import from_notation, from_position, position, to_notation
from qttt.quantum.strategies import rulesets

# German Wikipedia cycle (seed 001): X1 squares 1-4, O2 3-9, X3 4-8, O4 8-1, X measures O4 into 1.
GERMAN = (Place(0, 3), Place(2, 8), Place(3, 7), Place(0, 7), Measure(0))
GERMAN_TEXT = "[wikipedia] X1:1-4 O2:3-9 X3:4-8 O4:1-8 O4@1"


def test_notation_by_hand() -> None:
    record = Record("wikipedia", GERMAN)
    assert to_notation(record) == GERMAN_TEXT
    assert from_notation(GERMAN_TEXT) == record
    assert from_notation("  [wikipedia]   X1:4-1 ") == Record("wikipedia", (Place(3, 0),))
    forced = Record("kumar", (*GERMAN, Place(4, 4)))
    assert to_notation(forced).endswith("O4@1 X5:5")  # a forced placement names one square
    assert from_notation(to_notation(forced)) == forced
    canonical = Record("wikipedia(measurer=creator)", (Place(15, 0),))
    assert to_notation(canonical) == "[wikipedia(measurer=creator)] X1:16-1"


@pytest.mark.parametrize(("text", "needle"), [
    ("wikipedia X1:1-9", "starts with the ruleset in brackets"),
    ("[wikipedia X1:1-9", "bracket is not closed"),
    ("[wikipedia] X1:1+9", "token 1 'X1:1+9'"),
    ("[wikipedia] X1:1-9 X2:1-3", "token 2 'X2:1-3' names X2; expected O2"),
    ("[wikipedia] O1:1-2", "expected X1"),
    ("[wikipedia] X3@9", "expected a placement first"),
])
def test_notation_errors(text: str, needle: str) -> None:
    with pytest.raises(RecordError) as err:
        from_notation(text)
    assert err.value.rule == "record-format" and needle in str(err.value), str(err.value)


def test_notation_measure_must_name_the_closing_move() -> None:
    with pytest.raises(RecordError, match="names X1; expected O2"):
        from_notation("[wikipedia] X1:1-2 O2:1-2 X1@1")


def test_position_by_hand() -> None:
    pending = State.initial(load_ruleset("wikipedia"))
    for act in GERMAN[:4]:
        pending = pending.apply(act)
    text = "wikipedia x1o4,-,o2/x1x3,-,-/-,x3o4,o2 5"
    assert position(pending) == text
    again = from_position(text)
    assert state_to_json(again) == state_to_json(pending)
    assert (again.phase, again.to_move, again.cycle) == ("measure", "x", (0, 3, 7))
    after = pending.apply(Measure(0))
    assert position(after) == "wikipedia O4,-,o2/X1,-,-/-,X3,o2 5"


@pytest.mark.parametrize(("text", "needle"), [
    ("wikipedia -,-/-,-,-/-,-,- 1", "3 rows of 3 cells"),
    ("wikipedia -,-,-/-,-,-/-,-,-", "RULESET ROWS MOVE"),
    ("wikipedia x1,-,-/-,-,-/-,-,- 2", "x1 stands in 1 cells"),
    ("wikipedia X2,-,-/-,-,-/-,-,- 3", "mark x2 is not a move"),
    ("wikipedia x3,x3,-/-,-,-/-,-,- 3", "mark x3 is not a move before move 3"),
    ("wikipedia ab,-,-/-,-,-/-,-,- 1", "'ab' is not X1, x3o4 or -"),
    ("wikipedia X1,x1,x1/-,-,-/-,-,- 2", "used twice"),
])
def test_position_errors(text: str, needle: str) -> None:
    with pytest.raises(RecordError) as err:
        from_position(text)
    assert needle in str(err.value), str(err.value)


def test_position_unknown_ruleset() -> None:
    with pytest.raises(VariantError, match="unknown ruleset 'nope'"):
        from_position("nope -,-,-/-,-,-/-,-,- 1")


def test_json_lines_with_line_numbers() -> None:
    text = ('{"variant": "wikipedia", "actions": []}\n'
            '{bad\n'
            '\n'
            '[1]\n'
            '{"variant": "kumar", "actions": [{"place": [0, 1]}, {"measure": "1"}]}\n'
            '{"variant": "kumar", "actions": [{"place": [0, 1]}], "note": "extra fields are fine"}\n')
    items = list(parse_records(text))
    assert [n for n, _ in items] == [1, 2, 4, 5, 6]
    assert items[0][1] == Record("wikipedia", ())
    assert items[5 - 2][1].rule == "record-format"  # type: ignore[union-attr]
    bad_json = items[1][1]
    assert isinstance(bad_json, RecordError) and "not JSON" in str(bad_json) and "column 2" in str(bad_json)
    assert isinstance(items[2][1], RecordError) and "JSON object" in str(items[2][1])
    bad_action = items[3][1]
    assert isinstance(bad_action, RecordError) and bad_action.index == 1
    assert "measure needs an integer cell" in str(bad_action)
    assert items[4][1] == Record("kumar", (Place(0, 1),))


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(rs=rulesets(), seed=st.integers(0, 999), data=st.data())
def test_a_broken_json_line_leaves_the_next_line_alone(rs: Ruleset, seed: int, data: st.DataObject) -> None:
    """In JSON Lines a record cut anywhere is reported on its own line; the next line's record is
    read whole (a value left open at a line end never reads on into the next line)."""
    actions = tuple(random_game(rs, random.Random(seed))[0])
    line = json.dumps(record_to_json(Record(rs.canonical, actions)))
    cut = line[:data.draw(st.integers(0, len(line) - 1))]
    items = list(parse_records(f"{line}\n{cut}\n{line}\n"))
    assert items[0] == (1, Record(rs.canonical, actions)) and items[-1] == (3, Record(rs.canonical, actions))
    assert len(items) == (2 if not cut.strip() else 3)


def test_json_documents() -> None:
    one = json.dumps({"variant": "wikipedia", "actions": [{"place": [0, 8]}]}, indent=2)
    assert list(parse_records(one)) == [(1, Record("wikipedia", (Place(0, 8),)))]
    many = json.dumps([{"variant": "wikipedia", "actions": []}, {"variant": "kumar", "actions": []}])
    assert [r for _, r in parse_records(many)] == [Record("wikipedia", ()), Record("kumar", ())]
    assert list(parse_records("")) == []


@pytest.mark.parametrize(("obj", "needle"), [
    ([], "JSON object"),
    ({"actions": []}, "no variant"),
    ({"variant": "wikipedia"}, "no actions"),
    ({"variant": 3, "actions": []}, "no variant"),
    ({"variant": "wikipedia", "actions": [{"place": [0]}]}, "two integer cells"),
    ({"variant": "wikipedia", "actions": [{"place": [True, 1]}]}, "two integer cells"),
    ({"variant": "wikipedia", "actions": [{"place": [0, 1], "measure": 1}]}, "an action is"),
    ({"variant": "wikipedia", "actions": [{"pass": 1}]}, "an action is"),
])
def test_malformed_records(obj: object, needle: str) -> None:
    with pytest.raises(RecordError) as err:
        record_from_json(obj)
    assert err.value.rule == "record-format" and needle in str(err.value), str(err.value)


@given(rulesets(max_board=4), st.integers(0, 2**32))
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_round_trips(rs: Ruleset, seed: int) -> None:
    acts, final = playout(rs, random.Random(seed))
    record = Record(rs.canonical, tuple(acts))
    assert record_from_json(json.loads(json.dumps(record_to_json(record)))) == record
    assert from_notation(to_notation(record)) == record
    states = [quantum_state(s) for s in record.states()]
    assert state_to_json(states[-1]) == state_to_json(final)
    for state in states:
        if state.over and any(state.spooky):
            continue  # test_position_of_a_line_end_with_spooky_marks
        again = from_position(position(state))
        assert position(again) == position(state)
        assert state_to_json(again) == state_to_json(state)
        assert again.legal_actions() == state.legal_actions()


# A line ends the game while O6 (cells 5, 7) is still spooky. X1 {0,1}, O2 {0,2}, X3 {0,1} close a
# 2-cycle; O measures X3 into 0: X1 into 1, O2 into 2. O4 {3,4}, X5 {3,6}, O6 {5,7}, X7 {3,4}
# close a 2-cycle; O measures X7 into 3: O4 into 4, X5 into 6. X3 X7 X5 fill the left column.
LINE_WITH_SPOOKY = (Place(0, 1), Place(0, 2), Place(0, 1), Measure(0), Place(3, 4), Place(3, 6),
                    Place(5, 7), Place(3, 4), Measure(3))


def line_with_spooky() -> State:
    state = State.initial(load_ruleset("wikipedia"))
    for act in LINE_WITH_SPOOKY:
        state = state.apply(act)
    return state


def test_line_end_with_spooky_marks() -> None:
    state = line_with_spooky()
    expected = ["x3", "x1", "o2", "x7", "o4", ["o6"], "x5", ["o6"], []]
    assert state_to_json(state)["board"] == expected
    assert (state.phase, state_to_json(state)["scores"]) == ("over", {"x": "1", "o": "0"})
    ref = ref_replay(state.ruleset, [action_to_json(a) for a in LINE_WITH_SPOOKY], "wikipedia")[-1]
    assert ref == state_to_json(state, "wikipedia")
    assert position(state) == "wikipedia X3,X1,O2/X7,O4,o6/X5,o6,- 8"


def test_position_of_a_line_end_with_spooky_marks() -> None:
    state = line_with_spooky()
    again = from_position(position(state))
    assert state_to_json(again) == state_to_json(state)


def test_equal_positions_are_equal_states() -> None:
    # The same board reached with and without a measurement in its history.
    rs = load_ruleset("wikipedia")
    measured = State.initial(rs)
    for act in (Place(0, 1), Place(0, 1), Measure(1)):  # X1 into 0, O2 into 1
        measured = measured.apply(act)
    assert position(measured) == "wikipedia X1,O2,-/-,-,-/-,-,- 3"
    assert from_position(position(measured)) == measured
    assert hash(from_position(position(measured))) == hash(measured)
