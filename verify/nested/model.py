"""The checker's own model of the nested-classical rules (Intelligent Tic-Tac-Toe and its editions).

Written from the documents (the seed 002 README, design/rulesets.md, the rule statements
nested-* of spec/rules.toml and the v1 state schema), not from qttt/nested: it reads a ruleset's
parameters and nothing the engine compiles from them (its own patterns, routes and scoring). Each
rule component is a function over a `Logic` (verify.claims): run on values it plays games, which
the checker compares with both cores (`verify.nested.compare`); run on Z3 terms it is what
`verify.nested.proofs` proves things about, so the proofs are about the very rules the cores are
compared with.

A position's rule state is what the rules read (`Position.key`): the cells of the open blocks, the
block states, the position of the previous cell (which routes the next move), whether the next
move is a bonus move and who makes it. The rules never read a closed block's cells nor a mark's
move number (the functions below take neither; `proofs.merge_claims` proves the first), so two
positions with the same key have the same future: the walk merges them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache, cached_property
from operator import itemgetter
from typing import Any

from qttt import Ruleset
from qttt.family import Mark
from qttt.geometry import board_symmetries

from ..claims import PY, Logic

PLAYERS = ("x", "o")
OPEN, DRAWN = "open", "drawn"
ZERO = Fraction(0)


@dataclass(frozen=True)
class Award:
    """One scoring component as the rules nested-score-* state it."""

    award: str  # win, draw-blocks or draw-majority
    points: Fraction  # win
    more: Fraction  # draw-majority
    fewer: Fraction
    equal: Fraction
    weights: tuple[Fraction, ...]  # draw-blocks, draw-majority: one per block


@dataclass(frozen=True)
class Rules:
    """A nested-classical ruleset as the model reads it (rule nested-board): n×n blocks of n×n
    cells, numbered row by row over the whole board."""

    n: int
    route: tuple[tuple[int, ...], ...]  # per position of a cell in its block: the blocks it names
    block_patterns: tuple[tuple[int, ...], ...]  # sets of positions in a block
    board_patterns: tuple[tuple[int, ...], ...]  # sets of blocks
    full_block: str
    bonus: str
    awards: tuple[Award, ...]
    # Tables of the geometry above, for speed: cells, each cell's block and position, each block's
    # cells, per position the cells of the blocks its route names; and the symmetries of the rules.
    cells: int = field(init=False, repr=False, compare=False)
    blocks_of: tuple[int, ...] = field(init=False, repr=False, compare=False)
    positions_of: tuple[int, ...] = field(init=False, repr=False, compare=False)
    cells_of: tuple[tuple[int, ...], ...] = field(init=False, repr=False, compare=False)
    routed: tuple[frozenset[int], ...] = field(init=False, repr=False, compare=False)
    symmetries: tuple[Symmetry, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        side = self.n * self.n
        cells_of = tuple(tuple(self.cell(b, q) for q in range(side)) for b in range(side))
        setattr_ = object.__setattr__
        setattr_(self, "cells", side * side)
        setattr_(self, "blocks_of", tuple(self.block_of(c) for c in range(side * side)))
        setattr_(self, "positions_of", tuple(self.position_of(c) for c in range(side * side)))
        setattr_(self, "cells_of", cells_of)
        setattr_(self, "routed", tuple(frozenset(c for b in blocks for c in cells_of[b])
                                       for blocks in self.route))
        setattr_(self, "symmetries", tuple(g for g in square_symmetries(self) if self.keeps(g)))

    @property
    def side(self) -> int:
        """Cells along one edge of the board, and blocks (and positions in a block)."""
        return self.n * self.n

    def block_of(self, cell: int) -> int:
        row, col = divmod(cell, self.side)
        return (row // self.n) * self.n + col // self.n

    def position_of(self, cell: int) -> int:
        row, col = divmod(cell, self.side)
        return (row % self.n) * self.n + col % self.n

    def cell(self, block: int, position: int) -> int:
        """The cell at `position` of `block`."""
        row = (block // self.n) * self.n + position // self.n
        return row * self.side + (block % self.n) * self.n + position % self.n

    def block_cells(self, block: int) -> tuple[int, ...]:
        return self.cells_of[block]

    def keeps(self, g: Symmetry) -> bool:
        """Whether the rules look the same after relabelling by g: it maps block patterns onto
        block patterns, board patterns onto board patterns, the route of each position onto the
        route of its image, and each award's weights onto equal weights."""
        def onto(found: Sequence[Sequence[int]]) -> bool:
            return {frozenset(g.place[q] for q in p) for p in found} == {frozenset(p) for p in found}

        return (onto(self.block_patterns) and onto(self.board_patterns)
                and all({g.place[b] for b in self.route[q]} == set(self.route[g.place[q]])
                        for q in range(self.side))
                and all(a.weights[g.place[b]] == a.weights[b] for a in self.awards for b in range(self.side)))


