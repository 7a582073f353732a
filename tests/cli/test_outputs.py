"""One output-target rule for every command that writes, signals from the first instruction, and
the environment's limits (issue 32 items 3 and 4). The writing commands are found by walking the
parsers: every option that names a file to write takes the one argument type (argtypes.output_file,
qttt.io.output_problem), and each is run with its output aimed at one of its own inputs."""

from __future__ import annotations

import argparse
import contextlib
import errno
import json
import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract import one_line, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples
from signals import as_from_a_terminal

from qttt import io
from qttt.argtypes import output_file
from qttt.cli import JsonFlag, build_parser
from qttt.errors import FileError

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
WRITES = {"-o", "--output", "--json", "--junit", "--record", "--html", "--checkpoint"}
ROOT_USER = os.geteuid() == 0


def options() -> Iterator[tuple[str, argparse.Action]]:
    """Every (command, option) of the command line, subcommands walked."""
    def walk(parser: argparse.ArgumentParser, prefix: str) -> Iterator[tuple[str, argparse.Action]]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, f"{prefix} {name}".strip())
            else:
                yield prefix, action
    yield from walk(build_parser(), "")


def writing() -> list[tuple[str, str]]:
    """(command, option) for every option that takes a value and names a file to write."""
    return sorted((cmd, a.option_strings[-1]) for cmd, a in options()
                  if WRITES & set(a.option_strings) and a.nargs != 0 and not isinstance(a, JsonFlag)
                  and cmd != "vectors generate")  # -o there names a folder; --json FILE: below


def test_every_output_option_takes_the_one_rule() -> None:
    found = {(cmd, a.option_strings[-1]): a.type for cmd, a in options() if a.option_strings}
    assert writing(), "no writing option found: the walk is broken"
    for key in writing():
        assert found[key] is output_file, key
    assert {c for c, _ in writing()} >= {"analyze random", "random", "tour", "play", "conform", "check"}


VARIANT = '[variant]\nname = "mine"\nextends = "wikipedia(board=2)"\n'
TOUR = ('[[team]]\nname = "a"\nmain = ["a1", "a2", "a3", "a4"]\n[[team]]\nname = "b"\n'
        'main = ["b1", "b2", "b3", "b4"]\n')


def argv_for(command: str, option: str, folder: Path) -> tuple[list[str], Path]:
    """The command with `option` aimed at one of the command's own inputs, and that input."""
    variant = folder / "mine.toml"
    variant.write_text(VARIANT)
    if command == "tour":
        tour = folder / "tour.toml"
        tour.write_text(TOUR)
        return ["tour", str(tour), option], tour
    if command == "conform":
        suite = folder / "suite.json"
        suite.write_text(json.dumps({"ruleset": "wikipedia", "cases": []}))
        return ["conform", "--engine", "qttt engine", "--suite", str(suite), option], suite
    extra = {"analyze count": ["--max-ply", "1"], "analyze random": ["-n", "10"], "random": ["-n", "1"],
             "check": ["--no-walk", "--games", "1"]}.get(command, [])
    return [*command.split(), str(variant), *extra, option], variant


@pytest.mark.parametrize("how", ["the same name", "a hard link", "a symbolic link"])
@pytest.mark.parametrize("command, option", writing())
def test_an_output_is_never_an_input(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str,
                                     option: str, how: str) -> None:
    argv, source = argv_for(command, option, tmp_path)
    before = source.read_bytes()
    target = source
    if how == "a hard link":
        target = tmp_path / "linked"
        os.link(source, target)
    elif how == "a symbolic link":
        target = tmp_path / "pointing"
        target.symlink_to(source)
    status, out, err = run([*argv, str(target)], capsys)
    assert status == 2, (status, out, err)
    one_line(err, f"cannot write {target}: it is ", "which this command reads")
    assert source.read_bytes() == before and out == ""
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


@pytest.mark.parametrize("name, words", [("", "the name is empty"),
                                         ("out/", "a name ending in / names a directory, not a file"),
                                         (".", "it is a directory"),
                                         ("missing/out.json", "directory missing does not exist")])
