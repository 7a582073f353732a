"""Scoring components evaluated on a final board (rules `score-*`).

A board is given as `cls`: per cell the move number of its classical mark, 0 when it has none.
Odd move numbers are X's, even ones O's (rule `turn-order`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

from .geometry import Pattern, patterns
from .variant import Component, Ruleset

ZERO = Fraction(0)
Scores = tuple[Fraction, Fraction]
# An evaluator returns (x points, o points, notes); notes name tie gaps (rule score-tie-gap).
Evaluator = Callable[[Sequence[int], int, int], tuple[Fraction, Fraction, tuple[str, ...]]]


def owned(pats: tuple[Pattern, ...], xmask: int, omask: int) -> tuple[list[Pattern], list[Pattern]]:
    """The patterns wholly classical X, and wholly classical O."""
    return ([p for p in pats if p.mask & xmask == p.mask],
            [p for p in pats if p.mask & omask == p.mask])


def _per_pattern(comp: Component, pats: tuple[Pattern, ...]) -> Evaluator:
    points: Fraction = comp.get("points")

    def evaluate(cls: Sequence[int], xmask: int, omask: int) -> tuple[Fraction, Fraction, tuple[str, ...]]:
        xs, os_ = owned(pats, xmask, omask)
        return points * len(xs), points * len(os_), ()
    return evaluate


def line_key(cls: Sequence[int], p: Pattern, criteria: tuple[str, ...]) -> tuple[int, ...]:
    """A line's key for the first-line award: min-max is its largest move number, min-sum the sum."""
    moves = [cls[c] for c in p.cells]
    return tuple(max(moves) if c == "min-max" else sum(moves) for c in criteria)


def _first_line(comp: Component, pats: tuple[Pattern, ...]) -> Evaluator:
    sole, first, second = comp.get("sole"), comp.get("first"), comp.get("second")
    neither, tie = comp.get("neither"), comp.get("tie")
    source: tuple[str, ...] = comp.get("tiebreak")
    criteria = source + comp.get("fallback")

    def evaluate(cls: Sequence[int], xmask: int, omask: int) -> tuple[Fraction, Fraction, tuple[str, ...]]:
        xs, os_ = owned(pats, xmask, omask)
        if not xs and not os_:
            return neither, neither, ()
        if not os_:
            return sole, ZERO, ()
        if not xs:
            return ZERO, sole, ()
        kx = min(line_key(cls, p, criteria) for p in xs)
        ko = min(line_key(cls, p, criteria) for p in os_)
        if kx == ko and tie is None and first == second:  # the order does not matter
            return first, first, ()
        notes: tuple[str, ...] = ()
        if kx[:len(source)] == ko[:len(source)] and (kx != ko or tie is None):
            decided = "the fallback " + "/".join(criteria[len(source):]) if kx != ko \
                else "no stated award (0 each)"
            keys = f"equal {'/'.join(source)} {list(kx[:len(source)])}" if source else "no source criteria"
            notes = (f"score-tie-gap: both players own lines with {keys}; decided by {decided}",)
        if kx == ko:
            return (tie or ZERO), (tie or ZERO), notes
        return (first, second, notes) if kx < ko else (second, first, notes)
    return evaluate


def _rank(comp: Component, pats: tuple[Pattern, ...]) -> Evaluator:
    ranks = comp.get("ranks")

    def worth(rank: int) -> Fraction:
        if ranks == "harmonic":
            return Fraction(1, rank)
        return ranks[rank - 1] if rank <= len(ranks) else ZERO

    def evaluate(cls: Sequence[int], xmask: int, omask: int) -> tuple[Fraction, Fraction, tuple[str, ...]]:
        xs, os_ = owned(pats, xmask, omask)
        timed = [(max(cls[c] for c in p.cells), 0) for p in xs]
        timed += [(max(cls[c] for c in p.cells), 1) for p in os_]
        order = {t: k for k, t in enumerate(sorted({t for t, _ in timed}), start=1)}
        pts = [ZERO, ZERO]
        for t, who in timed:
            pts[who] += worth(order[t])
        return pts[0], pts[1], ()
    return evaluate


_AWARDS: dict[str, Callable[[Component, tuple[Pattern, ...]], Evaluator]] = {
    "per-pattern": _per_pattern, "first-line": _first_line, "rank": _rank,
}


def compile_scoring(rs: Ruleset) -> Callable[[Sequence[int], int, int], tuple[Scores, tuple[str, ...]]]:
    """One function scoring a final board under every component of the ruleset (rule score-at-end)."""
    n = rs.board
    evaluators = [_AWARDS[c.award](c, patterns(n, c.pattern, c.length)) for c in rs.scoring]

    if len(evaluators) == 1:
        only = evaluators[0]

        def score_one(cls: Sequence[int], xmask: int, omask: int) -> tuple[Scores, tuple[str, ...]]:
            x, o, notes = only(cls, xmask, omask)
            return (x, o), notes
        return score_one

    def score(cls: Sequence[int], xmask: int, omask: int) -> tuple[Scores, tuple[str, ...]]:
        x = o = ZERO
        notes: tuple[str, ...] = ()
        for ev in evaluators:
            dx, do, nt = ev(cls, xmask, omask)
            x += dx
            o += do
            notes += nt
        return (x, o), notes
    return score
