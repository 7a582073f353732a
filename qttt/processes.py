"""Child processes, by construction: worker pools whose workers die with their parent and leave
interrupts to it, output made in pieces by several processes and written by them in order
(`write_pieces`), and programs (engines, bots) talked to line by line in bounded lines, with
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
import struct
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection, wait
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


# -- pieces written in order by the processes that make them --------------------------------------

TURN = struct.Struct("<q")  # a turn: the offset the pieces before it reach, passed round the ring
RELAY = 1 << 16  # bytes relayed at a time to an output that is not a file descriptor


def _write_all(fd: int, data: bytes, at: int | None = None) -> None:
    """All of `data` to `fd`: at its offset, or at `at` (pwrite)."""
    view = memoryview(data)
    while view:
        done = os.write(fd, view) if at is None else os.pwrite(fd, view, at)
        view = view[done:]
        if at is not None:
            at += done


def _take_turn(fd: int) -> int:
    """Wait for a turn on the pipe `fd`; the offset it holds."""
    data = b""
    while len(data) < TURN.size:
        more = os.read(fd, TURN.size - len(data))
        if not more:
            raise EOFError("the ring of writers was broken")
        data += more
    offset: int = TURN.unpack(data)[0]
    return offset


def _make_and_write(k: int, workers: int, count: int, make: Callable[[int], bytes], fd: int,
                    base: int | None, turn: int, nxt: int, report: Connection, parent: int) -> None:
    """Worker k of `write_pieces`: make pieces k, k + workers, ... and write each in its turn;
    report ("wrote", i, bytes) for each, ("done",) at the end, or ("error", i, exception) once its
    turn for the failing piece came (every piece before it is then written or being written)."""
    worker_init(parent)
    for i in range(k, count, workers):
        held = False
        try:
            piece = make(i)
            at = _take_turn(turn)
            held = True
            if base is not None:  # positioned: the next piece may be written at once
                os.write(nxt, TURN.pack(at + len(piece)))
                _write_all(fd, piece, base + at)
            else:
                _write_all(fd, piece)
                os.write(nxt, TURN.pack(at + len(piece)))
        except Exception as e:  # the parent raises it
            if not held:
                with contextlib.suppress(EOFError, OSError):
                    _take_turn(turn)
            try:
                report.send(("error", i, e))
            except Exception:  # an exception that does not pickle: its words
                report.send(("error", i, RuntimeError(f"{type(e).__name__}: {e}")))
            return
        report.send(("wrote", i, len(piece)))
    report.send(("done",))


class _Ring:
    """The worker processes of `write_pieces`, their reports, and the pipes their turns pass on:
    worker k takes its turns from `turns[k]` and passes them on `turns[k + 1]` (the last worker to
    the first); `relay` is the pipe whose output this process passes on, if any."""

    def __init__(self, workers: int, relay: int | None) -> None:
        self.turns = [os.pipe() for _ in range(workers)]
        self.reports: list[Connection] = []
        self.procs: list[multiprocessing.process.BaseProcess] = []
        self.relay = relay

    def start(self, count: int, make: Callable[[int], bytes], fd: int, base: int | None) -> None:
        context = multiprocessing.get_context("fork")  # the workers inherit the output and `make`
        workers = len(self.turns)
        for k in range(workers):
            mine, theirs = context.Pipe(duplex=False)
            self.reports.append(mine)
            proc = context.Process(target=_make_and_write, daemon=True, args=(
                k, workers, count, make, fd, base, self.turns[k][0], self.turns[(k + 1) % workers][1],
                theirs, os.getpid()))
            proc.start()
            theirs.close()
            self.procs.append(proc)
        os.write(self.turns[0][1], TURN.pack(0))

    def follow(self, out: Callable[[bytes], object] | None) -> tuple[int, BaseException | None]:
        """Wait for the workers, passing the relay's bytes to `out`: the bytes written, and the
        first failing piece's error (once the pieces before it are written), if one failed."""
        live = dict(zip(self.reports, self.procs, strict=True))
        sizes: dict[int, int] = {}
        failed: tuple[int, BaseException] | None = None
        while live and (failed is None or len(sizes) < failed[0]):
            for ready in wait([*live, *([self.relay] if self.relay is not None else [])]):
                if isinstance(ready, int):
                    self.pass_on(out)
                    continue
                assert isinstance(ready, Connection)
                try:
                    message = ready.recv()
                except EOFError:  # it ended without a word: killed, or a bug of ours
                    proc = live.pop(ready)
                    proc.join()
                    raise RuntimeError(f"a writer process ended with status {proc.exitcode}") from None
                if message[0] == "wrote":
                    sizes[message[1]] = message[2]
                    continue
                live.pop(ready)  # done, or failed: its last word
                if message[0] == "error" and (failed is None or message[1] < failed[0]):
                    failed = (message[1], message[2])
        return sum(sizes.values()), None if failed is None else failed[1]

    def pass_on(self, out: Callable[[bytes], object] | None) -> bool:
        """Pass what the relay holds on to `out`; False at its end."""
        assert self.relay is not None and out is not None
        data = os.read(self.relay, RELAY)
        if data:
            out(data)
            return True
        os.close(self.relay)
        self.relay = None
        return False

    def stop(self, out: Callable[[bytes], object] | None) -> None:
        """End the workers (at once: a piece being written may be cut), then pass on the rest of
        the relay when `out` is given, and close the pipes."""
        for p in self.procs:
            if p.is_alive():
                p.kill()
        for p in self.procs:
            p.join()
        for r, w in self.turns:
            os.close(r)
            os.close(w)
        for c in self.reports:
            c.close()
        while self.relay is not None:
            if out is None:
                os.close(self.relay)
                self.relay = None
            else:
                self.pass_on(out)


