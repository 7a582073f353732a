"""Child processes, by construction: worker pools whose workers die with their parent and leave
interrupts to it, output made in pieces by several processes and written by them in order
(`write_pieces`), and programs (engines, bots) talked to line by line in bounded lines, with
read timeouts that do not depend on the program's own children, in a process group of their own
that is killed as a whole.
"""

from __future__ import annotations

import contextlib
import contextvars
import ctypes
import fcntl
import functools
import heapq
import itertools
import multiprocessing
import os
import pickle
import select
import selectors
import signal
import stat
import struct
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, Future, ProcessPoolExecutor
from concurrent.futures import wait as futures_wait
from multiprocessing.connection import Connection, wait
from multiprocessing.context import BaseContext
from typing import Any, NamedTuple, TypeVar

PR_SET_PDEATHSIG = 1
# the signals that stop a command (qttt.stops), held back while a worker starts (see _GuardedProcess)
INTERRUPTS = {signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2}
MAX_LINE = 4 << 20  # bytes of one line read from a program (a response, a move)
READ = 1 << 16
T = TypeVar("T")
Mapper = Callable[[Callable[..., Any], list[tuple[Any, ...]]], Iterable[Any]]
"""Runs a function over argument tuples (in this process, on local processes or on a cluster) and
yields the results in the order of the arguments, each as soon as it and those before it are in.
The work is handed out when the mapper is called (on processes and clusters), not when the results
are read; a mapper may be called from several threads at once. The function and its arguments
must pickle (a module-level function; a ruleset or plain data), and a result depends only on them,
so answers never depend on which worker ran what (`serial_mapper`, `local_mapper`,
`qttt.analysis.distributed.dask_mapper`, chosen by `executor`)."""


# -- worker pools ---------------------------------------------------------------------------------

def worker_init(parent: int) -> None:
    """In each worker: die with the parent (Linux PR_SET_PDEATHSIG; elsewhere a watch thread),
    and leave Ctrl-C and the other stopping signals to the parent, which stops the pool (no worker
    tracebacks: the handlers a forked worker inherits from the command line are put back to the
    default, signals the parent ignores stay ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for sig in INTERRUPTS - {signal.SIGINT}:
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    else:  # pragma: no cover - not Linux
        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1)
            os._exit(1)
        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, INTERRUPTS)  # held back while it started (FORK)


class _GuardedProcess(multiprocessing.context.ForkProcess):
    """A forked process started with the stopping signals held back until it has its own handlers
    (worker_init lets them through): interrupted before, it would print a traceback, or go on as a
    copy of its parent when interrupted before it runs its target (seen: Ctrl-C to the process
    group while `qttt random` started 8 workers left the command running)."""

    def start(self) -> None:
        held = signal.pthread_sigmask(signal.SIG_BLOCK, INTERRUPTS)
        try:
            super().start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


class _GuardedContext(multiprocessing.context.ForkContext):
    Process = _GuardedProcess


FORK = _GuardedContext()
"""The context worker processes are forked in (Linux): see _GuardedProcess."""


def worker_pool(workers: int, context: BaseContext | None = None) -> ProcessPoolExecutor:
    """The one way a pool of worker processes is made (see worker_init). Its workers are forked
    now, by this thread: Linux kills a worker when the thread that started it ends (the death
    signal follows the thread), and a pool started by a thread that ends before it, such as a
    mapper's reader (`submit`), would lose its workers."""
    default = FORK if sys.platform.startswith("linux") else multiprocessing.get_context()
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context or default,
                               initializer=worker_init, initargs=(os.getpid(),))
    pool.submit(int).result()  # the first piece of work forks every worker (fork start method)
    return pool


HEALTH_SECONDS = 1.0  # how often a wait for a worker's result checks that the pool still runs


def result(pool: Executor, future: Future[T]) -> T:
    """`future.result()`, checking every HEALTH_SECONDS that the pool still runs (`_check`)."""
    while True:
        try:
            return future.result(timeout=HEALTH_SECONDS)
        except TimeoutError:
            _check(pool)


def first_done(pool: Executor, running: set[Future[T]]) -> tuple[set[Future[T]], set[Future[T]]]:
    """The futures of `running` done once one is, and those still running (as concurrent.futures'
    wait with FIRST_COMPLETED), checking every HEALTH_SECONDS that the pool still runs."""
    while True:
        finished, left = futures_wait(running, timeout=HEALTH_SECONDS, return_when=FIRST_COMPLETED)
        if finished:
            return finished, left
        _check(pool)


