"""Argument types of the command lines (`qttt` and `python -m verify`): one-line refusals argparse
reports with exit status 2. Integers are bounded (qttt.bounds), seconds finite and at most
SECONDS_MAX."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from .bounds import SECONDS_MAX, Bound


def integer(bound: Bound, low: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer within `bound` (from `low`, when given, instead)."""
    within = bound if low is None else Bound(bound.what, low, bound.high)

    def parse(text: str) -> int:
        try:
            return within.parse(text)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None
    parse.__name__ = "integer"
    return parse


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds, at most SECONDS_MAX."""
    return _seconds(text, 0.0)


def clock_seconds(text: str) -> float:
    """An argparse type: a number of seconds from 0 (no limit) to SECONDS_MAX."""
    return _seconds(text, None)


def _seconds(text: str, above: float | None) -> float:
    shown = text if len(text) <= 24 else text[:20] + "..."
    try:
        value = float(text) if len(text) <= 100 else float("nan")
    except ValueError:
        raise argparse.ArgumentTypeError(f"{shown!r} is not a number") from None
    if not (value > above if above is not None else value >= 0) or not value <= SECONDS_MAX:
        least = "seconds > 0" if above is not None else "seconds >= 0 (0: no limit)"
        raise argparse.ArgumentTypeError(f"{shown} is not allowed; expected {least}, at most "
                                         f"{SECONDS_MAX}")
    return value


class Deprecated(argparse.Action):
    """An old spelling of an option (`help` names the new one, as `--processes` for `--workers`):
    it stores where the new one does, with a one-line note on standard error."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[object] | None, option_string: str | None = None) -> None:
        new = "/".join(a.option_strings[-1] for a in parser._actions
                       if a.dest == self.dest and a is not self and a.option_strings)
        print(f"{parser.prog}: {option_string} is deprecated; use {new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


class OutputPath(str):
    """A file the command line names to write: its shape checked while parsing (`output_file`),
    then, before the command runs, never one of the files the command reads (qttt.io)."""

    __slots__ = ()


def output_file(text: str) -> OutputPath:
    """An argparse type: a file to write, refused at once when it cannot be one (qttt.io's one
    rule: an empty name, a name ending in /, a directory, a directory that does not exist or
    cannot be written)."""
    from .io import output_problem  # the file layer, loaded by the commands that write anyway

    problem = output_problem(text, inputs=False)
    if problem is not None:
        raise argparse.ArgumentTypeError(f"cannot write {text or chr(34) * 2}: {problem}")
    return OutputPath(text)
