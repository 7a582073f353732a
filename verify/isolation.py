"""What the checker runs but does not trust (a compiled core reached through ctypes, a fast path),
run in a child process: a crash, an abort or a hang there is a finding about the code under test,
never the end of the checker.

`run(fn, items)` forks a child (a copy of the checker: the same code, rulesets and positions, a
planted bug included, so nothing but the results crosses between them) that calls `fn(items,
mark)` once and sends back its list of results, one per item. `fn` calls `mark(i, *where)` as it
goes (item i, then numbers of its own saying where in the item it is), into memory the parent
reads; the parent waits while the marks move, and kills the child once they stand still for
`timeout` seconds. When the child dies or hangs on item i, that item is run again alone in a
fresh child, so that what it did not finish is its own doing and `where` says where it stopped
(`Crashed`); the items before and after it are run again as batches of their own. After `MOST`
crashes the remaining items are not run (`Skipped`). Without `os.fork` (not POSIX) fn runs in
this process.
"""

from __future__ import annotations

import contextlib
import faulthandler
import mmap
import os
import pickle
import select
import signal
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from qttt.processes import worker_init

T = TypeVar("T")
R = TypeVar("R")
Mark = Callable[..., None]
"""mark(i, *where): the child works on item i, at `where` (up to WHERE integers)."""

TIMEOUT = 20.0
"""Seconds the marks may stand still before a child counts as hung."""
MOST = 3
"""Crashes after which the remaining items are skipped."""
WHERE = 6
_SLOTS = 2 + WHERE  # the marks' memory: a counter, the item, then where
_POLL = 0.1
_EMPTY = object()


@dataclass(frozen=True)
class Crashed:
    """An item the code under test did not finish: why (`killed by SIGSEGV`, `no progress for 20
    s`, `exited with status 1`, `raised ValueError: ...`), where its last mark said it was, and
    whether it did so alone in a fresh child (else only after the items before it, in one
    process)."""

    why: str
    where: tuple[int, ...]
    alone: bool = True


@dataclass(frozen=True)
class Skipped:
    """An item not run: the code under test had crashed too often before it."""

    why: str


def run(fn: Callable[[Sequence[T], Mark], list[R]], items: Sequence[T], timeout: float | None = None,
        most: int = MOST) -> list[R | Crashed | Skipped]:
    """fn's result for each item, run in child processes (see the module docstring; timeout
    default TIMEOUT)."""
    timeout = TIMEOUT if timeout is None else timeout
    if not items:
        return []
    if not hasattr(os, "fork"):  # pragma: no cover - not POSIX: no isolation to be had
        return list(fn(items, lambda *_: None))
    out: list[Any] = [_EMPTY] * len(items)
    todo = [(0, len(items))]
    crashes = 0
    while todo:
        lo, hi = todo.pop()
        if lo >= hi:
            continue
        if crashes >= most:
            why = f"not run: the code under test crashed on {crashes} items before"
            out[lo:hi] = [Skipped(why)] * (hi - lo)
            continue
        got, died = _child(fn, items[lo:hi], timeout)
        if died is None:
            out[lo:hi] = got
            continue
        why, index, where = died
        first = lo  # the first item whose result is still to get
        if not 0 <= index < hi - lo:  # no item marked: each item alone, in order, in one child
            got, again = _child(fn, items[lo:hi], timeout, one_by_one=True)
            out[lo:lo + len(got)] = got
            if again is None:  # only the items together crash: not one game's doing
                out[lo] = Crashed(why, where, alone=False)
                crashes += 1
                continue
            died, index, first = again, len(got), lo + len(got)
        j = lo + index
        alone = _child(fn, [items[j]], timeout)[1] if hi - lo > 1 else died
        out[j] = Crashed(alone[0], alone[2]) if alone is not None else Crashed(died[0], died[2], alone=False)
        crashes += 1
        todo += [(j + 1, hi), (first, j)]  # the earlier items first
    assert all(r is not _EMPTY for r in out)
    return out


Died = tuple[str, int, tuple[int, ...]]
"""Why a child did not answer, the item its marks were on and where in it."""