def _check(pool: Executor) -> None:
    """RuntimeError (as when a thread cannot start) when a process pool's own thread, which
    carries the results back, has stopped: under a memory or thread limit it can die as it starts,
    and the results would never come."""
    manager = getattr(pool, "_executor_manager_thread", None)
    if isinstance(pool, ProcessPoolExecutor) and (manager is None or not manager.is_alive()):
        raise RuntimeError("can't start new thread: the worker pool's own thread is gone")


def stop_pool(pool: ProcessPoolExecutor, interrupted: bool) -> None:
    """Shut a pool down: after an interrupt or error without waiting, its pending work cancelled
    (each worker ends the piece in hand, then exits: a worker killed while it sends a result
    would leave the pool's reader waiting for the rest forever); otherwise after its work."""
    pool.shutdown(wait=not interrupted, cancel_futures=interrupted)


KILL_SECONDS = 5.0  # how long kill_pool sees to it that the pool's own thread ends


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Shut a pool down now, its pending work cancelled and its workers killed with the pieces in
    hand, for work that has nothing to finish in a worker. The pool's own thread, which the
    interpreter joins at exit, then ends; a worker killed while it sent a result would leave that
    thread reading the rest of it forever, so bytes written to its pipe here complete it
    (garbage: the pool breaks, as it does anyway)."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    manager: threading.Thread | None = getattr(pool, "_executor_manager_thread", None)
    results = getattr(pool, "_result_queue", None)
    feed = None
    with contextlib.suppress(AttributeError, OSError, ValueError):
        feed = os.dup(results._writer.fileno())  # type: ignore[union-attr]  # ours: the pool closes its own
    try:
        pool.shutdown(wait=False, cancel_futures=True)
        for p in workers:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                p.kill()
        if feed is not None:
            os.set_blocking(feed, False)  # the pipe may be full and nobody reading: never wait here
        if manager is not None:
            manager.join(0.5)  # it sees the workers gone, breaks the pool and ends
        deadline = time.monotonic() + KILL_SECONDS
        zeros = bytes(READ)
        while manager is not None and manager.is_alive() and feed is not None and time.monotonic() < deadline:
            with contextlib.suppress(OSError):  # the pipe is full for now, or nobody reads it any more
                while os.write(feed, zeros):
                    pass
            manager.join(0.01)
    finally:
        if feed is not None:
            os.close(feed)


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


PRIORITY: contextvars.ContextVar[float] = contextvars.ContextVar("qttt_priority", default=0)
"""The priority of work handed to a mapper from this context: lower values first, in the order
handed out among equals (the checker sets each ruleset's place on the command line, so that the
first ruleset's tables come first and later ones fill idle workers, and a fraction more for work
that can wait within a ruleset: its sampled games after the walk, whose plies follow each other)."""


