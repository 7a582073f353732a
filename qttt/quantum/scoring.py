"""Scoring components evaluated on a final board (rules `score-*`).

A board is given as `cls`: per cell the move number of its classical mark, 0 when it has none.
Odd move numbers are X's, even ones O's (rule `turn-order`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from math import lcm
from typing import ClassVar

from ..geometry import Pattern, patterns
from ..native import scaled
from ..ruleset import Ruleset
from ..vocabulary import AWARD_DECLARATIONS, Component

ZERO = Fraction(0)
Scores = tuple[Fraction, Fraction]
Points = tuple[Fraction, Fraction, tuple[str, ...]]  # x points, o points, notes (rule score-tie-gap)
Scorer = Callable[[Sequence[int], int, int], tuple[Scores, tuple[str, ...]]]


def owned(pats: tuple[Pattern, ...], xmask: int, omask: int) -> tuple[list[Pattern], list[Pattern]]:
    """The patterns wholly classical X, and wholly classical O."""
    return ([p for p in pats if p.mask & xmask == p.mask],
            [p for p in pats if p.mask & omask == p.mask])


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


class Award:
    """A scoring component compiled for a board: it evaluates a final board, bounds what it can give,
    describes itself for the docs and encodes itself for the compiled core. One subclass per
    pattern-scoring award of the vocabulary (`AWARD_TYPES`), its name, rule, code and C fields as
    qttt.vocabulary declares them; the C core and the tests' reference model are the two
    deliberate, independent copies."""

    name: ClassVar[str]
    rule: ClassVar[str]  # the rule of spec/rules.toml that states the award
    code: ClassVar[int]  # the award's number in the compiled core's configuration
    c_fields: ClassVar[tuple[str, ...]]  # its point attributes the compiled core reads, by name

    def __init__(self, comp: Component, n: int) -> None:
        self.component = comp
        self.n = n
        self.patterns = patterns(n, comp.pattern, comp.length)

    def evaluate(self, cls: Sequence[int], xmask: int, omask: int) -> Points:
        """(x points, o points, notes) on a final board; notes name tie gaps (rule score-tie-gap)."""
        raise NotImplementedError

    def bound(self) -> Fraction:
        """An upper bound on what the award adds to |x − o|."""
        raise NotImplementedError

    def values(self) -> tuple[Fraction, ...]:
        """The point values the award is built from (their common denominator scales scores)."""
        raise NotImplementedError

    def range_for(self, owned: int, other: int) -> tuple[Fraction, Fraction]:
        """Least and most it gives a player owning `owned` of its patterns while the opponent owns
        none (NONE), some (SOME) or an unknown number (UNKNOWN) of them."""
        raise NotImplementedError

    def settings_code(self, scale: int) -> list[int]:
        """The award's own settings for the compiled core: its `c_fields` (point values scaled to
        integers, an unstated value as 0), then its `c_list`, counted."""
        tail = self.c_list(scale)
        return [*(scaled(getattr(self, f) or ZERO, scale) for f in self.c_fields), len(tail), *tail]

    def c_list(self, scale: int) -> list[int]:
        """The award's list for the compiled core (first-line: criteria codes; rank: worths)."""
        return []

    def statement(self, what: str, plural: str) -> str:
        """The award in words, for the pattern `what` ("line of 3") of which there are `plural`."""
        raise NotImplementedError

    @property
    def uses_move_numbers(self) -> bool:
        """Whether the award compares move numbers (then positions keep them in their keys)."""
        return False

    def encode(self, scale: int) -> list[int]:
        """The award as the compiled core reads it: code, pattern count and masks, settings."""
        return [self.code, len(self.patterns), *(p.mask for p in self.patterns), *self.settings_code(scale)]

    def describe(self) -> str:
        """The award in words, for the ruleset pages."""
        c, n = self.component, self.n
        length = c.length or n
        what = (f"line of {length}" + (" (a full row, column or long diagonal)" if length == n else "")
                if c.pattern == "line" else f"{c.length}×{c.length} square")
        plural = f"{len(self.patterns)} {'lines' if c.pattern == 'line' else 'squares'} of the board"
        return self.statement(what, plural)


def declared(name: str) -> tuple[str, str, int, tuple[str, ...]]:
    """An award's name, rule, code and C fields, as qttt.vocabulary declares them."""
    d = AWARD_DECLARATIONS[name]
    return d.name, d.rule, d.code, d.c_fields


NONE, SOME, UNKNOWN = 0, 1, 2  # how many patterns the opponent owns, for Award.range_for


class PerPattern(Award):
    """Rule score-per-pattern: each owned pattern is worth `points` to its owner."""

    name, rule, code, c_fields = declared("per-pattern")

    def __init__(self, comp: Component, n: int) -> None:
        super().__init__(comp, n)
        self.points: Fraction = comp.get("points")

    def evaluate(self, cls: Sequence[int], xmask: int, omask: int) -> Points:
        xs, os_ = owned(self.patterns, xmask, omask)
        return self.points * len(xs), self.points * len(os_), ()

    def bound(self) -> Fraction:
        return abs(self.points) * len(self.patterns)

    def values(self) -> tuple[Fraction, ...]:
        return (self.points,)

    def range_for(self, owned: int, other: int) -> tuple[Fraction, Fraction]:
        v = self.points * owned
        return v, v

    def statement(self, what: str, plural: str) -> str:
        return f"Each classical {what} a player owns is worth {self.points} to them ({plural})."