@dataclass(frozen=True)
class Symmetry:
    """A symmetry of the square applied to the whole board: `place` maps each place of an n×n grid
    (a block of the board, a position in a block) to its image; `cell` maps each cell; `back`,
    `blocks_back`: for each cell (block) the one whose image it is."""

    place: tuple[int, ...]
    cell: tuple[int, ...]
    back: Callable[[Sequence[Any]], tuple[Any, ...]]
    blocks_back: Callable[[Sequence[Any]], tuple[Any, ...]]


def square_symmetries(rules: Rules) -> list[Symmetry]:
    """The eight symmetries of the square (rotations and reflections), each as a relabelling of
    blocks and of positions at once: the whole board turned or mirrored."""
    n = rules.n
    out = []
    for place in board_symmetries(n):
        cell = tuple(rules.cell(place[rules.block_of(c)], place[rules.position_of(c)])
                     for c in range(rules.cells))
        back = [0] * rules.cells
        for c, image in enumerate(cell):
            back[image] = c
        blocks_back = [0] * (n * n)
        for b, image in enumerate(place):
            blocks_back[image] = b
        out.append(Symmetry(place, cell, _getter(back), _getter(blocks_back)))
    return out


def _getter(indices: Sequence[int]) -> Callable[[Sequence[Any]], tuple[Any, ...]]:
    pick = itemgetter(*indices)
    if len(indices) == 1:
        return lambda xs: (pick(xs),)
    return pick


def patterns(n: int, kinds: Sequence[str]) -> tuple[tuple[int, ...], ...]:
    """Rule nested-patterns: the sets of places (row-major) of an n×n grid that a pattern kind
    names: rows, columns, the two long diagonals, and diamonds (the four places around the centre
    of each 3×3 square: above, left, right and below it)."""
    found: list[tuple[int, ...]] = []
    for kind in kinds:
        if kind == "rows":
            found += [tuple(r * n + c for c in range(n)) for r in range(n)]
        elif kind == "columns":
            found += [tuple(r * n + c for r in range(n)) for c in range(n)]
        elif kind == "diagonals":
            found += [tuple(i * n + i for i in range(n)), tuple(i * n + (n - 1 - i) for i in range(n))]
        elif kind == "diamonds":
            for top in range(n - 2):
                for left in range(n - 2):
                    middle = (top + 1) * n + left + 1
                    found.append(tuple(sorted((middle - n, middle - 1, middle + 1, middle + n))))
        else:
            raise ValueError(f"unknown pattern kind {kind!r}")
    return tuple(dict.fromkeys(found))


@cache
def rules_of(rs: Ruleset) -> Rules:
    """The model's reading of a nested-classical ruleset's parameters and scoring."""
    n = rs.board
    given = rs.rules.route
    route: tuple[tuple[int, ...], ...] = (tuple((q,) for q in range(n * n)) if given == "same"
                                          else tuple(tuple(int(b) for b in r) for r in given))
    awards = []
    for c in rs.scoring:
        settings = dict(c.settings)

        def value(name: str, settings: dict[str, Any] = settings) -> Fraction:
            v = settings.get(name)
            return Fraction(v) if v is not None else ZERO

        w = settings.get("weights", "equal")
        weights = (Fraction(1),) * (n * n) if w in (None, "equal") else tuple(Fraction(x) for x in w)
        awards.append(Award(c.award, value("points"), value("more"), value("fewer"), value("equal"), weights))
    return Rules(n, route, patterns(n, rs.rules.block_patterns), patterns(n, rs.rules.board_patterns),
                 rs.rules.full_block, rs.rules.bonus, tuple(awards))


# The rule components, over a Logic ------------------------------------------------------------