@pytest.mark.parametrize("command, option", writing())
def test_a_target_that_is_no_file_is_refused_while_parsing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str], command: str,
                                                           option: str, name: str, words: str) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "out").mkdir()
    argv, _ = argv_for(command, option, tmp_path)
    status, out, err = run([*argv, name], capsys)
    assert status == 2 and out == "", (status, out, err)
    one_line(err, "cannot write ", words, f"{option}: cannot write")


def test_the_old_json_file_option_takes_the_one_rule(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """`conform --json FILE` (deprecated for --output FILE) writes under the same rule."""
    argv, suite = argv_for("conform", "--json", tmp_path)
    before = suite.read_bytes()
    status, _, err = run([*argv, str(suite)], capsys)
    assert status == 2 and suite.read_bytes() == before
    assert f"cannot write {suite}: it is " in err and "Traceback" not in err
    status, _, err = run([*argv, str(tmp_path / "nowhere") + "/"], capsys)
    assert status == 2 and "a name ending in / names a directory" in err


def test_two_outputs_are_two_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "r.json"
    status, _, err = run(["analyze", "random", "wikipedia", "-n", "10", "--checkpoint", str(target),
                          "-o", str(target)], capsys)
    assert status == 2 and not target.exists()
    one_line(err, f"cannot write {target}: the command writes {target} already")


def test_records_a_tour_names_are_inputs_too(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = tmp_path / "game.json"
    record.write_text('{"variant": "russian", "actions": []}')
    tour = tmp_path / "tour.toml"
    tour.write_text(TOUR + '[[game]]\nboard = 1\nx = "a"\nrecord = "game.json"\n')
    before = record.read_bytes()
    status, _, err = run(["tour", str(tour), "--html", str(record)], capsys)
    assert status == 2 and record.read_bytes() == before
    one_line(err, f"cannot write {record}: it is ")


def test_the_rule_holds_at_write_time_for_files_read_later(tmp_path: Path) -> None:
    """A file read after the command line was checked (an extends chain, a record a file names)
    is never written over either: write_atomic holds every output to the inputs read so far."""
    source = tmp_path / "in.json"
    source.write_text("[1]")
    io.start_command()
    io.read_json(source)
    with pytest.raises(FileError, match="which this command reads"):
        io.write_atomic(source, "[2]")
    assert source.read_text() == "[1]"
    io.read_json(source, own=True)  # a file read to be updated (a checkpoint) is the command's own
    io.start_command()
    io.read_json(source, own=True)
    io.write_atomic(source, "[2]")
    assert source.read_text() == "[2]"


ROUTES = ["d/in.json", "d/../d/in.json", "hard", "soft", "chain", "dlink/in.json", "dlink/../d/in.json"]


@given(route=st.sampled_from([*ROUTES, "copy"]), absolute=st.booleans(),
       padding=st.lists(st.sampled_from(["./", "/"]), max_size=3))
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_an_input_is_no_output_however_it_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   route: str, absolute: bool, padding: list[str]) -> None:
    """Any spelling of an input read (relative or absolute, `./`, `//`, `..`, a hard link, a
    symbolic link or a chain of them, a link to its directory) is refused as an output, by
    device and inode; a copy is another file and is written."""
    folder = tmp_path / "w"
    if not folder.exists():
        (folder / "d").mkdir(parents=True)
        source = folder / "d" / "in.json"
        source.write_text("[1]")
        os.link(source, folder / "hard")
        (folder / "soft").symlink_to(source)
        (folder / "chain").symlink_to(folder / "soft")
        (folder / "dlink").symlink_to(folder / "d")
    (folder / "copy").write_text("[1]")
    monkeypatch.chdir(folder)
    first, *rest = route.split("/")
    name = first + "".join("/" + pad + part for pad, part in zip([*padding, *[""] * len(rest)], rest,
                                                                   strict=False))  # d/./in.json, d//in.json
    spelled = str(folder / name) if absolute else name
    io.start_command()
    io.read_json(folder / "d" / "in.json")
    if route == "copy":
        io.write_atomic(spelled, "[2]")
        assert (folder / "copy").read_text() == "[2]"
    else:
        with pytest.raises(FileError, match="which this command reads"):
            io.write_atomic(spelled, "[2]")
    assert (folder / "d" / "in.json").read_text() == "[1]"
    assert not [p for p in folder.rglob(".*")]  # no temporary file left


# -- signals ---------------------------------------------------------------------------------------

STOPS = {signal.SIGHUP: 129, signal.SIGQUIT: 131, signal.SIGUSR1: 138, signal.SIGUSR2: 140,
         signal.SIGTERM: 143, signal.SIGINT: 130}


def started(argv: list[str], cwd: Path) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "qttt", *argv], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=as_from_a_terminal)


