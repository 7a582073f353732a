"""The contract of docs/hostile-input.md, as the tests check it: a command run in-process, and one
line on standard error naming what it must."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

import pytest

from qttt.cli import main


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """The exit status (a parser's refusal included), standard output and error of `qttt ARGV`."""
    capsys.readouterr()
    try:
        status = main(argv)
    except SystemExit as e:  # the parser refusing a flag
        status = int(e.code or 0)
    out = capsys.readouterr()
    return status, out.out, out.err


def one_line(err: str, *needles: str) -> None:
    """Exactly one line on standard error, no traceback, naming the needles."""
    assert err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    for needle in needles:
        assert needle in err, (needle, err)


@contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail the example when it takes longer than `seconds` (a hang, not a speed measure)."""
    def stop(signum: int, frame: FrameType | None) -> None:
        raise TimeoutError(f"no answer within {seconds} s")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