CRITERIA_CODES = {"min-max": 0, "min-sum": 1}
_CRITERIA_WORDS = {"min-max": "the smaller largest move number", "min-sum": "the smaller sum of move numbers"}


class FirstLine(Award):
    """Rule score-first-line: the better best line wins (criteria from the sources, then a fallback)."""

    name, rule, code, c_fields = declared("first-line")

    def __init__(self, comp: Component, n: int) -> None:
        super().__init__(comp, n)
        self.sole: Fraction = comp.get("sole")
        self.first: Fraction = comp.get("first")
        self.second: Fraction = comp.get("second")
        self.neither: Fraction = comp.get("neither")
        self.tie: Fraction | None = comp.get("tie")
        # Equal best lines: the stated tie award; unstated, first when first = second (either order
        # gives the same), else None: a gap (rule score-tie-gap).
        self.equal: Fraction | None = self.tie if self.tie is not None or self.first != self.second \
            else self.first
        self.double: Fraction | None = comp.get("double")  # a player alone owning 2+ lines; None: sole
        self.double_line: Fraction = self.sole if self.double is None else self.double
        self.source: tuple[str, ...] = comp.get("tiebreak")
        self.fallback: tuple[str, ...] = comp.get("fallback")
        self.criteria = self.source + self.fallback

    def evaluate(self, cls: Sequence[int], xmask: int, omask: int) -> Points:
        source, criteria, tie = self.source, self.criteria, self.equal
        xs, os_ = owned(self.patterns, xmask, omask)  # the engine's hot path: no keys unless both own
        if not xs or not os_:
            if not xs and not os_:
                return self.neither, self.neither, ()
            # one player alone owns lines: one, or a double line
            alone = self.double if self.double is not None and len(xs) + len(os_) > 1 else self.sole
            return (ZERO, alone, ()) if not xs else (alone, ZERO, ())
        kx = min(line_key(cls, p, criteria) for p in xs)
        ko = min(line_key(cls, p, criteria) for p in os_)
        notes: tuple[str, ...] = ()
        if kx[:len(source)] == ko[:len(source)] and (kx != ko or tie is None):
            decided = "the fallback " + "/".join(criteria[len(source):]) if kx != ko \
                else "no stated award (0 each)"
            keys = f"equal {'/'.join(source)} {list(kx[:len(source)])}" if source else "no source criteria"
            notes = (f"score-tie-gap: both players own lines with {keys}; decided by {decided}",)
        if kx == ko:
            return (tie or ZERO), (tie or ZERO), notes
        return (self.first, self.second, notes) if kx < ko else (self.second, self.first, notes)

    def _stated(self) -> list[Fraction]:
        vals = [self.sole, self.first, self.second, self.neither, self.tie, self.double]
        return [v for v in vals if v is not None]

    def bound(self) -> Fraction:
        vals = [*self._stated(), ZERO]  # tie None: never needed
        return max(vals) - min(vals)

    def values(self) -> tuple[Fraction, ...]:
        return tuple(self._stated())

    def range_for(self, owned: int, other: int) -> tuple[Fraction, Fraction]:
        alone = self.double if owned > 1 and self.double is not None else self.sole
        cases: dict[tuple[bool, int], list[Fraction | None]] = {
            (True, NONE): [alone], (True, SOME): [self.first, self.second, self.equal],
                 (False, NONE): [self.neither], (False, SOME): []}
        mine = owned > 0
        picked = cases[(mine, other)] if other != UNKNOWN else cases[(mine, NONE)] + cases[(mine, SOME)]
        values = [v or ZERO for v in picked]  # an unstated tie award gives 0
        values += [ZERO] if not owned and other != NONE else []
        return min(values), max(values)

    def c_list(self, scale: int) -> list[int]:
        return [CRITERIA_CODES[k] for k in self.criteria]

    @property
    def uses_move_numbers(self) -> bool:
        return bool(self.criteria)

    def statement(self, what: str, plural: str) -> str:
        tb = [_CRITERIA_WORDS[x] for x in self.source]
        fb = [_CRITERIA_WORDS[x] for x in self.fallback]
        tie = self.equal
        unstated = "no award is stated, so each gets 0 and the checker reports it (score-tie-gap)"
        both = (f"Both: the player whose best line has {', then '.join(tb)} gets {self.first}, the other "
                f"{self.second}" if tb else
                f"Both: each gets {tie}" if tie is not None else f"Both: {unstated}")
        if fb:
            both += (f"; equal on that, which no source covers, {', then '.join(fb)} decides "
                     f"(reported under score-tie-gap)")
        elif tb and "min-max" in self.source:
            both += " (largest move numbers of an x line and an o line never tie: one is odd, the other even)"
        elif tb:
            both += f"; equal keys give each {tie}" if tie is not None else f"; equal keys: {unstated}"
        double = ("" if self.double is None
                  else f", or {self.double} when they own two or more (a double line)")
        return (f"For the {what} ({plural}): only one player owns one: that player gets {self.sole}"
                f"{double}. {both}. Neither: each gets {self.neither}.")


