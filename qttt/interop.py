"""A ruleset as game frameworks see it: numbered actions, a tensor and a text observation, final
points, the score range and sum, and the longest game; shared by the OpenSpiel and PettingZoo
adapters (`qttt.openspiel`, `qttt.pettingzoo`), which add nothing family-specific of their own.

Each game family contributes one `Codec` (`FAMILIES`). Final points are the state's scores; at a
deadlock (no legal action although the game is not over) the board scored as it stands, as
`qttt analyze solve` values it. Players are numbered 0 (x) and 1 (o).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, partial
from typing import Any
from urllib.parse import quote, unquote

from verify.abstract import Params, explore
from verify.nested import max_points
from verify.scores import declared_range

from .engine import AnyAction, Measure, Place, State
from .game import Game, compile_game
from .games import GameState, start
from .nested import Mark, NestedState
from .notation import Record
from .scoring import UNKNOWN
from .text import board_text
from .variant import NESTED, QUANTUM, Component, Ruleset, load_ruleset

PLAYERS = ("x", "o")
Range = tuple[Fraction, Fraction, Fraction, Fraction]  # x min, x max, o min, o max


@dataclass(frozen=True, eq=False)
class Codec:
    """What a game family gives the framework adapters for one ruleset."""

    actions: int  # distinct action numbers: 0 .. actions - 1
    encode: Callable[[AnyAction], int]
    decode: Callable[[int], AnyAction]
    shape: tuple[int, ...]  # of the observation tensor: planes, rows, columns
    planes: Callable[[GameState], list[int]]  # the observation tensor, flat, 0/1 entries
    points: Callable[[GameState], tuple[Fraction, Fraction]]  # x, o at the end (or a deadlock)
    score_range: Range
    sums: frozenset[Fraction] | None  # every x + o a game can end with, if few; None: unbounded set
    max_length: int  # most actions in a game


@dataclass(frozen=True, eq=False)
class Rules:
    """A ruleset compiled for the framework adapters (memoised by `rules_of`)."""

    ruleset: Ruleset
    codec: Codec

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Copied and pickled by name: copies of a framework state share the compiled rules."""
        return rules_of, (self.name,)

    @property
    def name(self) -> str:
        """The canonical name, which loads the same rules anywhere."""
        return self.ruleset.canonical

    def start(self) -> GameState:
        """The initial state."""
        return start(self.ruleset)

    def legal(self, state: GameState) -> list[int]:
        """The legal action numbers, increasing."""
        return sorted(self.codec.encode(a) for a in state.legal_actions())

    def ended(self, state: GameState) -> bool:
        """Over, or no legal action (a deadlock)."""
        return state.over or not state.legal_actions()

    def player(self, state: GameState) -> int:
        """0 (x) or 1 (o): who acts next."""
        return PLAYERS.index(state.to_move or "x")

    def returns(self, state: GameState, margin: bool = False) -> list[float]:
        """Each player's final points (margin: own points minus the opponent's); 0 before the end."""
        if not self.ended(state):
            return [0.0, 0.0]
        x, o = self.codec.points(state)
        return [float(x - o), float(o - x)] if margin else [float(x), float(o)]

    def utility_range(self, margin: bool = False) -> tuple[float, float]:
        """Least and most any player can get at the end."""
        x_lo, x_hi, o_lo, o_hi = self.codec.score_range
        if margin:
            most = max(x_hi - o_lo, o_hi - x_lo)
            return float(-most), float(most)
        return float(min(x_lo, o_lo)), float(max(x_hi, o_hi))

    def constant_sum(self) -> Fraction | None:
        """x + o when every game ends with the same total, else None."""
        sums = self.codec.sums
        return next(iter(sums)) if sums is not None and len(sums) == 1 else None

    def text(self, state: GameState) -> str:
        """The board and status as the terminal shows them, without colour."""
        return board_text(state)

    def record(self, history: Sequence[int]) -> Record:
        """The record of a game given as action numbers."""
        return Record(self.name, tuple(self.codec.decode(a) for a in history))

    def history(self, record: Record) -> list[int]:
        """A record's actions as action numbers."""
        return [self.codec.encode(a) for a in record.actions]


def encode_name(name: str) -> str:
    """A ruleset name as a value in a framework's `game(key=value,...)` string: percent-encoded, so
    parentheses, commas and equals signs inside it survive (bonus4x4 stays bonus4x4)."""
    return quote(name, safe="")


def decode_name(text: str) -> str:
    """The ruleset name a percent-encoded value stands for."""
    return unquote(text)


@cache
def _rules(name: str) -> Rules:
    rs = load_ruleset(name)
    return Rules(rs, FAMILIES[rs.game](rs))


def rules_of(ruleset: str | Ruleset) -> Rules:
    """The framework view of a built-in, canonical or file ruleset name, or of a Ruleset."""
    if isinstance(ruleset, Ruleset):
        return _rules(ruleset.canonical)
    return _rules(decode_name(ruleset))


# -- quantum ----------------------------------------------------------------------------------

def _quantum(rs: Ruleset) -> Codec:
    game = compile_game(rs)
    n, cells = game.n, game.cells
    moves = game.length_bound
    places = cells * cells

    def encode(action: AnyAction) -> int:
        if isinstance(action, Measure):
            return places + action.cell
        if isinstance(action, Place):
            a, b = sorted(action)
            return a * cells + b
        raise ValueError(f"{action!r} is not a quantum action")

    def decode(code: int) -> AnyAction:
        if not 0 <= code < places + cells:
            raise ValueError(f"action {code} is not one of 0 to {places + cells - 1}")
        return Measure(code - places) if code >= places else Place(*divmod(code, cells))

    return Codec(places + cells, encode, decode, (3 * moves + 3, n, n),
                 partial(_quantum_planes, moves, cells), partial(_quantum_points, game),
                 _quantum_range(rs), _quantum_sums(rs.scoring),
                 explore(Params.of(rs)).longest)


