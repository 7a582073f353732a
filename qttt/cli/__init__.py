"""The `qttt` command line: a thin layer over the library. Each subcommand is a module here
with `register(subparsers)`; errors the toolkit reports become one line on standard error.

Exit status: 0 success, 1 a negative finding (an illegal record, a violated property, a failed
case), 2 input the command cannot use (a bad flag, file, ruleset or record format), 3 a bug of
ours, 130 interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import pkgutil
import signal
import sys
import threading
from types import FrameType
from typing import Any, NoReturn

from rich.console import Console

from .. import __version__
from ..errors import QtttError
from ..processes import Terminated
from ..safe import SafeStream, escape


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: the problem, then where to find help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {escape(message)} (see {self.prog} --help)\n")


def command_modules() -> list[str]:
    """The subcommand modules of this package, by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = Parser(prog="qttt", description="Quantum tic-tac-toe: rules, engine, verification.")
    parser.add_argument("--version", action="version", version=f"qttt {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def _broken_pipe(self: Console) -> None:
    """A reader gone away from a rich console is the BrokenPipeError it is (rich would exit 1),
    so that every command answers it the same way: quietly, status 0."""
    self.quiet = True
    raise BrokenPipeError


Console.on_broken_pipe = _broken_pipe  # type: ignore[method-assign]


def console(**options: Any) -> Console:
    """The rich console of every command: no markup or highlighting in what it prints (names
    from files print as they are, through SafeStream), so a `[` in a name is text."""
    return Console(highlight=False, markup=False, **options)


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise Terminated


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status. Standard output and error go through
    qttt.safe.SafeStream (control characters escaped); SIGTERM stops like Ctrl-C."""
    if sys.stderr is None:  # started with standard error closed: messages go nowhere
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    if sys.stdout is None:
        print("qttt: standard output is closed; nothing can be written", file=sys.stderr)
        return 2
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)
    handler = None
    if threading.current_thread() is threading.main_thread():
        handler = signal.signal(signal.SIGTERM, _terminate)
    try:
        return _run(argv)
    finally:
        sys.stdout, sys.stderr = streams
        if handler is not None:
            signal.signal(signal.SIGTERM, handler)


def _quiet_stdout() -> None:
    """Point standard output at /dev/null: the reader went away or the disk is full, and the
    interpreter's final flush must not fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def _run(argv: list[str] | None) -> int:
    try:
        args = build_parser().parse_args(argv)
        status: int = args.run(args)
        sys.stdout.flush()
    except QtttError as e:
        print(f"qttt: {escape(str(e))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("qttt: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        print("qttt: terminated", file=sys.stderr)
        return 143
    except BrokenPipeError:
        _quiet_stdout()  # the reader went away (as `| head` does): stop quietly, status 0
        return 0
    except UnicodeDecodeError as e:  # a file read without qttt.io: still input, not a bug
        print(f"qttt: input is not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})",
              file=sys.stderr)
        return 2
    except OSError as e:
        if e.filename is None and e.errno in (errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT):
            _quiet_stdout()
            print(f"qttt: cannot write standard output: {e.strerror}", file=sys.stderr)
        else:
            name = f"{escape(str(e.filename))}: " if e.filename is not None else ""
            print(f"qttt: {name}{e.strerror or e}", file=sys.stderr)
        return 2
    except Exception as e:  # a bug of ours: one line, the traceback on request
        if os.environ.get("QTTT_DEBUG"):
            raise
        print(f"qttt: internal error: {type(e).__name__}: {escape(str(e))[:300]} (set QTTT_DEBUG=1 "
              "for the traceback; please report it)", file=sys.stderr)
        return 3
    return status


if __name__ == "__main__":
    sys.exit(main())
