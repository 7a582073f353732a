"""Bounded integers: every number that comes from outside (a flag, a JSON or TOML value, a
protocol or checkpoint field) has a documented range, and out of range is a one-line error.

Text is never given to `int()` with more digits than `MAX_DIGITS`, and JSON is parsed with a hook
that refuses longer integers (qttt.jsonstream's strict decoder), so Python's integer-string limit
(4,300 digits) is never reached from input. The ranges are listed in docs/hostile-input.md (a
test holds the table to `BOUNDS`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

MAX_DIGITS = 20  # digits of the longest integer read from any input (2^64 has 20)

_INTEGER = re.compile(rf"[+-]?[0-9]{{1,{MAX_DIGITS}}}")


@dataclass(frozen=True)
class Bound:
    """A range of integers with what they count (for messages and the documented table)."""

    what: str
    low: int
    high: int

    def describe(self) -> str:
        """The range as words: `an integer from LOW to HIGH`."""
        return f"an integer from {self.low} to {self.high}"

    def parse(self, text: str) -> int:
        """An integer written in decimal digits (an optional sign), within the range; ValueError
        with a one-line reason otherwise (long text is cut, never converted)."""
        shown = text if len(text) <= 24 else text[:20] + "..."
        if not _INTEGER.fullmatch(text.strip()):
            raise ValueError(f"{shown!r} is not allowed; expected {self.describe()}")
        return self.check(int(text))

    def check(self, value: Any) -> int:
        """`value` if it is an integer (not a boolean) within the range; ValueError otherwise."""
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            shown = json.dumps(value) if isinstance(value, (bool, int, float, type(None))) else repr(value)
            if len(shown) > 24:
                shown = shown[:20] + "..."
            raise ValueError(f"{shown} is not allowed; expected {self.describe()}")
        return value


# -- the documented ranges ------------------------------------------------------------------------

GAMES = Bound("games to sample (`analyze random -n`, `check --games`)", 1, 1_000_000_000)
STREAM = Bound("games printed as they are played (`random -n`)", 1, 10 ** 15)
MATCH_GAMES = Bound("games of a match (`match --games`)", 1, 1_000_000)
SEED = Bound("random seeds (`--seed`)", 0, 2 ** 63 - 1)
WORKERS = Bound("worker processes (`--workers`, `--processes`)", 0, 256)
MAX_PLY = Bound("plies (`--max-ply`, checkpoint `ply`)", 0, 10_000)
DEPTH = Bound("perft depth (`--depth` from 1, protocol `perft` `depth`)", 0, 1_000)
CHUNK = Bound("units of work (`--chunk`)", 1, 10_000_000)
COUNT = Bound("counts saved in checkpoints (games, nodes, positions, multiplicities)", 0, 10 ** 19)
CODE = Bound("encoded actions in checkpoints", -10_000, 10_000)
SCORE = Bound("points of one game in a tour file (`score`)", 0, 1_000)
SECONDS_MAX = 1_000_000  # the largest number of seconds a flag takes (about 11.5 days)

BOUNDS = (GAMES, STREAM, MATCH_GAMES, SEED, WORKERS, MAX_PLY, DEPTH, CHUNK, COUNT, CODE, SCORE)
