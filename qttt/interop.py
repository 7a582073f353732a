"""A ruleset as game frameworks see it: numbered actions, a tensor and a text observation, final
points, the score range and sum, and the longest game; shared by the OpenSpiel and PettingZoo
adapters (`qttt.openspiel`, `qttt.pettingzoo`), which never ask which family they hold.

Each game family gives a `Codec` through its `frameworks` tool (qttt.family: "module:attribute" of
a function from a ruleset to its Codec). Final points are the state's scores; at a deadlock (no
legal action although the game is not over) the board scored as it stands, as `qttt analyze solve`
values it. Players are numbered 0 (x) and 1 (o).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any
from urllib.parse import quote, unquote

from .family import AnyAction, GameState, family_of, tool
from .games import new_game
from .notation import Record
from .ruleset import Ruleset
from .variant import load_ruleset

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
        return new_game(self.ruleset)

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
        return family_of(self.ruleset).board_text(state, False)

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
    return Rules(rs, tool(rs, "frameworks")(rs))


def rules_of(ruleset: str | Ruleset) -> Rules:
    """The framework view of a built-in, canonical or file ruleset name, or of a Ruleset."""
    if isinstance(ruleset, Ruleset):
        return _rules(ruleset.canonical)
    return _rules(decode_name(ruleset))
