"""`qttt check` as a parallel job: the same report, byte for byte, whatever runs its units of work
(this process, a pool, a Dask cluster, units in any order); each ruleset printed as soon as it is
settled, in the order given (`--json`: JSON Lines); an interrupt prints what was settled, marked
partial, and exits 130/143."""

from __future__ import annotations

import io
import json
import random
import shlex
import signal
import subprocess
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from signals import as_from_a_terminal

from qttt.processes import Once, serial_mapper
from verify import cli
from verify.quantum import check as check_module
from verify.quantum import z3_graph
from verify.quantum.catalogue import PROPERTIES
from verify.quantum.check import check, discharge
from verify.report import Confirmed, Report, finding

ROOT = Path(__file__).resolve().parents[2]
CHEAP = ["spec/coverage/small-vanish-ranks.toml", "wikipedia", "spec/coverage/nested-weighted-majority.toml"]
"""A 2×2 ruleset walked whole (plies of many batches), a 3×3 one walked by shape classes (its own
rules too) to ply 3, a nested one."""
FLAGS = ["--games", "30", "--max-ply", "3", "--no-timing", "--quiet"]


def output(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert cli.main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.parametrize("specs", [pytest.param([CHEAP[0], CHEAP[2]], id="2x2-and-nested"),
                                   pytest.param(CHEAP, id="and-3x3", marks=pytest.mark.deep)])
def test_one_report_on_one_worker_two_or_a_local_dask_cluster(specs: list[str],
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run from scratch: the shared work (Z3, cross-checks, enumerations) done again by its
    own workers, in whatever order they take it. The run on two workers writes JSON Lines: the
    catalogue, each ruleset's object as in the document, the summary. CI leaves the 3×3 board out
    (its Z3 queries and walk take a while: the deep lane has it)."""
    pytest.importorskip("distributed")

    def run(*argv: str) -> str:
        monkeypatch.setattr(check_module, "SHARED", Once(priority=-1))
        return output([*specs, *FLAGS, *argv], capsys)
    one = run("--json-document", "--workers", "1")
    assert run("--json-document", "--dask", "local", "--workers", "2") == one
    data = json.loads(one)
    assert [r["ruleset"] for r in data["rulesets"]] == specs and data["partial"] is False
    head, *rulesets, last = map(json.loads, run("--json", "--workers", "2").splitlines())
    assert head == cli.catalogue_json() and rulesets == data["rulesets"]
    assert last["summary"] == data["summary"] and (last["partial"], last["exit_status"]) == (False, 0)


def test_a_z3_answer_does_not_depend_on_what_its_worker_did_before() -> None:
    """Z3 shows a model of each query's premises; in a context that has seen other queries it
    can show another one (the 4-cell query after the 9-cell ones did): each query gets a fresh one."""
    first = z3_graph.obligations(4)[0]
    alone = discharge(first, 60.0)
    for ob in z3_graph.obligations(9)[:12]:
        discharge(ob, 60.0)
    again = discharge(first, 60.0)
    assert (again.premises.verdict, again.premises.model) == (alone.premises.verdict, alone.premises.model)


def shuffled(seed: int) -> Callable[[Callable[..., Any], list[tuple[Any, ...]]], Iterable[Any]]:
    """A mapper that runs the units in a random order (results still in the order of the
    arguments): a report must not depend on which unit ran first."""
    rng = random.Random(seed)

    def mapper(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterable[Any]:
        order = list(range(len(args)))
        rng.shuffle(order)
        done = {i: fn(*args[i]) for i in order}
        return [done[i] for i in range(len(args))]
    return mapper


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.deep)])
def test_units_run_in_any_order_give_the_same_report(seed: int) -> None:
    spec = "spec/coverage/small-vanish-ranks.toml"
    alone = check(spec, games=40, seed=3, mapper=serial_mapper)
    mixed = check(spec, games=40, seed=3, mapper=shuffled(seed))
    assert json.dumps(mixed.to_json(False)) == json.dumps(alone.to_json(False))
    assert alone.games == 40 and alone.walk is not None and alone.walk["complete"]


@pytest.mark.slow
def test_one_worker_keeps_one_core_busy(monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """`--workers 1` starts no thread beside the ruleset it checks (one per ruleset, each after the
    one before): no unit of work runs beside another, so that one worker's time is one core's, the
    baseline the speed-up of more workers is measured against (issue #31)."""
    started: list[tuple[str, int]] = []
    start = threading.Thread.start

    def counted(self: threading.Thread) -> None:
        started.append((self.name, sum(t.name == "background one" for t in threading.enumerate())))
        start(self)
    monkeypatch.setattr(threading.Thread, "start", counted)
    output([*CHEAP, *FLAGS, "--json", "--workers", "1"], capsys)
    assert started == [("background one", 0)] * len(CHEAP)


def test_the_progress_line_counts_rulesets_and_estimates_what_is_left() -> None:
    board = cli.Board(None, ["a", "b", "c", "d"])
    board.tell("a", "walk: ply 3, 40/120 positions")
    board.tell("b", "sampling")
    assert "0/4 rulesets settled" in board.text() and "a: walk: ply 3, 40/120 positions" in board.text()
    assert "(+1 running)" in board.text() and "time left: after the first ruleset" in board.text()
    board.started -= 30
    board.done("a")
    text = board.text()
    assert "1/4 rulesets settled in 30 s; b: sampling" in text and "about 1 min 30 s left" in text
    assert [cli.duration(s) for s in (5.4, 65, 3725)] == ["5 s", "1 min 05 s", "1 h 02 min"]


def started(argv: list[str]) -> subprocess.Popen[str]:
    """`qttt check argv` in a session of its own (every process it starts is in it), as from a
    terminal."""
    return subprocess.Popen([sys.executable, "-m", "qttt", "check", *argv], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=as_from_a_terminal)


def in_session(sid: int) -> list[str]:
    """The live processes of a session, as `pid command`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue  # not a process, or gone
        state, _, _, session = stat[stat.rindex(")") + 2:].split()[:4]
        if int(session) == sid and state != "Z":  # a zombie has ended, it waits to be reaped
            found.append(f"{entry.name} {command}")
    return found


@pytest.mark.slow
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_prints_what_was_settled(sig: signal.Signals, status: int) -> None:
    """Stopped once the first ruleset is printed: its report stands, the last line says the report
    is partial and names what was not settled; the exit status is the signal's; none of its
    workers is left."""
    proc = started(["spec/coverage/small-vanish-ranks.toml", "wikipedia", "--games", "100", "--json",
                    "--workers", "2"])  # a 2×2 walk, then the 3×3 one (minutes)
    assert proc.stdout is not None and proc.stderr is not None
    head = json.loads(proc.stdout.readline())
    first = json.loads(proc.stdout.readline())
    workers = in_session(proc.pid)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=120)
    assert len(workers) >= 3 and in_session(proc.pid) == []  # no worker outlives it
    last = json.loads(out.splitlines()[-1])
    assert "catalogue" in head and first["ruleset"] == "spec/coverage/small-vanish-ranks.toml"
    assert proc.returncode == status and last["partial"] is True and last["exit_status"] == status
    assert last["not_settled"] == ["wikipedia"] and "partial report, interrupted: 1 of 2" in last["summary"]
    assert err.strip() == ("qttt: interrupted" if status == 130 else "qttt: terminated")


def synthetic() -> Report:
    """A ruleset's report as the quantum checker makes it: a walk and sampled games shared by
    every property, Z3 by the graph ones, an accepted violation with its game, a Z3 query given up."""
    walk = {"ruleset": "wikipedia(end=full)", "key": "shape", "complete": True, "positions": 2499,
            "members_per_class": 4, "members_checked": 9871, "seconds": 25.0}
    record = {"variant": "wikipedia", "actions": [{"place": [0, 1]}, {"place": [0, 1]}, {"measure": 0}]}
    found = []
    for p in PROPERTIES:
        parts = [("classes", "shape classes (engine, one position per shape class, 2499 classes, each "
                  "also on up to K = 4 relabelled members: 9871 checked)"), ("proved", "proved (Z3)")]
        witness = Confirmed(record, "a tie no source decides") if p.id == "scores-well-defined" else None
        f = finding(p.id, parts, "method", 0.012, witness, accepted="score-tie-gap" if witness else None)
        f.shared = ("walk", "games")
        found.append(f)
    gave_up = ("unknown", "unknown (at-most-one-outcome, 9 cells: Z3: timeout)")
    found[1] = finding(found[1].property, [gave_up], "method", 0.5)
    found[1].next = "Z3 gave up after 60 s on a query: --timeout 240 gives it longer"
    return Report("wikipedia", "wikipedia", "wikipedia", 3, found, 1000, 5.2, walk, "engine and core",
                  shared={"walk": ("the walk", 25.04), "games": ("1000 sampled games", 5.21)})


def test_a_ruleset_reads_in_a_few_lines_with_what_to_do_next() -> None:
    out = Console(file=io.StringIO(), width=120, highlight=False)
    cli.print_report(out, synthetic())
    text = out.file.getvalue()  # type: ignore[attr-defined]
    lines = text.splitlines()
    # title, header, rule, a row per property, shared work, the witness and next steps
    assert len(lines) <= len(PROPERTIES) + 11, text
    assert "how it was settled" not in text and "each also on up to" not in lines[3]  # one status column
    row = next(line for line in lines if line.lstrip().startswith("turn-order"))
    assert "shape classes (engine) + proved (Z3)" in row and "0.01 s + shared" in row
    assert ("shared (CPU seconds of work): the walk 25.0 s (one position per shape class of "
            "wikipedia(end=full), 2499 classes") in " ".join(lines)
    assert "1000 sampled games 5.2 s" in text
    assert "next: collapse-uniqueness: Z3 gave up after 60 s on a query: --timeout 240" in text
    (replay,) = [line for line in lines if "next: replay it:" in line]
    assert replay.endswith("| qttt replay -; --strict fails on it")
    command = replay.split("replay it: ", 1)[1].removesuffix("; --strict fails on it")
    proc = subprocess.run(command.replace("qttt replay", f"{shlex.quote(sys.executable)} -m qttt replay"),
                          shell=True, cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0 and proc.stderr == "", proc  # the command replays the witness as printed
    verbose = Console(file=io.StringIO(), width=200, highlight=False)
    cli.print_report(verbose, synthetic(), verbose=True)
    assert "how it was settled" in verbose.file.getvalue()  # type: ignore[attr-defined]


def test_the_json_says_what_each_property_shares_and_what_next() -> None:
    data = synthetic().to_json(timing=False)
    assert data["shared"] == {"walk": {"what": "the walk"}, "games": {"what": "1000 sampled games"}}
    assert data["properties"][0]["shared"] == ["walk", "games"] and "seconds" not in data["properties"][0]
    assert data["properties"][1]["next"].endswith("--timeout 240 gives it longer")
    timed = synthetic().to_json(timing=True)
    assert timed["shared"]["walk"] == {"what": "the walk", "seconds": 25.04}
