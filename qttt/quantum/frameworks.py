"""The quantum family for game frameworks (qttt.interop): a placement in cells a <= b is a·n² + b
(a = b: the forced last square), a measurement in cell c is n⁴ + c (a number a·n² + b with a > b
stands for no action); under a chance collapse (rule collapse-chance) the chance turn's outcome in
cell c is outcome number c; the observation planes; the checker's score range, computed when asked
for; the longest game bounded without exploring (`longest`)."""

from __future__ import annotations

from fractions import Fraction
from functools import partial

from ..family import AnyAction, GameState
from ..interop import Codec, Range
from ..ruleset import Ruleset
from ..vocabulary import Component
from .engine import Measure, Outcome, Place, State
from .game import Game, compile_game
from .scoring import UNKNOWN


def codec(rs: Ruleset) -> Codec:
    """The framework view of a quantum ruleset."""
    game = compile_game(rs)
    n, cells = game.n, game.cells
    moves = game.length_bound
    places = cells * cells

    def encode(action: AnyAction) -> int:
        if isinstance(action, Measure):
            return places + action.cell
        if isinstance(action, Outcome):
            return action.cell
        if isinstance(action, Place):
            a, b = sorted(action)
            return a * cells + b
        raise ValueError(f"{action!r} is not a quantum action")

    def decode(code: int) -> AnyAction | None:
        if not 0 <= code < places + cells:
            return None
        if code >= places:
            return Measure(code - places)
        a, b = divmod(code, cells)
        return Place(a, b) if a <= b else None

    def outcome(code: int) -> AnyAction | None:
        return Outcome(code) if game.chance and 0 <= code < cells else None

    return Codec(places + cells, encode, decode, _quantum_text, (3 * moves + 3 + game.chance, n, n),
                 partial(_quantum_planes, moves, cells, game.chance), partial(_quantum_points, game),
                 partial(_quantum_range, rs), _quantum_sums(rs.scoring), longest(game),
                 cells if game.chance else 0, outcome)


def longest(game: Game) -> int:
    """Most actions in a game, bounded without exploring: the most placements (`length_bound`)
    and a measurement per cycle, which takes two placements at least (its moves become classical
    or vanish, never to close another), each followed by a chance turn under a chance collapse;
    for untouched = keep and no chance exactly the component-size abstraction's longest game on
    every board it has been explored on (3×3 to 6×6: 13, 24, 37, 54)."""
    return game.length_bound + (1 + game.chance) * (game.length_bound // 2)


def _quantum_text(action: AnyAction) -> str:
    """A placement as (1,9), the forced last square as (5), a measurement as @6, a chance outcome as
    =6 (as the notation writes them): squares from 1."""
    if isinstance(action, Measure):
        return f"@{action.cell + 1}"
    if isinstance(action, Outcome):
        return f"={action.cell + 1}"
    assert isinstance(action, Place)
    a, b = sorted(action)
    return f"({a + 1})" if a == b else f"({a + 1},{b + 1})"


def _quantum_planes(moves: int, cells: int, chance: bool, state: GameState) -> list[int]:
    """Per move k (1 to the most placements): its classical mark, its spooky marks; the next move
    number (one-hot); measuring; x to act; under a chance collapse, the cell a measurement named
    during its chance turn (rule collapse-chance)."""
    assert isinstance(state, State)
    out = [0] * ((3 * moves + 3 + chance) * cells)
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
    if chance and state.chosen is not None and state.chosen >= 0:
        out[(3 * moves + 3) * cells + state.chosen] = 1
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
    from verify.quantum.scores import declared_range  # the checker's computation, when asked for

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
