"""verify.isolated: a call that crashes, hangs or exits in the child is an answer (Died), never the
caller's crash; a function's own exception is CallFailed; the next call starts a fresh child."""

from __future__ import annotations

import isolated_calls as calls
import pytest

from verify.isolated import CallFailed, Died, Isolated


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
