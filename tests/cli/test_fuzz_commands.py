"""Fuzzing the argument grammar of every command: for each, a Hypothesis strategy of its
positional arguments and flags with hostile values (numbers out of range or thousands of digits
long, NaN, empty text) and paths to odd kinds of file (a directory, a FIFO, /dev/zero, a symbolic
link loop, a huge file, hostile contents). The contract of docs/hostile-input.md on each run: exit
0, 1, 2 or 130; every line on standard error a `qttt` line, never a traceback; an answer in bounded
time; no temporary file left half-written; no child process left behind.

Budget: QTTT_FUZZ_EXAMPLES examples per command (default 8, as CI runs it); set it higher to fuzz
longer, e.g. QTTT_FUZZ_EXAMPLES=500.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from contract import run, within
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("QTTT_FUZZ_EXAMPLES", "8"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SECONDS = 60
pytestmark = pytest.mark.slow  # about a minute at the default budget: the full run, not the quick lane

NUMBERS = st.sampled_from(["-1", "0", "1", "2", "1e29", "9" * 5000, "nan", "inf", "", "٣", "0x10",
                           "100000000000000000000", "-0"])
KINDS = ("dir", "fifo", "zero", "loop", "huge", "binary", "deep", "missing", "good-toml", "good-record")


def make(root: Path, kind: str) -> str:
    """A path of the given kind under root."""
    path = root / f"f-{kind}"
    if path.exists() or path.is_symlink():
        return str(path)
    if kind == "dir":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "loop":
        path.symlink_to(path)
    elif kind == "huge":
        path.write_text("#" * (70 << 20))
    elif kind == "binary":
        path.write_bytes(b"\xff\x00\x1b[2J" * 100)
    elif kind == "deep":
        path.write_text("[" * 100_000)
    elif kind == "good-toml":
        path.write_text('[variant]\nname = "v\\u001b[2J"\nextends = "qttt(board=2)"\n')
    elif kind == "good-record":
        path.write_text('{"variant": "qttt(board=2)", "actions": [{"place": [0, 1]}]}\n')
    return str(path)


@st.composite
def argv(draw: st.DrawFn, root: Path) -> list[str]:
    """One command line of some command, with hostile values where they fit the grammar."""
    def path(stream: bool = False) -> str:
        kinds = [k for k in KINDS if not (stream and k in ("fifo", "zero"))]
        return make(root, draw(st.sampled_from(kinds)))

    ruleset = draw(st.sampled_from(["qttt(board=2)", "nosuch", "wikipedia(board=" + "9" * 30 + ")",
                                    make(root, "good-toml"), make(root, draw(st.sampled_from(KINDS[:8])))]))
    n = draw(NUMBERS)
    grammars = [
        ["replay", path(stream=True)], ["show", ruleset], ["show", ruleset, "--json"], ["variants"],
        ["random", ruleset, "-n", n], ["random", ruleset, "--seed", n, "-o", str(root / "out" / "g.jsonl")],
        ["perft", ruleset, "--depth", n], ["perft", "qttt(board=2)", "--actions", draw(st.sampled_from(
            ["[" * 5000, '[{"place": [0, ' + "9" * 30 + "]}]", "[]", "x"]))],
        ["analyze", "count", ruleset, "--max-ply", n, "--quiet", "--checkpoint", path()],
        ["analyze", "random", ruleset, "-n", n, "--chunk", draw(NUMBERS), "--quiet"],
        ["analyze", "solve", "qttt(board=2)", "--quiet", "--checkpoint", path()],
        ["check", ruleset, "--no-walk", "--games", n, "--quiet"],
        ["check", "qttt(board=2)", "--checkpoint", path(), "--max-ply", "2", "--quiet"],
        ["conform", "--engine", draw(st.sampled_from(["", "/nonexistent", "true"])), "--suite", path(),
         "--timeout", draw(NUMBERS)],
        ["match", ruleset, "random", "greedy", "--games", n, "--out", path()],
        ["tour", path(), "--seed", n], ["tour", path(), "--html", str(root) + "/"],
        ["vectors", "check", path()], ["vectors", "generate", "-o", str(root / "missing" / "dir")],
    ]
    return list(draw(st.sampled_from(grammars)))


def children() -> set[int]:
    """This process's live children (from /proc)."""
    me, out = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] not in ("Z", "X"):
            out.add(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads children from /proc")
@FUZZ
@given(data=st.data())
def test_every_command(tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
                       data: st.DataObject) -> None:
    root = tmp_path_factory.mktemp("fuzz")
    args = data.draw(argv(root))
    before = children()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        with within(SECONDS):
            status, _, err = run(args, capsys)
    finally:
        os.chdir(cwd)
    assert status in (0, 1, 2, 130), (args[:6], status, err[-500:])
    assert "Traceback" not in err and "internal error" not in err, (args[:6], err[-500:])
    assert all(line.startswith("qttt") for line in err.splitlines()), (args[:6], err[-500:])
    assert not [p for p in root.rglob("*.tmp")], args[:6]  # nothing half-written
    assert children() <= before, args[:6]  # no process left behind
