"""Calls that run in a child process, so that what they run (a compiled core under test) cannot take
the checker down: a crash (a signal, an exit) or a hang of the child is an answer, never the
caller's crash. The checker's one way to run a core out of process. Every child is prepared the
same way (`_prepare`: it dies with its parent, leaves Ctrl-C to it, and a crash leaves neither a
traceback on the terminal nor a core file), answers in length-prefixed pickles, and its death is
worded by `_how`. Two shapes of call:

- `Isolated.call(fn, *args)`: a long-lived child (`python -m verify.isolated`, a fresh interpreter,
  started on first use and again after a death) runs module-level functions with plain arguments,
  pickled both ways over its standard input and output, one at a time, each within its time;
  `Died` when it crashed or hung. What the caller changed in its own process (a planted bug) is
  not there: the caller passes what the child needs (the nested family's checker).

- `run(fn, items)`: fn over a batch of items in a child forked from the caller (a copy of the
  checker: the same code, rulesets and positions, a planted bug included, so nothing but the
  results crosses back), for code that is compared position by position (the quantum family's
  registered paths). `fn(items, mark)` returns one result per item and calls `mark(i, *where)` as
  it goes (item i, then numbers of its own saying where in the item it is), into memory the parent
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
import json
import mmap
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from qttt.native import OVERRIDE
from qttt.processes import worker_init

HEADER = struct.Struct("<Q")
T = TypeVar("T")
R = TypeVar("R")
Mark = Callable[..., None]
"""mark(i, *where): the child works on item i, at `where` (up to WHERE integers)."""

TIMEOUT = 20.0
"""Seconds `run`'s marks may stand still before a child counts as hung."""
MOST = 3
"""Crashes after which `run` skips the remaining items."""
WHERE = 6
_SLOTS = 2 + WHERE  # the marks' memory: a counter, the item, then where
_POLL = 0.1
_EMPTY = object()


@dataclass(frozen=True)
class Died:
    """The child died or hung while running a call: how, in words."""

    how: str


class CallFailed(Exception):
    """The called function raised (in the child); its message."""


@dataclass(frozen=True)
class Crashed:
    """An item `run` did not finish: why (`was killed by signal SIGSEGV`, `no progress for 20 s`,
    `exited with status 1`, `raised ValueError: ...`), where its last mark said it was, and whether
    it did so alone in a fresh child (else only after the items before it, in one process)."""

    why: str
    where: tuple[int, ...]
    alone: bool = True


@dataclass(frozen=True)
class Skipped:
    """An item `run` did not run: the code under test had crashed too often before it."""

    why: str


def _prepare(parent: int) -> None:
    """A child's setup: it dies with `parent` and leaves Ctrl-C to it; a crash is the parent's
    finding, not a traceback on the terminal nor a core file."""
    worker_init(parent)
    faulthandler.disable()
    with contextlib.suppress(Exception):
        import resource
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _frame(value: Any) -> bytes:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    return HEADER.pack(len(data)) + data


def _write(out: IO[bytes], value: Any) -> None:
    out.write(_frame(value))
    out.flush()