def wait_for(predicate: Any, seconds: float = 120.0) -> None:
    end = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.02)


@pytest.mark.parametrize("sig", list(STOPS), ids=[s.name for s in STOPS])
def test_every_stopping_signal_removes_the_temporary_file(tmp_path: Path, sig: signal.Signals) -> None:
    proc = started(["random", "wikipedia", "-n", "100000000000", "-o", "games.jsonl", "--workers", "1"],
                   tmp_path)
    wait_for(lambda: any(p.name.startswith(".games.jsonl.") for p in tmp_path.iterdir()))
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == STOPS[sig], (proc.returncode, err)
    assert err.count("\n") == 1 and err.startswith("qttt: ") and "Traceback" not in err, err
    assert list(tmp_path.iterdir()) == []  # no temporary file, no half-written output


def caught(pid: int) -> int:
    """The signals a process catches (the SigCgt mask of /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return int(line.split()[1], 16)
    return 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
@pytest.mark.parametrize("delay", [0.0, 0.01, 0.05, 0.1, 0.3])
def test_ctrl_c_while_starting_up_is_one_line(tmp_path: Path, delay: float) -> None:
    """Ctrl-C from the entry's first instruction on (qttt.stops.early: the moment it catches
    SIGHUP), through the imports of the command line and of z3: one line, status 130."""
    proc = started(["check", "wikipedia", "--no-walk", "--games", "5"], tmp_path)
    with contextlib.suppress(FileNotFoundError):  # it ended already
        wait_for(lambda: proc.poll() is not None or caught(proc.pid) & (1 << (signal.SIGHUP - 1)), 60)
    time.sleep(delay)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode in (130, 0), (proc.returncode, err)  # 0: it finished before the signal
    # (never -2: Python kills itself with SIGINT at exit once an interrupt ended an exec(), caught or
    # not, unless told it was answered: qttt.stops.answered)
    if proc.returncode == 130:
        assert err.endswith("qttt: interrupted\n") and "Traceback" not in err, err


def test_a_signal_ignored_at_start_stays_ignored(tmp_path: Path) -> None:
    """nohup: SIGHUP ignored when qttt starts is not taken over."""
    def ignore_hup() -> None:
        as_from_a_terminal()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
    proc = subprocess.Popen([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", "2000", "--seed",
                             "3"], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=ignore_hup)
    proc.send_signal(signal.SIGHUP)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0 and len(out.splitlines()) == 2000, err


# -- the environment's limits ----------------------------------------------------------------------

def limited(argv: list[str], limit: int, value: int, cwd: Path) -> subprocess.CompletedProcess[str]:
    def apply() -> None:
        as_from_a_terminal()
        resource.setrlimit(limit, (value, resource.getrlimit(limit)[1]))
    return subprocess.run([sys.executable, "-m", "qttt", *argv], cwd=cwd, env=ENV, capture_output=True,
                          text=True, preexec_fn=apply, timeout=300)


@pytest.mark.parametrize("megabytes", [24, 40, 64])
def test_out_of_memory_is_the_environments(tmp_path: Path, megabytes: int) -> None:
    done = limited(["analyze", "random", "wikipedia", "-n", "20000", "--workers", "2", "--quiet"],
                   resource.RLIMIT_AS, megabytes << 20, tmp_path)
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    if done.returncode == 2:
        assert done.stderr.count("\n") == 1 and "ulimit -v" in done.stderr, done.stderr


@pytest.mark.parametrize("files", [6, 9, 12, 15])
def test_too_many_open_files_is_the_environments(tmp_path: Path, files: int) -> None:
    done = limited(["analyze", "random", "wikipedia", "-n", "20000", "--workers", "4", "--chunk", "1000",
                    "--quiet"], resource.RLIMIT_NOFILE, files, tmp_path)
    assert done.returncode in (0, 2), done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    if done.returncode == 2:
        assert done.stderr == f"qttt: too many open files: this process may have {files} open at once " \
                              "(ulimit -n)\n", done.stderr


@pytest.mark.skipif(ROOT_USER, reason="the process limit does not hold for root")
def test_no_process_left_is_the_environments(tmp_path: Path) -> None:
    done = limited(["analyze", "random", "wikipedia", "-n", "20000", "--workers", "4", "--quiet"],
                   resource.RLIMIT_NPROC, 1, tmp_path)
    assert done.returncode == 2 and "ulimit -u" in done.stderr and done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("error, words", [
    (MemoryError(), "qttt: out of memory"),
    (RuntimeError("can't start new thread"), "qttt: cannot start a thread: the limit of processes"),
    (BlockingIOError(errno.EAGAIN, "Resource temporarily unavailable"), "qttt: cannot start a process"),
    (OSError(errno.EMFILE, "Too many open files"), "qttt: too many open files"),
    (OSError(errno.ENFILE, "Too many open files in system"), "qttt: too many open files on this system"),
])
def test_each_exhausted_resource_is_one_line_status_2(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str],
                                                      error: BaseException, words: str) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error
    monkeypatch.setattr("qttt.cli.sample.load_ruleset", fail)
    status, _, err = run(["random", "wikipedia"], capsys)
    assert status == 2
    one_line(err, words)


def test_a_bug_of_ours_stays_status_3(monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("a bug")
    monkeypatch.setattr("qttt.cli.sample.load_ruleset", fail)
    status, _, err = run(["random", "wikipedia"], capsys)
    assert status == 3 and "internal error: RuntimeError: a bug" in err


def test_an_encoding_that_cannot_print_prints_escapes(tmp_path: Path) -> None:
    """PYTHONIOENCODING=ascii: names print as \\uXXXX escapes, the JSON stays JSON with the names
    exact, and nothing is an internal error."""
    variant = tmp_path / "v.toml"
    variant.write_text('[variant]\nname = "vé☃\U0001d11e"\nextends = "wikipedia"\n', encoding="utf-8")
    env = {**ENV, "PYTHONIOENCODING": "ascii"}
    text = subprocess.run([sys.executable, "-m", "qttt", "show", str(variant)], env=env, capture_output=True,
                          text=True, encoding="ascii", timeout=120)
    assert text.returncode == 0 and "v\\u00e9\\u2603\\ud834\\udd1e" in text.stdout, text.stderr
    as_json = subprocess.run([sys.executable, "-m", "qttt", "show", str(variant), "--json"], env=env,
                             capture_output=True, text=True, encoding="ascii", timeout=120)
    assert as_json.returncode == 0 and json.loads(as_json.stdout)["name"] == "vé☃\U0001d11e"
    missing = subprocess.run([sys.executable, "-m", "qttt", "show", "nosuch☃"], env=env,
                             capture_output=True, timeout=120)
    assert missing.returncode == 2 and b"nosuch\\u2603" in missing.stderr
    assert b"internal" not in missing.stderr


def test_a_damaged_walk_checkpoint_is_named_before_any_proof(tmp_path: Path) -> None:
    damaged = tmp_path / "walk.json"
    damaged.write_text('{"digest": "sha256:00", "ruleset": "wikipedia"}')
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "qttt", "check", "wikipedia", "--exhaustive", "--checkpoint",
                           str(damaged)], env=ENV, capture_output=True, text=True, timeout=300)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"checkpoint {damaged} is damaged" in done.stderr
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    assert cpu < 10, cpu  # the proofs and samples take about 20 CPU-s: not run (a guard, not a timing)
