"""Fuzzing every parser and entry point with generated input: random bytes, mutations of valid
input and grammar-built text. The contract on each (docs/hostile-input.md): exit status 0, 1 or 2,
never 3; standard error holds one line per problem, each `qttt: ...`, never a traceback; library
parsers raise only QtttError; an answer within a time bound.

Budget: QTTT_FUZZ_EXAMPLES examples per target (default 40, as CI runs it); set it higher to fuzz
longer, e.g. QTTT_FUZZ_EXAMPLES=5000.
"""

from __future__ import annotations

import json
import os
from contextlib import suppress
from pathlib import Path
from unittest import mock

import pytest
from contract import within
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qttt import builtin_names, load_ruleset
from qttt.analysis.sample import sample_games
from qttt.cli import main
from qttt.conformance import protocol
from qttt.conformance.check import check_files
from qttt.conformance.protocol import QtttEngine, respond
from qttt.conformance.runner import load_suites
from qttt.conformance.suite import suite_path
from qttt.errors import QtttError
from qttt.io import write_checkpoint
from qttt.notation import parse_records
from qttt.quantum.analysis.count import count_games
from qttt.quantum.analysis.solve import solve
from qttt.quantum.engine import State
from qttt.quantum.notation import from_notation, from_position
from qttt.quantum.play import Game
from qttt.spec import spec_dir
from qttt.vocabulary import PARAMETERS

EXAMPLES = int(os.environ.get("QTTT_FUZZ_EXAMPLES", "40"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                       HealthCheck.data_too_large])
SECONDS = 30  # an answer within this, or the input made the command hang
pytestmark = pytest.mark.slow  # about half a minute at the default budget: the full run, not the quick lane

GOOD_RECORD = '{"variant": "wikipedia", "actions": [{"place": [0, 8]}, {"place": [0, 4]}, ' \
              '{"place": [4, 8]}, {"measure": 8}]}'
GOOD_VARIANT = (spec_dir() / "variants" / "kumar.toml").read_text(encoding="utf-8")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    with within(SECONDS):
        try:
            status = main(argv)
        except SystemExit as e:  # argparse refusing a flag
            status = int(e.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


def contract(status: int, err: str) -> None:
    assert status in (0, 1, 2), (status, err)
    assert "Traceback" not in err and "internal error" not in err, err
    for line in err.splitlines():
        assert line.startswith("qttt"), err


# -- generated input ----------------------------------------------------------------------------

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=12)


@st.composite
def mutated(draw: st.DrawFn, base: str) -> str:
    """`base` with a few characters deleted, inserted or replaced."""
    text = base
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(("delete", "insert", "replace")))
        piece = draw(st.text(alphabet=st.characters(codec="utf-8") | st.sampled_from('{}[]",:01-\n '),
                             min_size=1, max_size=3))
        if edit == "delete":
            text = text[:at] + text[at + len(piece):]
        elif edit == "insert":
            text = text[:at] + piece + text[at:]
        else:
            text = text[:at] + piece + text[at + 1:]
    return text


ACTION = st.one_of(st.builds(lambda a, b: {"place": [a, b]}, st.integers(-2, 10), st.integers(-2, 10)),
                   st.builds(lambda c: {"measure": c}, st.integers(-2, 10)), JSON)
RECORD = st.builds(lambda v, acts, extra: {"variant": v, "actions": acts, **extra},
                   st.sampled_from(["wikipedia", "kumar", "qttt(board=2)", "nosuch", "wikipedia(board=05)"]),
                   st.lists(ACTION, max_size=12), st.dictionaries(st.text(max_size=5), JSON, max_size=2))
RECORDS_TEXT = st.one_of(
    st.lists(RECORD, max_size=4).map(lambda rs: "\n".join(json.dumps(r) for r in rs)),
    st.lists(RECORD, max_size=3).map(json.dumps),
    RECORD.map(lambda r: json.dumps(r, indent=1)),
    mutated(GOOD_RECORD), mutated(GOOD_RECORD + "\n" + GOOD_RECORD + "\n"),
    JSON.map(json.dumps), st.text(max_size=60),
)
FILE_BYTES = st.one_of(RECORDS_TEXT.map(lambda t: t.encode("utf-8")), st.binary(max_size=200))


# -- records ------------------------------------------------------------------------------------

