"""Child processes, by construction: worker pools whose workers die with their parent and leave
interrupts to it, and programs (engines, bots) talked to line by line in bounded lines, with
read timeouts that do not depend on the program's own children, in a process group of their own
that is killed as a whole.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import functools
import heapq
import itertools
import multiprocessing
import os
import select
import selectors
import signal
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from multiprocessing.context import BaseContext
from typing import Any

PR_SET_PDEATHSIG = 1
MAX_LINE = 4 << 20  # bytes of one line read from a program (a response, a move)
READ = 1 << 16
Mapper = Callable[[Callable[..., Any], list[tuple[Any, ...]]], Iterable[Any]]
"""Runs a function over argument tuples (in this process, on local processes or on a cluster) and
yields the results in the order of the arguments, each as soon as it and those before it are in.
The work is handed out when the mapper is called (on processes and clusters), not when the results
are read; a mapper may be called from several threads at once. The function and its arguments
must pickle (a module-level function; a ruleset or plain data), and a result depends only on them,
so answers never depend on which worker ran what (`serial_mapper`, `local_mapper`,
`qttt.analysis.distributed.dask_mapper`, chosen by `executor`)."""


class Terminated(BaseException):
    """SIGTERM arrived (the command line raises it from its handler): a command stops as after
    Ctrl-C, with exit status 143 rather than 130."""


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
    """The one way a pool of worker processes is made (see worker_init). Its workers are forked
    now, by this thread: Linux kills a worker when the thread that started it ends (the death
    signal follows the thread), and a pool started by a thread that ends before it, such as a
    mapper's reader (`submit`), would lose its workers."""
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context or multiprocessing.get_context(),
                               initializer=worker_init, initargs=(os.getpid(),))
    pool.submit(int).result()  # the first piece of work forks every worker (fork start method)
    return pool


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


PRIORITY: contextvars.ContextVar[int] = contextvars.ContextVar("qttt_priority", default=0)
"""The priority of work handed to a mapper from this context: lower values first, in the order
handed out among equals (the checker sets each ruleset's place on the command line, so that the
first ruleset's tables come first and later ones fill idle workers)."""


class _Queue:
    """Work for a pool waiting here by `PRIORITY`, handed to it a few pieces ahead of its workers."""

    def __init__(self, pool: ProcessPoolExecutor, workers: int) -> None:
        self.pool, self.ahead = pool, 2 * workers
        self.waiting: list[tuple[int, int, Callable[..., Any], tuple[Any, ...], Future[Any]]] = []
        self.lock = threading.RLock()
        self.order = itertools.count()
        self.running = 0

    def map(self, fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
        outs: list[Future[Any]] = [Future() for _ in args]
        priority = PRIORITY.get()
        with self.lock:
            for a, out in zip(args, outs, strict=True):
                heapq.heappush(self.waiting, (priority, next(self.order), fn, a, out))
        self.start()
        return _results(outs)

    def start(self) -> None:
        with self.lock:
            while self.waiting and self.running < self.ahead:
                _, _, fn, args, out = heapq.heappop(self.waiting)
                if not out.set_running_or_notify_cancel():
                    continue
                try:
                    f = self.pool.submit(fn, *args)
                except BaseException as e:  # the pool is shut down: the caller sees why
                    out.set_exception(e)
                    continue
                self.running += 1
                f.add_done_callback(functools.partial(self.finished, out))

    def finished(self, out: Future[Any], f: Future[Any]) -> None:
        with self.lock:
            self.running -= 1
        if f.cancelled():
            out.set_exception(CancelledError())
        elif (e := f.exception()) is not None:
            out.set_exception(e)
        else:
            out.set_result(f.result())
        self.start()

    def cancel(self) -> None:
        with self.lock:
            for *_, out in self.waiting:
                out.cancel()
            self.waiting.clear()


def _results(outs: list[Future[Any]]) -> Iterator[Any]:
    """The futures' results in order; those not read are cancelled when the reader stops."""
    try:
        for out in outs:
            yield out.result()
    finally:
        for out in outs:
            out.cancel()


def local_mapper(workers: int) -> tuple[Mapper, Callable[..., None]]:
    """A mapper over `workers` local processes, and the function that shuts it down (at once
    when given True: after an interrupt or error). Work waits by `PRIORITY` and goes to the pool a
    few pieces ahead of the workers."""
    pool = worker_pool(workers)
    queue = _Queue(pool, workers)

    def stop(interrupted: bool = False) -> None:
        if interrupted:
            queue.cancel()
        stop_pool(pool, interrupted)
    return queue.map, stop


def serial_mapper(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
    """The mapper of one worker: each call in this process, in turn, as its result is read."""
    return (fn(*a) for a in args)


def workers_wanted(workers: int) -> int:
    """A command's `--workers N` as a number of processes: N, or one per core for 0."""
    return workers or os.cpu_count() or 1


def submit(mapper: Mapper, fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> list[Future[Any]]:
    """A mapper's results as futures: the work is handed out now, in this thread (so in the order
    of the calls, at the caller's PRIORITY), and its results read by a thread of their own while
    the caller goes on. A failed or cancelled call fails its future and every later one."""
    out: list[Future[Any]] = [Future() for _ in args]
    for f in out:
        f.set_running_or_notify_cancel()
    try:
        results = iter(mapper(fn, args))
    except BaseException as e:
        for f in out:
            f.set_exception(e)
        return out

    def read() -> None:
        done = 0
        try:
            for result in results:
                out[done].set_result(result)
                done += 1
        except BaseException as e:  # handed to whoever waits on the futures
            for f in out[done:]:
                f.set_exception(e)
    context = contextvars.copy_context()  # the caller's PRIORITY, for a mapper that works as it is read
    threading.Thread(target=context.run, args=(read,), daemon=True,
                     name=f"submit {getattr(fn, '__name__', fn)}").start()
    return out


class Once:
    """Results computed at most once per process, by key, however many threads ask: the keys not
    asked for before go to the asking thread's mapper together (`submit`), at `priority` when given
    (work that every asker needs goes first, whoever happens to ask first), the others wait for the
    first asker's results. A failed piece is forgotten, so that a later call asks again."""

    def __init__(self, priority: int | None = None) -> None:
        self._lock = threading.RLock()
        self._futures: dict[Hashable, Future[Any]] = {}
        self.priority = priority

    def get(self, mapper: Mapper, fn: Callable[..., Any],
            keyed: Sequence[tuple[Hashable, tuple[Any, ...]]]) -> list[Future[Any]]:
        """The future of `fn(*args)` for each (key, args)."""
        with self._lock:
            mine = {k: f for k, _ in keyed if (f := self._futures.get(k)) is not None}
            new = [(k, a) for k, a in dict(keyed).items() if k not in mine]
            if new:
                token = PRIORITY.set(self.priority) if self.priority is not None else None
                try:
                    handed = submit(mapper, fn, [a for _, a in new])
                finally:
                    if token is not None:
                        PRIORITY.reset(token)
                for (k, _), f in zip(new, handed, strict=True):
                    mine[k] = self._futures[k] = f
                    f.add_done_callback(functools.partial(self._forget, k))
            return [mine[k] for k, _ in keyed]

    def _forget(self, key: Hashable, f: Future[Any]) -> None:
        if f.cancelled() or f.exception() is not None:
            with self._lock:
                if self._futures.get(key) is f:
                    del self._futures[key]

    def results(self) -> dict[Hashable, Any]:
        """Every result in so far, by key."""
        with self._lock:
            return {k: f.result() for k, f in self._futures.items()
                    if f.done() and not f.cancelled() and f.exception() is None}


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

