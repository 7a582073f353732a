"""The signals that end a command, answered in one place: from the first instruction of the entry
(`early`, while the command line is still being imported: one line, the exit status, nothing else
to undo) and while a command runs (`install`: the signal becomes an exception, so that `finally`
blocks run, temporary files are removed and workers are stopped, then the exit status 128 + the
signal's number). SIGINT is Ctrl-C (KeyboardInterrupt, 130); the others raise `Terminated`.

A signal ignored when qttt starts (`nohup` ignores SIGHUP, a shell's background job SIGINT) stays
ignored. SIGPIPE is ignored by Python itself: a write to a reader gone away is a BrokenPipeError.
Standard library only, and nothing heavy: the entry imports this before anything else.
"""

from __future__ import annotations

import errno
import os
import signal
import threading
import time
from collections.abc import Callable
from types import FrameType
from typing import Any

from .errors import Terminated

try:  # imported now: when a limit is hit, even opening its module may fail (no file descriptor left)
    import resource
except ImportError:  # pragma: no cover - not a Unix
    resource = None  # type: ignore[assignment]

# signal: what the one line says (the exit status is 128 + the signal's number)
WORDS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hung up (SIGHUP)",
         signal.SIGQUIT: "quit (SIGQUIT)", signal.SIGUSR1: "stopped by SIGUSR1",
         signal.SIGUSR2: "stopped by SIGUSR2"}

Handler = Callable[[int, FrameType | None], Any] | int | None


def status(signum: int) -> int:
    """The exit status of a command a signal ended."""
    return 128 + signum


def _exit_now(signum: int, frame: FrameType | None) -> None:
    os.write(2, f"qttt: {WORDS.get(signal.Signals(signum), 'stopped')}\n".encode())
    os._exit(status(signum))


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


def _taken(sig: signal.Signals) -> bool:
    """Whether qttt answers `sig` itself: not when it was ignored at start (nor SIGINT when Python
    did not install its own handler, which it leaves alone when SIGINT was ignored)."""
    current = signal.getsignal(sig)
    if current == signal.SIG_IGN:
        return False
    return sig != signal.SIGINT or current in (signal.default_int_handler, _exit_now)


def early() -> None:
    """From here until `install`: a stopping signal ends the process with its one line and status
    (nothing has been done that needs undoing)."""
    if threading.current_thread() is not threading.main_thread():
        return
    for sig in WORDS:
        if _taken(sig):
            signal.signal(sig, _exit_now)


