"""The immutable-state shell the families' engines share: a state holds a mutable board it never
changes (an action copies the board and builds a new state), and reads from it the ruleset, the
number of the next move and the points; two states are equal when their rulesets and `key`s are."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:  # annotations only: the ruleset model sits above the engines' shared parts
    from .ruleset import Ruleset


class Compiled(Protocol):
    """A ruleset compiled for an engine."""

    @property
    def ruleset(self) -> Ruleset: ...


class Board(Protocol):
    """What the shell reads from a family's mutable board."""

    @property
    def r(self) -> Compiled: ...
    @property
    def move(self) -> int: ...
    @property
    def scores(self) -> tuple[Fraction, Fraction]: ...


B = TypeVar("B", bound=Board)


class BoardState(Generic[B]):
    """An immutable state over a board of type B (see the module docstring), held in `_b`."""

    __slots__ = ("_b",)

    def __init__(self, board: B) -> None:
        self._b = board

    @property
    def ruleset(self) -> Ruleset:
        return self._b.r.ruleset

    @property
    def move(self) -> int:
        """Number of the next move (placement, in the quantum family)."""
        return self._b.move

    @property
    def scores(self) -> dict[str, Fraction]:
        """Points awarded (both 0 until the game is over: rule score-at-end)."""
        x, o = self._b.scores
        return {"x": x, "o": o}

    def key(self) -> tuple[Any, ...]:
        """Hashable identity of the position within its ruleset."""
        raise NotImplementedError

    def chance_outcomes(self) -> tuple[tuple[Any, Fraction], ...]:
        """The outcomes of a chance turn with their probabilities: none, unless the family's rules
        have chance (qttt.chance)."""
        return ()

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, type(self)) and self.ruleset.key() == other.ruleset.key()
                and self.key() == other.key())

    def __hash__(self) -> int:
        return hash(self.key())