def write_pieces(out: int | Callable[[bytes], object], count: int, make: Callable[[int], bytes],
                 workers: int, positioned: bool = False) -> int:
    """Write make(0), ..., make(count - 1) in this order to `out` (a file descriptor, or a function
    taking bytes), made and written by `workers` processes: worker k makes pieces k, k + workers,
    ... and writes each itself when its turn comes (a turn, the offset reached, passes round a ring
    of pipes), so that no piece passes through this process and at most `workers` pieces are held
    at once. With `positioned`, `out` is a regular file written from its current offset with pwrite:
    a piece's turn comes once the piece before it is made, and pieces are written side by side;
    otherwise each is written after the one before it (a pipe, a terminal). An output given as a
    function is fed from a pipe by this process.

    An error making or writing a piece is raised here once every piece before it is written, and
    no piece after it is written; an interrupt here stops the workers at once (a piece being
    written to a pipe may be cut). One worker, or one piece: made and written by this process.
    Returns the bytes written."""
    if workers <= 1 or count <= 1:
        total = 0
        for i in range(count):
            piece = make(i)
            if isinstance(out, int):
                _write_all(out, piece)
            else:
                out(piece)
            total += len(piece)
        return total
    for stream in (sys.stdout, sys.stderr):  # the workers flush what they inherit as they end
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    relay: int | None = None
    if isinstance(out, int):
        fd, feed = out, None
    else:
        (relay, fd), feed, positioned = os.pipe(), out, False
    base = os.lseek(fd, 0, os.SEEK_CUR) if positioned else None
    ring = _Ring(min(workers, count), relay)
    ended = False
    try:
        ring.start(count, make, fd, base)
        if relay is not None:
            os.close(fd)  # the workers hold it: the relay ends when they do
        total, error = ring.follow(feed)
        ended = True
    finally:
        ring.stop(feed if ended else None)
    if error is not None:
        raise error
    if base is not None:
        os.lseek(fd, base + total, os.SEEK_SET)
    return total


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