def block_result(logic: Logic, rules: Rules, mine: Sequence[Any], filled: Sequence[Any]) -> tuple[Any, Any]:
    """Rules nested-block-win and nested-block-draw: whether the block a move was just made in is
    now won by the mover, and whether it is drawn, from the mover's marks (`mine`) and the marked
    places (`filled`) of that block after the move. full_block says which comes first when the
    move both fills the block and completes a pattern."""
    full = logic.all(filled)
    line = logic.any(logic.all(mine[q] for q in pattern) for pattern in rules.block_patterns)
    won = logic.all([line, logic.not_(full)]) if rules.full_block == "drawn-first" else line
    return won, logic.all([full, logic.not_(won)])


def owns_pattern(logic: Logic, rules: Rules, owned: Sequence[Any]) -> Any:
    """Rule nested-board-win: the blocks `owned` (one flag per block) include a board pattern."""
    return logic.any(logic.all(owned[b] for b in pattern) for pattern in rules.board_patterns)


def allowed(logic: Logic, rules: Rules, open_empty: Sequence[Any], previous: int | None) -> list[Any]:
    """Per cell, whether the next move may go there, from which cells are empty cells of open
    blocks and the position of the previous move's cell (None before the first move): rules
    nested-first-move, nested-route, nested-free-move."""
    if previous is None:
        return list(open_empty)
    named = rules.routed[previous]  # the cells of the blocks the route names
    some = logic.any(open_empty[c] for c in named)
    never = logic.any([])
    return [logic.ite(some, open_empty[c] if c in named else never, open_empty[c])
            for c in range(rules.cells)]


def points(logic: Logic, rules: Rules, winner: tuple[Any, Any], won: tuple[Sequence[Any], Sequence[Any]]
           ) -> tuple[Any, Any]:
    """The points of x and o at the end of a game, from who won it (a flag each) and the blocks
    each won: rules nested-score-win, nested-score-draw-blocks, nested-score-draw-majority."""
    zero = logic.number(ZERO)
    nobody = logic.not_(logic.any(winner))
    total = [zero, zero]
    for a in rules.awards:
        if a.award == "win":
            for p in (0, 1):
                total[p] = total[p] + logic.ite(winner[p], logic.number(a.points), zero)
            continue
        worth = [sum((logic.ite(won[p][b], logic.number(w), zero) for b, w in enumerate(a.weights)), zero)
                 for p in (0, 1)]
        for p in (0, 1):
            if a.award == "draw-blocks":
                gain = worth[p]
            else:  # draw-majority
                more = logic.ite(worth[p] > worth[1 - p], logic.number(a.more), logic.number(a.fewer))
                gain = logic.ite(worth[p] == worth[1 - p], logic.number(a.equal), more)
            total[p] = total[p] + logic.ite(nobody, gain, zero)
    return total[0], total[1]


def bonus_next(rules: Rules, won_block: bool, bonus_move: bool) -> bool:
    """Rule nested-bonus: whether the mover moves again at once after a move that won a block
    (`won_block`) and did not end the game; `bonus_move`: that move was itself a bonus move."""
    if not won_block:
        return False
    return rules.bonus == "chain" or (rules.bonus == "block-win" and not bonus_move)


