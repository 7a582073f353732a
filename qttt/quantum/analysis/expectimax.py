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

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...analysis.piecewise import Polynomial, germ_sign
from ...errors import FileError, QtttError
from ...io import FRACTION, read_checkpoint, write_checkpoint
from ...processes import Mapper
from ...ruleset import Ruleset
from ..engine import CHANCE_TURN, OVER, Action, Board, Measure, Outcome, Place
from ..game import compile_game
from .count import board_after, encode
from .keys import Key, numbered_key, owner_key

Coefficients = tuple[int, ...]  # a value: scaled integer coefficients of p**0, p**1, ...


def default_side(point: Fraction) -> int:
    """The side a point is approached from unless one is asked: the right, but the left at p = 1."""
    return -1 if point == 1 else 1


def _child(b: Board, act: Action) -> Board:
    c = b.copy()
    if isinstance(act, Place):
        c.place(act.a, act.b)
    elif isinstance(act, Measure):
        c.measure(act.cell)
    else:
        c.outcome(act.cell)
    return c


def outcomes(b: Board) -> tuple[Board, Board]:
    """A chance turn's two positions: after the named outcome and after the other (offered or not)."""
    named = b.chosen
    a, e = b.ends[b.pending]
    return _child(b, Outcome(named)), _child(b, Outcome(a + e - named))


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
                    w = self.value(_child(b, act))
                    if best is None or sign * self.better(w, best) > 0:
                        best = w
                assert best is not None
                v = best
        self.memo[k] = v
        return v

    def polynomial(self, v: Coefficients) -> Polynomial:
        return Polynomial.of(v, self.scale)


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
        b = _child(b, act)
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


CHECKPOINT = {"ruleset": str, "start": [int], "values": object}


def _saved(code: str, value: Any, degree: int) -> Coefficients:
    """A saved value of a first action (checkpoint field `values`): its scaled coefficients."""
    if not isinstance(value, list) or len(value) != degree + 1 or not all(
            isinstance(c, str) and FRACTION.fullmatch(c) and "/" not in c and "." not in c for c in value):
        raise ValueError(f"values.{code}: expected {degree + 1} integer coefficients such as \"3\"")
    return tuple(int(c) for c in value)


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
            v = valuer.value(start)
            return ChanceSolution(rs, point, side, valuer.scale, v, [], [], valuer.nodes, valuer.stored)
        kids: list[tuple[Action, Key | None]] = []
        if root.phase == CHANCE_TURN:  # both outcomes, the named one first
            a, e = root.ends[root.pending]
            kids = [(Outcome(root.chosen), None), (Outcome(a + e - root.chosen), None)]
        else:
            seen: set[Key] = set()
            keyer = numbered_key if game.uses_move_numbers else owner_key
            for act in root.legal():
                c = _child(root, act)
                k = None if c.phase == OVER else keyer(rs, c)
                if k is None or k not in seen:
                    if k is not None:
                        seen.add(k)
                    kids.append((act, k))
        codes = [encode(a, n2) for a, _ in kids]
        values: dict[int, Coefficients] = {}
        cp = Path(checkpoint) if checkpoint is not None else None
        if cp is not None and cp.is_file():
            ruleset, saved_start, values = read_checkpoint(cp, CHECKPOINT, lambda data: (
                data["ruleset"], data["start"],
                {int(k): _saved(k, v, game.cells // 2) for k, v in data["values"].items()
                 if int(k) in codes}))
            if ruleset != rs.canonical or saved_start != list(start):
                raise FileError(None, f"checkpoint {cp} is for {ruleset!r} from {saved_start}, not "
                                f"{rs.canonical!r} from {list(start)}")
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
        firsts = [(a, values[c]) for (a, _), c in zip(kids, codes, strict=True)]
        if root.phase == CHANCE_TURN:
            want = mix(firsts[0][1], firsts[1][1])
        else:
            sign = 1 if root.to_move() == "x" else -1
            want = firsts[0][1]
            for _, v in firsts[1:]:
                if sign * valuer.better(v, want) > 0:
                    want = v
        if want != value:
            raise QtttError("solve-fast", f"{rs.canonical}: the best first action is worth {want}, the "
                            f"position {value}")
        line = principal_line(valuer, start, value)
        return ChanceSolution(rs, point, side, valuer.scale, value, line, firsts, nodes + valuer.nodes,
                              valuer.stored)
    finally:
        valuer.close()


class ChanceSolution:
    """The expectimax solution of a chance ruleset at a point: the value's polynomial beside the
    point, a perfect line and each first action's polynomial."""

    def __init__(self, rs: Ruleset, point: Fraction, side: int, scale: int, value: Coefficients,
                 line: list[Action], first: list[tuple[Action, Coefficients]], nodes: int, positions: int) -> None:
        self.ruleset = rs.canonical
        self.point, self.side = point, side
        self.piece = Polynomial.of(value, scale)
        self.value = self.piece(point)
        self.pv = line
        self.first = [(a, self.piece_of(v, scale)) for a, v in first]
        self.nodes, self.positions = nodes, positions

    @staticmethod
    def piece_of(v: Coefficients, scale: int) -> Polynomial:
        return Polynomial.of(v, scale)

    def to_json(self) -> dict[str, Any]:
        """Plain data: the value, the line, each first action's value, with each polynomial."""
        from ...notation import action_to_json
        side = "right" if self.side > 0 else "left"
        return {"ruleset": self.ruleset, "value": str(self.value), "p": str(self.point), "beside": side,
                "piece": self.piece.to_json(),
                "pv": [action_to_json(a) for a in self.pv],
                "first_moves": [{"action": action_to_json(a), "value": str(q(self.point)), "piece": q.to_json()}
                                for a, q in self.first]}
