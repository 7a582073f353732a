"""Exact expected values of chance rulesets (rule collapse-chance): expectimax, with the value as a
polynomial in p.

X maximises and O minimises the expected score difference x − o; a chance turn is worth p times the
value after the named outcome plus 1 − p times the value after the other. So the value of a position
is a piecewise polynomial in p: on each piece of [1/2, 1] the players' best choices stay the same.
Values are kept as polynomials in p (integer coefficients of p**0, p**1, ..., scaled by `Game.scale`;
a game has at most cells/2 chance turns, so the degree is at most that), and compared as they stand
just right (side +1) or just left (side −1) of a point (`qttt.analysis.piecewise.germ_sign`): the
best choice there is the best on the piece next to the point, so the value found is that piece's
polynomial, and its value at the point is the value. Both outcomes of a chance turn are valued
whatever the ruleset's p (at p = 1 the other has weight 1 − p, zero there).

`Expectimax` is the search in Python (memoised on the solver's keys, no pruning); the compiled
core's (`compiled.FastExpectimax`, alpha-beta over the same order) is checked against it in
tests/analysis/test_expectimax.py. `solve_chance` is `qttt analyze solve` for a chance ruleset.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...analysis.piecewise import Polynomial, Root, germ_sign
from ...errors import QtttError, UsageError
from ...family import CORES
from ...io import FRACTION, write_checkpoint
from ...native import CoreUnavailable
from ...processes import Mapper
from ...ruleset import Ruleset
from ..compiled import available, expectimax_supports
from ..engine import CHANCE_TURN, OVER, Action, Board, Outcome
from ..game import compile_game
from .count import board_after, encode
from .keys import Key, numbered_key, owner_key
from .solved import SolveResult, saved_values

Coefficients = tuple[int, ...]  # a value: scaled integer coefficients of p**0, p**1, ...


def default_side(point: Fraction) -> int:
    """The side a point is approached from unless one is asked: the right, but the left at p = 1."""
    return -1 if point == 1 else 1


def outcomes(b: Board) -> tuple[Board, Board]:
    """A chance turn's two positions: after the named outcome and after the other (offered or not)."""
    named = b.chosen
    a, e = b.ends[b.pending]
    return b.after(Outcome(named)), b.after(Outcome(a + e - named))


def mix(named: Coefficients, other: Coefficients) -> Coefficients:
    """Rule collapse-chance: a chance turn's value, other + p (named − other)."""
    if named[-1] != other[-1]:
        raise QtttError("collapse-chance", "a value's degree exceeds the number of chance turns a game has")
    diff = [n - o for n, o in zip(named, other, strict=True)]
    return (other[0], *(o + d for o, d in zip(other[1:], diff, strict=False)))


class Expectimax:
    """Expectimax values of a chance ruleset's positions as polynomials in p beside `point` (default
    the ruleset's p, from the right, or the left at p = 1), memoised on the solver's key (`keys`),
    searched without pruning: the check on the compiled core's search."""

    def __init__(self, rs: Ruleset, point: Fraction | None = None, side: int = 0) -> None:
        game = compile_game(rs)
        if not game.chance:
            raise QtttError("collapse-chance", f"{rs.canonical}: expectimax values chance collapses; "
                            "collapse = choice is solved by minimax (qttt analyze solve)")
        self.rs = rs
        self.point = rs.rules.p if point is None else point
        self.side = side or default_side(self.point)
        self.scale = game.scale
        self.degree = game.cells // 2
        self.numbered = game.uses_move_numbers
        self.memo: dict[Key, Coefficients] = {}
        self.nodes = 0

    def key(self, b: Board) -> Key:
        return numbered_key(self.rs, b) if self.numbered else owner_key(self.rs, b)

    def const(self, v: Fraction) -> Coefficients:
        x = v * self.scale
        assert x.denominator == 1
        return (x.numerator, *[0] * self.degree)

    def better(self, u: Coefficients, v: Coefficients) -> int:
        """The sign of u − v beside the point."""
        return germ_sign([a - b for a, b in zip(u, v, strict=True)], self.point, self.side)

    def value(self, b: Board) -> Coefficients:
        """The exact value of `b`."""
        self.nodes += 1
        if b.phase == OVER:
            return self.const(b.score_difference())
        k = self.key(b)
        hit = self.memo.get(k)
        if hit is not None:
            return hit
        if b.phase == CHANCE_TURN:
            named, other = outcomes(b)
            v = mix(self.value(named), self.value(other))
        else:
            legal = b.legal()
            if not legal:  # a deadlock: scored as the board stands
                v = self.const(b.score_difference())
            else:
                sign = 1 if b.to_move() == "x" else -1
                best: Coefficients | None = None
                for act in legal:
                    w = self.value(b.after(act))
                    if best is None or sign * self.better(w, best) > 0:
                        best = w
                assert best is not None
                v = best
        self.memo[k] = v
        return v

    def polynomial(self, v: Coefficients) -> Polynomial:
        return Polynomial.of(v, self.scale)


