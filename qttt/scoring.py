"""Scoring components evaluated on a final board (rules `score-*`).

A board is given as `cls`: per cell the move number of its classical mark, 0 when it has none.
Odd move numbers are X's, even ones O's (rule `turn-order`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import lcm

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


def best_line_keys(pats: tuple[Pattern, ...], cls: Sequence[int], xmask: int, omask: int,
                   criteria: tuple[str, ...]) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None]:
    """The smallest key of an X line and of an O line (None: that player owns no line)."""
    xs, os_ = owned(pats, xmask, omask)
    kx = min((line_key(cls, p, criteria) for p in xs), default=None)
    ko = min((line_key(cls, p, criteria) for p in os_), default=None)
    return kx, ko


def line_result(kx: tuple[int, ...] | None, ko: tuple[int, ...] | None) -> str:
    """Who owns the better best line (rule score-first-line): x, o, neither, or tie (equal keys)."""
    if kx is None:
        return "neither" if ko is None else "o"
    if ko is None:
        return "x"
    return "tie" if kx == ko else "x" if kx < ko else "o"


def first_line_result(rs: Ruleset, cls: Sequence[int], xmask: int, omask: int) -> str | None:
    """`line_result` of the ruleset's first first-line component on a final board, or None if it
    has none: the winner of the game where lines decide it."""
    for c in rs.scoring:
        if c.award == "first-line":
            pats = patterns(rs.board, c.pattern, c.length)
            criteria = c.get("tiebreak") + c.get("fallback")
            return line_result(*best_line_keys(pats, cls, xmask, omask, criteria))
    return None


def _first_line(comp: Component, pats: tuple[Pattern, ...]) -> Evaluator:
    sole, first, second = comp.get("sole"), comp.get("first"), comp.get("second")
    neither, tie = comp.get("neither"), comp.get("tie")
    double = sole if comp.get("double") is None else comp.get("double")
    source: tuple[str, ...] = comp.get("tiebreak")
    criteria = source + comp.get("fallback")

    def evaluate(cls: Sequence[int], xmask: int, omask: int) -> tuple[Fraction, Fraction, tuple[str, ...]]:
        kx, ko = best_line_keys(pats, cls, xmask, omask, criteria)
        result = line_result(kx, ko)
        if result == "neither":
            return neither, neither, ()
        if kx is None or ko is None:  # one player alone owns lines: one, or a double line
            xs, os_ = owned(pats, xmask, omask) if double != sole else ([], [])
            alone = double if len(xs) + len(os_) > 1 else sole
            return (ZERO, alone, ()) if kx is None else (alone, ZERO, ())
        notes: tuple[str, ...] = ()
        if kx[:len(source)] == ko[:len(source)] and (kx != ko or tie is None):
            decided = "the fallback " + "/".join(criteria[len(source):]) if kx != ko \
                else "no stated award (0 each)"
            keys = f"equal {'/'.join(source)} {list(kx[:len(source)])}" if source else "no source criteria"
            notes = (f"score-tie-gap: both players own lines with {keys}; decided by {decided}",)
        if result == "tie":
            return (tie or ZERO), (tie or ZERO), notes
        return (first, second, notes) if result == "x" else (second, first, notes)
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


def score_bound(rs: Ruleset) -> Fraction:
    """An upper bound on |x − o| at the end of any game of `rs`."""
    total = Fraction(0)
    for c in rs.scoring:
        count = len(patterns(rs.board, c.pattern, c.length))
        if c.award == "per-pattern":
            total += abs(c.get("points")) * count
        elif c.award == "first-line":
            vals = [c.get(k) for k in ("sole", "first", "second", "neither", "tie", "double")]
            vals = [v for v in vals if v is not None] + [Fraction(0)]  # tie None: never needed
            total += max(vals) - min(vals)
        else:
            ranks = c.get("ranks")
            worths = ([Fraction(1, k) for k in range(1, count + 1)] if ranks == "harmonic"
                      else [abs(v) for v in ranks])
            total += sum(sorted(worths, reverse=True)[:count], Fraction(0))
    return total


def score_scale(rs: Ruleset) -> int:
    """A common denominator of every score `rs` can award: values are searched as integers."""
    d = 1
    for c in rs.scoring:
        for name, v in c.settings:
            if isinstance(v, Fraction):
                d = lcm(d, v.denominator)
            elif name == "ranks" and v == "harmonic":
                d = lcm(d, *range(1, len(patterns(rs.board, c.pattern, c.length)) + 1))
            elif name == "ranks":
                d = lcm(d, *(f.denominator for f in v))
    return d
