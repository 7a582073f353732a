"""Child processes, by construction: worker pools whose workers die with their parent and leave
interrupts to it, and programs (engines, bots) talked to line by line in bounded lines, with
read timeouts that do not depend on the program's own children, in a process group of their own
that is killed as a whole.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import select
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any

PR_SET_PDEATHSIG = 1
MAX_LINE = 4 << 20  # bytes of one line read from a program (a response, a move)
READ = 1 << 16
Mapper = Callable[[Callable[..., Any], list[tuple[Any, ...]]], Iterable[Any]]
"""Runs a function over argument tuples (on processes or a cluster), results in their order."""


# -- worker pools ---------------------------------------------------------------------------------

def worker_init(parent: int) -> None:
    """In each worker: die with the parent (Linux PR_SET_PDEATHSIG; elsewhere a watch thread),
    and leave Ctrl-C and SIGTERM to the parent, which stops the pool (no worker tracebacks)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    else:  # pragma: no cover - not Linux
        import threading

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1)
            os._exit(1)
        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


def worker_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """The one way a pool of worker processes is made (see worker_init)."""
    return ProcessPoolExecutor(max_workers=workers, mp_context=context or multiprocessing.get_context(),
                               initializer=worker_init, initargs=(os.getpid(),))


def stop_pool(pool: ProcessPoolExecutor, interrupted: bool) -> None:
    """Shut a pool down: after an interrupt or error without waiting, its pending work cancelled
    (each worker ends the piece in hand, then exits: a worker killed while it sends a result
    would leave the pool's reader waiting for the rest forever); otherwise after its work."""
    pool.shutdown(wait=not interrupted, cancel_futures=interrupted)


@contextlib.contextmanager
def pool_of(workers: int, context: BaseContext | None = None) -> Iterator[ProcessPoolExecutor]:
    """A worker_pool, stopped at once when the block is left by an interrupt or error."""
    pool = worker_pool(workers, context)
    try:
        yield pool
    except BaseException:
        stop_pool(pool, True)
        raise
    stop_pool(pool, False)


def local_mapper(workers: int) -> tuple[Mapper, Callable[..., None]]:
    """A mapper over `workers` local processes, and the function that shuts it down (at once
    when given True: after an interrupt or error)."""
    pool = worker_pool(workers)

    def mapper(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterable[Any]:
        return pool.map(fn, *zip(*args, strict=True)) if args else []

    def stop(interrupted: bool = False) -> None:
        stop_pool(pool, interrupted)
    return mapper, stop


# -- programs talked to line by line --------------------------------------------------------------

class ChannelClosed(Exception):
    """The program closed its output, or a line could not be read within its limits."""


class LineChannel:
    """A program run in its own session (process group), its standard output read in bounded
    lines with a deadline per read (select on the pipe this process owns, so a grandchild holding
    the pipe open cannot block the reader), its standard error kept as the last few lines."""

    def __init__(self, command: list[str], keep: int = 0) -> None:
        """Start `command` (its whole standard error kept up to `keep` bytes: `stderr_text`);
        OSError when it cannot be started."""
        if not command:
            raise OSError(0, "an empty command")
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self._out, self._err = self.proc.stdout.fileno(), self.proc.stderr.fileno()
        for fd in (self._out, self._err):
            os.set_blocking(fd, False)
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._out, selectors.EVENT_READ)
        self._selector.register(self._err, selectors.EVENT_READ)
        self._buf = bytearray()
        self._errbuf = bytearray()
        self.errors: deque[str] = deque(maxlen=5)
        self.keep, self._log = keep, bytearray()
        self.closed = False  # standard output ended

    def send(self, text: str) -> None:
        """Write one line; ChannelClosed when the program no longer reads."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(text.encode("utf-8") + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise ChannelClosed("it no longer reads its input") from None

    def read_line(self, timeout: float | None) -> str | None:
        """The next line (without its end, bytes that are not UTF-8 replaced), None on timeout;
        ChannelClosed at the end of output or when a line exceeds MAX_LINE bytes."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            end = self._buf.find(b"\n")
            if end >= 0:
                line = bytes(self._buf[:end])
                del self._buf[:end + 1]
                return line.decode("utf-8", "replace").rstrip("\r")
            if len(self._buf) > MAX_LINE:
                raise ChannelClosed(f"it wrote a line longer than {MAX_LINE:,} bytes")
            if self.closed:
                raise ChannelClosed(self.why_closed())
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            for key, _ in self._selector.select(left):
                self._pump(key.fd)

    def _pump(self, fd: int) -> None:
        try:
            data = os.read(fd, READ)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if fd == self._err:
            if not data:
                self._selector.unregister(fd)
                return
            self._log += data[:max(0, self.keep - len(self._log))]
            self._errbuf += data
            *lines, rest = self._errbuf.split(b"\n")
            self._errbuf = bytearray(rest[-1000:])
            for raw in lines:
                if raw.strip():
                    self.errors.append(raw.decode("utf-8", "replace").strip()[:200])
            return
        if not data:
            self._selector.unregister(fd)
            self.closed = True
        else:
            self._buf += data

    def exit_status(self, timeout: float = 1.0) -> int | None:
        """The program's exit status once it has exited (None if it still runs after `timeout`
        seconds), its last words on standard error read into `errors`."""
        try:
            code: int | None = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = None
        self._drain(0.2)
        return code

    def _drain(self, seconds: float) -> None:
        """Read what standard error still holds, for at most `seconds`."""
        deadline = time.monotonic() + seconds
        while self._err in self._selector.get_map() and (left := deadline - time.monotonic()) > 0:
            if select.select([self._err], [], [], left)[0]:
                self._pump(self._err)

    def stderr_text(self) -> str:
        """What the program wrote on standard error, up to `keep` bytes (after `stop`, all)."""
        return self._log.decode("utf-8", "replace")

    def alive(self) -> bool:
        """Whether the program still runs."""
        return self.proc.poll() is None

    def why_closed(self) -> str:
        """Why the program stopped talking: its exit status (and last words on standard error),
        or that it closed its output while still running."""
        code = self.exit_status()
        why = f"exited with status {code}" if code is not None else "closed its output (still running)"
        return why + (f" ({self.errors[-1]})" if self.errors else "")

    def stop(self, goodbye: str | None = None, grace: float = 0.5) -> None:
        """Say `goodbye` if it still listens, then kill its whole process group."""
        if goodbye is not None and self.proc.poll() is None:
            with contextlib.suppress(ChannelClosed):
                self.send(goodbye)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=grace)
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the group: its children too
        with contextlib.suppress(OSError):
            self.proc.kill()
        self.proc.wait()
        self._drain(1.0)  # the group is gone: its standard error ends
        self._selector.close()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError):
                if stream is not None:
                    stream.close()