def choose_expectimax(rs: Ruleset, core: str = "auto") -> bool:
    """Whether the compiled core searches (`core` as everywhere: auto, compiled or python): auto
    takes it when it can be built here and handles the ruleset; compiled insists on it."""
    if core not in CORES:
        raise UsageError(None, f"unknown core {core!r}; allowed: " + ", ".join(CORES))
    if core == "python":
        return False
    reason = expectimax_supports(rs) or available()
    if reason is None:
        return True
    if core == "compiled":
        raise CoreUnavailable("solve-fast", reason)
    return False


class Valuer:
    """Values of positions given as encoded actions from the start, by the compiled core or in
    Python: one interface for `solve_chance` and the curve."""

    def __init__(self, rs: Ruleset, point: Fraction, side: int, compiled: bool, log2size: int) -> None:
        self.rs = rs
        self.point, self.side = point, side
        self.scale = compile_game(rs).scale
        self.fast: Any = None
        self.slow: Expectimax | None = None
        if compiled:
            from ..compiled import FastExpectimax
            self.fast = FastExpectimax(rs, point, side, log2size)
        else:
            self.slow = Expectimax(rs, point, side)

    def value(self, codes: Sequence[int]) -> Coefficients:
        if self.fast is not None:
            v: Coefficients = self.fast.value(list(codes))
            return v
        assert self.slow is not None
        return self.slow.value(board_after(self.rs, codes))

    def better(self, u: Coefficients, v: Coefficients) -> int:
        return germ_sign([a - b for a, b in zip(u, v, strict=True)], self.point, self.side)

    @property
    def nodes(self) -> int:
        return int(self.fast.nodes) if self.fast is not None else self.slow.nodes if self.slow else 0

    @property
    def stored(self) -> int:
        return int(self.fast.stored) if self.fast is not None else len(self.slow.memo) if self.slow else 0

    def close(self) -> None:
        if self.fast is not None:
            self.fast.close()


def principal_line(valuer: Valuer, start: Sequence[int], value: Coefficients) -> list[Action]:
    """A perfect game from the position after `start`, worth `value`: at each player's turn the first
    legal action (in the engine's order) that keeps the value, at each chance turn the named outcome
    (the likelier one, or either at p = 1/2)."""
    rs = valuer.rs
    n2 = rs.board ** 2
    codes = list(start)
    b = board_after(rs, codes)
    line: list[Action] = []
    while b.phase != OVER:
        if b.phase == CHANCE_TURN:
            act: Action = Outcome(b.chosen)
            value = valuer.value([*codes, encode(act, n2)])
        else:
            for act in b.legal():
                v = valuer.value([*codes, encode(act, n2)])
                if v == value:
                    break
            else:
                if not b.legal():
                    break  # a deadlock
                raise QtttError("solve-fast", f"no action keeps the value after {codes}")
        line.append(act)
        codes.append(encode(act, n2))
        b = b.after(act)
    return line


def first_piece(rs: Ruleset, start: tuple[int, ...], code: int, point: Fraction, side: int,
                compiled: bool, log2size: int) -> tuple[list[int], int, int]:
    """The value (scaled coefficients) after one encoded action from `start`, with nodes searched and
    table entries used: a unit of work for another process."""
    valuer = Valuer(rs, point, side, compiled, log2size)
    try:
        return list(valuer.value((*start, code))), valuer.nodes, valuer.stored
    finally:
        valuer.close()


