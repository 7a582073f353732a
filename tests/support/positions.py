"""Positions shared by the analysis tests: the 3×3 rulesets and mid-game starts with few games left."""

from __future__ import annotations

import random

from qttt import load_ruleset
from qttt.quantum.analysis.count import count_games, encode
from qttt.quantum.engine import playout

THREE = ("wikipedia", "russian", "russian-unstable", "kumar", "ishizeki-complete")


def midgame(name: str, seed: int, games: int) -> tuple[int, ...]:
    """Encoded actions of the shortest prefix of a random game with at most `games` games left."""
    rs = load_ruleset(name)
    rng = random.Random(seed)
    while True:
        actions, _ = playout(rs, rng)
        codes = tuple(encode(a, 9) for a in actions)
        for cut in range(len(codes) - 1, 3, -1):
            if count_games(rs, start=codes[:cut - 1]).games > games:
                if cut < len(codes) - 1:
                    return codes[:cut]
                break
