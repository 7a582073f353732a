"""Argument types of the command lines (`qttt` and `python -m verify`): one-line refusals argparse
reports with exit status 2."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def integer(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: an integer from `low` (to `high`)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f">= {low}"
            raise argparse.ArgumentTypeError(f"{value} is not allowed; expected an integer {bound}")
        return value
    parse.__name__ = "integer"
    return parse


def seconds(text: str) -> float:
    """An argparse type: a positive, finite number of seconds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; expected a positive number of seconds")
    return value
