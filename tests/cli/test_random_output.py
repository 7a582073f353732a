"""`qttt random` on several workers: each worker process writes the blocks it plays itself, in
turn (qttt.processes.write_pieces). The bytes are one worker's whatever the workers, the block
size and the output (a pipe, a file standard output is redirected to, -o FILE, a stream without a
file descriptor); an error comes after exactly the blocks before it; nothing is left of -o FILE
after an error or a signal, and no worker outlives the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from lanes import examples
from signals import as_from_a_terminal

from qttt.analysis import sample as random_play
from qttt.cli import main
from qttt.cli import sample as sample_cli
from qttt.errors import QtttError
from qttt.processes import write_pieces
from qttt.variant import load_ruleset

OUTPUTS = ("pipe", "file", "appended", "stream")


def written(kind: str, count: int, make: Callable[[int, int], bytes], workers: int, tmp: Path
            ) -> tuple[bytes, Exception | None]:
    """What write_pieces writes to an output of `kind`, read back whole, and the error it raised."""
    out: list[bytes] = []
    error = None
    if kind == "stream":
        try:
            write_pieces([out.append], count, make, workers)
        except QtttError as e:
            error = e
        return b"".join(out), error
    if kind == "pipe":
        r, w = os.pipe()
        reader = threading.Thread(target=lambda: out.extend(iter(lambda: os.read(r, 1 << 16), b"")))
        reader.start()
        try:
            write_pieces([w], count, make, workers)
        except QtttError as e:
            error = e
        finally:
            os.close(w)
            reader.join()
            os.close(r)
        return b"".join(out), error
    path = tmp / f"out-{kind}"
    path.write_bytes(b"before|")  # written after what the file holds, at its offset
    flags = os.O_WRONLY | (os.O_APPEND if kind == "appended" else 0)
    fd = os.open(path, flags)
    try:
        os.lseek(fd, 0, os.SEEK_END)
        total = write_pieces([fd], count, make, workers, positioned=kind == "file").size
        assert os.lseek(fd, 0, os.SEEK_CUR) == len(b"before|") + total  # as if written in order
        os.write(fd, b"|after")
    except QtttError as e:
        error = e
    finally:
        os.close(fd)
    data = path.read_bytes()
    assert data.startswith(b"before|")
    if error is None:
        assert data.endswith(b"|after")
        data = data[:-len(b"|after")]
    return data[len(b"before|"):], error


def piece(i: int, sizes: list[int]) -> bytes:
    return bytes([65 + i % 26]) * sizes[i]


@settings(max_examples=examples(30), deadline=None)
@given(sizes=st.lists(st.sampled_from([0, 1, 7, 4096, 70_000, 200_000]), min_size=1, max_size=12),
       workers=st.integers(1, 5), kind=st.sampled_from(OUTPUTS))
def test_pieces_are_written_in_order_whatever_the_workers(tmp_path_factory: pytest.TempPathFactory,
                                                          sizes: list[int], workers: int, kind: str) -> None:
    tmp = tmp_path_factory.mktemp("pieces")
    expected = b"".join(piece(i, sizes) for i in range(len(sizes)))
    assert written(kind, len(sizes), lambda i, _: piece(i, sizes), workers, tmp) == (expected, None)


@settings(max_examples=examples(20), deadline=None)
@given(sizes=st.lists(st.sampled_from([1, 5000, 100_000]), min_size=2, max_size=10), data=st.data(),
       workers=st.integers(2, 4), kind=st.sampled_from(OUTPUTS))
def test_an_error_comes_after_exactly_the_pieces_before_it(tmp_path_factory: pytest.TempPathFactory,
                                                           sizes: list[int], data: st.DataObject,
                                                           workers: int, kind: str) -> None:
    bad = data.draw(st.sets(st.integers(0, len(sizes) - 1), min_size=1), label="failing pieces")

    def make(i: int, before: int) -> bytes:
        if i in bad:
            time.sleep(0.01 * (i % 3))  # a later failure may be reported first
            raise QtttError("core-compiled", f"piece {i} failed")
        return piece(i, sizes)

    tmp = tmp_path_factory.mktemp("failing")
    first = min(bad)
    out, error = written(kind, len(sizes), make, workers, tmp)
    assert isinstance(error, QtttError) and error.message == f"piece {first} failed"
    assert out == b"".join(piece(i, sizes) for i in range(first))


def run(argv: list[str], stdout: int | IO[bytes] = subprocess.PIPE) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "qttt", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          timeout=300, check=False)


@settings(max_examples=examples(12), deadline=None)
@given(name=st.sampled_from(["wikipedia", "bonus4x4", "intelligent"]), seed=st.integers(0, 2 ** 40),
       games=st.integers(1, 70), size=st.integers(1, 13), workers=st.integers(1, 4),
       core=st.sampled_from(["auto", "python"]))
@example(name="wikipedia", seed=5, games=40, size=7, workers=3, core="auto")
def test_random_blocks_are_one_workers_whatever_the_workers(name: str, seed: int, games: int, size: int,
                                                           workers: int, core: str,
                                                           tmp_path_factory: pytest.TempPathFactory) -> None:
    """The blocks written by workers (to every kind of output) are the blocks played in order by
    one process, the records `qttt random` wrote before workers wrote them."""
    made = sample_cli.Blocks(load_ruleset(name), seed, games, core, size)
    alone = b"".join(made(i) for i in range(len(made)))
    assert alone.count(b"\n") == games
    tmp = tmp_path_factory.mktemp("blocks")
    for kind in OUTPUTS:
        assert written(kind, len(made), made, workers, tmp) == (alone, None)


def test_random_writes_the_same_bytes_to_every_output(tmp_path: Path) -> None:
    """End to end, 25,000 games (three blocks): standard output as a pipe and redirected to a file,
    and -o FILE, on 1 and 3 workers."""
    argv = ["random", "wikipedia", "-n", "25000", "--seed", "11"]
    outs = []
    for workers in ("1", "3"):
        outs.append(run([*argv, "--workers", workers]).stdout)
        with open(tmp_path / f"redirected{workers}", "wb") as f:
            assert run([*argv, "--workers", workers], stdout=f).returncode == 0
        outs.append((tmp_path / f"redirected{workers}").read_bytes())
        assert run([*argv, "--workers", workers, "-o", str(tmp_path / f"o{workers}")]).returncode == 0
        outs.append((tmp_path / f"o{workers}").read_bytes())
    assert all(out == outs[0] for out in outs) and outs[0].count(b"\n") == 25000


def test_records_are_whole_when_the_ruleset_name_holds_brackets() -> None:
    """A canonical name may hold "[]" (a scoring with an empty fallback): the compiled writer's
    records still end with the actions, as the engine writes them (it once cut the name there; qttt
    check's random-games-agree found it)."""
    rs = load_ruleset(str(Path(__file__).resolve().parents[2] / "spec/coverage/creator-no-2-cycles.toml"))
    assert "[]" in rs.canonical
    mine = random_play.record_block(rs, 3, 0, 20, "compiled")
    assert mine == random_play.record_block(rs, 3, 0, 20, "python")
    assert [json.loads(line)["variant"] for line in mine.splitlines()] == [rs.canonical] * 20


def test_an_error_in_a_worker_leaves_no_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    real = random_play.record_block

    def failing(rs: object, seed: int, index: int, games: int, core: str) -> bytes:
        if index == 2:
            raise QtttError("core-compiled", "a random game outgrew the compiled core's move numbers")
        return real(rs, seed, index, games, core)  # type: ignore[arg-type]
    monkeypatch.setattr(random_play, "record_block", failing)  # the workers are forked: they inherit it
    monkeypatch.setattr(random_play, "RECORD_BLOCK", 10)
    target = tmp_path / "games.jsonl"
    assert main(["random", "wikipedia", "-n", "100", "--workers", "3", "-o", str(target)]) == 2
    assert "outgrew the compiled core's move numbers" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
    assert main(["random", "wikipedia", "-n", "100", "--workers", "3"]) == 2  # standard output
    out = capsys.readouterr()
    assert out.out.count("\n") == 20 and "outgrew" in out.err  # blocks 0 and 1, then the error


def writers(token: str) -> list[int]:
    """The processes with `token` among their arguments (the workers are forked: they share them)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_leaves_no_file_and_no_worker(tmp_path: Path, sig: signal.Signals, status: int) -> None:
    target = tmp_path / "games.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", "50000000",
                             "--workers", "2", "-o", str(target)], stderr=subprocess.PIPE,
                            preexec_fn=as_from_a_terminal)
    deadline = time.monotonic() + 60
    while len(writers(str(target))) < 3 and time.monotonic() < deadline:  # the command and 2 workers
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == status, err
    assert err.decode().strip() in ("qttt: interrupted", "qttt: terminated")
    assert list(tmp_path.iterdir()) == []
    time.sleep(0.2)
    assert writers(str(target)) == []


def test_a_reader_gone_away_stops_every_worker() -> None:
    seed = str(time.time_ns())  # finds the workers: they share the command's arguments
    proc = subprocess.run(f"{sys.executable} -m qttt random wikipedia -n 3000000 --workers 3 --seed {seed} "
                          "| head -c 100000 >/dev/null; echo ${PIPESTATUS[0]}", shell=True,
                          executable="/bin/bash", capture_output=True, text=True, timeout=300, check=False)
    assert proc.stdout.strip() == "0" and proc.stderr == "", proc
    time.sleep(0.2)
    assert writers(seed) == []


def test_ctrl_c_to_the_group_while_workers_start_is_one_line(tmp_path: Path) -> None:
    """Ctrl-C at a terminal reaches every process of the group; sent while the workers are being
    started (the first one seen), no worker prints a traceback (they start with it blocked)."""
    for attempt in range(4):
        target = tmp_path / f"games{attempt}.jsonl"
        proc = subprocess.Popen([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", "50000000",
                                 "--workers", "8", "-o", str(target)], stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=as_from_a_terminal)
        deadline = time.monotonic() + 60
        while len(writers(str(target))) < 2 and time.monotonic() < deadline:  # the command and a worker
            time.sleep(0.001)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert (proc.returncode, err.decode()) == (130, "qttt: interrupted\n")
        assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("status", [130, 143])
def test_a_stopped_command_exits_whatever_an_exit_handler_waits_for(status: int) -> None:
    """A command that answered a stop exits with its status within qttt.stops.EXIT_SECONDS, even when
    a thread the interpreter joins at exit never ends (as a process pool's may, when Ctrl-C came
    while it started its workers)."""
    code = ("import sys, threading, qttt.cli, qttt.__main__\n"
            "def stopped(argv=None):\n"
            "    threading.Thread(target=threading.Event().wait).start()  # never ends, not a daemon\n"
            f"    return {status}\n"
            "qttt.cli.main = stopped\n"
            "qttt.__main__.main()\n")
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60, check=False)
    assert proc.returncode == status and time.monotonic() - started < 30, proc
