"""The command line as the interchange contract states it: replay exit codes and one-line
errors, {"error": ...} lines for JSON Lines, `random` determinism and atomic output,
`variants` and `show`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from qttt import builtin_names, load_ruleset
from qttt.cli import main
from qttt.vocabulary import PARAMETERS, format_value

GOOD = {"variant": "wikipedia", "actions": [{"place": [0, 8]}, {"place": [0, 4]}, {"place": [4, 8]},
                                            {"measure": 8}]}


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(argv)
    out = capsys.readouterr()
    return status, out.out, out.err


def test_replay_interchange_example(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # interchange.md: X1 {0,8}, O2 {0,4}, X3 {4,8} close the cycle 0-4-8; O measures X3 into 8:
    # X1 into 0, O2 into 4; no line, so O places move 4
    path = tmp_path / "one.json"
    path.write_text(json.dumps(GOOD))
    status, out, err = run(["replay", str(path), "--json"], capsys)
    assert (status, err) == (0, "")
    assert json.loads(out) == {
        "variant": "wikipedia", "board": ["x1", [], [], [], "o2", [], [], [], "x3"],
        "to_move": "o", "phase": "place", "move": 4, "cycle": None, "over": False,
        "scores": {"x": "0", "o": "0"},
    }
    status, out, err = run(["replay", str(path)], capsys)  # the text board
    assert status == 0 and "record at line 1: wikipedia, 4 actions" in out


def test_replay_jsonl_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [json.dumps(GOOD),
             json.dumps({"variant": "wikipedia", "actions": [{"place": [0, 1]}, {"measure": 0}]}),
             '{"variant": "wikipedia", "actions": [',
             json.dumps({"variant": "no-such", "actions": []}),
             json.dumps({"variant": "wikipedia", "actions": [{"place": [0, 1]}, {"place": [1]}]}),
             json.dumps(GOOD)]
    path = tmp_path / "games.jsonl"
    path.write_text("\n".join(lines) + "\n")
    status, out, err = run(["replay", str(path), "--json"], capsys)
    assert status == 1
    states = [json.loads(line) for line in out.splitlines()]
    assert len(states) == 6  # one line per record, in input order
    assert states[0] == states[5] and states[0]["move"] == 4
    assert states[1] == {"error": {"kind": "illegal", "rule": "measure-pending", "action": 1,
                                   "message": "no cycle is pending; there is nothing to measure"}}
    assert states[2]["error"]["kind"] == "malformed" and states[2]["error"]["action"] is None
    assert (states[3]["error"]["kind"], states[3]["error"]["rule"]) == ("variant", "record-variant")
    assert (states[4]["error"]["rule"], states[4]["error"]["action"]) == ("record-format", 1)
    messages = err.splitlines()
    assert len(messages) == 4
    assert messages[0].startswith("qttt: record at line 2, action 1: ")
    assert messages[0].endswith("(rule measure-pending)")
    assert messages[1].startswith("qttt: record at line 3: not JSON")
    assert "line 4" in messages[2] and "no-such" in messages[2]
    assert messages[3].startswith("qttt: record at line 5, action 1: ")


def test_replay_failure_without_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"variant": "wikipedia", "actions": [{"place": [4, 4]}]}))
    status, out, err = run(["replay", str(path)], capsys)
    assert (status, out) == (1, "")
    assert err == ("qttt: record at line 1, action 0: both marks in cell 4: a placement needs two "
                   "different cells unless it fills the last open cell (rule place-distinct)\n")


def test_replay_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["replay", str(tmp_path / "nope.jsonl")], capsys)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1 and "nope.jsonl" in err and "does not exist" in err


def test_subprocess_stdin_and_no_traceback(tmp_path: Path) -> None:
    text = json.dumps(GOOD) + "\n" + json.dumps({"variant": "wikipedia", "actions": [{"measure": 3}]}) + "\n"
    proc = subprocess.run([sys.executable, "-m", "qttt", "replay", "-", "--json"], input=text,
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    assert proc.returncode == 1
    assert len(proc.stdout.splitlines()) == 2 and json.loads(proc.stdout.splitlines()[0])["move"] == 4
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "measure-pending" in proc.stderr
    bad = tmp_path / "bad.toml"
    bad.write_text("[variant\n")
    proc = subprocess.run([sys.executable, "-m", "qttt", "show", str(bad)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and str(bad) in proc.stderr and "not valid TOML" in proc.stderr


def test_random_is_deterministic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, first, _ = run(["random", "kumar", "-n", "20", "--seed", "7"], capsys)
    _, again, _ = run(["random", "kumar", "-n", "20", "--seed", "7"], capsys)
    _, other, _ = run(["random", "kumar", "-n", "20", "--seed", "8"], capsys)
    assert first == again != other
    records = [json.loads(line) for line in first.splitlines()]
    assert len(records) == 20 and {r["variant"] for r in records} == {"kumar"}
    target = tmp_path / "games.jsonl"
    status, out, _ = run(["random", "kumar", "-n", "20", "--seed", "7", "-o", str(target)], capsys)
    assert (status, out) == (0, "")
    assert target.read_text() == first
    status, out, _ = run(["replay", str(target), "--json"], capsys)
    assert status == 0 and all(json.loads(line)["over"] for line in out.splitlines())


def test_random_output_is_atomic(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "games.jsonl"
    target.write_text("keep me\n")
    status, _, err = run(["random", "no-such-ruleset", "-n", "3", "-o", str(target)], capsys)
    assert status == 2 and "no-such-ruleset" in err
    assert target.read_text() == "keep me\n"  # a failed run leaves the old file
    run(["random", "wikipedia", "-n", "3", "-o", str(target)], capsys)
    assert len(target.read_text().splitlines()) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.jsonl"]  # no temporary left


def test_variants(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["variants"], capsys)
    assert status == 0
    rows = out.splitlines()
    assert [row.split()[0] for row in rows] == list(builtin_names(None))
    assert "4×4" in rows[list(builtin_names(None)).index("bonus4x4")]
    assert "16×16" in rows[list(builtin_names(None)).index("intelligent")]
    assert all("3×3" in row for row in rows if row.split()[0] not in ("bonus4x4", "intelligent"))


def test_show(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(["show", "russian-unstable"], capsys)
    assert status == 0 and "canonical: russian-unstable" in out
    for name in ("board", "measurer", "two_cycles", "last_square", "untouched", "end", "end_line"):
        assert name in out
    status, out, _ = run(["show", "wikipedia(two_cycles=false)", "--json"], capsys)
    shown = json.loads(out)
    assert shown["canonical"] == "wikipedia(two_cycles=false)"
    assert shown["params"] == load_ruleset("wikipedia(two_cycles=false)").to_dict()
    assert shown["params"]["two_cycles"] is False
    status, _, err = run(["show", "wikipedia(board=99)"], capsys)
    assert status == 2 and "board = 99" in err and "integer from 2 to 8" in err


def test_show_lists_each_parameters_allowed_values(capsys: pytest.CaptureFixture[str]) -> None:
    """The README says `qttt show NAME` lists the allowed values: each enumerated parameter's row
    names every value it allows."""
    assert main(["show", "wikipedia"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows: dict[str, list[str]] = {}  # parameter: its allowed cell, line by line (folded)
    for line in lines[:next(i for i, line in enumerate(lines) if "scoring" in line)]:
        cells = line.split("│")
        if len(cells) == 7:
            name = cells[1].strip() or list(rows)[-1]
            rows.setdefault(name, []).append(cells[4].strip())
    for p in PARAMETERS:
        if "quantum" in p.games and p.allowed and p.type is str:
            allowed = "".join(rows[p.name]).replace(" ", "").split(",")
            assert [format_value(v) for v in p.allowed] == allowed, (p.name, allowed)
