"""Solved values: the score difference x − o under perfect play, exactly (fractions).

X maximises x − o and O minimises it (each maximises own score minus the opponent's; the game is
zero-sum in that difference); a measurement is a decision of the measurer (rule measure-by). A
position where no action is legal although the game is not over (a deadlock, possible without
2-cycles) is scored as its board stands. The search is alpha-beta over canonical positions
(`keys.numbered_key`, or `keys.owner_key` when the scoring ignores move numbers), with a
transposition table of bounds; the principal variation is rebuilt by replaying the solved values.
`solve` uses the compiled core's solver (`compiled.FastSolver`, the same definition and keys in C)
when it can, this
search otherwise; each checks the other in tests/analysis/test_solve_fast.py.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...errors import QtttError, UsageError
from ...family import CORES
from ...interop import rules_of
from ...io import FRACTION, write_checkpoint
from ...native import CoreUnavailable
from ...processes import Mapper
from ...ruleset import Ruleset
from ..compiled import (
    DEFAULT_LOG2,
    FastSolver,
    available,
    principal_variation,
    solver_supports,
)
from ..compiled import first_value as compiled_first_value
from ..engine import OVER, Action, Board
from ..game import compile_game
from .count import board_after, encode
from .expectimax import choose_expectimax, solve_chance
from .keys import Key, numbered_key, owner_key
from .solved import SolveResult, saved_values


class Solver:
    """Alpha-beta search with a transposition table (memo=False: plain alpha-beta, the baseline)."""

    def __init__(self, rs: Ruleset, memo: bool = True) -> None:
        self.rs = rs
        self.memo = memo
        game = compile_game(rs)
        if game.chance:  # rule collapse-chance: a chance turn is no player's choice
            raise QtttError("collapse-chance", f"{rs.canonical}: this search is minimax over the two "
                            "players' choices; a chance collapse is valued by the expectimax "
                            "(qttt.quantum.analysis.expectimax, which qttt analyze solve uses)")
        self.numbered = game.uses_move_numbers
        self.scale = game.scale
        self.bound = int(game.bound * self.scale)
        self.tt: dict[Key, tuple[int, int]] = {}
        self.history: dict[Action, int] = {}
        self.nodes = 0

    def key(self, b: Board) -> Key:
        return numbered_key(self.rs, b) if self.numbered else owner_key(self.rs, b)

    def children(self, b: Board) -> list[tuple[Action, Board, Key | None]]:
        """Legal actions with their positions, one per canonical position (symmetric ones dropped)."""
        out: list[tuple[Action, Board, Key | None]] = []
        seen: set[Key] = set()
        for act in b.legal():
            c = b.after(act)
            if c.phase == OVER or not self.memo:
                out.append((act, c, None))
                continue
            k = self.key(c)
            if k not in seen:
                seen.add(k)
                out.append((act, c, k))
        return out

    def final(self, b: Board) -> int:
        """The scaled score difference of a finished (or deadlocked) board."""
        v = b.score_difference() * self.scale
        assert v.denominator == 1
        return v.numerator

    def value(self, b: Board, alpha: int, beta: int, key: Key | None = None) -> int:
        """Fail-soft alpha-beta on scaled values: the exact value if it lies strictly inside
        (alpha, beta), else a bound on the same side. Values lie in [-bound, bound]."""
        self.nodes += 1
        if b.phase == OVER:
            return self.final(b)
        lo, hi = -self.bound, self.bound
        if self.memo:
            if key is None:
                key = self.key(b)
            hit = self.tt.get(key)
            if hit is not None:
                lo, hi = hit
                if lo >= beta or lo == hi:
                    return lo
                if hi <= alpha:
                    return hi
        kids = self.children(b)
        if not kids:
            best = self.final(b)
        else:
            best = self.bestchild(kids, b.to_move() == "x", max(alpha, lo), min(beta, hi))
        if self.memo and key is not None:
            self.tt[key] = (best, best) if not kids else self.stored_bounds(best, lo, hi, alpha, beta)
        return best

    def bestchild(self, kids: list[tuple[Action, Board, Key | None]], maximising: bool, a: int,
                   bt: int) -> int:
        """The best child value for the mover within the window (a, bt), cutting off at a >= bt."""
        if self.memo:
            kids = self.ordered(kids, maximising)
        best = -self.bound - 1 if maximising else self.bound + 1
        for act, c, ck in kids:
            v = self.value(c, a, bt, ck)
            if maximising:
                best = max(best, v)
                a = max(a, v)
            else:
                best = min(best, v)
                bt = min(bt, v)
            if a >= bt:
                if self.memo:
                    self.history[act] = self.history.get(act, 0) + 1
                break
        return best

    @staticmethod
    def stored_bounds(best: int, lo: int, hi: int, alpha: int, beta: int) -> tuple[int, int]:
        """The table entry after a search of window (alpha, beta) that found `best`: an upper bound
        when it failed low, a lower bound when it failed high, else the exact value."""
        if best <= max(alpha, lo):
            return lo, min(hi, best)
        if best >= min(beta, hi):
            return max(lo, best), hi
        return best, best

    def ordered(self, kids: list[tuple[Action, Board, Key | None]], maximising: bool
                ) -> list[tuple[Action, Board, Key | None]]:
        """Children in search order: finished games and table entries best for the mover first."""
        tt, scale, history = self.tt, self.scale, self.history
        sign = 1 if maximising else -1

        def guess(kid: tuple[Action, Board, Key | None]) -> tuple[int, int]:
            c, ck = kid[1], kid[2]
            if c.phase == OVER:
                x, o = c.scores
                return -sign * int((x - o) * scale), 0
            hit = tt.get(ck) if ck is not None else None
            if hit is None:
                return 0, -history.get(kid[0], 0)
            return -sign * (hit[0] + hit[1]) // 2, -history.get(kid[0], 0)
        return sorted(kids, key=guess)

    def exact(self, b: Board) -> int:
        """The exact scaled value of a position."""
        return self.value(b, -self.bound, self.bound)

    def exact_value(self, b: Board) -> Fraction:
        """The exact value of a position, as a fraction."""
        return Fraction(self.exact(b), self.scale)

    def principal_variation(self, b: Board, value: Fraction) -> list[Action]:
        """Actions of a perfect game from `b`, whose value is `value`: at each step the first action
        (in the engine's order) whose position keeps the value."""
        pv: list[Action] = []
        v = int(value * self.scale)
        while b.phase != OVER:
            for act, c, ck in self.children(b):
                if self.value(c, v - 1, v + 1, ck) == v:
                    pv.append(act)
                    b = c
                    break
            else:
                break  # deadlock
        return pv


def first_value(rs: Ruleset, start: tuple[int, ...], code: int) -> tuple[str, int, int]:
    """Exact value (as a string) after one encoded action from `start`, with nodes searched and table
    size: a unit of work for another process."""
    s = Solver(rs)
    b = board_after(rs, (*start, code))
    v = s.exact_value(b)
    return str(v), s.nodes, len(s.tt)


def choose_solver(rs: Ruleset, core: str = "auto") -> str:
    """The solver to use (`core` as everywhere: auto, compiled or python): `compiled` (the compiled
    core, `compiled.FastSolver`) or `python` (`Solver`). `auto` takes the compiled core when it can be
    built here and handles the ruleset; `compiled` insists on it."""
    if core not in CORES:
        raise UsageError(None, f"unknown core {core!r}; allowed: " + ", ".join(CORES))
    if core == "python":
        return core
    reason = solver_supports(rs) or available()
    if reason is None:
        return "compiled"
    if core == "compiled":
        raise CoreUnavailable("solve-fast", reason)
    return "python"


def _value(code: str, value: Any, rs: Ruleset) -> Fraction:
    """A saved value of a first action (checkpoint field `values`): an exact number, and a score
    difference a game of `rs` can end with (its score range), so that no file makes `solve` print
    a value the rules cannot give."""
    if not isinstance(value, str) or not FRACTION.fullmatch(value) or value.endswith("/0"):
        raise ValueError(f"values.{code}: expected an exact number such as \"1/2\"")
    x_lo, x_hi, o_lo, o_hi = rules_of(rs).score_range
    if not x_lo - o_hi <= Fraction(value) <= x_hi - o_lo:
        raise ValueError(f"values.{code}: {value} is no score difference a game of {rs.canonical} ends with "
                         f"({x_lo - o_hi} to {x_hi - o_lo})")
    return Fraction(value)


def solve(rs: Ruleset, *, start: Sequence[int] = (), mapper: Mapper | None = None,
          checkpoint: str | Path | None = None,
          progress: Callable[[int, int], None] | None = None, core: str = "auto") -> SolveResult:
    """Solve `rs` from the start (or from encoded actions `start`): the exact value of every distinct
    first action (one per symmetry class), the value and a principal variation. `mapper` solves
    first actions in parallel; `checkpoint` keeps finished first actions across runs; `core`
    chooses the search (`choose_solver`); both give the same values. A chance ruleset's value is
    its expected value at its p (`expectimax.solve_chance`)."""
    start = tuple(start)
    if compile_game(rs).chance:  # rule collapse-chance: the expected value, exactly
        return solve_chance(rs, start=start, mapper=mapper, checkpoint=checkpoint, progress=progress,
                            compiled=choose_expectimax(rs, core))
    use_c = choose_solver(rs, core) == "compiled"
    solver = Solver(rs)
    root = board_after(rs, start)
    if root.phase == OVER:
        return SolveResult(rs.canonical, root.score_difference(), [])
    n2 = rs.board ** 2
    kids = solver.children(root)
    codes = [encode(a, n2) for a, _, _ in kids]
    cp = Path(checkpoint) if checkpoint is not None else None
    values: dict[int, Fraction] = saved_values(cp, rs, start, codes, lambda k, v: _value(k, v, rs))
    todo = [c for c in codes if c not in values]
    nodes = 0
    fast = FastSolver(rs, DEFAULT_LOG2) if use_c else None
    if mapper is not None:
        work = compiled_first_value if use_c else first_value
        results: Iterable[tuple[str, int, int]] = mapper(work, [(rs, start, c) for c in todo])
    else:
        def local() -> Iterable[tuple[str, int, int]]:
            for code in todo:
                if fast is not None:
                    before = fast.nodes
                    v = fast.exact_value((*start, code))
                    yield str(v), fast.nodes - before, fast.stored
                    continue
                before = solver.nodes
                v = solver.exact_value(board_after(rs, (*start, code)))
                yield str(v), solver.nodes - before, len(solver.tt)
        results = local()
    for code, (v, searched, _) in zip(todo, results, strict=True):
        values[code] = Fraction(v)
        nodes += searched
        if cp is not None:
            write_checkpoint(cp, {"ruleset": rs.canonical, "start": list(start),
                                  "values": {str(k): str(x) for k, x in values.items()}})
        if progress:
            progress(len(values), len(codes))
    first = [(a, values[c]) for (a, _, _), c in zip(kids, codes, strict=True)]
    pick = max if root.to_move() == "x" else min
    value = pick(v for _, v in first)
    best = next(i for i, (_, v) in enumerate(first) if v == value)
    if fast is not None:
        try:
            rest = principal_variation(fast, (*start, codes[best]), value)
            return SolveResult(rs.canonical, value, [first[best][0], *rest], first,
                               nodes + fast.nodes, fast.stored)
        finally:
            fast.close()
    pv = [first[best][0], *solver.principal_variation(kids[best][1], value)]
    return SolveResult(rs.canonical, value, pv, first, nodes + solver.nodes, len(solver.tt))


def minimax(b: Board) -> Fraction:
    """Plain minimax over every action, no table and no pruning: the check on `Solver`."""
    if b.phase == OVER:
        return b.score_difference()
    legal = b.legal()
    if not legal:
        return b.score_difference()
    vals = [minimax(b.after(a)) for a in legal]
    return max(vals) if b.to_move() == "x" else min(vals)
