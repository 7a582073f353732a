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

import json
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from ...bounds import CODE
from ...errors import FileError, QtttError, UsageError
from ...family import CORES
from ...io import FRACTION, read_checkpoint, write_checkpoint
from ...native import CoreUnavailable
from ...notation import action_to_json
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
from ..engine import OVER, Action, Board, Measure, Place
from ..game import compile_game
from .count import board_after, encode
from .keys import Key, numbered_key, owner_key


def _child(b: Board, act: Action) -> Board:
    c = b.copy()
    if isinstance(act, Place):
        c.place(act.a, act.b)
    elif isinstance(act, Measure):
        c.measure(act.cell)
    else:
        c.outcome(act.cell)
    return c


class Solver:
    """Alpha-beta search with a transposition table (memo=False: plain alpha-beta, the baseline)."""

    def __init__(self, rs: Ruleset, memo: bool = True) -> None:
        self.rs = rs
        self.memo = memo
        game = compile_game(rs)
        if game.chance:  # rule collapse-chance: a chance turn is no player's choice
            raise QtttError("collapse-chance", f"{rs.canonical}: the solver searches the two players' "
                            "choices (minimax); a chance collapse needs an expectimax, which it does not "
                            "compute yet")
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
            c = _child(b, act)
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
            best = self.best_child(kids, b.to_move() == "x", max(alpha, lo), min(beta, hi))
        if self.memo and key is not None:
            self.tt[key] = (best, best) if not kids else self.stored_bounds(best, lo, hi, alpha, beta)
        return best

    def best_child(self, kids: list[tuple[Action, Board, Key | None]], maximising: bool, a: int,
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


@dataclass
class SolveResult:
    """The value of a position, its principal variation and the value of each distinct first action."""

    ruleset: str
    value: Fraction
    pv: list[Action]
    first: list[tuple[Action, Fraction]] = field(default_factory=list)
    nodes: int = 0
    positions: int = 0

    def to_json(self) -> dict[str, Any]:
        """Plain data: fractions as strings, actions in the record format."""
        return {"ruleset": self.ruleset, "value": str(self.value),
                "pv": [action_to_json(a) for a in self.pv],
                "first_moves": [{"action": action_to_json(a), "value": str(v)} for a, v in self.first]}


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


CHECKPOINT = {"ruleset": str, "start": [CODE], "values": object}


def _code(key: str) -> int:
    """A first action's code as a key of the checkpoint field `values`."""
    if not re.fullmatch(r"-?[0-9]{1,6}", key):
        raise ValueError(f"values: {json.dumps(key)[:30]} is not an encoded action")
    return int(key)


def _value(code: str, value: Any) -> Fraction:
    """A saved value of a first action (checkpoint field `values`): an exact number."""
    if not isinstance(value, str) or not FRACTION.fullmatch(value) or value.endswith("/0"):
        raise ValueError(f"values.{code}: expected an exact number such as \"1/2\"")
    return Fraction(value)


def solve(rs: Ruleset, *, start: Sequence[int] = (), mapper: Mapper | None = None,
          checkpoint: str | Path | None = None,
          progress: Callable[[int, int], None] | None = None, core: str = "auto") -> SolveResult:
    """Solve `rs` from the start (or from encoded actions `start`): the exact value of every distinct
    first action (one per symmetry class), the value and a principal variation. `mapper` solves
    first actions in parallel; `checkpoint` keeps finished first actions across runs; `core`
    chooses the search (`choose_solver`); both give the same values."""
    start = tuple(start)
    use_c = choose_solver(rs, core) == "compiled"
    solver = Solver(rs)
    root = board_after(rs, start)
    if root.phase == OVER:
        return SolveResult(rs.canonical, root.score_difference(), [])
    n2 = rs.board ** 2
    kids = solver.children(root)
    codes = [encode(a, n2) for a, _, _ in kids]
    values: dict[int, Fraction] = {}
    cp = Path(checkpoint) if checkpoint is not None else None
    if cp is not None and cp.is_file():
        ruleset, saved_start, values = read_checkpoint(cp, CHECKPOINT, lambda data: (
            data["ruleset"], data["start"],
            {int(k): _value(k, v) for k, v in data["values"].items() if _code(k) in codes}))
        if ruleset != rs.canonical or saved_start != list(start):
            raise FileError(None, f"checkpoint {cp} is for {ruleset!r} from {saved_start}, not "
                            f"{rs.canonical!r} from {list(start)}")
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
    vals = [minimax(_child(b, a)) for a in legal]
    return max(vals) if b.to_move() == "x" else min(vals)
