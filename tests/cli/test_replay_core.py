"""`qttt replay --json` through the compiled core (in this process, or on 2 or 3 worker processes
replaying pieces of the file of any size) against the Python engine (`--core python`): the same
bytes on standard output and error (interleaved as written), the same exit status, for files of
records drawn by Hypothesis: random games of any ruleset (both families, random rule parameters)
cut anywhere, laid out in any JSON whitespace, with illegal or malformed actions, extra keys,
unknown variants, broken lines, documents instead of JSON Lines, bytes that are not UTF-8, and
input read in chunks of any size."""

from __future__ import annotations

import contextlib
import io
import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lanes import examples

import qttt.io
import qttt.jsonstream
from qttt.cli import main
from qttt.cli import replay as replay_cli
from qttt.games import random_game
from qttt.notation import action_to_json
from qttt.processes import write_pieces
from qttt.quantum.compiled import available
from qttt.quantum.strategies import rulesets
from qttt.variant import load_ruleset

pytestmark = pytest.mark.skipif(available() is not None, reason="no C compiler: nothing to compare")

SPACE = st.sampled_from(["", "", "", " ", "  ", "\t", "\r", " \r "])


@st.composite
def records(draw: st.DrawFn) -> str:
    """One line: a record of a random game in some layout, often broken in some way."""
    rs = draw(st.one_of(rulesets(), st.just(load_ruleset("intelligent"))))  # the other family: the engine's
    game = random_game(rs, random.Random(draw(st.integers(0, 9999))))[0]
    actions: list[object] = [action_to_json(a) for a in game]
    actions = actions[:draw(st.integers(0, len(actions)))]
    cells = rs.board ** 2
    variant: object = draw(st.sampled_from([rs.canonical] * 6 + ["nope", "wiki\\u0070edia", 7]))
    fault = draw(st.sampled_from(["none"] * 6 + ["action", "value", "extra", "order", "cut", "twice",
                                                 "garbage", "blank"]))
    if fault == "action":  # any action at any point: illegal ones mostly
        kind = draw(st.sampled_from(["place", "measure"]))
        cell = st.integers(-1, cells)
        act = {kind: [draw(cell), draw(cell)] if kind == "place" else draw(cell)}
        actions.insert(draw(st.integers(0, len(actions))), act)
    if fault == "garbage":
        return draw(st.text(alphabet='{}[]",:0123456789 abcdeilmnoprstvwx\\.-', max_size=40))
    if fault == "blank":
        return draw(SPACE)
    s = [draw(SPACE) for _ in range(8)]
    comma, colon = draw(SPACE) + "," + draw(SPACE), draw(SPACE) + ":" + draw(SPACE)
    texts = [json.dumps(a, separators=(comma, colon)) for a in actions]
    if fault == "value" and texts:
        i = draw(st.integers(0, len(texts) - 1))
        odd = draw(st.sampled_from(["1.0", "01", "-0", "1e0", "true", '"1"', "99999"]))
        texts[i] = texts[i].replace(draw(st.sampled_from(["0", "1", "2"])), odd, 1)
    body = f'"actions"{s[0]}:{s[1]}[{s[2]}' + f"{s[3]},{s[4]}".join(texts) + f"{s[5]}]"
    head = f'"variant"{s[6]}:{s[7]}{json.dumps(variant)}'
    parts = [body, head] if fault == "order" else [head, body]
    if fault == "extra":
        parts.append('"players": ["a", "b"]')
    if fault == "twice":
        parts.append(body)
    line = draw(SPACE) + "{" + ", ".join(parts) + "}" + draw(SPACE)
    if fault == "cut":
        line = line[:draw(st.integers(0, len(line)))]
    return line


@st.composite
def files(draw: st.DrawFn) -> bytes:
    """JSON Lines of such records (LF or CRLF, with or without a last line end), now and then a
    document (a list, or a first record laid over lines) or a byte that is not UTF-8."""
    lines = draw(st.lists(records(), min_size=0, max_size=12))
    end = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = end.join(lines) + draw(st.sampled_from([end, ""]))
    form = draw(st.sampled_from(["lines"] * 8 + ["list", "pretty"]))
    if form == "list":
        text = "[" + ",\n".join(line for line in lines if line.strip()) + "]"
    elif form == "pretty" and text.strip():
        text = "{\n" + text.lstrip()[1:]
    data = text.encode()
    if draw(st.integers(0, 9)) == 0:
        at = draw(st.integers(0, len(data)))
        data = data[:at] + b"\xff" + data[at:]
    return data


def replayed(path: Path, core: str, workers: int = 1) -> tuple[int, str]:
    """Exit status and the merged standard output and error of `qttt replay --json`."""
    both = io.StringIO()
    with contextlib.redirect_stdout(both), contextlib.redirect_stderr(both):
        status = main(["replay", str(path), "--json", "--core", core, "--workers", str(workers)])
    return status, both.getvalue()


@example(data=b'{"variant":"wikipedia", "actions":[]}\r\n{"\r\n{"variant":"wikipedia", "actions":['
         + b"1," * 120
         + b"1]}\r\n", chunk=1, most=200, workers=1, piece=16)  # a broken line before a long one