def _quantum_planes(moves: int, cells: int, state: GameState) -> list[int]:
    """Per move k (1 to the most placements): its classical mark, its spooky marks; the next move
    number (one-hot); measuring; x to act."""
    assert isinstance(state, State)
    out = [0] * ((3 * moves + 3) * cells)
    for c, k in enumerate(state.classical):
        if k:
            out[(k - 1) * cells + c] = 1
    for c, ks in enumerate(state.spooky):
        for k in ks:
            out[(moves + k - 1) * cells + c] = 1
    whole = [2 * moves + min(state.move, moves + 1) - 1]
    if state.phase == "measure":
        whole.append(3 * moves + 1)
    if state.to_move == "x":
        whole.append(3 * moves + 2)
    for plane in whole:
        out[plane * cells:(plane + 1) * cells] = [1] * cells
    return out


def _quantum_points(game: Game, state: GameState) -> tuple[Fraction, Fraction]:
    """The final scores; at a deadlock the board scored as it stands."""
    assert isinstance(state, State)
    if state.over:
        return state.scores["x"], state.scores["o"]
    cls = state.classical
    xmask = sum(1 << c for c, k in enumerate(cls) if k & 1)
    omask = sum(1 << c for c, k in enumerate(cls) if k and not k & 1)
    return game.score(list(cls), xmask, omask)[0]


def _quantum_range(rs: Ruleset) -> Range:
    """The checker's declared score range; above 16 cells, each award's extremes added up."""
    declared = declared_range(rs)
    if declared is not None:
        v = declared[0]
        return v["x min"], v["x max"], v["o min"], v["o max"]
    awards = compile_game(rs).awards
    low = sum((min(a.range_for(k, UNKNOWN)[0] for k in range(len(a.patterns) + 1)) for a in awards),
              Fraction(0))
    high = sum((max(a.range_for(k, UNKNOWN)[1] for k in range(len(a.patterns) + 1)) for a in awards),
               Fraction(0))
    return low, high, low, high


def _quantum_sums(scoring: tuple[Component, ...]) -> frozenset[Fraction] | None:
    """x + o over every result the awards can give (a superset of those games reach), when each
    award gives one total whatever the board; else None. Per pattern and rank awards give none
    or some points by the board; a first-line award one of its stated results."""
    total = Fraction(0)
    for c in scoring:
        if c.award == "per-pattern" and c.get("points") == 0:
            continue
        if c.award != "first-line":
            return None
        sole = c.get("sole")
        double, tie = c.get("double"), c.get("tie")
        sums = {sole, c.get("first") + c.get("second"), 2 * c.get("neither"),
                2 * (tie if tie is not None else Fraction(0)), double if double is not None else sole}
        if len(sums) != 1:
            return None
        total += sums.pop()
    return frozenset({total})


# -- nested-classical -------------------------------------------------------------------------

def _nested(rs: Ruleset) -> Codec:
    side = rs.board * rs.board
    cells = side * side

    def encode(action: AnyAction) -> int:
        if isinstance(action, Mark):
            return action.cell
        raise ValueError(f"{action!r} is not a nested-classical action")

    def decode(code: int) -> AnyAction:
        if not 0 <= code < cells:
            raise ValueError(f"action {code} is not one of 0 to {cells - 1}")
        return Mark(code)

    def planes(state: GameState) -> list[int]:
        """x's marks, o's marks, the legal cells; a bonus move; x to act."""
        assert isinstance(state, NestedState)
        out = [0] * (5 * cells)
        for c, mark in enumerate(state.marks):
            if mark is not None:
                out[(0 if mark[0] == "x" else 1) * cells + c] = 1
        for a in state.legal_actions():
            out[2 * cells + a.cell] = 1
        for plane, on in ((3, state.bonus), (4, state.to_move == "x")):
            if on:
                out[plane * cells:(plane + 1) * cells] = [1] * cells
        return out

    def points(state: GameState) -> tuple[Fraction, Fraction]:
        return state.scores["x"], state.scores["o"]

    won, drawn = max_points(rs, True), max_points(rs, False)
    return Codec(cells, encode, decode, (5, side, side), planes, points,
                 (Fraction(0), max(won, drawn), Fraction(0), max(won, drawn)),
                 _nested_sums(rs.scoring), cells)


def _nested_sums(scoring: tuple[Component, ...]) -> frozenset[Fraction] | None:
    """x + o of a won game (the win points) and of each drawn result; None when block counts
    decide a drawn game's total (draw-blocks)."""
    won = sum((c.get("points") for c in scoring if c.award == "win"), Fraction(0))
    drawn = Fraction(0)
    for c in scoring:
        if c.award == "draw-blocks":
            return None
        if c.award == "draw-majority":
            majority = {c.get("more") + c.get("fewer"), 2 * c.get("equal")}
            if len(majority) != 1:
                return None
            drawn += majority.pop()
    return frozenset({won, drawn})


FAMILIES: dict[str, Callable[[Ruleset], Codec]] = {QUANTUM: _quantum, NESTED: _nested}
