"""The immutable-state shell the families' engines share: a state holds a mutable board it never
changes (an action copies the board and builds a new state), and reads from it the ruleset, the
number of the next move and the points; two states are equal when their rulesets and `key`s are.

Each family declares its position state once (`PositionState`): every field of its board that the
rules read (`Field`), the fields kept only for speed and computed from those (`Derived`), and what
is no position state at all (the compiled ruleset). `key()` is the declared fields' values; every
other key, serialiser and position string states how it holds each declared field (`Cover`), and
tests/project/test_position_state.py fails on a board attribute that is not declared, or a declared
field some cover does not account for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
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


# The declaration of position state ---------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    """A field of a family's position state: its board attribute, what it holds, and the rules of
    spec/rules.toml that read it."""

    name: str
    holds: str
    rules: tuple[str, ...]


@dataclass(frozen=True)
class Derived:
    """A board attribute kept for speed: a function of the declared fields it names."""

    name: str
    holds: str
    source: tuple[str, ...]


def frozen(value: Any) -> Any:
    """A field's value as hashable data: lists and tuples as tuples, dicts as sorted item tuples."""
    if isinstance(value, (list, tuple)):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, frozen(v)) for k, v in value.items()))
    return value


@dataclass(frozen=True)
class PositionState:
    """The one declaration of a family's position state (see the module docstring)."""

    family: str
    fields: tuple[Field, ...]
    derived: tuple[Derived, ...] = ()
    fixed: tuple[str, ...] = ("r",)  # board attributes that are no position state (the compiled ruleset)

    @property
    def names(self) -> tuple[str, ...]:
        """The declared fields' names, in declaration order."""
        return tuple(f.name for f in self.fields)

    def attributes(self) -> frozenset[str]:
        """Every board attribute the declaration accounts for."""
        return frozenset((*self.names, *(d.name for d in self.derived), *self.fixed))

    def problems(self, board_type: type) -> list[str]:
        """What the declaration and a board class disagree on: an attribute (slot) of the class it
        does not account for, or a name it declares that the class lacks."""
        slots = {s for klass in board_type.__mro__ for s in getattr(klass, "__slots__", ())}
        out = [f"{board_type.__name__}.{s} is not declared in the {self.family} position state (a Field if "
               "the rules read it, a Derived if it is computed from fields)"
               for s in sorted(slots - self.attributes())]
        out += [f"the {self.family} position state declares {n!r}, which {board_type.__name__} does not hold"
                for n in sorted(self.attributes() - slots)]
        return out

    def values(self, board: object) -> tuple[Any, ...]:
        """The declared fields' values on a board, in declaration order, hashable."""
        return tuple(frozen(getattr(board, name)) for name in self.names)

    def of(self, board: object) -> dict[str, Any]:
        """The declared fields by name."""
        return dict(zip(self.names, self.values(board), strict=True))

    def cover(self, where: str, kept: Mapping[str, str], forgotten: Mapping[str, str] | None = None) -> Cover:
        """How a key, serialiser or position string at `where` (module:function) holds each field:
        `kept` (how: "as is", "up to the board's symmetries", ...) or `forgotten` (why that is sound)."""
        return Cover(self, where, MappingProxyType(dict(kept)), MappingProxyType(dict(forgotten or {})))


@dataclass(frozen=True)
class Cover:
    """A key's statement of how it holds each declared field (`PositionState.cover`)."""

    state: PositionState
    where: str
    kept: Mapping[str, str]
    forgotten: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def problems(self) -> list[str]:
        """Declared fields it does not account for, and names it accounts for that are no field."""
        said = [*self.kept, *self.forgotten]
        names = self.state.names
        out = [f"{self.where} does not say how it holds field {n!r} of the {self.state.family} position "
               "state" for n in names if n not in said]
        out += [f"{self.where} names {n!r}, which is no field of the {self.state.family} position state"
                for n in said if n not in names]
        out += [f"{self.where} both keeps and forgets {n!r}" for n in set(self.kept) & set(self.forgotten)]
        return out


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
