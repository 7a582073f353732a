"""`analyze random` gives one answer whatever runs it: this process, a pool of 2 or 3 workers, or
a local Dask cluster, with chunks grouped into units of work of any size, and whichever engine;
the workers of both kinds start the same way (processes.worker_init)."""

from __future__ import annotations

import contextlib
import json
import operator
import os
import signal
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.analysis import distributed, sample
from qttt.analysis.sample import SampleResult, sample_games
from qttt.cli import main
from qttt.processes import Mapper, local_mapper
from qttt.quantum.strategies import rulesets
from qttt.ruleset import Ruleset
from qttt.variant import load_ruleset


def answer(res: SampleResult) -> tuple[object, ...]:
    return res.histogram, res.lines, res.shapes, res.to_json()


@pytest.fixture(scope="module")
def pools() -> Iterator[dict[int, Mapper]]:
    two, stop2 = local_mapper(2)
    three, stop3 = local_mapper(3)
    yield {2: two, 3: three}
    stop2()
    stop3()


@settings(max_examples=examples(25),
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rs=rulesets(max_board=4), seed=st.integers(0, 99), games=st.integers(1, 400),
       chunk=st.integers(1, 60), unit=st.integers(1, 500), units=st.integers(1, 20),
       workers=st.sampled_from([2, 3]),
       core=st.sampled_from(["auto", "python"]))
@example(rs=load_ruleset("kumar"), seed=1, games=300, chunk=10, unit=100, units=2, workers=2, core="auto")
def test_one_answer_whatever_the_workers(pools: dict[int, Mapper], rs: Ruleset, seed: int, games: int,
                                         chunk: int, unit: int, units: int, workers: int, core: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    alone = sample_games(rs, games, seed=seed, chunk=chunk, core="python")
    monkeypatch.setattr(sample, "UNIT_GAMES", unit)  # units of one chunk up to all of them
    monkeypatch.setattr(sample, "UNITS", units)
    pooled = sample_games(rs, games, seed=seed, chunk=chunk, core=core, mapper=pools[workers])
    assert answer(pooled) == answer(alone)


def test_units_group_chunks_in_order() -> None:
    sizes = [2000] * 500 + [700]
    units = sample._units(list(range(501)), sizes, fast=True)
    assert [i for unit in units for i, _ in unit] == list(range(501))
    assert len(units) >= sample.UNITS and max(len(u) for u in units) * 2000 <= sample.UNIT_GAMES
    assert sample._units([3, 5], sizes, fast=False) == [[(3, 2000)], [(5, 2000)]]


def started(mapper: Mapper) -> set[tuple[int, object]]:
    """Each worker's parent and its Ctrl-C handler, as seen from four units of work."""
    parents = mapper(operator.call, [(os.getppid,)] * 4)
    return set(zip(parents, mapper(signal.getsignal, [(signal.SIGINT,)] * 4), strict=True))


def test_pool_workers_start_as_dask_workers(pools: dict[int, Mapper]) -> None:
    assert started(pools[2]) == {(os.getpid(), signal.SIG_IGN)}


@pytest.mark.slow
def test_dask_workers_start_and_answer_as_pool_workers() -> None:
    pytest.importorskip("distributed")
    from qttt.analysis.distributed import dask_mapper
    rs = load_ruleset("bonus4x4")
    with dask_mapper(None, 2) as m:
        assert started(m) == {(os.getpid(), signal.SIG_IGN)}
        clustered = sample_games(rs, 30_000, seed=5, chunk=1000, mapper=m)
    assert answer(clustered) == answer(sample_games(rs, 30_000, seed=5, chunk=1000))


def pid_after(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


@pytest.mark.slow
def test_a_local_cluster_shares_the_work_among_its_workers(capsys: pytest.CaptureFixture[str]) -> None:
    """`analyze random --dask local`: units of work run on each of the cluster's worker processes
    (forked from this one), and the command answers as the local pool and as one process does."""
    pytest.importorskip("distributed")
    from qttt.analysis.distributed import dask_mapper
    with dask_mapper(None, 3) as m:
        pids = set(m(pid_after, [(0.2,)] * 12))
    assert len(pids) == 3 and os.getpid() not in pids
    argv = ["analyze", "random", "kumar", "-n", "40000", "--seed", "3", "--json", "--quiet"]
    answers = []
    for extra in (["--workers", "1"], ["--workers", "3"], ["--dask", "local", "--workers", "3"]):
        assert main([*argv, *extra]) == 0
        answers.append(capsys.readouterr().out)
    assert answers[0] == answers[1] == answers[2] and json.loads(answers[0])["games"] == 40000


def test_every_core_by_default(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`analyze random` runs on one process per core unless told (--workers), locally and with
    `--dask local`, whose cluster gets as many worker processes."""
    asked: list[tuple[str | None, int | None]] = []

    @contextlib.contextmanager
    def recording(address: str | None = None, workers: int | None = None) -> Iterator[Mapper]:
        asked.append((address, workers))
        yield lambda fn, args: [fn(*a) for a in args]
    monkeypatch.setattr(distributed, "dask_mapper", recording)
    pools: list[int] = []
    def counting(workers: int) -> tuple[Mapper, Callable[..., None]]:
        pools.append(workers)
        return local_mapper(workers)
    monkeypatch.setattr(distributed, "local_mapper", counting)
    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    argv = ["analyze", "random", "kumar", "-n", "500", "--quiet"]
    for extra in ([], ["--dask", "local"], ["--dask", "local", "--workers", "2"], ["--dask", "host:8786"]):
        assert main([*argv, *extra]) == 0
    capsys.readouterr()
    assert pools == [3]
    assert asked == [(None, 3), (None, 2), ("host:8786", 3)]


@pytest.mark.parametrize(("name", "core"),
                         [("wikipedia", "auto"), ("wikipedia", "python"), ("intelligent", "auto")])
def test_random_records_whatever_the_workers(name: str, core: str, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`qttt random`: the same records on 1, 2 or 3 worker processes, whichever engine plays them
    (tests/cli/test_random_output.py tests every kind of output)."""
    monkeypatch.setattr(sample, "RECORD_BLOCK", 7)  # qttt random's blocks
    out = []
    for workers in ("1", "2", "3"):
        assert main(["random", name, "-n", "30", "--seed", "5", "--core", core, "--workers", workers]) == 0
        out.append(capsys.readouterr().out)
    assert out[0] == out[1] == out[2] and out[0].count("\n") == 30


def test_a_stopped_run_keeps_its_units(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after two units of work: the checkpoint holds them (saved when the run stops, not
    only every CHECKPOINT_SECONDS), and the resumed run gives the uninterrupted answer."""
    rs, cp = load_ruleset("kumar"), tmp_path / "cp.json"
    monkeypatch.setattr(sample, "UNIT_GAMES", 100)

    def stopping(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
        yield fn(*args[0])
        yield fn(*args[1])
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        sample_games(rs, 1000, seed=2, chunk=50, checkpoint=cp, mapper=stopping)
    assert len(json.loads(cp.read_text())["done"]) == 4  # two units of two chunks
    resumed = sample_games(rs, 1000, seed=2, chunk=50, checkpoint=cp)
    assert answer(resumed) == answer(sample_games(rs, 1000, seed=2, chunk=50))