class Rank(Award):
    """Rule score-rank: owned lines are timed by their largest move number; the k-th time is worth
    the k-th rank's points."""

    name, rule, code, c_fields = declared("rank")

    def __init__(self, comp: Component, n: int) -> None:
        super().__init__(comp, n)
        self.ranks: str | tuple[Fraction, ...] = comp.get("ranks")

    def worth(self, rank: int) -> Fraction:
        """Points for the rank-th distinct time (from 1)."""
        if isinstance(self.ranks, str):  # harmonic
            return Fraction(1, rank)
        return self.ranks[rank - 1] if rank <= len(self.ranks) else ZERO

    def worths(self) -> list[Fraction]:
        """The stated worths: 1/k for k up to the pattern count when harmonic."""
        if isinstance(self.ranks, str):  # harmonic
            return [Fraction(1, k) for k in range(1, len(self.patterns) + 1)]
        return list(self.ranks)

    def evaluate(self, cls: Sequence[int], xmask: int, omask: int) -> Points:
        xs, os_ = owned(self.patterns, xmask, omask)
        timed = [(max(cls[c] for c in p.cells), 0) for p in xs]
        timed += [(max(cls[c] for c in p.cells), 1) for p in os_]
        order = {t: k for k, t in enumerate(sorted({t for t, _ in timed}), start=1)}
        pts = [ZERO, ZERO]
        for t, who in timed:
            pts[who] += self.worth(order[t])
        return pts[0], pts[1], ()

    def bound(self) -> Fraction:
        return sum(sorted((abs(v) for v in self.worths()), reverse=True)[:len(self.patterns)], ZERO)

    def values(self) -> tuple[Fraction, ...]:
        return tuple(self.worths())

    def range_for(self, owned: int, other: int) -> tuple[Fraction, Fraction]:
        count = len(self.patterns)
        worths = [self.worth(k) for k in range(1, count + 1)]
        return owned * min(worths), owned * max(worths)

    def c_list(self, scale: int) -> list[int]:
        return [scaled(w, scale) for w in self.worths()]

    @property
    def uses_move_numbers(self) -> bool:
        return True

    def statement(self, what: str, plural: str) -> str:
        worth = "1/k for rank k" if self.ranks == "harmonic" else ", ".join(str(r) for r in self.ranks)
        return (f"Each owned {what} is timed by its largest move number; the k-th distinct time is "
                f"worth {worth} to the line's owner, equal times sharing a rank ({plural}).")


AWARD_TYPES: dict[str, type[Award]] = {a.name: a for a in (PerPattern, FirstLine, Rank)}


def compile_awards(rs: Ruleset) -> tuple[Award, ...]:
    """The ruleset's scoring components as awards on its board."""
    return tuple(AWARD_TYPES[c.award](c, rs.board) for c in rs.scoring)


def breakdown(rs: Ruleset, cls: Sequence[int]) -> list[tuple[Award, Points, list[Pattern], list[Pattern]]]:
    """Each award of a final board (rule score-at-end): its points and the patterns each player
    owns under it, X's then O's."""
    xmask = sum(1 << c for c, k in enumerate(cls) if k and k % 2)
    omask = sum(1 << c for c, k in enumerate(cls) if k and not k % 2)
    return [(a, a.evaluate(cls, xmask, omask), *owned(a.patterns, xmask, omask)) for a in compile_awards(rs)]


def compile_scoring(awards: Sequence[Award], draw_second: Fraction = ZERO) -> Scorer:
    """One function scoring a final board under every award (rule score-at-end), then a drawn
    game's points moved towards the second player (rule score-draw-second)."""
    evaluators = [a.evaluate for a in awards]

    def score(cls: Sequence[int], xmask: int, omask: int) -> tuple[Scores, tuple[str, ...]]:
        x = o = ZERO
        notes: tuple[str, ...] = ()
        for ev in evaluators:
            dx, do, nt = ev(cls, xmask, omask)
            x += dx
            o += do
            notes += nt
        if x == o and draw_second:
            x, o = x - draw_second, o + draw_second
        return (x, o), notes

    if len(evaluators) == 1 and not draw_second:
        only = evaluators[0]

        def score_one(cls: Sequence[int], xmask: int, omask: int) -> tuple[Scores, tuple[str, ...]]:
            x, o, notes = only(cls, xmask, omask)
            return (x, o), notes
        return score_one
    return score


def score_bound(awards: Sequence[Award]) -> Fraction:
    """An upper bound on |x − o| at the end of any game scored by `awards`."""
    return sum((a.bound() for a in awards), ZERO)


def score_scale(awards: Sequence[Award]) -> int:
    """A common denominator of every score the awards can give: values are searched as integers."""
    return lcm(1, *(v.denominator for a in awards for v in a.values()))
