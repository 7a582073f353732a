"""Chance in the game model (rule `collapse-chance`): the chance player, whose turn lists its
outcomes with exact probabilities, and the one way every driver (random play, the referee, `qttt
play`, the checker's sampled games) draws an outcome from a seeded generator, which both compiled
cores repeat draw for draw.

A state whose `to_move` is `CHANCE` is a chance turn: its `chance_outcomes()` are (action,
probability) pairs in the order of its legal actions, every probability positive, summing to one.
The outcome that happens is an action of its own in the record, so records replay without a
generator.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from fractions import Fraction
from typing import TypeVar

CHANCE = "chance"  # the `to_move` of a chance turn
A = TypeVar("A")
Outcomes = tuple[tuple[A, Fraction], ...]


def draw(outcomes: Sequence[tuple[A, Fraction]], rng: random.Random) -> A:
    """The outcome a generator picks: one `rng.random()` u (always drawn, even when one outcome is
    certain), then the first outcome, in the listed order, whose cumulative probability exceeds u,
    compared exactly (u is a multiple of 2**-53, so `Fraction(u)` is u)."""
    u = Fraction(rng.random())
    total = Fraction(0)
    for action, probability in outcomes:
        total += probability
        if u < total:
            return action
    return outcomes[-1][0]  # unreachable: the probabilities sum to one and u < 1


def check_outcomes(outcomes: Sequence[tuple[object, Fraction]]) -> str | None:
    """None when `outcomes` is a chance turn's list as the rules require (at least one outcome,
    distinct, every probability positive, summing to exactly one), else what is wrong."""
    if not outcomes:
        return "no outcome"
    if len({a for a, _ in outcomes}) != len(outcomes):
        return "an outcome listed twice"
    if any(not isinstance(p, Fraction) or p <= 0 for _, p in outcomes):
        return "a probability that is not a positive fraction"
    total = sum((p for _, p in outcomes), Fraction(0))
    return None if total == 1 else f"probabilities summing to {total}, not 1"
