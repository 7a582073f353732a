"""The executor every long command runs its units of work on (qttt.processes): a mapper gives the
results in the order of the arguments whoever runs them, hands work out by priority, may be called
from any thread, and shared work is done once."""

from __future__ import annotations

import multiprocessing
import os
import struct
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import CancelledError
from typing import Any

import pytest

from qttt.analysis.distributed import executor
from qttt.processes import (
    PRIORITY,
    Once,
    Stopwatch,
    alongside,
    local_mapper,
    one_worker,
    serial_mapper,
    submit,
)


def slept(seconds: float, value: int) -> tuple[int, float]:
    """value, and when it was done (a unit of work that takes a while)."""
    time.sleep(seconds)
    return value, time.monotonic()


def fails(value: int) -> int:
    if value == 3:
        raise ValueError("three")
    return value


def test_a_pool_outlives_the_thread_that_first_used_it() -> None:
    """Linux kills a worker when the thread that forked it ends: a pool first used by a short-lived
    thread (a mapper's reader) must not lose its workers."""
    m, stop = local_mapper(2)
    try:
        t = threading.Thread(target=lambda: list(m(abs, [(-1,), (-2,)])))
        t.start()
        t.join()
        time.sleep(0.5)
        assert list(m(abs, [(-3,), (-4,), (-5,)])) == [3, 4, 5]
    finally:
        stop()


def test_work_goes_by_priority_then_in_order() -> None:
    m, stop = local_mapper(1)
    try:
        late = m(slept, [(0.2, i) for i in range(6)])  # the first two go to the pool at once
        token = PRIORITY.set(-1)
        early = m(slept, [(0.0, 10 + i) for i in range(3)])
        PRIORITY.reset(token)
        done = sorted([*late, *early], key=lambda r: r[1])
    finally:
        stop()
    assert [v for v, _ in done] == [0, 1, 10, 11, 12, 2, 3, 4, 5]


@pytest.mark.parametrize("workers", [1, 2])
def test_submit_keeps_order_and_fails_from_the_first_failure(workers: int) -> None:
    with executor(workers) as m:
        futures = submit(m, fails, [(i,) for i in range(6)])
        assert [f.result() for f in futures[:3]] == [0, 1, 2]
        for f in futures[3:]:
            with pytest.raises(ValueError, match="three"):
                f.result()


def test_an_interrupted_pool_cancels_what_waits() -> None:
    m, stop = local_mapper(1)
    results = m(slept, [(0.3, i) for i in range(8)])
    stop(True)
    with pytest.raises(CancelledError):
        list(results)


def managers() -> set[threading.Thread]:
    """The threads of process pools (the interpreter joins them at exit)."""
    return {t for t in threading.enumerate() if type(t).__name__ == "_ExecutorManagerThread"}


def half_sent(size: int) -> None:
    """A worker that starts sending a result (the header of `size` bytes, a few of them) and
    stops there: the pool's own thread waits for the rest."""
    frame = sys._getframe()
    while "result_queue" not in frame.f_locals:  # the worker's loop (concurrent.futures.process)
        frame = frame.f_back  # type: ignore[assignment]
    queue = frame.f_locals["result_queue"]
    os.write(queue._writer.fileno(), struct.pack("!i", size) + b"\x80\x04")
    time.sleep(3600)


@pytest.mark.parametrize("work", [(time.sleep, 3600), (half_sent, 1 << 20)])
def test_an_interrupted_pool_kills_its_workers_at_once(work: tuple[Callable[..., Any], int]) -> None:
    """Stopped after an interrupt, a pool's workers are killed with the pieces in hand (a Z3 query,
    a ruleset's whole check), and its own thread ends, even when a worker was killed half way
    through sending a result: nothing is left for the interpreter to wait for at exit."""
    before, children = managers(), set(multiprocessing.active_children())
    m, stop = local_mapper(2)
    workers = set(multiprocessing.active_children()) - children
    fn, arg = work
    results = m(fn, [(arg,), (arg,)])
    time.sleep(1.0)  # both at work
    stop(True)
    assert workers and not any(p.is_alive() for p in workers)
    assert managers() == before
    with pytest.raises(CancelledError):
        list(results)


def test_shared_work_is_done_once_whoever_asks() -> None:
    calls: list[int] = []

    def counted(value: int) -> int:
        calls.append(value)
        if value < 0:
            raise ValueError("negative")
        return 2 * value

    def counting(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Any:
        return serial_mapper(fn, args)

    once = Once()
    asked = [once.get(counting, counted, [(k, (k,)) for k in (1, 2, 3)]) for _ in range(4)]
    threads = [threading.Thread(target=lambda: once.get(counting, counted, [(2, (2,)), (4, (4,))]))
               for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [f.result() for f in asked[0]] == [2, 4, 6]
    assert all(a == asked[0] for a in asked)
    assert once.get(counting, counted, [(4, (4,))])[0].result() == 8
    assert sorted(calls) == [1, 2, 3, 4]
    (bad,) = once.get(counting, counted, [(-1, (-1,))])
    with pytest.raises(ValueError, match="negative"):
        bad.result()
    time.sleep(0.1)
    (again,) = once.get(counting, counted, [(-1, (-1,))])  # a failure is forgotten: asked again
    assert again is not bad
    assert once.results() == {1: 2, 2: 4, 3: 6, 4: 8}


def test_one_worker_is_this_process() -> None:
    with executor(1) as m:
        assert m is serial_mapper


@pytest.mark.parametrize("watched", [False, True])
def test_one_worker_does_one_thing_at_a_time(watched: bool) -> None:
    """On one worker (under a Stopwatch too) submit() and alongside() do the work now, in the
    calling thread, in the order asked; a unit that raises fails its future and the later ones, the
    earlier ones stand. On a pool alongside() runs beside the caller."""
    mapper = Stopwatch(serial_mapper) if watched else serial_mapper
    assert one_worker(mapper)
    ran: list[tuple[str, int]] = []

    def noted(value: int) -> int:
        ran.append((threading.current_thread().name, value))
        return fails(value)

    futures = submit(mapper, noted, [(1,), (2,), (3,), (4,)])
    here = threading.current_thread().name
    assert ran == [(here, 1), (here, 2), (here, 3)]  # done by the time submit returns; 4 never ran
    assert all(f.done() for f in futures)
    assert [f.result() for f in futures[:2]] == [1, 2]
    for f in futures[2:]:
        with pytest.raises(ValueError, match="three"):
            f.result()
    beside = alongside(mapper, lambda: threading.current_thread().name)
    assert beside.done() and beside.result() == here
    m, stop = local_mapper(2)
    try:
        assert not one_worker(m)
        assert alongside(m, lambda: threading.current_thread().name).result() != here
    finally:
        stop(False)


def test_work_is_handed_out_by_the_caller_in_order_and_shared_work_first() -> None:
    """submit() calls the mapper in the calling thread (so work goes out in the order of the calls,
    at the caller's priority); a Once with a priority hands its work out at that priority."""
    seen: list[tuple[str, float, str]] = []

    def recording(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Any:
        seen.append((threading.current_thread().name, PRIORITY.get(), fn.__name__))
        return serial_mapper(fn, args)

    token = PRIORITY.set(3)
    try:
        shared = Once(priority=-1)
        [f.result() for f in shared.get(recording, abs, [(1, (-1,))])]
        [f.result() for f in submit(recording, fails, [(1,)])]
    finally:
        PRIORITY.reset(token)
    here = threading.current_thread().name
    assert seen == [(here, -1, "abs"), (here, 3, "fails")]
