"""verify.isolated: a call that crashes, hangs or exits in the child is an answer (Died), never the
caller's crash; a function's own exception is CallFailed; the next call starts a fresh child. `run`
over a batch in forked children: a segfault, an abort, a hang, an exit or an exception on one item
is that item's `Crashed` result, with where its marks stood, found again alone in a fresh child; the
other items get their results; the checker goes on."""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Sequence

import isolated_calls as calls
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from verify import isolated
from verify.isolated import CallFailed, Crashed, Died, Isolated, Mark, Skipped, run


def test_a_call_answers_and_the_child_is_reused() -> None:
    with Isolated(30) as child:
        assert child.call(calls.double, 21) == 42
        assert child.call(calls.noisy) == 7  # what it prints does not corrupt the answer
        assert child.started == 1


def test_a_crash_is_an_answer_and_the_next_call_starts_a_fresh_child() -> None:
    with Isolated(30) as child:
        got = child.call(calls.crash)
        assert isinstance(got, Died) and "SIGSEGV" in got.how, got
        assert child.call(calls.double, 2) == 4
        assert child.started == 2


@pytest.mark.slow
def test_a_hang_is_an_answer_within_its_time() -> None:
    with Isolated(30) as child:
        got = child.call(calls.hang, timeout=1.0)
        assert isinstance(got, Died) and "did not answer within 1 s" in got.how, got
        assert child.process is None  # killed


@pytest.mark.slow
def test_an_exit_is_an_answer() -> None:
    with Isolated(30) as child:
        got = child.call(calls.exits)
        assert isinstance(got, Died) and "status 3" in got.how, got


def test_the_function_s_own_error_is_raised_as_call_failed() -> None:
    with Isolated(30) as child, pytest.raises(CallFailed, match="ValueError: as asked"):
        child.call(calls.fail)


# run ---------------------------------------------------------------------------------------------

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="run forks its children")

BAD = {3: "segv", 5: "abort", 6: "hang", 8: "exit", 9: "raise"}


def risky(items: Sequence[int], mark: Mark) -> list[int]:
    """Ten times each item, marking (item, 7, item) first; the items of BAD misbehave as named."""
    out = []
    for i, x in enumerate(items):
        mark(i, 7, x)
        what = BAD.get(x)
        if what == "segv":
            ctypes.string_at(0)
        elif what == "abort":
            os.abort()
        elif what == "hang":
            while True:
                time.sleep(0.01)
        elif what == "exit":
            os._exit(4)
        elif what == "raise":
            raise ValueError("planted")
        out.append(10 * x)
    return out


@needs_fork
def test_each_misbehaving_item_is_its_own_finding_and_the_rest_are_answered() -> None:
    got = run(risky, list(range(12)), timeout=0.5, most=10)
    assert got[:3] == [0, 10, 20] and got[4] == 40 and got[7] == 70 and got[10:] == [100, 110]
    assert got[3] == Crashed("was killed by signal SIGSEGV", (7, 3))
    assert got[5] == Crashed("was killed by signal SIGABRT", (7, 5))
    assert got[6] == Crashed("no progress for 0.5 s (killed)", (7, 6))
    assert got[8] == Crashed("exited with status 4", (7, 8))
    assert got[9] == Crashed("raised ValueError: planted", (7, 9))


@needs_fork
def test_after_most_crashes_the_rest_is_skipped() -> None:
    got = run(risky, [1, 3, 5, 2, 3], timeout=0.5, most=2)
    assert got[0] == 10  # answered before the first crash
    assert [type(g) for g in got[1:3]] == [Crashed, Crashed]
    assert all(isinstance(g, Skipped) for g in got[3:]), got


@needs_fork
def test_the_defaults_are_read_when_run_is_called(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the checker's callers leave to the defaults follows isolated.TIMEOUT and isolated.MOST
    (the tests of a hanging core set both short: each hang costs two waits of TIMEOUT)."""
    monkeypatch.setattr(isolated, "TIMEOUT", 0.3)
    monkeypatch.setattr(isolated, "MOST", 1)
    got = run(risky, [6, 1, 2])
    assert got[0] == Crashed("no progress for 0.3 s (killed)", (7, 6))
    assert all(isinstance(g, Skipped) for g in got[1:]), got


def batch_call(items: Sequence[int], mark: Mark) -> list[int]:
    """One call for the whole batch (marked as no item): it crashes when 4 is among the items."""
    mark(-1)
    if 4 in items:
        ctypes.string_at(0)
    return [x + 1 for x in items]


@needs_fork
def test_a_batch_crash_no_mark_places_is_traced_to_its_item() -> None:
    got = run(batch_call, list(range(8)), timeout=5)
    assert got == [1, 2, 3, 4, Crashed("was killed by signal SIGSEGV", ()), 6, 7, 8]


def together(items: Sequence[int], mark: Mark) -> list[int]:
    """Crashes only when given more than three items at once."""
    mark(-1)
    if len(items) > 3:
        os.abort()
    return list(items)


@needs_fork
def test_a_crash_no_single_item_reproduces_says_so() -> None:
    got = run(together, list(range(6)), timeout=5)
    assert got[0] == Crashed("was killed by signal SIGABRT", (), alone=False)
    assert got[1:] == [1, 2, 3, 4, 5]


@needs_fork
def test_the_checker_outlives_a_child_it_stops_waiting_for() -> None:
    """A hung child is killed, not left running."""
    started = time.monotonic()
    got = run(risky, [6], timeout=0.3)
    assert isinstance(got[0], Crashed) and time.monotonic() - started < 10


@needs_fork
@settings(max_examples=examples(15), deadline=None)
@given(st.lists(st.integers(0, 12), max_size=12))
@needs_fork
def test_results_keep_the_items_order(items: list[int]) -> None:
    """Whatever misbehaves where, every item gets one answer, in order; the good ones theirs."""
    safe = [x for x in items if BAD.get(x) not in ("hang",)]
    got = run(risky, safe, timeout=1, most=len(safe) + 1)
    assert len(got) == len(safe)
    for x, g in zip(safe, got, strict=True):
        assert (g == 10 * x) if x not in BAD else isinstance(g, Crashed), (x, g)