def install() -> dict[signal.Signals, Handler]:
    """While a command runs: Ctrl-C raises KeyboardInterrupt, every other stopping signal
    `Terminated(signum)`; returns the handlers replaced (`restore` puts them back)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    old: dict[signal.Signals, Handler] = {}
    for sig in WORDS:
        if _taken(sig):
            old[sig] = signal.signal(sig, signal.default_int_handler if sig == signal.SIGINT else _raise)
    return old


def answered() -> None:
    """Ctrl-C was answered (its line printed, its status returned): Python must not end the
    process by SIGINT again at exit, which it does when a KeyboardInterrupt once ended code run by
    exec() of a string (dataclasses and namedtuples make methods so), though it was caught."""
    try:
        import ctypes

        ctypes.c_int.in_dll(ctypes.pythonapi, "_Py_UnhandledKeyboardInterrupt").value = 0
    except (ImportError, ValueError, AttributeError, OSError):  # another Python: nothing to undo
        pass


EXIT_SECONDS = 5.0
"""How long a stopped command may take to exit once it has answered (its line printed, its
temporary files removed, its workers stopped)."""


def exit_within(code: int, seconds: float = EXIT_SECONDS) -> None:
    """End the process with `code` if it has not ended `seconds` from now: a stopped command's exit
    must not wait on a thread a library joins at exit (a process pool's, when the stop came while it
    started its workers)."""
    def watch() -> None:
        time.sleep(seconds)
        os._exit(code)
    threading.Thread(target=watch, daemon=True, name="qttt-exit-within").start()


def restore(old: dict[signal.Signals, Handler]) -> None:
    """Put back the handlers `install` replaced."""
    for sig, handler in old.items():
        signal.signal(sig, handler)


# -- the environment's limits ---------------------------------------------------------------------

def _limit(name: str) -> int | None:
    """The soft limit `resource.RLIMIT_<name>` of this process, or None when there is none."""
    if resource is None:  # pragma: no cover - not a Unix
        return None
    try:
        soft, _ = resource.getrlimit(getattr(resource, f"RLIMIT_{name}"))
    except (AttributeError, ValueError, OSError):
        return None
    return None if soft == resource.RLIM_INFINITY else soft


def _size(n: int) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,} {unit}" if unit == "bytes" else f"{n:,.0f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return str(n)


def exhausted(e: BaseException) -> str | None:
    """The one line for an exception that says the environment ran out of something (memory,
    processes or threads, open files), naming the limit; None for anything else (a bug of ours
    stays one)."""
    said = str(e)
    if isinstance(e, ImportError) and "Too many open files" in said:  # a module's file not opened
        e = OSError(errno.ENFILE if "in system" in said else errno.EMFILE, said)
    if isinstance(e, MemoryError) or (isinstance(e, OSError) and e.errno == errno.ENOMEM) or (
            isinstance(e, ImportError | OSError) and "failed to map segment" in said):  # a library not mapped
        limit = _limit("AS")
        return ("out of memory" + (f": this process may use {_size(limit)} (ulimit -v)" if limit is not None
                                   else ": the machine's memory is used up"))
    threads = isinstance(e, RuntimeError) and "can't start new thread" in said
    if threads or (isinstance(e, OSError) and e.errno == errno.EAGAIN):
        what = f"cannot start {'a thread' if threads else 'a process'}"
        if memory_short():  # a new one's stack (8 MiB) did not fit under the memory limit
            return f"{what}: out of memory: this process may use {_size(_limit('AS') or 0)} (ulimit -v)"
        limit = _limit("NPROC")
        return (f"{what}: the limit of processes and threads is reached"
                + (f" ({limit:,} for this user, ulimit -u)" if limit is not None else ""))
    if isinstance(e, OSError) and e.errno == errno.EMFILE:
        limit = _limit("NOFILE")
        return ("too many open files" + (f": this process may have {limit:,} open at once (ulimit -n)"
                                         if limit is not None else ""))
    if isinstance(e, OSError) and e.errno == errno.ENFILE:
        return "too many open files on this system (the system's limit is reached)"
    if memory_short():  # whatever failed, it failed with the memory used up (a library not loaded...)
        return f"out of memory: this process may use {_size(_limit('AS') or 0)} (ulimit -v)"
    if type(e).__name__ == "BrokenProcessPool":  # a worker killed from outside, as for lack of memory
        return ("a worker process ended abruptly (killed by the system, as when memory runs out); "
                "run again with fewer --workers or more memory")
    return None


SHORT = 64 << 20  # bytes below the memory limit from which a failure is taken for lack of memory


def memory_short() -> bool:
    """Whether this process has come within SHORT of its memory limit (ulimit -v): then any
    failure (a C library returning an error, a shared library that cannot be mapped, which some
    libraries report as missing) is the limit's, not a bug."""
    limit = _limit("AS")
    if limit is None:
        return False
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            peak = next((int(line.split()[1]) << 10 for line in f if line.startswith("VmPeak:")), 0)
    except MemoryError:  # not even this: short indeed
        return True
    except (OSError, ValueError):
        return False
    return peak >= limit - SHORT


def quiet_threads(hook: Callable[[Any], object]) -> Callable[[Any], object]:
    """A threading.excepthook that says nothing of a thread stopped by an exhausted resource (the
    command reports the limit once, in one line) and hands anything else to `hook`."""
    def excepthook(args: Any) -> object:
        if exhausted(args.exc_value) is None:
            return hook(args)
        return None
    return excepthook