@FUZZ
@given(data=FILE_BYTES, as_json=st.booleans())
def test_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes, as_json: bool) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(data)
    status, out, err = run(["replay", str(path), *(["--json"] if as_json else [])], capsys)
    contract(status, err)
    if as_json:
        for line in out.splitlines():
            json.loads(line)


@FUZZ
@given(text=RECORDS_TEXT)
def test_parse_records(text: str) -> None:
    with within(SECONDS):
        for line, item in parse_records(text):
            assert line >= 1 and (isinstance(item, QtttError) or item.variant is not None)


@FUZZ
@given(text=st.one_of(mutated("[wikipedia] X1:1-9 O2:1-5 X3:5-9 X3@9 O4:2-3"),
                      mutated("wikipedia x1,-,-/-,o2,-/-,-,x1 3"), st.text(max_size=40)))
def test_notation_and_position_strings(text: str) -> None:
    for parse in (from_notation, from_position):
        with within(SECONDS), suppress(QtttError):
            parse(text)


# -- rulesets -----------------------------------------------------------------------------------

VALUES = st.one_of(st.sampled_from(["3", "4", "05", " 5", "\u0665", "true", "false", "creator", "opponent",
                                    "vanish", "full", "", "=", "[", '[{"award":"rank"}]']),
                   st.text(max_size=6))
NAMES = st.builds(
    lambda base, pairs, close: f"{base}({','.join(f'{k}={v}' for k, v in pairs)}{close}",
    st.sampled_from(["qttt", *builtin_names(), "nosuch", ""]),
    st.lists(st.tuples(st.sampled_from([p.name for p in PARAMETERS] + ["scoring", "bogus", ""]), VALUES),
             max_size=4),
    st.sampled_from([")", "", "))"]))


@FUZZ
@given(name=st.one_of(NAMES, mutated("wikipedia(board=4,measurer=creator)"), st.text(max_size=30),
                     st.builds(lambda n, s: f"wikipedia(scoring={s * n})", st.integers(1, 3000),
                               st.sampled_from(["[", "{", '[{"award":'])),
                     st.text(min_size=300, max_size=5000).map(lambda t: f"kumar({t})")))
def test_canonical_names(name: str) -> None:
    with within(SECONDS):
        try:
            rs = load_ruleset(name)
        except QtttError:
            return
        again = load_ruleset(rs.canonical)  # one spelling: the canonical name is a fixed point
        assert again.key() == rs.key() and again.canonical == rs.canonical


@FUZZ
@given(data=st.one_of(mutated(GOOD_VARIANT).map(lambda t: t.encode("utf-8")),
                      mutated('[variant]\nname = "v"\nextends = "wikipedia"\n[rules]\nboard = 4\n')
                      .map(lambda t: t.encode("utf-8")),
                      st.binary(max_size=120)))
