"""Random-play tallies of nested-classical games in the Python engine (the family's `tally` tool),
as the compiled nested core's `NestedCore.sample` tallies them."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from ..family import Tally
from ..ruleset import Ruleset
from .engine import nested_playout


def tally(rs: Ruleset, rng: random.Random, games: int) -> Tally:
    """Over `games` random games drawn from `rng` (`nested_playout`): final (x, o) points, no line
    results (no such award in this family) and the games by (moves, cells left empty)."""
    hist: Counter[tuple[Fraction, Fraction]] = Counter()
    shapes: Counter[tuple[int, int]] = Counter()
    for _ in range(games):
        moves, final = nested_playout(rs, rng)
        hist[(final.scores["x"], final.scores["o"])] += 1
        shapes[(len(moves), final.marks.count(None))] += 1
    return hist, Counter(), shapes
