"""The classes of issue 20 (hostile input by construction), one section per mechanism, each
tested over its input class: the input layer, bounded integers, checkpoints, signals and child
processes, lost work, the engine channel, sanitised output. The contract is docs/hostile-input.md:
one line naming the input and the problem, exit 0/1/2/130/143, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import suppress
from pathlib import Path

import pytest
from contract import one_line, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples
from signals import as_from_a_terminal

from qttt import bounds, io
from qttt.bounds import Bound
from qttt.cli import main
from qttt.conformance.protocol import QtttEngine, respond
from qttt.errors import FileError, QtttError
from qttt.jsonstream import NumberTooLong, loads
from qttt.processes import MAX_LINE, ChannelClosed, LineChannel
from qttt.safe import SafeStream, escape, shown
from qttt.variant import EXTENDS_DEPTH, load_ruleset

ROOT = os.geteuid() == 0  # permission bits do not stop root


# -- the input layer ------------------------------------------------------------------------------

def odd_file(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A path of an odd kind, and the words the input layer answers it with."""
    path = tmp_path / f"odd-{kind}.toml"
    if kind == "directory":
        path.mkdir()
        return path, "is a directory"
    if kind == "fifo":
        os.mkfifo(path)
        return path, "is a pipe (FIFO), not a file"
    if kind == "loop":
        path.symlink_to(path)
        return path, "is a symbolic link loop"
    if kind == "missing":
        return path, "does not exist"
    if kind == "device":
        path.symlink_to("/dev/zero")
        return path, "is a device, not a file"
    if kind == "dangling":
        path.symlink_to(tmp_path / "nowhere")
        return path, "does not exist"
    assert kind == "not-a-dir"
    (tmp_path / "plain").write_text("x")
    return tmp_path / "plain" / "x.toml", "does not exist (a part of its path is not a directory)"


KINDS = ["directory", "fifo", "loop", "missing", "device", "dangling", "not-a-dir"]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("argv", [["show", "{}"], ["check", "{}", "--quiet"], ["random", "{}"],
                                  ["perft", "{}", "--depth", "1"], ["tour", "{}"],
                                  ["conform", "--engine", "qttt engine", "--suite", "{}"],
                                  ["vectors", "check", "{}"]])
def test_every_reader_names_the_kind_of_file(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            kind: str, argv: list[str]) -> None:
    path, words = odd_file(tmp_path, kind)
    if argv[0] == "vectors" and kind in ("missing", "dangling", "not-a-dir"):
        words = "does not exist"
    status, out, err = run([a.replace("{}", str(path)) for a in argv], capsys)
    text = out if argv[0] == "vectors" else err  # vectors check lists problems, exit 1
    assert status == (1 if argv[0] == "vectors" else 2), (status, out, err)
    assert words in text and str(path) in text, text
    assert "Traceback" not in err and "internal error" not in err


@pytest.mark.parametrize("kind", ["directory", "loop", "device", "missing"])
def test_replay_and_checkpoints_name_the_kind(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                              kind: str) -> None:
    path, words = odd_file(tmp_path, kind)
    status, _, err = run(["replay", str(path)], capsys)
    assert status == 2
    one_line(err, str(path), words)


def test_replay_of_a_device_on_standard_input_stops(tmp_path: Path) -> None:
    """`replay - < /dev/zero`: the first record fails, the line is skipped in bounded pieces and
    the rest of an endless line is not read (it used to read forever)."""
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.run([sys.executable, "-m", "qttt", "replay", "-"], stdin=zero,
                              capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 1
    one_line(proc.stderr, "record at line 1")


def test_files_read_whole_are_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(io, "MAX_READ", 1 << 20)
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * (2 << 20) + "\n")
    status, _, err = run(["show", str(big)], capsys)
    assert status == 2
    one_line(err, str(big), "larger than 1 MiB")


@pytest.mark.skipif(ROOT, reason="root reads every file")
def test_unreadable_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "secret.toml"
    path.write_text('[variant]\nname = "s"\n')
    path.chmod(0)
    status, _, err = run(["show", str(path)], capsys)
    assert status == 2
    one_line(err, str(path), "permission denied")


