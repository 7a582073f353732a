"""Strict JSON everywhere qttt reads JSON (issue 32 item 5): one decoder (qttt.jsonstream) refuses a
key given twice, a number that is not finite (NaN, Infinity, 1e400) and a lone surrogate, naming
each; every reader goes through it (records, the engine protocol both ways, suites, checkpoints,
--actions, ruleset names, match records); the engine writes only strict JSON and refuses before
any work what it will refuse (go with a clock that is not whole milliseconds, perft beyond its
budget)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from contract import one_line, run
from hypothesis import given
from hypothesis import strategies as st

from qttt.conformance.protocol import QtttEngine, respond
from qttt.conformance.runner import InProcessEngine
from qttt.jsonstream import NumberTooLong, Refused, loads

SCALARS = st.none() | st.booleans() | st.integers(-10**18, 10**18) | st.floats(allow_nan=False,
                                                                                 allow_infinity=False) \
    | st.text(max_size=6)
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=6), inner, max_size=4), max_leaves=15)
FLAWS = {"duplicate": "duplicate key", "NaN": "NaN is not a JSON number",
         "Infinity": "Infinity is not a JSON number", "-Infinity": "-Infinity is not a JSON number",
         "1e400": "the number 1e400 is too large to hold", "-2.5E+999": "the number -2.5E+999 is too large",
         "lone": "lone surrogate", "digits": "an integer of 21 digits"}
LONE = ['"\\ud800"', '"x\\udfff"', '"\\uDBFFz"', '"\\ude00\\ud83d"']


@st.composite
def flawed(draw: st.DrawFn) -> tuple[str, str]:
    """A JSON document (as text) with one flaw planted at a random place, and the flaw's name."""
    value = draw(VALUES)
    flaw = draw(st.sampled_from(sorted(FLAWS)))
    if flaw == "duplicate":
        key = draw(st.text(max_size=4))
        body = json.dumps(value)
        planted = f'{{{json.dumps(key)}: {body}, "k": 1, {json.dumps(key)}: 2}}'
        return draw(st.sampled_from([planted, f"[{body}, {planted}]"])), flaw
    token = {"lone": draw(st.sampled_from(LONE)), "digits": "123456789012345678901"}.get(flaw, flaw)
    text = json.dumps([value, token])  # a placeholder string, replaced by the token itself
    return text.replace(json.dumps(token), token, 1), flaw


@given(case=flawed())
def test_the_decoder_refuses_each_flaw_by_name(case: tuple[str, str]) -> None:
    text, flaw = case
    with pytest.raises(Refused) as e:
        loads(text)
    assert FLAWS[flaw] in e.value.msg, (text, e.value.msg)
    if flaw == "digits":
        assert isinstance(e.value, NumberTooLong)


@given(value=VALUES)
def test_the_decoder_takes_every_strict_document(value: Any) -> None:
    """No false refusal: what json.dumps writes of a finite value (astral characters, written as
    escaped surrogate pairs, included) reads back the same."""
    for ensure_ascii in (True, False):
        assert loads(json.dumps(value, ensure_ascii=ensure_ascii)) == value
    assert loads(json.dumps("\U0001f600")) == "\U0001f600"


RECORD = '{"variant": "wikipedia", "actions": [{"place": [0, 8]}, FLAW]}'
PLANTS = {"duplicate key \"place\"": '{"place": [0, 4], "place": [1, 2]}',
          "NaN is not a JSON number": '{"measure": NaN}',
          "the number 1e400 is too large": '{"place": [1e400, 2]}',
          "lone surrogate \\ud800": '{"place": [1, 2], "\\ud800": 1}'}


@pytest.mark.parametrize("needle", PLANTS)
@pytest.mark.parametrize("reader", ["replay", "replay --json", "perft --actions", "conform --suite",
                                    "checkpoint", "tour record", "ruleset name"])
def test_every_reader_refuses_and_names_the_flaw(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 reader: str, needle: str) -> None:
    plant = PLANTS[needle]
    path = tmp_path / "in.json"
    if reader.startswith("replay"):
        path.write_text(RECORD.replace("FLAW", plant) + "\n")
        argv = ["replay", str(path), *reader.split()[1:]]
    elif reader == "perft --actions":
        argv = ["perft", "wikipedia", "--depth", "1", "--actions", f"[{plant}]"]
    elif reader == "conform --suite":
        path.write_text('{"suite": "x", "cases": [' + plant + "]}")
        argv = ["conform", "--engine", "qttt engine", "--suite", str(path)]
    elif reader == "checkpoint":
        path.write_text('{"digest": "sha256:0", "ruleset": "wikipedia", "x": [' + plant + "]}")
        argv = ["analyze", "random", "wikipedia", "-n", "10", "--checkpoint", str(path)]
    elif reader == "tour record":
        path.write_text(RECORD.replace("FLAW", plant))
        tour = tmp_path / "tour.toml"
        tour.write_text('[[team]]\nname = "a"\nmain = ["a1", "a2", "a3", "a4"]\n[[team]]\nname = "b"\n'
                        'main = ["b1", "b2", "b3", "b4"]\n[[game]]\nboard = 1\nx = "a"\nrecord = "in.json"\n')
        argv = ["tour", str(tour)]
    else:
        argv = ["show", "wikipedia(scoring=[" + plant + "])"]
    status, out, err = run(argv, capsys)
    assert status in (1, 2), (status, out, err)
    text = out + err
    assert needle in text, text
    assert "Traceback" not in text and "internal error" not in text


