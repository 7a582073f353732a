"""Every input class of issue 13 (hostile input), one test each: the command answers with one
line naming the problem (and the rule, where one applies) and the documented exit status; exit 3
is a bug. The table of these classes is docs/hostile-input.md."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from contract import one_line, run

from qttt import load_ruleset
from qttt.cli import main
from qttt.conformance import protocol
from qttt.conformance.perft import perft_counts
from qttt.conformance.protocol import QtttEngine, respond
from qttt.conformance.suite import suite_path
from qttt.errors import FileError, UsageError
from qttt.quantum.engine import State

GOOD = {"variant": "wikipedia", "actions": [{"place": [0, 8]}, {"place": [0, 4]}]}
DEEP = "[" * 100_000
BINARY = b"\xff\xfe\x00\x01qttt\x80"


def file_with(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8")
    return path


# -- files that are not text, not JSON, not what the command reads --------------------------------

@pytest.mark.parametrize("argv", [["replay"], ["replay", "--json"], ["show"], ["check"], ["perft"],
                                  ["random"], ["conform", "--engine", "qttt engine", "--suite"]])
def test_binary_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    path = file_with(tmp_path, "bin.json", BINARY)
    status, _, err = run([*argv, str(path)], capsys)
    assert status == 2
    one_line(err, str(path), "not UTF-8", "byte 0")


def test_binary_file_to_vectors_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = file_with(tmp_path, "bin.json", BINARY)
    status, out, err = run(["vectors", "check", str(path)], capsys)
    assert (status, err) == (1, "")  # vectors check reports problems on standard output, exit 1
    assert f"{path}: not UTF-8" in out and "1 problems" in out


def test_json_that_is_not_a_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = file_with(tmp_path, "record.json", json.dumps(GOOD))
    status, out, err = run(["conform", "--engine", "qttt engine", "--suite", str(path)], capsys)
    assert (status, out) == (2, "")
    one_line(err, str(path), "not a conformance suite")


def test_damaged_committed_suite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    suite = json.loads(suite_path("wikipedia").read_text(encoding="utf-8"))
    del suite["cases"][0]["steps"]
    path = file_with(tmp_path, "wikipedia.json", json.dumps(suite))
    status, _, err = run(["conform", "--engine", "qttt engine", "--suite", str(path)], capsys)
    assert status == 2
    one_line(err, str(path), "not a conformance suite", "cases[0]")
    from qttt.cli.vectors import _committed_ids
    with pytest.raises(FileError, match="damaged"):
        _committed_ids(file_with(tmp_path, "broken.json", '{"cases": [{"no id": 1}]}'))
    truncated = file_with(tmp_path, "cut.json", suite_path("kumar").read_text(encoding="utf-8")[:500])
    with pytest.raises(FileError, match="not JSON"):
        _committed_ids(truncated)


@pytest.mark.parametrize("argv", [["replay"], ["vectors", "check"],
                                  ["conform", "--engine", "qttt engine", "--suite"]])
def test_deeply_nested_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    path = file_with(tmp_path, "deep.json", DEEP)
    status, out, err = run([*argv, str(path)], capsys)
    assert status in (1, 2)
    text = err if status == 2 or argv[0] == "replay" else out
    assert "nested too deeply" in text or "JSON object" in text, text
    assert "Traceback" not in err and "internal error" not in err


def test_deeply_nested_record_and_actions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = file_with(tmp_path, "deep.json", '{"variant": "wikipedia", "actions": ' + DEEP)
    status, _, err = run(["replay", str(path)], capsys)
    assert status == 1
    one_line(err, "nested too deeply", "record-format")
    status, _, err = run(["perft", "wikipedia", "--depth", "1", "--actions", DEEP], capsys)
    assert status == 2
    one_line(err, "--actions", "nested too deeply")


def test_empty_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("", "\n  \n"):
        path = file_with(tmp_path, "empty.jsonl", text)
        status, out, err = run(["replay", str(path)], capsys)
        assert (status, out) == (2, "")
        one_line(err, str(path), "no records")


def test_missing_file_and_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["replay", str(tmp_path)], capsys)
    assert status == 2
    one_line(err, str(tmp_path), "is a directory")
    status, _, err = run(["show", str(tmp_path / "none.toml")], capsys)
    assert status == 2
    one_line(err, "none.toml", "does not exist")


# -- checkpoints --------------------------------------------------------------------------------

@pytest.mark.parametrize("task", ["count", "random", "solve"])
@pytest.mark.parametrize("content", ['{"ruleset": "qttt(board=2)"}', "[1, 2", '"text"',
                                     '{"ruleset": "qttt(board=2)", "start": [], "values": {"x": 1}}'])
def test_damaged_checkpoint(tmp_path: Path, capsys: pytest.CaptureFixture[str], task: str,
                            content: str) -> None:
    path = file_with(tmp_path, "cp.json", content)
    status, out, err = run(["analyze", task, "qttt(board=2)", "--quiet", "--checkpoint", str(path)],
                           capsys)
    assert (status, out) == (2, "")
    one_line(err, str(path))
    assert "damaged" in err or "not JSON" in err or "another run" in err or "is for" in err


def test_count_checkpoint_resumed_with_a_smaller_max_ply(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    cp = tmp_path / "cp.json"
    status, first, _ = run(["analyze", "count", "wikipedia", "--max-ply", "3", "--quiet",
                            "--checkpoint", str(cp)], capsys)
    assert status == 0 and "within 3 plies" in first
    status, out, err = run(["analyze", "count", "wikipedia", "--max-ply", "2", "--quiet",
                            "--checkpoint", str(cp)], capsys)
    assert (status, out) == (2, "")
    one_line(err, str(cp), "3 plies", "--max-ply 2")
    status, again, _ = run(["analyze", "count", "wikipedia", "--max-ply", "3", "--quiet",
                            "--checkpoint", str(cp)], capsys)
    assert (status, again) == (0, first)


# -- the engine protocol ------------------------------------------------------------------------

def answer(engine: QtttEngine, line: str) -> dict[str, object]:
    text, _ = respond(engine, line)
    data = json.loads(text)
    assert isinstance(data, dict) and isinstance(data["ok"], bool)
    return data


def test_engine_deep_nesting_and_long_lines() -> None:
    engine = QtttEngine()
    assert answer(engine, '{"id": 1, "cmd": "new", "variant": "wikipedia"}')["ok"]
    for line in (DEEP, '{"id": 2, "cmd": "apply", "action": ' + DEEP + "}",
                 '{"id": 3, "cmd": "apply", "action": ' + "[" * 990 + "]" * 990 + "}",
                 '{"id": 4, "cmd": "apply", "action": "' + "x" * (protocol.MAX_REQUEST + 1) + '"}'):
        got = answer(engine, line)
        assert got["ok"] is False and got["error"]["kind"] == "protocol"  # type: ignore[index]
    assert answer(engine, '{"id": 5, "cmd": "state"}')["ok"]  # still serving


def test_engine_serve_skips_an_overlong_line_in_pieces() -> None:
    import io
    long = '{"id": 1, "cmd": "hello", "pad": "' + "x" * (3 * protocol.MAX_REQUEST) + '"}\n'
    out = io.StringIO()
    protocol.serve(QtttEngine(), io.StringIO(long + '{"id": 2, "cmd": "quit"}\n'), out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [d.get("id") for d in lines] == [None, 2]
    assert "longer than" in lines[0]["error"]["message"]


def test_engine_perft_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(protocol, "PERFT_LIMIT", 5_000)
    engine = QtttEngine()
    answer(engine, '{"id": 1, "cmd": "new", "variant": "wikipedia"}')
    for request in ('{"id": 2, "cmd": "perft", "depth": 100}',
                    '{"id": 3, "cmd": "perft", "depth": 100, "divide": true}'):
        started = time.perf_counter()
        got = answer(engine, request)
        assert got["ok"] is False and got["error"]["kind"] == "unsupported"  # type: ignore[index]
        assert "5,000" in got["error"]["message"]  # type: ignore[index]
        assert time.perf_counter() - started < 30  # a guard against a hang, not a speed claim
    assert answer(engine, '{"id": 4, "cmd": "perft", "depth": 2}') == {"id": 4, "ok": True, "nodes": 1296}


def test_perft_limit_and_force(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    from qttt.cli import perft as perft_cli
    monkeypatch.setattr(perft_cli, "PERFT_LIMIT", 100)
    status, out, err = run(["perft", "wikipedia", "--depth", "3"], capsys)
    assert (status, out) == (2, "")
    one_line(err, "more than 100 positions", "--force")
    status, out, _ = run(["perft", "wikipedia", "--depth", "3", "--force"], capsys)
    assert status == 0 and out.splitlines()[-1] == "depth 3: 45432"
    assert perft_counts(State.initial(load_ruleset("wikipedia")), 3, 10_000) == [36, 1296, 45432]
    with pytest.raises(UsageError, match="more than 1,000 positions"):
        perft_counts(State.initial(load_ruleset("wikipedia")), 3, 1_000)


# -- streaming ----------------------------------------------------------------------------------

def test_random_streams_into_a_closed_pipe(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", "10000000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    try:
        status = proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise
    assert json.loads(first)["variant"] == "wikipedia"
    assert status == 0 and proc.stderr.read() == b""


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads the peak from /proc")
def test_replay_of_a_50_mb_record_stops_at_action_2(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    head = '{"variant": "wikipedia", "actions": [{"place": [0, 1]}, {"place": [2, 3]}, {"place": [2, 2]}'
    path.write_text(head + ', {"place": [0, 1]}' * 3_000_000 + "]}\n")
    assert path.stat().st_size > 50_000_000
    # the peak of this process alone (VmHWM; ru_maxrss would carry over pytest's own across exec)
    measure = ("import re, sys\nfrom pathlib import Path\nfrom qttt.cli import main\n"
               "status = main(sys.argv[1:])\n"
               "print(re.search(r'VmHWM:\\s+(\\d+)', Path('/proc/self/status').read_text())[1], "
               "file=sys.stderr)\nsys.exit(status)")
    proc = subprocess.run([sys.executable, "-c", measure, "replay", str(path)], capture_output=True,
                          text=True, check=False, timeout=120)
    assert proc.returncode == 1
    *message, peak = proc.stderr.splitlines()
    one_line("\n".join(message) + "\n", "record at line 1, action 2", "place-distinct")
    assert int(peak) < 150_000  # kilobytes: bounded, where parsing it whole took about 1 GB


def test_replay_prints_each_record_as_it_goes(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "qttt", "replay", "-", "--json"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(json.dumps(GOOD) + "\n")
    proc.stdin.flush()
    first = proc.stdout.readline()  # answered before the input ends
    proc.stdin.close()
    assert json.loads(first)["move"] == 3
    assert proc.wait(timeout=60) == 0


# -- flags --------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["random", "wikipedia", "-n", "0"], ["random", "wikipedia", "-n", "-1"],
    ["check", "wikipedia", "--games", "0"], ["check", "wikipedia", "--games", "-5"],
    ["check", "wikipedia", "--timeout", "-1"], ["check", "wikipedia", "--timeout", "nan"],
    ["analyze", "count", "wikipedia", "--max-ply", "-1"], ["analyze", "random", "wikipedia", "-n", "0"],
    ["analyze", "random", "wikipedia", "--chunk", "0"], ["analyze", "solve", "wikipedia", "--workers", "-2"],
    ["conform", "--engine", "x", "--timeout", "0"], ["conform", "--engine", "x", "--perft-timeout", "inf"],
    ["perft", "wikipedia", "--depth", "0"], ["perft", "wikipedia", "--depth", "many"],
])
def test_flag_out_of_range(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    out = capsys.readouterr()
    assert (stop.value.code, out.out) == (2, "")
    one_line(out.err, "argument", "--help")
    assert "rule" not in out.err


# -- writers ------------------------------------------------------------------------------------

def test_writer_never_creates_directories(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "no" / "such" / "games.jsonl"
    status, _, err = run(["random", "wikipedia", "-o", str(target)], capsys)
    assert status == 2 and not (tmp_path / "no").exists()
    one_line(err, str(target), "does not exist")
    status, _, err = run(["random", "wikipedia", "-o", str(tmp_path)], capsys)
    assert status == 2 and list(tmp_path.iterdir()) == []  # nothing half-written
    one_line(err, str(tmp_path), "is a directory")
    assert ".tmp" not in err


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_writer_honours_the_umask(tmp_path: Path, capsys: pytest.CaptureFixture[str], mask: int) -> None:
    old = os.umask(mask)
    try:
        assert run(["random", "wikipedia", "-o", str(tmp_path / "g.jsonl")], capsys)[0] == 0
    finally:
        os.umask(old)
    assert (tmp_path / "g.jsonl").stat().st_mode & 0o777 == 0o666 & ~mask


def test_save_asks_before_replacing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QTTT_DATA", str(tmp_path))  # --save writes to the user's data directory
    argv = ["analyze", "count", "qttt(board=2)", "--quiet", "--save"]
    assert run(argv, capsys)[0] == 0
    saved = (tmp_path / "analysis" / "qttt_board_2.json").read_text()
    status, out, err = run(argv, capsys)
    assert (status, out) == (2, "")
    one_line(err, "already holds a count result", "--force")
    assert run([*argv, "--force"], capsys)[0] == 0
    assert (tmp_path / "analysis" / "qttt_board_2.json").read_text() == saved


# -- ruleset names ------------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "needle"), [
    ("wikipedia(board=05)", 'board = "05"'), ("wikipedia(board= 5)", 'board = " 5"'),
    ("wikipedia(board=\u0665)", "board = "), ("wikipedia(board=+5)", 'board = "+5"'),
    ("wikipedia(measurer=creator,measurer=opponent)", "measurer is given twice"),
    ("wikipedia(two_cycles=True)", "two_cycles"),
    ("wikipedia(scoring=" + DEEP + ")", "scoring is nested too deeply"),
    ("wikipedia(board=4," + "x" * 5000 + "=1)", "unknown key 'xxxx"),
    ("x" * 5000 + ".toml", "does not exist"),
])
def test_one_spelling_per_ruleset(capsys: pytest.CaptureFixture[str], name: str, needle: str) -> None:
    status, out, err = run(["show", name], capsys)
    assert (status, out) == (2, "")
    one_line(err, needle, "variant")
    assert len(err) < 400  # the name is cut in the message


def test_names_and_titles_follow_the_parameters() -> None:
    rs = load_ruleset("wikipedia(board=5)")
    assert "3×3" not in rs.title and rs.title == "wikipedia with board=5"
    same = load_ruleset("russian(measurer=creator,board=4)")
    assert same.name == same.canonical == "russian(board=4,measurer=creator)"
    assert load_ruleset("wikipedia(board=3)").name == "wikipedia"
    assert load_ruleset("wikipedia(board=3)").title == load_ruleset("wikipedia").title


def test_records_from_a_file_replay_anywhere(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "my.toml").write_text('[variant]\nname = "mine"\nextends = "wikipedia"\n[rules]\nboard = 4\n')
    monkeypatch.chdir(work)
    status, out, _ = run(["random", "my.toml", "-n", "2"], capsys)
    assert status == 0 and json.loads(out.splitlines()[0])["variant"] == "wikipedia(board=4)"
    assert load_ruleset("my.toml").title == "wikipedia with board=4"
    (tmp_path / "games.jsonl").write_text(out)
    monkeypatch.chdir(tmp_path)
    shutil.rmtree(work)
    assert run(["replay", "games.jsonl"], capsys)[0] == 0


def test_variant_file_messages(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = {'[variant]\nname = "x"\nextends = "gone.toml"\n': ["gone.toml", "not found"],
             '[variant]\ntitle = "no name"\n': ["variant.name is missing"],
             '[variant]\nname = 1979-05-27\n': ['"1979-05-27"'],
             '[variant]\nname = " \\t"\n': ['variant.name = " \\t" is not allowed', "not only white space"],
             '[variant]\nname = "d"\n[rules]\nboard = 1979-05-27T07:32:00\n': ["rules.board"],
             "a = " + "[" * 5000 + "]" * 5000 + "\n": ["nested too deeply"]}
    for text, needles in cases.items():
        path = file_with(tmp_path, "v.toml", text)
        status, _, err = run(["show", str(path)], capsys)
        assert status == 2
        one_line(err, str(path), *needles)
        assert "None" not in err


# -- limits on work -----------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [["analyze", "solve", "qttt(board=5)"],
                                  ["analyze", "count", "wikipedia(board=4)"],
                                  ["analyze", "fairness", "qttt(board=4)", "--search"]])
def test_exact_search_on_a_big_board_asks_for_force(capsys: pytest.CaptureFixture[str],
                                                    argv: list[str]) -> None:
    status, out, err = run([*argv, "--quiet"], capsys)
    assert (status, out) == (2, "")
    one_line(err, "cells", "sequences of 2 plies", "--force")


def test_greedy_says_it_is_thinking_on_a_big_board() -> None:
    from qttt.quantum.engine import State
    from qttt.quantum.play import Game
    state = State.initial(load_ruleset("qttt(board=5)"))
    first = state.legal_actions()[0]
    written: list[str] = []
    player = SimpleNamespace(name="greedy", choose=lambda s: first)

    def read(prompt: str) -> str:
        raise EOFError

    game = Game(state, {"x": player, "o": None}, False, read, written.append)
    assert game.play() == "eof"
    assert written[0].startswith("x (greedy) is thinking: 300 actions")


# -- small things -------------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("spec", ["nocolon", "nosuchmodule:factory"])
def test_conform_python_flag_errors_cite_no_rule(capsys: pytest.CaptureFixture[str], spec: str) -> None:
    status, out, err = run(["conform", "--python", spec], capsys)
    assert (status, out) == (2, "")
    one_line(err, f"--python {spec!r}")
    assert "rule" not in err


def test_check_resolves_every_name_first(capsys: pytest.CaptureFixture[str]) -> None:
    started = time.perf_counter()
    status, out, err = run(["check", "kumar", "nosuch"], capsys)
    assert (status, out) == (2, "")
    one_line(err, "nosuch", "record-variant")
    assert time.perf_counter() - started < 30  # kumar was not checked first (a guard, not a timing)


def test_check_says_why_it_exits_1(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import verify.cli
    import verify.quantum.check
    fake = {"wikipedia": (), "bonus4x4": ("violated",)}
    monkeypatch.setattr(verify.quantum.check, "check", lambda name, **kw: SimpleNamespace(
        spec=name, walk=None, findings=[], design=[], design_findings=[],
        has=lambda status, name=name: status in fake[name]))
    monkeypatch.setattr(verify.cli, "print_report", lambda out, report, verbose=False: None)
    status, out, _ = run(["check", "wikipedia", "bonus4x4", "--quiet"], capsys)
    assert status == 1
    one_line(out, "2 rulesets checked", "exit status 1", "violated: bonus4x4")


def test_solve_prints_actions_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["analyze", "solve", "qttt(board=2)", "--quiet", "--core", "python"], capsys)
    assert status == 0 and "Place(" not in out and '{"place": [0, 1]}' in out
