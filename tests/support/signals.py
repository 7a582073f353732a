"""Signals in tests: a command started as from a terminal, and the test process's own dispositions
(tests/conftest.py fails a test that leaves them changed)."""

from __future__ import annotations

import signal

STOPPING = (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)
"""The signals that stop a command (qttt.stops answers each with its one line)."""
WATCHED = (signal.SIGINT, signal.SIGTERM)
"""The dispositions of the test process no test may leave changed."""


def as_from_a_terminal() -> None:
    """A command's signals as a shell at a terminal starts it (a `preexec_fn`): every stopping signal
    at its default, none blocked, whatever the test process has (a run from a background job hands
    SIGINT and SIGQUIT on ignored; a command started with SIGINT ignored rightly keeps ignoring it)."""
    for sig in STOPPING:
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOPPING)


def dispositions() -> dict[str, object]:
    """The watched signals' handlers in this process, and those of them this thread blocks."""
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    return {**{sig.name: signal.getsignal(sig) for sig in WATCHED},
            "blocked": sorted(s.name for s in WATCHED if s in blocked)}