@pytest.mark.parametrize("line, needle", [
    ('{"id": 1, "cmd": "new", "variant": "wikipedia", "variant": "kumar"}', 'duplicate key \\"variant\\"'),
    ('{"id": 2, "cmd": "legal", "cmd": "quit"}', 'duplicate key \\"cmd\\"'),
    ('{"id": NaN, "cmd": "hello"}', "NaN is not a JSON number"),
    ('{"id": 1e400, "cmd": "hello"}', "1e400 is too large"),
    ('{"id": -Infinity, "cmd": "hello"}', "-Infinity is not a JSON number"),
    ('{"id": "\\udc00", "cmd": "hello"}', "lone surrogate"),
])
def test_the_engine_refuses_what_is_not_strict_json(line: str, needle: str) -> None:
    engine = QtttEngine()
    answer, quit_ = respond(engine, line)
    assert not quit_ and needle in answer, answer
    assert json.loads(answer)["ok"] is False and "NaN" not in answer.replace("NaN is", "")
    loads(answer)  # the answer itself is strict JSON


class Liar:
    """A handler whose answers hold what JSON cannot write."""

    def handle(self, request: dict[str, Any]) -> dict[str, Any]:
        return {"ok": True, "nodes": float("nan")}


def test_answers_are_strict_json_both_ways() -> None:
    answer, _ = respond(Liar(), '{"id": 7, "cmd": "perft", "depth": 1}')
    assert loads(answer) == {"id": 7, "ok": False, "error": {
        "kind": "protocol", "rule": None, "message": "the engine's answer cannot be written as JSON"}}
    with pytest.raises(Exception, match="not strict JSON"):
        InProcessEngine(Liar()).request({"cmd": "perft", "depth": 1}, 5.0)


@pytest.mark.parametrize("field", ["move_ms", "x_ms", "o_ms"])
@pytest.mark.parametrize("value", ["-1", "1.5", "true", '"10"', "[]", "-0.5"])
def test_go_refuses_a_clock_that_is_not_whole_milliseconds(field: str, value: str) -> None:
    engine = QtttEngine()
    respond(engine, '{"id": 1, "cmd": "new", "variant": "wikipedia"}')
    answer = json.loads(respond(engine, f'{{"id": 2, "cmd": "go", "{field}": {value}}}')[0])
    assert answer["ok"] is False and f"go {field} = " in answer["error"]["message"], answer
    good = json.loads(respond(engine, f'{{"id": 3, "cmd": "go", "{field}": 0}}')[0])
    assert good["ok"] is True


@pytest.mark.parametrize("depth", [6, 100, 1000])
def test_perft_beyond_the_budget_is_refused_before_the_budget_is_spent(depth: int) -> None:
    """Depth by depth, the positions the next depth must expand are known before it is walked:
    a request beyond the budget is refused after the depths that fit (a second or so in the
    Python engine), never after a million positions."""
    engine = QtttEngine()
    respond(engine, '{"id": 1, "cmd": "new", "variant": "wikipedia"}')
    start = time.process_time()
    answer = json.loads(respond(engine, f'{{"id": 2, "cmd": "perft", "depth": {depth}}}')[0])
    spent = time.process_time() - start
    assert answer["error"]["kind"] == "unsupported" and "1,000,000 positions" in answer["error"]["message"]
    assert spent < 20, spent  # a hang guard (the whole budget took minutes), not a speed measure


def test_perft_deeper_than_the_game_counts_zeros_at_once() -> None:
    engine = QtttEngine()
    respond(engine, '{"id": 1, "cmd": "new", "variant": "wikipedia(board=2)"}')
    answer = json.loads(respond(engine, '{"id": 2, "cmd": "perft", "depth": 1000}')[0])
    assert answer == {"id": 2, "ok": True, "nodes": 0}


def test_a_record_with_a_key_twice_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"variant": "wikipedia", "actions": [], "players": {}, "players": {}}')
    status, _, err = run(["replay", str(path)], capsys)
    assert status == 1
    one_line(err, 'duplicate key "players"', "rule record-format")
