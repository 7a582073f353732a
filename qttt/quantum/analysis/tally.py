"""Random-play tallies of quantum games in the Python engine (the family's `tally` tool): the
histogram of final points and the games by line result, as the compiled core's `Core.sample`
tallies them."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from ...family import Tally
from ...ruleset import Ruleset
from ..engine import State, playout
from ..scoring import first_line_result


def tally(rs: Ruleset, rng: random.Random, games: int) -> Tally:
    """Over `games` random games drawn from `rng` (`playout`): final (x, o) points, the games by
    line result (`line_result`; only with a first-line component) and no shapes (a quantum game's
    length is not tallied)."""
    hist: Counter[tuple[Fraction, Fraction]] = Counter()
    lines: Counter[str] = Counter()
    lined = any(c.award == "first-line" for c in rs.scoring)
    for _ in range(games):
        _, state = playout(rs, rng)
        s = state.scores
        hist[(s["x"], s["o"])] += 1
        if lined:
            lines[line_result(rs, state)] += 1
    return hist, lines, Counter()


def line_result(rs: Ruleset, state: State) -> str:
    """Who owns the better best line of the first first-line component (`first_line_result`), none
    without a line, unfinished for a deadlock."""
    if not state.over:
        return "unfinished"
    cls = state.classical
    x = sum(1 << c for c, k in enumerate(cls) if k & 1)
    o = sum(1 << c for c, k in enumerate(cls) if k and not k & 1)
    return first_line_result(rs, cls, x, o) or "none"