@settings(max_examples=examples(150),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=files(), chunk=st.sampled_from([1, 7, 64, 1 << 16]), most=st.sampled_from([30, 200, 1 << 20]),
       workers=st.sampled_from([1, 2, 3]), piece=st.sampled_from([16, 100, 1 << 18]))
def test_core_replays_as_the_engine(data: bytes, chunk: int, most: int, workers: int, piece: int,
                                    tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(qttt.io, "CHUNK", chunk)  # records and lines cut across reads
    monkeypatch.setattr(qttt.jsonstream, "MAX_VALUE", most)  # lines longer than the scanner reads whole
    monkeypatch.setattr(replay_cli, "MAX_VALUE", most)
    monkeypatch.setattr(replay_cli, "PIECE_BYTES", piece)  # the pieces of the file the workers replay
    monkeypatch.setattr(replay_cli, "MIN_PIECE", 1)
    assert replayed(path, "auto", workers) == replayed(path, "python")


def test_core_serves_plain_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Records as `qttt random` writes them are replayed by the core, not the engine (the test
    above would pass if the core never served)."""
    path = tmp_path / "games.jsonl"
    assert main(["random", "wikipedia", "-n", "300", "--seed", "1", "-o", str(path)]) == 0
    path.write_text(path.read_text() + '{"variant": "bonus4x4", "actions": [{"place": [0, 15]}]}\n')
    monkeypatch.setattr(replay_cli, "replay_one", None)  # the engine's replay, gone
    status, out = replayed(path, "auto")
    assert status == 0 and out.count("\n") == 301 and '"board": [["x1"]' in out.splitlines()[-1]


def test_core_leaves_illegal_records_to_the_engine(tmp_path: Path) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text('{"variant":"wikipedia","actions":[{"place":[0,1]},{"measure":4}]}\n'
                    '{"variant":"wikipedia","actions":[{"place":[0,1]}]}\n')
    status, out = replayed(path, "auto")
    assert status == 1
    assert out.splitlines()[:2] == [
        "qttt: record at line 1, action 1: no cycle is pending; there is nothing to measure (rule "
        "measure-pending)",
        '{"error": {"kind": "illegal", "rule": "measure-pending", "message": "no cycle is pending; there '
        'is nothing to measure", "action": 1}}']
    assert out.splitlines()[2].startswith('{"variant": "wikipedia", "board": [["x1"], ["x1"], [],')


def test_workers_replay_pieces_of_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is cut into pieces that worker processes replay, the core serving them (the
    differential test above would pass if no piece were ever made)."""
    path = tmp_path / "games.jsonl"
    assert main(["random", "wikipedia", "-n", "300", "--seed", "1", "-o", str(path)]) == 0
    monkeypatch.setattr(replay_cli, "MIN_PIECE", 1)
    monkeypatch.setattr(replay_cli, "PIECE_BYTES", 1000)
    made: list[int] = []
    real = write_pieces

    def counted(*args: object, **kwargs: object) -> object:
        made.append(args[1])  # type: ignore[arg-type]
        return real(*args, **kwargs)  # type: ignore[arg-type]
    monkeypatch.setattr(replay_cli, "write_pieces", counted)
    alone = replayed(path, "auto")
    monkeypatch.setattr(replay_cli, "replay_one", None)  # the engine's replay, gone: the core serves
    assert replayed(path, "auto", 3) == alone and alone[0] == 0 and alone[1].count("\n") == 300
    assert made == [path.stat().st_size // 1000 + 1]


def test_workers_write_to_files_as_one_process(tmp_path: Path) -> None:
    """End to end, the workers writing standard output and error themselves: to one file (2>&1),
    and to a file and a pipe; a file with bad lines of every kind (exit 1), and one with a byte
    that is not UTF-8 after 200 KiB (exit 2)."""
    import subprocess
    import sys
    path = tmp_path / "games.jsonl"
    assert main(["random", "wikipedia", "-n", "2000", "--seed", "3", "-o", str(path)]) == 0
    lines = path.read_text().splitlines()
    bad = ['{"variant":"wikipedia","actions":[{"place":[0,1]},{"measure":4}]}', '{"variant": "nope"}', "{",
           '{"variant": "intelligent", "actions": [{"place": [0, 0]}]}', "", "[1, 2]", '"\x1b[2J"']
    for k, line in enumerate(bad):
        lines.insert(150 * k + 7, line)
    path.write_text("\n".join(lines) + "\n")
    broken = tmp_path / "broken.jsonl"
    data = path.read_bytes()
    broken.write_bytes(data[:200_000] + b"\xff" + data[200_000:])
    for name, status in ((path, 1), (broken, 2)):
        results = []
        for workers in ("1", "3"):
            command = f"{sys.executable} -m qttt replay {name} --json --workers {workers}"
            merged = subprocess.run(f"{command} >{tmp_path / 'out'} 2>&1", shell=True, check=False,
                                    timeout=300)
            apart = subprocess.run(f"{command} >{tmp_path / 'out2'}", shell=True, stderr=subprocess.PIPE,
                                   check=False, timeout=300)
            results.append((merged.returncode, apart.returncode, (tmp_path / "out").read_bytes(),
                            (tmp_path / "out2").read_bytes(), apart.stderr))
        assert results[0] == results[1]
        assert results[0][:2] == (status, status) and results[0][2].count(b"\n") > 1000