def test_closed_standard_streams(tmp_path: Path) -> None:
    record = tmp_path / "r.json"
    record.write_text('{"variant": "wikipedia", "actions": []}\n')
    cases = [(["replay", "-"], {"stdin": subprocess.DEVNULL}, "-", "standard input is closed"),
             (["engine"], {}, "-", "standard input is closed"),
             (["replay", str(record)], {}, ">", "standard output is closed"),
             (["show", "wikipedia"], {}, ">", "standard output is closed")]
    for argv, _, which, words in cases:
        closing = "0<&-" if which == "-" else "1>&-"
        proc = subprocess.run(f"{sys.executable} -m qttt {' '.join(argv)} {closing}", shell=True,
                              capture_output=which == "-", stderr=subprocess.PIPE if which == ">" else None,
                              text=True, timeout=60, check=False)
        assert proc.returncode == 2, (argv, proc)
        one_line(proc.stderr, words)


def test_a_full_disk_on_standard_output_is_named() -> None:
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "qttt", "show", "wikipedia"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False)
    assert proc.returncode == 2
    one_line(proc.stderr, "cannot write standard output", "No space left on device")


@pytest.mark.parametrize("argv", [["show", "wikipedia"], ["variants"], ["random", "wikipedia", "-n", "50"],
                                  ["replay", "{record}"],
                                  # the pipe, not the walk: --no-walk (the walk took 80 s loaded)
                                  pytest.param(["check", "wikipedia", "--games", "20", "--no-walk", "--json"],
                                               marks=pytest.mark.slow)])
