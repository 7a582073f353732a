"""The `qttt` command line: a thin layer over the library. Each subcommand is a module here
with `register(subparsers)`; errors the toolkit reports become one line on standard error."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from ..errors import QtttError


def command_modules() -> list[str]:
    """The subcommand modules of this package, by name."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="qttt", description="Quantum tic-tac-toe: rules, engine, verification.")
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
        return 0
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