def _read_exactly(fd: int, size: int, deadline: float | None) -> bytes | None:
    """`size` bytes from fd, or None at end of file or past the deadline."""
    chunks, got = [], 0
    while got < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
        chunk = os.read(fd, min(size - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _how(code: int | None) -> str:
    """A child's death in words, from its return code (negative: the signal that killed it)."""
    if code is not None and code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


# Isolated: a long-lived child answering calls ---------------------------------------------------


LIBRARIES = "QTTT_ISOLATED_LIBRARIES"
"""The variable giving a fresh child its parent's libraries to load instead of the checked builds
(qttt.native.OVERRIDE, as `verify.built.as_built` sets it): JSON, build name to path."""


def serve() -> None:
    """The child: answer calls read from standard input until it closes."""
    _prepare(os.getppid())
    OVERRIDE.update({name: Path(path) for name, path in json.loads(os.environ.get(LIBRARIES, "{}")).items()})
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # what the functions print must not corrupt the answers
    while True:
        head = _read_exactly(source.fileno(), HEADER.size, None)
        if head is None:
            return
        body = _read_exactly(source.fileno(), HEADER.unpack(head)[0], None)
        if body is None:
            return
        fn, args = pickle.loads(body)
        try:
            _write(sink, ("ok", fn(*args)))
        except Exception as e:  # the function's own error: an answer, as the caller wants it
            _write(sink, ("error", f"{type(e).__name__}: {e}"))


class Isolated:
    """A child process that runs calls one at a time, each within `timeout` seconds."""

    def __init__(self, timeout: float = 120.0) -> None:
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0
        self.libraries: dict[str, str] = {}  # the OVERRIDE the running child was started with

    def _start(self) -> subprocess.Popen[bytes]:
        root = str(Path(__file__).resolve().parents[1])  # where this checker's packages are
        seen = [root, *(p for p in sys.path if p and os.path.isdir(p))]  # and every module the caller sees
        self.libraries = {name: str(path) for name, path in OVERRIDE.items()}
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(seen)),
               LIBRARIES: json.dumps(self.libraries)}
        self.process = subprocess.Popen([sys.executable, "-m", "verify.isolated"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.started += 1
        return self.process

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        """fn(*args) in the child: its result, or Died when the child crashed or hung (the child is
        then gone; the next call starts another). CallFailed when fn raised."""
        if self.libraries != {name: str(path) for name, path in OVERRIDE.items()}:
            self.stop()  # the libraries to load changed (verify.built.as_built): a child that loads them
        proc = self.process if self.process is not None and self.process.poll() is None else self._start()
        limit = self.timeout if timeout is None else timeout
        assert proc.stdin is not None and proc.stdout is not None
        try:
            _write(proc.stdin, (fn, args))
        except (BrokenPipeError, OSError):
            return self._died(proc, "")
        deadline = time.monotonic() + limit
        head = _read_exactly(proc.stdout.fileno(), HEADER.size, deadline)
        body = None if head is None else _read_exactly(proc.stdout.fileno(), HEADER.unpack(head)[0], deadline)
        if body is None:
            late = time.monotonic() >= deadline
            return self._died(proc, f"did not answer within {limit:g} s" if late else "")
        kind, value = pickle.loads(body)
        if kind == "error":
            raise CallFailed(value)
        return value

    def _died(self, proc: subprocess.Popen[bytes], how: str) -> Died:
        if proc.poll() is None:
            proc.kill()
        code = proc.wait()
        self.stop()
        return Died(how or _how(code))

    def stop(self) -> None:
        """End the child (if any)."""
        proc, self.process = self.process, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()

    def __enter__(self) -> Isolated:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


# run: batches in children forked from the caller -------------------------------------------------


def run(fn: Callable[[Sequence[T], Mark], list[R]], items: Sequence[T], timeout: float | None = None,
        most: int | None = None) -> list[R | Crashed | Skipped]:
    """fn's result for each item, run in child processes forked from this one (see the module
    docstring; timeout default TIMEOUT, most default MOST, each read when called)."""
    timeout = TIMEOUT if timeout is None else timeout
    most = MOST if most is None else most
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


Death = tuple[str, int, tuple[int, ...]]
"""Why a forked child did not answer, the item its marks were on and where in it."""


def _child(fn: Callable[[Sequence[T], Mark], list[R]], items: Sequence[T], timeout: float,
           one_by_one: bool = False) -> tuple[list[R], Death | None]:
    """fn(items) in a forked child (with one_by_one, fn([item]) for each item in turn): the results
    it sent, and why it died and where its marks were, or None when it finished."""
    marks = mmap.mmap(-1, 8 * _SLOTS)
    struct.pack_into(f"<{_SLOTS}q", marks, 0, 0, *(-1,) * (_SLOTS - 1))
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child (coverage does not follow a fork)
        os.close(read)
        _serve_batch(fn, items, marks, write, parent, one_by_one)
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
        return results, (_how(-os.WTERMSIG(status)), index, _trim(where))
    if raised is not None:
        return results, (raised[0], raised[1], _trim(where))
    code = os.WEXITSTATUS(status)
    if code or len(results) != len(items):
        return results, (_how(code), index, _trim(where))
    return results, None


def _messages(data: bytes) -> list[Any]:
    """The whole messages a child sent (each a length, then a pickle), in order."""
    out, at = [], 0
    while at + HEADER.size <= len(data):
        n = HEADER.unpack_from(data, at)[0]
        if at + HEADER.size + n > len(data):
            break
        out.append(pickle.loads(data[at + HEADER.size:at + HEADER.size + n]))
        at += HEADER.size + n
    return out


def _trim(where: Sequence[int]) -> tuple[int, ...]:
    """The marks' `where`, without the unused slots (-1)."""
    n = len(where)
    while n and where[n - 1] == -1:
        n -= 1
    return tuple(where[:n])


def _serve_batch(fn: Callable[[Sequence[Any], Mark], list[Any]], items: Sequence[Any], marks: mmap.mmap,
                 write: int, parent: int, one_by_one: bool) -> None:  # pragma: no cover - runs in the child
    """The forked child: fn over the items (one_by_one: each alone, in turn), each answer (a list
    of results, or why fn raised) framed to `write`; never returns (os._exit: no buffers or exit
    handlers of the parent's run twice)."""
    code = 1
    try:
        _prepare(parent)
        count = 0
        item = -1

        def send(answer: Any) -> None:
            view = memoryview(_frame(answer))
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


if __name__ == "__main__":
    serve()