def test_a_reader_gone_away_is_status_0_for_every_command(tmp_path: Path, argv: list[str]) -> None:
    record = tmp_path / "r.jsonl"
    record.write_text('{"variant": "wikipedia", "actions": [{"place": [0, 8]}]}\n' * 200)
    command = " ".join(a.replace("{record}", str(record)) for a in argv)
    proc = subprocess.run(f"{sys.executable} -m qttt {command} | head -c 1 >/dev/null; "
                          "echo ${PIPESTATUS[0]}", shell=True, executable="/bin/bash",
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.stdout.strip() == "0" and proc.stderr == "", proc


# -- extends --------------------------------------------------------------------------------------

def test_a_long_extends_chain_is_refused_without_recursion(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(1500):
        (tmp_path / f"v{i}.toml").write_text(f'[variant]\nname = "v{i}"\nextends = "v{i + 1}.toml"\n')
    (tmp_path / "v1500.toml").write_text('[variant]\nname = "end"\nextends = "wikipedia"\n')
    for argv in (["show", str(tmp_path / "v0.toml")], ["random", str(tmp_path / "v0.toml")]):
        status, _, err = run(argv, capsys)
        assert status == 2
        one_line(err, "v0.toml", f"more than {EXTENDS_DEPTH} files", "variant-file")
    within = tmp_path / f"v{1500 - EXTENDS_DEPTH + 1}.toml"
    assert load_ruleset(str(within)).name == f"v{1500 - EXTENDS_DEPTH + 1}"


@given(length=st.integers(1, 6), at=st.data())
@settings(max_examples=examples(10), deadline=None)
def test_an_extends_cycle_names_its_chain(tmp_path_factory: pytest.TempPathFactory, length: int,
                                          at: st.DataObject) -> None:
    root = tmp_path_factory.mktemp("cycle")
    back = at.draw(st.integers(0, length - 1))
    for i in range(length):
        nxt = i + 1 if i + 1 < length else back
        (root / f"c{i}.toml").write_text(f'[variant]\nname = "c{i}"\nextends = "c{nxt}.toml"\n')
    with pytest.raises(QtttError) as got:
        load_ruleset(str(root / "c0.toml"))
    chain = " -> ".join([f"c{i}.toml" for i in range(length)] + [f"c{back}.toml"])
    assert f"extends itself through {chain}" in str(got.value)


@pytest.mark.parametrize("kind", KINDS)
def test_extends_names_the_kind_of_file(tmp_path: Path, kind: str) -> None:
    target, words = odd_file(tmp_path, kind)
    words = "not found" if words == "does not exist" else words
    v = tmp_path / "v.toml"
    v.write_text(f'[variant]\nname = "v"\nextends = "{os.path.relpath(target, tmp_path)}"\n')
    with pytest.raises(QtttError, match=words.replace("(", r"\(").replace(")", r"\)")):
        load_ruleset(str(v))


@pytest.mark.parametrize("name", ["wikipedia(measurer=creator)", "qttt(board=4)",
                                  "russian(board=4,measurer=creator)"])
def test_extends_takes_canonical_names(tmp_path: Path, name: str) -> None:
    v = tmp_path / "v.toml"
    v.write_text(f'[variant]\nname = "v"\nextends = "{name}"\n[rules]\nend_line = 3\n')
    got, base = load_ruleset(str(v)), load_ruleset(name)
    assert dict(got.params) == {**dict(base.params), "end_line": 3}
    assert got.scoring == base.scoring


# -- bounded integers -----------------------------------------------------------------------------

DIGITS = st.integers(21, 6000).map(lambda n: "9" * n)


@given(digits=DIGITS, where=st.sampled_from(["place", "measure", "variant-board"]))
@settings(max_examples=examples(15, 4), deadline=None)  # a process an example
def test_long_integers_in_records(tmp_path_factory: pytest.TempPathFactory, digits: str, where: str) -> None:
    action = {"place": f"[0, {digits}]", "measure": digits, "variant-board": "[0, 1]"}[where]
    key = "place" if where != "measure" else "measure"
    variant = f'"wikipedia(board={digits})"' if where == "variant-board" else '"wikipedia"'
    path = tmp_path_factory.mktemp("r") / "r.json"
    path.write_text(f'{{"variant": {variant}, "actions": [{{"{key}": {action}}}]}}\n')
    proc = subprocess.run([sys.executable, "-m", "qttt", "replay", str(path)], capture_output=True,
                          text=True, timeout=60, check=False)
    assert proc.returncode == 1
    one_line(proc.stderr, "record at line 1")


@given(digits=DIGITS)
@settings(max_examples=examples(10), deadline=None)
def test_long_integers_in_protocol_and_json_readers(digits: str) -> None:
    engine = QtttEngine()
    respond(engine, '{"id": 0, "cmd": "new", "variant": "wikipedia"}')
    for line in (f'{{"id": {digits}, "cmd": "hello"}}', f'{{"id": 1, "cmd": "perft", "depth": {digits}}}',
                 f'{{"id": 1, "cmd": "apply", "action": {{"measure": {digits}}}}}'):
        answer = json.loads(respond(engine, line)[0])
        assert answer["ok"] is False and answer["error"]["kind"] == "protocol", answer
    with pytest.raises(NumberTooLong):
        loads(f"[1, {digits}]")
    with pytest.raises(FileError, match="not JSON: an integer of"):
        io.parse_json(f'{{"a": -{digits}}}', "x")


@pytest.mark.parametrize("depth", [-1, 10 ** 30, 1001, True, 2.0, "3"])
def test_protocol_depth_is_bounded(depth: object) -> None:
    engine = QtttEngine()
    respond(engine, '{"id": 0, "cmd": "new", "variant": "wikipedia"}')
    answer = json.loads(respond(engine, json.dumps({"id": 1, "cmd": "perft", "depth": depth}))[0])
    message = answer["error"]["message"]
    assert answer["ok"] is False and ("perft depth" in message or "integer of 31 digits" in message), answer


FLAGS = [(["random", "wikipedia", "-n"], bounds.STREAM), (["random", "wikipedia", "--seed"], bounds.SEED),
         (["check", "wikipedia", "--games"], bounds.GAMES),
         (["check", "wikipedia", "--processes"], bounds.WORKERS),
         (["check", "wikipedia", "--max-ply"], bounds.MAX_PLY),
         (["analyze", "random", "wikipedia", "--chunk"], bounds.CHUNK),
         (["analyze", "count", "wikipedia", "--workers"], bounds.WORKERS),
         (["match", "wikipedia", "random", "greedy", "--games"], bounds.MATCH_GAMES),
         (["match", "wikipedia", "random", "greedy", "--workers"], bounds.WORKERS),
         (["perft", "wikipedia", "--depth"], bounds.DEPTH), (["engine", "--seed"], bounds.SEED),
         (["tour", "x.toml", "--seed"], bounds.SEED), (["play", "wikipedia", "--seed"], bounds.SEED)]


@given(flag=st.sampled_from(FLAGS), value=st.one_of(
    st.integers().filter(lambda v: v > 10 ** 6 or v < 0).map(str), DIGITS,
    st.sampled_from(["1e29", "1e3", "0x10", "nan", "inf", "", " ", "--", "٣", "1_000", "+", "-0"])))
@settings(max_examples=examples(60), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_flags_out_of_range_are_one_line(flag: tuple[list[str], Bound], value: str,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    argv, bound = flag
    try:
        fits = bound.low <= int(value) <= bound.high and (argv[-1] != "--depth" or int(value) >= 1)
    except ValueError:
        fits = False
    if fits:
        return
    status, out, err = run([*argv, value], capsys)
    assert (status, out) == (2, "")
    one_line(err, argv[-1], "--help")
    assert len(err) < 400


def test_every_range_is_documented() -> None:
    text = (Path(__file__).parents[2] / "docs" / "hostile-input.md").read_text(encoding="utf-8")
    for bound in bounds.BOUNDS:
        row = next((line for line in text.splitlines() if line.startswith(f"| {bound.what} |")), None)
        assert row is not None, bound
        assert f"{bound.high:,}" in row or "^" in row, (bound, row)


@pytest.mark.parametrize("flag", ["--timeout", "--perft-timeout"])
@pytest.mark.parametrize("value", ["1e300", "1e999", "-0", "0", "nan", "inf", "9" * 5000])
def test_seconds_are_bounded(flag: str, value: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(["conform", "--engine", "x", flag, value], capsys)
    assert status == 2
    one_line(err, flag)


def test_toml_and_tour_numbers_are_bounded(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    v = tmp_path / "v.toml"
    v.write_text(f'[variant]\nname = "v"\n[rules]\nboard = {"9" * 5000}\n')
    status, _, err = run(["show", str(v)], capsys)
    assert status == 2
    one_line(err, str(v), "integer longer than 20 digits")
    for score in (f"[{2 ** 63 - 1}, 0]", '["1e999999999", 0]', "[-1, 0]", '["1/0", 1]', "[1.5, 0]"):
        t = tmp_path / "t.toml"
        t.write_text('[[team]]\nname = "a"\nmain = ["1", "2", "3", "4"]\n[[team]]\nname = "b"\n'
                     'main = ["5", "6", "7", "8"]\n[[game]]\nboard = 1\nx = "a"\nscore = ' + score + "\n")
        status, _, err = run(["tour", str(t)], capsys)
        assert status == 2, score
        one_line(err, str(t), "score")


# -- checkpoints ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def walk_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """A real checkpoint of `check --exhaustive` on qttt(board=2), after two plies."""
    path = tmp_path_factory.mktemp("cp") / "cp.json"
    assert main(["check", "qttt(board=2)", "--exhaustive", "--max-ply", "2", "--checkpoint", str(path),
                 "--quiet", "--json"]) in (0, 1)
    data: dict[str, object] = json.loads(path.read_text())
    return data


def damaged_walks(good: dict[str, object]) -> Iterator[object]:
    frontier = good["frontier"]
    assert isinstance(frontier, list) and frontier
    yield {**good, "frontier": [[1, 2, 3]]}
    yield {**good, "frontier": []}
    yield {**good, "positions_by_ply": []}
    yield {**good, "ply": 10 ** 20}
    yield {**good, "ply": -1}
    yield {**good, "ply": 0}
    yield {**good, "frontier": [[*frontier[0], 5]]}
    yield {**good, "frontier": "x"}
    yield {**good, "final_positions": 2 ** 70}
    yield []
    yield {}
    yield None


@pytest.mark.slow  # each damaged checkpoint is refused by a whole check run
def test_walk_checkpoints_are_checked(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                      walk_checkpoint: dict[str, object]) -> None:
    cp = tmp_path / "cp.json"
    texts = [json.dumps(d) for d in damaged_walks(walk_checkpoint)]
    texts += ["", json.dumps(walk_checkpoint)[:40], "\xff", "[" * 5000]
    for text in texts:
        cp.write_text(text)
        status, out, err = run(["check", "qttt(board=2)", "--exhaustive", "--checkpoint", str(cp),
                                "--quiet"], capsys)
        assert (status, out) == (2, ""), (text[:80], status, out, err)
        one_line(err, str(cp), "damaged")
        assert "violated" not in err


@given(data=st.fixed_dictionaries({}, optional={
    "ply": st.integers() | st.just(10 ** 25), "games_by_ply": st.lists(st.integers()),
    "nodes_by_ply": st.lists(st.integers()), "positions_by_ply": st.lists(st.integers()),
    "deadlocks": st.integers(), "frontier": st.lists(st.tuples(st.lists(st.integers(-20, 20), max_size=4),
                                                               st.integers()), max_size=3)}),
       digest=st.booleans())
@settings(max_examples=examples(40), deadline=None)
def test_changed_count_checkpoints_are_damaged(tmp_path_factory: pytest.TempPathFactory,
                                               data: dict[str, object], digest: bool) -> None:
    """A real checkpoint with fields changed (its digest kept, or dropped) is never resumed:
    a changed file cannot make a count complete or wrong."""
    from qttt.quantum.analysis.count import count_games
    cp = tmp_path_factory.mktemp("c") / "cp.json"
    rs = load_ruleset("qttt(board=2)")
    count_games(rs, max_ply=2, checkpoint=cp)
    saved = json.loads(cp.read_text())
    changed = {**saved, **data}
    if not digest:
        del changed["digest"]
    cp.write_text(json.dumps(changed))
    if changed == saved:
        assert count_games(rs, checkpoint=cp) == count_games(rs)
        return
    with pytest.raises(QtttError, match="damaged"):
        count_games(rs, checkpoint=cp)


def test_finished_runs_leave_no_checkpoint_to_complete_them(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    cp = tmp_path / "cp.json"
    assert run(["analyze", "count", "qttt(board=2)", "--quiet", "--checkpoint", str(cp)], capsys)[0] == 0
    data = json.loads(cp.read_text())
    assert data["frontier"], "the last checkpoint still has work to do"


# -- signals and child processes ------------------------------------------------------------------

def processes() -> Iterator[tuple[int, int, int]]:
    """Each live (not zombie) process as (pid, parent pid, process group), from /proc."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] not in ("Z", "X"):
            yield int(stat.parent.name), int(fields[1]), int(fields[2])


def children(pid: int) -> set[int]:
    """The live processes whose parent is `pid`."""
    return {p for p, parent, _ in processes() if parent == pid}


_STARTED: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def _no_orphans() -> Iterator[None]:
    """Whatever a test started is killed with its process group when the test ends (a test that
    fails or times out before its command stops would otherwise leave it and its pool running)."""
    yield
    while _STARTED:
        proc = _STARTED.pop()
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def started(argv: list[str], workers: int = 0) -> subprocess.Popen[str]:
    """`qttt ARGV` started in a process group of its own, once it has `workers` children running."""
    proc = subprocess.Popen([sys.executable, "-m", "qttt", *argv], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=as_from_a_terminal,
                            start_new_session=True)
    _STARTED.append(proc)
    deadline = time.monotonic() + 60
    while len(children(proc.pid)) < workers and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.5)  # well into its work
    return proc


LONG_COUNT = ["analyze", "count", "wikipedia", "--max-ply", "7", "--quiet", "--force", "--workers", "2"]


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads children from /proc")
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signals_stop_a_pool_at_once(sig: signal.Signals, status: int) -> None:
    proc = started(LONG_COUNT, workers=2)
    pool = children(proc.pid)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == status and out == ""
    one_line(err, "interrupted" if status == 130 else "terminated")
    time.sleep(0.5)
    assert not pool & {p for p, _, _ in processes()}


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads children from /proc")
def test_workers_die_with_their_parent() -> None:
    proc = started(LONG_COUNT, workers=2)
    pool = children(proc.pid)
    assert pool
    proc.kill()
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while pool & {p for p, _, _ in processes()} and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not pool & {p for p, _, _ in processes()}


@pytest.mark.slow
def test_ctrl_c_in_check_is_never_a_report() -> None:
    proc = started(["check", "wikipedia", "--games", "200000"])
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    one_line(err, "interrupted")
    assert "unknown" not in out and "interrupted from keyboard" not in out


def test_z3_interrupts_are_raised_not_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import z3

    from verify.quantum import z3_graph

    class Interrupted:
        def __init__(self, *args: object) -> None:
            pass

        def set(self, *args: object) -> None:
            pass

        def add(self, *args: object) -> None:
            pass

        def check(self) -> object:
            return z3.unknown

        def reason_unknown(self) -> str:
            return "interrupted from keyboard"

    monkeypatch.setattr(z3, "Solver", Interrupted)
    query = z3_graph.claim("x", z3.BoolVal(True))
    with pytest.raises(KeyboardInterrupt):
        z3_graph.prove(query)
    with pytest.raises(KeyboardInterrupt):
        z3_graph.check_premises(query)


# -- nothing a person did is lost -----------------------------------------------------------------

@pytest.mark.parametrize("target", ["missing/g.json", "dir/", "file/g.json", "."])
def test_play_checks_the_record_path_first(tmp_path: Path, target: str) -> None:
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("")
    proc = subprocess.run([sys.executable, "-m", "qttt", "play", "wikipedia", "--record", target],
                          input="1 2\n", capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          check=False)
    assert proc.returncode == 2 and proc.stdout == ""  # refused before the first prompt
    one_line(proc.stderr, "cannot write")


def test_play_prints_the_record_when_it_cannot_be_saved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    typed = iter(["1 2", "quit"])
    monkeypatch.setattr("builtins.input", lambda prompt: next(typed))
    target = tmp_path / "sub" / "g.json"
    (tmp_path / "sub").mkdir()
    real = io.write_atomic

    def fail(path: str | Path, text: object, make_dirs: bool = False) -> None:
        (tmp_path / "sub").rmdir()  # the directory went away during the game
        real(path, text)  # type: ignore[arg-type]
    monkeypatch.setattr(io, "write_atomic", fail)
    status = main(["play", "wikipedia", "--record", str(target)])
    out = capsys.readouterr().out
    assert status == 2 and "here it is instead" in out
    record = json.loads(out.split("here it is instead:\n", 1)[1].splitlines()[0])
    assert record["variant"] == "wikipedia" and record["actions"][0] == {"place": [0, 1]}


# -- the engine channel ---------------------------------------------------------------------------

def channel(script: str) -> LineChannel:
    return LineChannel([sys.executable, "-c", script])


def test_channel_line_cap() -> None:
    ch = channel("import sys\nsys.stdout.write('x' * 50_000_000)\nsys.stdout.flush()\nimport time\n"
                 "time.sleep(60)")
    started_at = time.monotonic()
    with pytest.raises(ChannelClosed, match="longer than"):
        ch.read_line(30)
    assert time.monotonic() - started_at < 30 and MAX_LINE < 50_000_000
    ch.stop()
    assert ch.proc.poll() is not None


def test_channel_timeout_does_not_wait_for_a_grandchild() -> None:
    ch = channel("import subprocess, sys\nsubprocess.Popen([sys.executable, '-c', "
                 "'import time; time.sleep(60)'])\n")  # exits; its child keeps stdout open
    started_at = time.monotonic()
    assert ch.read_line(1.0) is None
    assert time.monotonic() - started_at < 10
    group = ch.proc.pid
    ch.stop()
    time.sleep(0.5)
    assert not [p for p, _, g in processes() if g == group]  # the grandchild went with its group


def test_channel_closed_output_while_running() -> None:
    ch = channel("import os, sys, time\nsys.stderr.write('bye\\n')\nsys.stderr.flush()\nos.close(1)\n"
                 "time.sleep(60)")
    with pytest.raises(ChannelClosed, match=r"closed its output \(still running\) \(bye\)"):
        ch.read_line(10)
    ch.stop()


def test_conform_with_an_empty_engine_command(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["conform", "--engine", "", "wikipedia"], capsys)
    assert status == 2 and "Traceback" not in err and "internal error" not in err + out


# -- human output ---------------------------------------------------------------------------------

PIECES = ["\x1b[2J", "\x00", "\u202e", "\n", "\r", "\x07", "\x9b", "\u2066", "a", "é", "[/bold]", "[red]"]
# A name has a letter or digit (rule variant-file refuses one without: tests/core/test_variant.py)
HOSTILE = st.lists(st.sampled_from(PIECES), min_size=1, max_size=6).map("".join).filter(
    lambda s: any(ch.isalnum() for ch in s))


@given(name=HOSTILE)
@settings(max_examples=examples(30, 4), deadline=None)  # two processes an example
def test_show_escapes_names_and_keeps_json_exact(tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    v = tmp_path_factory.mktemp("v") / "v.toml"
    v.write_text(f"[variant]\nname = {json.dumps(name)}\ntitle = {json.dumps(name)}\n"
                 'extends = "wikipedia"\n', encoding="utf-8")
    human = subprocess.run([sys.executable, "-m", "qttt", "show", str(v)], capture_output=True, text=True,
                           timeout=60, check=False)
    assert human.returncode == 0, human.stderr
    assert not any(ch in human.stdout for ch in "\x1b\x00\u202e\r\x07\x9b\u2066")
    assert human.stdout.splitlines()[0].startswith(escape(name))  # the header stays one line
    exact = subprocess.run([sys.executable, "-m", "qttt", "show", str(v), "--json"], capture_output=True,
                           text=True, timeout=60, check=False)
    assert json.loads(exact.stdout)["name"] == name


def test_tour_escapes_team_names(tmp_path: Path) -> None:
    t = tmp_path / "t.toml"
    a = "a\\u001b[2J\\u202e"
    t.write_text(f'[[team]]\nname = "{a}"\nmain = ["1", "2", "3", "4"]\n[[team]]\nname = "b\\nc"\n'
                 f'main = ["5\\u0000", "6", "7", "8"]\n[[game]]\nboard = 1\nx = "{a}"\nscore = [1, 0]\n',
                 encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "qttt", "tour", str(t)], capture_output=True, text=True,
                          timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert not any(ch in proc.stdout for ch in "\x1b\x00\u202e") and "b\\x0ac" in proc.stdout


def test_safe_stream_and_shown() -> None:
    import io as stdio
    buf = stdio.StringIO()
    SafeStream(buf).write("a\x1b[2Jb\tc\n\u202e")
    assert buf.getvalue() == "a\\x1b[2Jb\tc\n\\u202e"
    name = shown("x\ny")
    assert f"{name}" == "x\\x0ay" and str(name) == "x\\x0ay" and json.dumps(name) == '"x\\ny"'
    assert name == "x\ny" and shown("plain") == "plain" and type(shown("plain")) is str


def test_error_messages_stay_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    weird = tmp_path / "a\nb\x1b[2J.toml"
    status, _, err = run(["show", str(weird)], capsys)
    assert status == 2
    one_line(err, "does not exist")
    assert "\x1b" not in err