# Positions ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Position:
    """A position: per cell its owner (x, o or None) and move number (0 when empty), per block its
    state (open, x, o, drawn), the previous move's cell, whether the next move is a bonus move,
    who makes it, the next move's number, and the result once over."""

    rules: Rules
    owner: tuple[str | None, ...]
    number: tuple[int, ...]
    blocks: tuple[str, ...]
    previous: int | None = None
    bonus: bool = False
    mover: str = "x"
    move: int = 1
    over: bool = False
    winner: str | None = None
    scores: tuple[Fraction, Fraction] = (ZERO, ZERO)

    @classmethod
    def start(cls, rules: Rules) -> Position:
        """Rule nested-first-move: the empty board, every block open, x to move anywhere."""
        return cls(rules, (None,) * rules.cells, (0,) * rules.cells, (OPEN,) * rules.side)

    def _open_empty(self) -> list[bool]:
        blocks = self.blocks
        return [o is None and blocks[b] == OPEN
                for o, b in zip(self.owner, self.rules.blocks_of, strict=True)]

    def _routing(self) -> int | None:
        return None if self.previous is None else self.rules.positions_of[self.previous]

    @cached_property
    def _legal(self) -> tuple[Mark, ...]:
        if self.over:
            return ()
        may = allowed(PY, self.rules, self._open_empty(), self._routing())
        return tuple(Mark(c) for c in range(self.rules.cells) if may[c])

    def legal(self) -> tuple[Mark, ...]:
        """The legal moves, by cell; none once the game is over (over-no-action)."""
        return self._legal

    def refusal(self, action: Mark) -> str | None:
        """The rule a move breaks, the first in the order of nested-check-order; None if legal."""
        if self.over:
            return "over-no-action"
        c = action.cell
        if not 0 <= c < self.rules.cells:
            return "nested-board"
        if self.owner[c] is not None:
            return "nested-cell-empty"
        if self.blocks[self.rules.blocks_of[c]] != OPEN:
            return "nested-block-closed"
        return None if action in self._legal_set else "nested-route"

    @cached_property
    def _legal_set(self) -> frozenset[Mark]:
        return frozenset(self._legal)

    def play(self, action: Mark) -> Position:
        """The position after a legal move (rules nested-turn to nested-end-closed)."""
        r, c, p = self.rules, action.cell, self.mover
        owner = (*self.owner[:c], p, *self.owner[c + 1:])
        number = (*self.number[:c], self.move, *self.number[c + 1:])
        b = r.blocks_of[c]
        cells = r.cells_of[b]
        won, drawn = block_result(PY, r, [owner[k] == p for k in cells],
                                  [owner[k] is not None for k in cells])
        blocks = (*self.blocks[:b], p if won else DRAWN if drawn else OPEN, *self.blocks[b + 1:])
        if won and owns_pattern(PY, r, [s == p for s in blocks]):
            return Position(r, owner, number, blocks, c, False, p, self.move + 1, True, p,
                            self._points(p, blocks))
        if OPEN not in blocks:  # nested-end-closed
            return Position(r, owner, number, blocks, c, False, p, self.move + 1, True, None,
                            self._points(None, blocks))
        bonus = bonus_next(r, won, self.bonus)
        return Position(r, owner, number, blocks, c, bonus, p if bonus else PLAYERS[1 - PLAYERS.index(p)],
                        self.move + 1)

    def _points(self, winner: str | None, blocks: tuple[str, ...]) -> tuple[Fraction, Fraction]:
        x, o = points(PY, self.rules, (winner == "x", winner == "o"),
                      ([s == "x" for s in blocks], [s == "o" for s in blocks]))
        return Fraction(x), Fraction(o)

    def target(self) -> list[int] | None:
        """The open blocks the next move must use, or None when any open block will do (first
        move, free move) or the game is over."""
        q = self._routing()
        if self.over or q is None:
            return None
        empty = self._open_empty()
        found = [b for b in self.rules.route[q] if any(empty[c] for c in self.rules.block_cells(b))]
        return found or None

    def key(self) -> tuple[Any, ...]:
        """What the rules read of the position (see the module docstring), the same for every image
        of the position under a symmetry of the rules (the least of their readings)."""
        blocks, q = self.blocks, self._routing()
        shown = tuple(("." if o is None else o) if blocks[b] == OPEN else "-"
                      for o, b in zip(self.owner, self.rules.blocks_of, strict=True))
        scores = self.scores if self.over else None
        least = min((g.back(shown), g.blocks_back(blocks), -1 if q is None else g.place[q])
                    for g in self.rules.symmetries)
        return (*least, self.bonus, self.mover, self.over, self.winner, scores)

    def state_json(self, variant: str) -> dict[str, Any]:
        """The v1 state (spec/schema/state.schema.json): a cell is its mark (x1, o2, …) or the empty
        list; blocks, target and bonus as the schema describes them for nested-classical games."""
        target = self.target()
        return {
            "variant": variant,
            "board": [f"{o}{k}" if o is not None else []
                      for o, k in zip(self.owner, self.number, strict=True)],
            "to_move": None if self.over else self.mover,
            "phase": "over" if self.over else "place",
            "move": self.move,
            "cycle": None,
            "over": self.over,
            "scores": {"x": str(self.scores[0]), "o": str(self.scores[1])},
            "blocks": list(self.blocks),
            "target": target,
            "bonus": self.bonus and not self.over,
        }