def _saved(code: str, value: Any, degree: int) -> Coefficients:
    """A saved value of a first action (checkpoint field `values`): its scaled coefficients."""
    if not isinstance(value, list) or len(value) != degree + 1 or not all(
            isinstance(c, str) and FRACTION.fullmatch(c) and "/" not in c and "." not in c for c in value):
        raise ValueError(f"values.{code}: expected {degree + 1} integer coefficients such as \"3\"")
    return tuple(int(c) for c in value)


def first_actions(rs: Ruleset, root: Board) -> list[Action]:
    """The actions from `root` a solve values: at a chance turn both outcomes, the named one first;
    else one legal action per symmetry class of the position it leads to."""
    if root.phase == CHANCE_TURN:
        a, e = root.ends[root.pending]
        return [Outcome(root.chosen), Outcome(a + e - root.chosen)]
    keyer = numbered_key if compile_game(rs).uses_move_numbers else owner_key
    seen: set[Key] = set()
    kids: list[Action] = []
    for act in root.legal():
        c = root.after(act)
        k = None if c.phase == OVER else keyer(rs, c)
        if k is None or k not in seen:
            if k is not None:
                seen.add(k)
            kids.append(act)
    return kids


def solve_chance(rs: Ruleset, *, start: Sequence[int] = (), mapper: Mapper | None = None,
                 checkpoint: str | Path | None = None, progress: Callable[[int, int], None] | None = None,
                 compiled: bool = True, point: Fraction | None = None, side: int = 0,
                 log2size: int = 22) -> ChanceSolution:
    """The expectimax value of a chance ruleset from the start (or from encoded actions `start`) at
    `point` (default its p): the value of every distinct first action (one per symmetry class), each
    as the polynomial of its piece beside the point, the best, and a perfect line (`principal_line`).
    `mapper` solves first actions in parallel; `checkpoint` keeps finished ones across runs."""
    start = tuple(start)
    point = rs.rules.p if point is None else point
    side = side or default_side(point)
    game = compile_game(rs)
    root = board_after(rs, start)
    n2 = rs.board ** 2
    valuer = Valuer(rs, point, side, compiled, log2size)
    try:
        if root.phase == OVER or not root.legal():
            q = Polynomial.of(valuer.value(start), valuer.scale)
            return ChanceSolution(rs.canonical, q(point), [], [], valuer.nodes, valuer.stored, point, side, q)
        kids = first_actions(rs, root)
        codes = [encode(a, n2) for a in kids]
        cp = Path(checkpoint) if checkpoint is not None else None
        values: dict[int, Coefficients] = saved_values(cp, rs, start, codes,
                                                       lambda k, v: _saved(k, v, game.cells // 2))
        todo = [c for c in codes if c not in values]
        nodes = 0
        results: Iterable[tuple[list[int], int, int]]
        if mapper is not None and root.phase != CHANCE_TURN:
            results = mapper(first_piece, [(rs, start, c, point, side, compiled, log2size) for c in todo])
        else:
            results = ((list(valuer.value((*start, c))), 0, 0) for c in todo)
        for code, (v, searched, _) in zip(todo, results, strict=True):
            values[code] = tuple(v)
            nodes += searched
            if cp is not None:
                write_checkpoint(cp, {"ruleset": rs.canonical, "start": list(start),
                                      "values": {str(k): [str(c) for c in x] for k, x in values.items()}})
            if progress:
                progress(len(values), len(codes))
        value = valuer.value(start)  # the table's own value: the first actions' best, checked below
        firsts = [(a, values[c]) for a, c in zip(kids, codes, strict=True)]
        if root.phase == CHANCE_TURN:
            want = mix(firsts[0][1], firsts[1][1])
        else:
            sign = 1 if root.to_move() == "x" else -1
            want = firsts[0][1]
            for _, w in firsts[1:]:
                if sign * valuer.better(w, want) > 0:
                    want = w
        if want != value:
            raise QtttError("solve-fast", f"{rs.canonical}: the best first action is worth {want}, the "
                            f"position {value}")
        line = principal_line(valuer, start, value)
        piece = Polynomial.of(value, valuer.scale)
        pieces = [Polynomial.of(v, valuer.scale) for _, v in firsts]
        return ChanceSolution(rs.canonical, piece(point), line, [(a, q(point)) for (a, _), q in
                                                                 zip(firsts, pieces, strict=True)],
                              nodes + valuer.nodes, valuer.stored, point, side, piece, pieces)
    finally:
        valuer.close()


@dataclass
class ChanceSolution(SolveResult):
    """The expectimax solution of a chance ruleset at a point p: `value` is the expected x − o there,
    `piece` the value's polynomial in p on the piece beside the point (right, or left at p = 1),
    `pieces` each first action's."""

    point: Fraction = Fraction(1, 2)
    side: int = 1
    piece: Polynomial = field(default_factory=lambda: Polynomial(()))
    pieces: list[Polynomial] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """As a solve result, with p, the side and each polynomial (ascending coefficients)."""
        out = super().to_json()
        out.update({"p": str(self.point), "beside": "right" if self.side > 0 else "left",
                    "piece": self.piece.to_json()})
        for row, q in zip(out["first_moves"], self.pieces, strict=True):
            row["piece"] = q.to_json()
        return out


GRID = tuple(Fraction(1, 2) + Fraction(k, 20) for k in range(11))  # p = 1/2, 11/20, ..., 1
WIDTH = Fraction(1, 10 ** 10)  # a crossing's bracket is narrower than this


@dataclass(frozen=True)
class Point:
    """The value at p, exact, with the polynomial of the piece beside p (right, or left at p = 1)."""

    p: Fraction
    side: int
    value: Fraction
    piece: Polynomial

    def to_json(self) -> dict[str, Any]:
        return {"p": str(self.p), "value": str(self.value), "beside": "right" if self.side > 0 else "left",
                "piece": self.piece.to_json()}


@dataclass(frozen=True)
class Crossing:
    """Where the value leaves the sign it has at the grid point `start`: in [lo, hi] (lo == hi: exactly
    there). `polynomial` is the piece on both sides of the bracket where one piece holds there (its
    root in the bracket is the crossing, an algebraic number), else None."""

    start: Fraction
    lo: Fraction
    hi: Fraction
    polynomial: Polynomial | None
    solves: int

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"after": str(self.start), "lo": str(self.lo), "hi": str(self.hi),
                               "solves": self.solves}
        if self.lo == self.hi:
            out["exact"] = str(self.lo)
        if self.polynomial is not None:
            out["piece"] = self.polynomial.to_json()
            out["root_of"] = list(map(str, self.polynomial.squarefree().primitive()))
            out["decimal"] = Root(self.polynomial.squarefree(), self.lo, self.hi).decimal(12) \
                if self.lo != self.hi else None
        return out


def value_at(rs: Ruleset, p: Fraction, side: int = 0, compiled: bool = True, log2size: int = 24) -> Point:
    """The exact value of `rs` from the start at probability p, with its piece beside p."""
    side = side or default_side(p)
    valuer = Valuer(rs, p, side, compiled, log2size)
    try:
        piece = Polynomial.of(valuer.value(()), valuer.scale)
    finally:
        valuer.close()
    return Point(p, side, piece(p), piece)


def _sign(x: Fraction) -> int:
    return (x > 0) - (x < 0)


def crossing(at: Callable[[Fraction, int], Point], lo: Point, hi: Point, width: Fraction = WIDTH) -> Crossing:
    """Where the value, of sign s ≠ 0 at `lo.p` (searched from the right), stops having sign s before
    `hi.p` (where it has not). The piece right of the bracket's left end is followed to its first
    root, which is bracketed narrower than `width` and both ends solved exactly (`at(p, side)`);
    where the piece does not reach zero inside the bracket, the bracket is halved. Every bracket
    [a, b] holds V(a) of sign s and V(b) not (so a zero between them, V being continuous)."""
    s = _sign(lo.value)
    assert s and _sign(hi.value) != s and lo.side > 0
    start, solves, right = lo.p, 0, hi

    def solve(p: Fraction, side: int) -> Point:
        nonlocal solves
        solves += 1
        return at(p, side)

    while True:
        roots = [r for r in lo.piece.roots(lo.p, right.p, width) if r.hi > lo.p and r.lo < right.p]
        if not roots:
            if right.p - lo.p < width:
                return Crossing(start, lo.p, right.p, None, solves)
            m = solve((lo.p + right.p) / 2, 1)
            lo, right = (m, right) if _sign(m.value) == s else (lo, m)
            continue
        r = roots[0]
        if r.exact is not None:
            m = solve(r.exact, -1)
            if m.value == 0 and m.piece == lo.piece:
                return Crossing(start, r.exact, r.exact, lo.piece, solves)
            lo, right = (solve(r.exact, 1), right) if _sign(m.value) == s else (lo, m)
            continue
        a, b = max(r.lo, lo.p), min(r.hi, right.p)
        left_end = lo if a == lo.p else solve(a, 1)
        if _sign(left_end.value) != s:
            right = left_end
            continue
        right_end = right if b == right.p and right.side < 0 else solve(b, -1)
        if _sign(right_end.value) == s:
            lo = solve(b, 1)
            continue
        one = left_end.piece == right_end.piece == lo.piece
        return Crossing(start, a, b, lo.piece if one else None, solves)


METHOD = ("exact expectimax at each tabulated p (values as polynomials in p, compared just beside the point: "
          "the polynomial of the piece there comes with the value); between tabulated points of opposite "
          "signs (or a sign and 0) the piece is followed to its root, isolated exactly (Sturm sequences), "
          "and both ends of a bracket narrower than the stated width are solved exactly: the value has one "
          "sign at the left end and not at the right, so it reaches 0 in between; where one piece holds at "
          "both ends, the crossing is that piece's root (an algebraic number: the polynomial is given)")


@dataclass
class Curve:
    """The value of a chance ruleset over p: tabulated points and where it leaves each sign."""

    ruleset: str
    points: list[Point]
    crossings: list[Crossing]
    width: Fraction
    solves: int

    def to_json(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "param": "p", "method": METHOD, "width": str(self.width),
                "points": [q.to_json() for q in self.points],
                "crossings": [c.to_json() for c in self.crossings], "solves": self.solves}


def value_curve(rs: Ruleset, points: Sequence[Fraction] | None = None, *, core: str = "auto",
                log2size: int = 24, width: Fraction | None = None, mapper: Mapper | None = None,
                progress: Callable[[int, int], None] | None = None) -> Curve:
    """The exact value of `rs` at each of `points` (increasing, in [1/2, 1]; default `GRID`; the
    ruleset's own p is replaced), and each crossing narrower than `width` (default `WIDTH`): where
    the value, of one sign at a point, stops having it before the next (`crossing`). `core` chooses
    the search (`choose_expectimax`); `mapper` solves the points in parallel."""
    if not compile_game(rs).chance:
        raise QtttError("collapse-chance", f"{rs.canonical}: a curve over p needs a chance collapse "
                        "(collapse = chance-measurer or chance-second)")
    compiled = choose_expectimax(rs, core)
    points = GRID if points is None else points
    width = WIDTH if width is None else width

    def at(p: Fraction, side: int) -> Point:
        return value_at(rs, p, side, compiled, log2size)

    found: list[Point] = []
    work = [(rs, p, 0, compiled, log2size) for p in points]
    for point in mapper(value_at, work) if mapper is not None else (value_at(*w) for w in work):
        found.append(point)
        if progress:
            progress(len(found), len(points))
    solves = len(found)
    out: list[Crossing] = []
    for a, b in itertools.pairwise(found):
        if _sign(a.value) and _sign(b.value) != _sign(a.value):
            c = crossing(at, a if a.side > 0 else at(a.p, 1), b, width)
            out.append(c)
            solves += c.solves
        elif not _sign(a.value) and _sign(b.value):  # 0 at a, not at b
            if a.side < 0:
                a = at(a.p, 1)
                solves += 1
            if a.piece.coefficients:  # a piece of roots apart: the value leaves 0 at a itself
                out.append(Crossing(a.p, a.p, a.p, a.piece, 0))
            else:  # 0 on a piece right of a: where it ends is bracketed by the grid only
                out.append(Crossing(a.p, a.p, b.p, None, 0))
    return Curve(rs.canonical, found, out, width, solves)