class _Queue:
    """Work for a pool waiting here by `PRIORITY`, handed to it a few pieces ahead of its workers."""

    def __init__(self, pool: ProcessPoolExecutor, workers: int) -> None:
        self.pool, self.ahead = pool, 2 * workers
        self.waiting: list[tuple[float, int, Callable[..., Any], tuple[Any, ...], Future[Any]]] = []
        self.lock = threading.RLock()
        self.order = itertools.count()
        self.running = 0
        self.handed: set[Future[Any]] = set()  # the pool has them

    def map(self, fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
        outs: list[Future[Any]] = [Future() for _ in args]
        priority = PRIORITY.get()
        with self.lock:
            for a, out in zip(args, outs, strict=True):
                heapq.heappush(self.waiting, (priority, next(self.order), fn, a, out))
        self.start()
        return _results(self.pool, outs)

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
                self.handed.add(out)
                f.add_done_callback(functools.partial(self.finished, out))

    def finished(self, out: Future[Any], f: Future[Any]) -> None:
        with self.lock:
            self.running -= 1
            mine = out in self.handed  # not when cancelled with the queue
            self.handed.discard(out)
        if mine:  # set outside the lock: its callbacks may hand out more work
            if f.cancelled():
                out.set_exception(CancelledError())
            elif (e := f.exception()) is not None:
                out.set_exception(e)
            else:
                out.set_result(f.result())
        self.start()

    def cancel(self) -> None:
        """Everything not done is cancelled: what waits here, and what the pool has (its workers
        are about to be killed)."""
        with self.lock:
            waiting, handed = [w[-1] for w in self.waiting], list(self.handed)
            self.waiting.clear()
            self.handed.clear()
        for out in waiting:
            out.cancel()
        for out in handed:
            out.set_exception(CancelledError())


def _results(pool: Executor, outs: list[Future[Any]]) -> Iterator[Any]:
    """The futures' results in order (each read with `result`: a pool whose own thread died fails
    them); those not read are cancelled when the reader stops."""
    try:
        for out in outs:
            yield result(pool, out)
    finally:
        for out in outs:
            out.cancel()


def local_mapper(workers: int) -> tuple[Mapper, Callable[..., None]]:
    """A mapper over `workers` local processes, and the function that shuts it down: after its
    work, or when given True (after an interrupt or error) at once, its workers killed with the
    pieces in hand (`kill_pool`: a mapper's work is a function of its arguments, nothing in a
    worker is left to finish, and a piece such as a Z3 query or a ruleset's whole check can take
    minutes). Work waits by `PRIORITY` and goes to the pool a few pieces ahead of the workers."""
    pool = worker_pool(workers)
    queue = _Queue(pool, workers)

    def stop(interrupted: bool = False) -> None:
        if not interrupted:
            stop_pool(pool, False)
            return
        queue.cancel()
        kill_pool(pool)
    return queue.map, stop


def serial_mapper(fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
    """The mapper of one worker: each call in this process, in turn, now, in the calling thread (one
    worker does one thing at a time: `--workers 1` keeps one core busy). A call that raises ends the
    work: the results before it are read, then its error."""
    done: list[Any] = []
    for a in args:
        try:
            done.append(fn(*a))
        except Exception as e:
            return _then_raise(done, e)
    return iter(done)


def _then_raise(done: list[Any], error: Exception) -> Iterator[Any]:
    yield from done
    raise error


def one_worker(mapper: Mapper) -> bool:
    """Whether mapper is this process alone (`serial_mapper`, under a `Stopwatch` too)."""
    return mapper is serial_mapper or (isinstance(mapper, Stopwatch) and one_worker(mapper.mapper))


def background(fn: Callable[[], T]) -> Future[T]:
    """fn() on a thread of its own (in the caller's context: its PRIORITY), as a future."""
    out: Future[T] = Future()
    out.set_running_or_notify_cancel()

    def run() -> None:
        try:
            out.set_result(fn())
        except BaseException as e:  # handed to whoever waits on the future
            out.set_exception(e)
    threading.Thread(target=contextvars.copy_context().run, args=(run,), daemon=True,
                     name=f"background {getattr(fn, '__name__', fn)}").start()
    return out


def alongside(mapper: Mapper, fn: Callable[[], T]) -> Future[T]:
    """fn(), work that hands its own units to mapper, alongside the caller's (`background`); on one
    worker (`one_worker`) now, in the caller's thread, so that one worker does one thing at a time."""
    if not one_worker(mapper):
        return background(fn)
    out: Future[T] = Future()
    out.set_running_or_notify_cancel()
    try:
        out.set_result(fn())
    except Exception as e:
        out.set_exception(e)
    return out


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
    if one_worker(mapper):  # its work is done: nothing to wait for on a thread
        read()
    else:
        background(read)
    return out


def timed_call(fn: Callable[..., Any], args: tuple[Any, ...]) -> tuple[Any, float]:
    """fn(*args) and the CPU seconds it took, where it ran (the thread's: a unit runs on one thread,
    and other work of its process, or of a loaded machine, does not count)."""
    start = time.thread_time()
    result = fn(*args)
    return result, time.thread_time() - start


class Stopwatch:
    """A mapper over another that adds up the CPU seconds its units of work take, wherever they
    run (the work a job did, whatever the number of workers or the machine's load)."""

    def __init__(self, mapper: Mapper) -> None:
        self.mapper, self.seconds = mapper, 0.0
        self._lock = threading.Lock()

    def __call__(self, fn: Callable[..., Any], args: list[tuple[Any, ...]]) -> Iterator[Any]:
        results = iter(self.mapper(timed_call, [(fn, a) for a in args]))  # handed out now
        return self._read(results)

    def _read(self, results: Iterator[tuple[Any, float]]) -> Iterator[Any]:
        for result, seconds in results:
            self.add(seconds)
            yield result

    @property
    def client(self) -> Any:
        """The Dask client of the mapper watched, or None: work that keeps its data on the cluster
        submits to it itself (`timed_call`) and tells its seconds to `add`."""
        return getattr(self.mapper, "client", None)

    def add(self, seconds: float) -> None:
        """Count CPU seconds of work done on the watched mapper's cluster."""
        with self._lock:
            self.seconds += seconds


class Once:
    """Results computed at most once per process, by key, however many threads ask: the keys not
    asked for before go to the asking thread's mapper together (`submit`), at `priority` when given
    (work that every asker needs goes first, whoever happens to ask first), the others wait for the
    first asker's results. A failed piece is forgotten, so that a later call asks again."""

    def __init__(self, priority: float | None = None) -> None:
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


# -- pieces written in order by the processes that make them --------------------------------------

TURN = struct.Struct("<q")  # a turn: the offset the pieces before it reach, passed round the ring
FRAME = struct.Struct("<Bq")  # a relayed part: its output, its length
RELAY = 1 << 16  # bytes relayed at a time to an output that is not a file descriptor
Output = int | Callable[[bytes], object]
"""Where pieces are written: a file descriptor, or a function taking bytes (fed from a pipe)."""


class Piece(NamedTuple):
    """What a piece of `write_pieces` writes: its parts in order, each to an output by index; whether
    it is the last piece written; an error raised once its parts are written (no piece after it is
    written); and a note handed back to the caller."""

    parts: list[tuple[int, bytes]]
    last: bool = False
    error: BaseException | None = None
    note: Any = None


class Written(NamedTuple):
    """What `write_pieces` wrote: the bytes of output 0, and the notes of the pieces written."""

    size: int
    notes: list[Any]


def write_pieces(outs: Sequence[Output], count: int, make: Callable[[int, int], Piece | bytes],
                 workers: int, *, positioned: bool = False,
                 measure: Callable[[int], int] | None = None) -> Written:
    """Write the pieces make(0, b0), ..., make(count - 1, b) in this order to `outs` (a piece made as
    bytes goes to outs[0]), made and written by `workers` processes: worker k makes pieces k,
    k + workers, ... and writes each itself when its turn comes (a turn, the offset of output 0
    reached, passes round a ring of pipes), so that no piece passes through this process and at
    most `workers` pieces are held at once. With `measure`, every piece is measured first (by the
    workers, side by side) and b_i, the sum of the measures of the pieces before i, is known when
    piece i is made (e.g. the line its text starts at); without, b_i is 0.

    With `positioned`, outs[0] is a regular file written from its current offset with pwrite: a
    piece's turn passes on once its other parts are written, and output 0 is written side by side
    at its places; otherwise each piece is written whole before the next one (a pipe, a terminal).
    When an output is given as a function, every output is fed by this process from one pipe the
    workers write framed parts to (so that parts stay in order), a part once it has come whole.

    An error making or writing a piece (or a piece's own `error`) is raised here once every piece
    before it is written, and no piece after it (or after a `last` piece) is written; an interrupt
    here stops the workers at once (a piece being written to a pipe may be cut). One worker, or one
    piece: made and written by this process."""
    if workers <= 1 or count <= 1:
        return _write_here(outs, count, make, measure)
    for stream in (sys.stdout, sys.stderr):  # the workers flush what they inherit as they end
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
    relay = feed = -1  # the pipe this process relays from and the workers write to, if any
    fds = [out for out in outs if isinstance(out, int)]
    if len(fds) < len(outs):
        (relay, feed), positioned = os.pipe(), False
        fds = [-1 - feed] * len(outs)
    base = os.lseek(fds[0], 0, os.SEEK_CUR) if positioned else None
    ring = _Ring(min(workers, count), relay if relay >= 0 else None, outs)
    try:
        ring.start(count, make, measure, fds, base)
        if feed >= 0:
            os.close(feed)  # the workers hold it: the relay ends when they do
            feed = -1
        written, error = ring.follow()
        ring.stop(relay_rest=True)
    finally:
        ring.stop(relay_rest=False)
        if feed >= 0:
            os.close(feed)
    if error is not None:
        raise error
    if base is not None:
        os.lseek(fds[0], base + written.size, os.SEEK_SET)
    return written


def seekable_output(fd: int) -> bool:
    """Whether `fd` is a regular file written at its offset (not appended to): pieces may then be
    written at their places (`write_pieces`' positioned)."""
    try:
        return stat.S_ISREG(os.fstat(fd).st_mode) and not fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND
    except OSError:
        return False


def _write_here(outs: Sequence[Output], count: int, make: Callable[[int, int], Piece | bytes],
                measure: Callable[[int], int] | None) -> Written:
    """`write_pieces` in this process."""
    size, notes, before = 0, [], 0
    for i in range(count):
        piece = _piece(make(i, before))
        for out, data in piece.parts:
            target = outs[out]
            if isinstance(target, int):
                _write_all(target, data)
            elif data:
                target(data)
        if piece.error is not None:
            raise piece.error
        size += sum(len(data) for out, data in piece.parts if out == 0)
        notes.append(piece.note)
        if piece.last:
            break
        if measure is not None:
            before += measure(i)
    return Written(size, notes)


def _piece(made: Piece | bytes) -> Piece:
    return made if isinstance(made, Piece) else Piece([(0, made)])


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


def _picklable(e: BaseException) -> BaseException:
    """`e`, or its words when it does not pickle."""
    try:
        pickle.dumps(e)
    except Exception:
        return RuntimeError(f"{type(e).__name__}: {e}")
    return e


class _Worker(NamedTuple):
    """Worker k of `write_pieces`, as its process sees it."""

    k: int
    workers: int
    pieces: int
    make: Callable[[int, int], Piece | bytes]
    measure: Callable[[int], int] | None
    fds: list[int]  # by output; a relayed output: -1 - the relay pipe's descriptor
    base: int | None  # where output 0 starts, when written at places (pwrite)
    turn: int
    nxt: int
    report: Connection
    measures: Any  # each piece's measure (a shared array), or None
    barrier: Any  # passed once every piece is measured, or None

    def run(self, parent: int) -> None:
        """Measure this worker's pieces; then make each and write it in its turn. Reports
        ("wrote", i, bytes of output 0, note, last) for each piece written, ("done",) at the end,
        or ("error", i, exception) once its turn for the failing piece came (every piece before it
        then written or being written); i is -1 for an error measuring (raised at once)."""
        worker_init(parent)
        mine = range(self.k, self.pieces, self.workers)
        if self.measure is not None:
            try:
                for i in mine:
                    self.measures[i] = self.measure(i)
            except Exception as e:  # the parent raises it
                self.report.send(("error", -1, _picklable(e)))
                self.barrier.abort()
                return
            try:
                self.barrier.wait()
            except threading.BrokenBarrierError:  # another worker failed to measure
                self.report.send(("done",))
                return
        for i in mine:
            if not self.one(i):
                return
        self.report.send(("done",))

    def one(self, i: int) -> bool:
        """Make piece i and write it in its turn; False when the work stops there."""
        held = False
        try:
            before = sum(self.measures[:i]) if self.measure is not None else 0
            piece = _piece(self.make(i, before))
            at = _take_turn(self.turn)
            held = True
            size = sum(len(data) for out, data in piece.parts if out == 0)
            ends = piece.last or piece.error is not None
            if self.base is not None:  # output 0 at its places: the others first, in this turn
                for out, data in piece.parts:
                    if out != 0:
                        self.put(out, data)
                if not ends:
                    os.write(self.nxt, TURN.pack(at + size))
                _write_all(self.fds[0], b"".join(d for out, d in piece.parts if out == 0), self.base + at)
            else:
                for out, data in piece.parts:
                    self.put(out, data)
                if not ends:
                    os.write(self.nxt, TURN.pack(at + size))
            if piece.error is not None:
                raise piece.error
        except Exception as e:  # the parent raises it
            if not held:
                with contextlib.suppress(EOFError, OSError):
                    _take_turn(self.turn)
            self.report.send(("error", i, _picklable(e)))
            return False
        self.report.send(("wrote", i, size, piece.note, piece.last))
        return not piece.last

    def put(self, out: int, data: bytes) -> None:
        """Write a part to output `out` (framed, to the relay)."""
        fd = self.fds[out]
        if fd >= 0:
            _write_all(fd, data)
        elif data:
            _write_all(-1 - fd, FRAME.pack(out, len(data)) + data)


class _Ring:
    """The worker processes of `write_pieces`, their reports, and the pipes their turns pass on:
    worker k takes its turns from `turns[k]` and passes them on `turns[k + 1]` (the last worker to
    the first); `relay` is the pipe whose parts this process passes on to the outputs, if any."""

    def __init__(self, workers: int, relay: int | None, outs: Sequence[Output]) -> None:
        self.turns = [os.pipe() for _ in range(workers)]
        self.reports: list[Connection] = []
        self.procs: list[multiprocessing.process.BaseProcess] = []
        self.relay = relay
        self.outs = outs
        self.held = b""  # relayed bytes not yet passed on: a part still coming

    def start(self, count: int, make: Callable[[int, int], Piece | bytes],
              measure: Callable[[int], int] | None, fds: list[int], base: int | None) -> None:
        context = FORK  # the workers inherit the outputs and `make`
        workers = len(self.turns)
        measures = context.Array("q", count, lock=False) if measure is not None else None
        barrier = context.Barrier(workers) if measure is not None else None
        for k in range(workers):
            mine, theirs = context.Pipe(duplex=False)
            self.reports.append(mine)
            worker = _Worker(k, workers, count, make, measure, fds, base, self.turns[k][0],
                             self.turns[(k + 1) % workers][1], theirs, measures, barrier)
            proc = context.Process(target=worker.run, args=(os.getpid(),), daemon=True)
            proc.start()
            theirs.close()
            self.procs.append(proc)
        os.write(self.turns[0][1], TURN.pack(0))

    def follow(self) -> tuple[Written, BaseException | None]:
        """Wait for the workers, relaying their parts: what was written, and the first failing
        piece's error (once the pieces before it are written), if one failed."""
        live = dict(zip(self.reports, self.procs, strict=True))
        written: dict[int, tuple[int, Any]] = {}
        due: int | None = None  # how many pieces are written in all, once a piece ended the work
        failed: BaseException | None = None
        while live and (due is None or len(written) < due):
            for ready in wait([*live, *([self.relay] if self.relay is not None else [])]):
                if isinstance(ready, int):
                    self.pass_on()
                    continue
                assert isinstance(ready, Connection)
                try:
                    message = ready.recv()
                except EOFError:  # it ended without a word: killed, or a bug of ours
                    proc = live.pop(ready)
                    proc.join()
                    raise RuntimeError(f"a writer process ended with status {proc.exitcode}") from None
                if message[0] == "wrote":
                    _, i, size, note, last = message
                    written[i] = (size, note)
                    if last:  # its last word
                        due = i + 1
                        live.pop(ready)
                    continue
                live.pop(ready)  # done, or failed: its last word
                if message[0] == "error" and (due is None or message[1] < due):
                    due, failed = max(message[1], 0), message[2]
                    if message[1] < 0:  # measuring failed: nothing is written
                        break
        pieces = sorted(written.items())
        return Written(sum(size for _, (size, _) in pieces), [note for _, (_, note) in pieces]), failed

    def pass_on(self) -> bool:
        """Pass what the relay holds on to the outputs, each part whole once it has come; False at
        its end."""
        assert self.relay is not None
        data = os.read(self.relay, RELAY)
        if not data:
            os.close(self.relay)
            self.relay = None
            return False
        self.held += data
        while len(self.held) >= FRAME.size:
            out, size = FRAME.unpack_from(self.held)
            if len(self.held) < FRAME.size + size:
                break
            part, self.held = self.held[FRAME.size:FRAME.size + size], self.held[FRAME.size + size:]
            target = self.outs[out]
            if isinstance(target, int):
                _write_all(target, part)
            else:
                target(part)
        return True

    def stop(self, relay_rest: bool) -> None:
        """End the workers (at once: a piece being written may be cut); with `relay_rest`, pass on
        the rest of the relay first, once they have ended; close the pipes."""
        for p in self.procs:
            if p.is_alive():
                p.kill()
            p.join()
        self.procs = []
        while relay_rest and self.relay is not None and self.pass_on():
            pass
        if self.relay is not None:
            os.close(self.relay)
            self.relay = None
        for r, w in self.turns:
            os.close(r)
            os.close(w)
        self.turns = []
        for c in self.reports:
            c.close()
        self.reports = []


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

