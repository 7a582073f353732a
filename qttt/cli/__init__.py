"""The `qttt` command line: a thin layer over the library. Each subcommand is a module here
with `register(subparsers)`; errors the toolkit reports become one line on standard error.

Exit status: 0 success, 1 a negative finding (an illegal record, a violated property, a failed
case), 2 input the command cannot use (a bad flag, file, ruleset or record format), 3 a bug of
ours, 130 interrupted.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from typing import NoReturn

from ..errors import QtttError


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line: the problem, then where to find help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def command_modules() -> list[str]:
    """The subcommand modules of this package, by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = Parser(prog="qttt", description="Quantum tic-tac-toe: rules, engine, verification.")
    from .. import __version__
    parser.add_argument("--version", action="version", version=f"qttt {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in command_modules():
        importlib.import_module(f"{__name__}.{name}").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except QtttError as e:
        print(f"qttt: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("qttt: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader went away (as `| head` does): stop quietly, and keep the interpreter's
        # final flush from failing again
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except UnicodeDecodeError as e:  # a file read without qttt.io: still input, not a bug
        print(f"qttt: input is not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})",
              file=sys.stderr)
        return 2
    except OSError as e:
        print(f"qttt: {e.filename or ''}: {e.strerror}", file=sys.stderr)
        return 2
    except Exception as e:  # a bug of ours: one line, the traceback on request
        if os.environ.get("QTTT_DEBUG"):
            raise
        print(f"qttt: internal error: {type(e).__name__}: {e} (set QTTT_DEBUG=1 for the traceback; "
              "please report it)", file=sys.stderr)
        return 3
    return status


if __name__ == "__main__":
    sys.exit(main())