def _child(fn: Callable[[Sequence[T], Mark], list[R]], items: Sequence[T], timeout: float,
           one_by_one: bool = False) -> tuple[list[R], Died | None]:
    """fn(items) in a forked child (with one_by_one, fn([item]) for each item in turn): the results
    it sent, and why it died and where its marks were, or None when it finished."""
    marks = mmap.mmap(-1, 8 * _SLOTS)
    struct.pack_into(f"<{_SLOTS}q", marks, 0, 0, *(-1,) * (_SLOTS - 1))
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow a fork)
        os.close(read)
        _serve(fn, items, marks, write, parent, one_by_one)
    os.close(write)
    data = bytearray()
    seen, still = -1, time.monotonic()
    hung, ended = False, False
    try:
        while True:
            ready, _, _ = select.select([read], [], [], _POLL)
            if ready:
                chunk = os.read(read, 1 << 16)
                if not chunk:
                    break
                data += chunk
            count = struct.unpack_from("<q", marks, 0)[0]
            if count != seen:
                seen, still = count, time.monotonic()
            elif time.monotonic() - still > timeout:
                hung = True
                break
        ended = not hung
    finally:  # a hung child, or one left behind by an interrupt, is killed
        os.close(read)
        if not ended:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        index, *where = struct.unpack_from(f"<{_SLOTS - 1}q", marks, 8)
        marks.close()
    results: list[R] = []
    raised = None
    for message in _messages(bytes(data)):
        if isinstance(message, tuple):  # fn raised: (why, item)
            raised = message
            break
        results += message
    if hung:
        return results, (f"no progress for {timeout:g} s (killed)", index, _trim(where))
    if os.WIFSIGNALED(status):
        return results, (f"killed by {signal.Signals(os.WTERMSIG(status)).name}", index, _trim(where))
    if raised is not None:
        return results, (raised[0], raised[1], _trim(where))
    code = os.WEXITSTATUS(status)
    if code or len(results) != len(items):
        return results, (f"exited with status {code}", index, _trim(where))
    return results, None


def _messages(data: bytes) -> list[Any]:
    """The whole messages the child sent (each a length, then a pickle), in order."""
    out, at = [], 0
    while at + 8 <= len(data):
        n = struct.unpack_from("<q", data, at)[0]
        if at + 8 + n > len(data):
            break
        out.append(pickle.loads(data[at + 8:at + 8 + n]))
        at += 8 + n
    return out


def _trim(where: Sequence[int]) -> tuple[int, ...]:
    """The marks' `where`, without the unused slots (-1)."""
    n = len(where)
    while n and where[n - 1] == -1:
        n -= 1
    return tuple(where[:n])


def _serve(fn: Callable[[Sequence[Any], Mark], list[Any]], items: Sequence[Any], marks: mmap.mmap,
           write: int, parent: int, one_by_one: bool) -> None:  # pragma: no cover - runs in the child
    """The child: fn over the items (one_by_one: each alone, in turn), each answer (a list of
    results, or why fn raised) pickled to `write`; never returns (os._exit: no buffers or exit
    handlers of the parent's run twice)."""
    code = 1
    try:
        worker_init(parent)  # dies with the parent, leaves Ctrl-C to it
        faulthandler.disable()  # a crash is the parent's finding, not a traceback on the terminal
        with contextlib.suppress(Exception):
            import resource
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # and no core file
        count = 0
        item = -1

        def send(answer: Any) -> None:
            data = pickle.dumps(answer)
            view = memoryview(struct.pack("<q", len(data)) + data)
            while view:
                view = view[os.write(write, view):]

        def marker(base: int) -> Mark:
            def mark(i: int, *where: int) -> None:
                nonlocal count, item
                count += 1
                item = base + i
                padded = (*where, *(-1,) * (WHERE - len(where)))[:WHERE]
                struct.pack_into(f"<{_SLOTS}q", marks, 0, count, item, *padded)
            return mark

        batches = [(i, [x]) for i, x in enumerate(items)] if one_by_one else [(0, list(items))]
        for base, batch in batches:
            item = base if one_by_one else -1
            try:
                answer: Any = fn(batch, marker(base))
            except Exception as e:
                answer = (f"raised {type(e).__name__}: {e}", item)
            send(answer)
            if isinstance(answer, tuple):
                break
        code = 0
    finally:
        os._exit(code)