def test_variant_files(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    path = tmp_path / "v.toml"
    path.write_bytes(data)
    status, _, err = run(["show", str(path), "--json"], capsys)
    contract(status, err)
    assert status in (0, 2) and err.count("\n") <= 1


# -- suites and checkpoints ---------------------------------------------------------------------

SMALL_SUITE = json.loads(suite_path("wikipedia").read_text(encoding="utf-8"))
SMALL_SUITE["cases"], SMALL_SUITE["perft"] = SMALL_SUITE["cases"][:2], SMALL_SUITE["perft"][:1]


@FUZZ
@given(data=st.one_of(mutated(json.dumps(SMALL_SUITE)[:3000]).map(lambda t: t.encode("utf-8")),
                      JSON.map(lambda v: json.dumps(v).encode("utf-8")), st.binary(max_size=100)))
def test_suites(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "suite.json"
    path.write_bytes(data)
    with within(SECONDS):
        with suppress(QtttError):
            load_suites([path])
        problems, _ = check_files([path], tmp_path / "RETIRED")
        assert all(isinstance(p, str) and "\n" not in p for p in problems)


CHECKPOINT = st.one_of(
    st.fixed_dictionaries({}, optional={
        "ruleset": st.sampled_from(["qttt(board=2)", "wikipedia", "x"]),
        "key": st.sampled_from(["owner", "z"]),
        "ply": st.integers(-1, 3) | JSON, "games_by_ply": st.lists(st.integers(0, 3)) | JSON,
        "nodes_by_ply": st.lists(st.integers(0, 3)) | JSON, "positions_by_ply": st.lists(st.integers(0, 3)),
        "deadlocks": st.integers(0, 2) | JSON, "frontier": st.lists(st.tuples(st.lists(st.integers(-5, 20)),
                                                                              st.integers(0, 3))) | JSON,
        "seed": st.integers(0, 1), "chunk": st.integers(1, 3), "chunks": st.integers(1, 3),
        "games": st.integers(1, 3),
        "done": st.lists(st.integers(-1, 3)) | JSON, "histogram": JSON, "lines": JSON,
        "start": st.just([]) | JSON, "values": st.dictionaries(st.text(max_size=3), JSON, max_size=3)}),
    JSON)


@FUZZ
@given(data=CHECKPOINT, task=st.sampled_from(["count", "random", "solve"]), digest=st.booleans())
def test_checkpoints(tmp_path: Path, data: object, task: str, digest: bool) -> None:
    """Any checkpoint, with a valid digest (anyone can compute one) or without: a result or a
    QtttError, never a crash."""
    path = tmp_path / "cp.json"
    if digest and isinstance(data, dict):
        write_checkpoint(path, data)
    else:
        path.write_text(json.dumps(data))
    rs = load_ruleset("qttt(board=2)")
    with within(SECONDS):
        try:
            if task == "count":
                count_games(rs, max_ply=3, checkpoint=path)
            elif task == "random":
                sample_games(rs, 3, chunk=1, checkpoint=path, core="python")
            else:
                solve(rs, checkpoint=path, core="python")
        except QtttError:
            pass


# -- the engine protocol and the play prompt ----------------------------------------------------

COMMANDS = ["hello", "new", "apply", "state", "legal", "perft", "quit", "go", "bogus"]
REQUEST = st.fixed_dictionaries(
    {"cmd": st.sampled_from(COMMANDS) | JSON},
    optional={"id": JSON,
              "variant": st.sampled_from(["wikipedia", "kumar", "qttt(board=2)", "nosuch"]) | JSON,
              "action": ACTION, "depth": st.integers(-1, 30) | JSON, "divide": st.booleans() | JSON})
LINES = st.lists(st.one_of(REQUEST.map(json.dumps),
                           mutated('{"id": 1, "cmd": "apply", "action": {"place": [0, 1]}}'),
                           st.text(max_size=30), st.just("[" * 5000)), min_size=1, max_size=8)


@FUZZ
@given(lines=LINES)
def test_protocol_lines(lines: list[str]) -> None:
    engine = QtttEngine()
    respond(engine, '{"id": 0, "cmd": "new", "variant": "wikipedia"}')
    with mock.patch.object(protocol, "PERFT_LIMIT", 3_000), within(SECONDS):
        for line in lines:
            text, _ = respond(engine, line)
            answer = json.loads(text)
            assert isinstance(answer, dict) and isinstance(answer["ok"], bool), text
            assert "\n" not in text


@FUZZ
@given(typed=st.lists(st.one_of(st.sampled_from(["1 2", "5", "9 9", "0 1", "moves", "undo", "help", "u", "?",
                                                 "1-10", "1,9", "٣ ٥", "99999999999999999999 1", ""]),
                                st.text(max_size=12)), max_size=15),
       ruleset=st.sampled_from(["wikipedia", "qttt(board=2)", "kumar"]))
def test_play_prompt(typed: list[str], ruleset: str) -> None:
    lines = iter(typed)
    written: list[str] = []

    def read(prompt: str) -> str:
        written.append(prompt)
        try:
            return next(lines)
        except StopIteration:
            raise EOFError from None  # the end of the typed lines is the end of input

    game = Game(State.initial(load_ruleset(ruleset)), {"x": None, "o": None}, False, read, written.append)
    with within(SECONDS):
        assert game.play() in ("over", "deadlock", "quit", "eof")


@FUZZ
@given(text=st.one_of(st.lists(ACTION, max_size=6).map(json.dumps), mutated('[{"place": [0, 1]}]'),
                      st.text(max_size=20)),
       depth=st.sampled_from(["1", "2", "0", "-3", "x", "40"]))
def test_perft_flags(capsys: pytest.CaptureFixture[str], text: str, depth: str) -> None:
    from qttt.cli import perft as perft_cli
    with mock.patch.object(perft_cli, "PERFT_LIMIT", 3_000):
        status, _, err = run(["perft", "wikipedia", "--depth", depth, "--actions", text], capsys)
    contract(status, err)
    assert err.count("\n") <= 1
