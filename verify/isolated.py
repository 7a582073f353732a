"""Calls that run in a child process, so that what they run (a compiled core under test) cannot take
the checker down: a crash (a signal, an exit) or a hang (past its time) of the child is an answer,
`Died`, never the caller's crash. The child (`python -m verify.isolated`) is started on first use
and again after a death; it dies with its parent (`qttt.processes.worker_init`).

The checker's one way to run a core out of process: a family's checker calls `Isolated.call` with
a module-level function of its own package and plain arguments, pickled both ways over the
child's standard input and output (length-prefixed).
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from qttt.processes import worker_init

HEADER = struct.Struct("<Q")


@dataclass(frozen=True)
class Died:
    """The child died or hung while running a call: how, in words."""

    how: str


class CallFailed(Exception):
    """The called function raised (in the child); its message."""


def _write(out: IO[bytes], value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(HEADER.pack(len(data)) + data)
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


def serve() -> None:
    """The child: answer calls read from standard input until it closes."""
    worker_init(os.getppid())
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


def _how(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            return f"was killed by signal {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


class Isolated:
    """A child process that runs calls one at a time, each within `timeout` seconds."""

    def __init__(self, timeout: float = 120.0) -> None:
        self.timeout = timeout
        self.process: subprocess.Popen[bytes] | None = None
        self.started = 0

    def _start(self) -> subprocess.Popen[bytes]:
        root = str(Path(__file__).resolve().parents[1])  # where this checker's packages are
        seen = [root, *(p for p in sys.path if p and os.path.isdir(p))]  # and every module the caller sees
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(seen))}
        self.process = subprocess.Popen([sys.executable, "-m", "verify.isolated"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env)
        self.started += 1
        return self.process

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        """fn(*args) in the child: its result, or Died when the child crashed or hung (the child is
        then gone; the next call starts another). CallFailed when fn raised."""
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


if __name__ == "__main__":
    serve()
