"""The rules engine of the nested-classical family: Intelligent Tic-Tac-Toe and its editions.

A classical game on an n×n grid of blocks, each an n×n grid of cells: the board is n²×n² cells,
numbered row by row (rule nested-board). One action puts the mover's mark in one cell. Each step
names the rule of spec/rules.toml it implements. `NestedState` is immutable; it wraps a
`_NestedBoard`, the mutable kernel that `apply` copies and `playout` drives in place.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..boardstate import BoardState, Derived, Field, PositionState
from ..errors import IllegalAction, RecordError
from ..family import Mark
from ..geometry import grid_patterns
from ..ruleset import PerRuleset, Ruleset
from ..vocabulary import AWARD_DECLARATIONS, NESTED, Component

OPEN, X_WON, O_WON, DRAWN = 0, 1, 2, 3
BLOCK_STATES = ("open", "x", "o", "drawn")
PLAYERS = ("x", "o")
ZERO = Fraction(0)
Scores = tuple[Fraction, Fraction]
# The rule of spec/rules.toml that states each award of the nested-classical family.
AWARD_RULES = {a.name: a.rule for a in AWARD_DECLARATIONS.values() if a.game == NESTED}


def bits(mask: int) -> list[int]:
    """The cell numbers set in a bitmask, increasing (not memoised: nested masks rarely repeat)."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


@dataclass(frozen=True)
class NestedRules:
    """A nested-classical ruleset compiled for the engine: geometry and parameters as tables."""

    ruleset: Ruleset
    n: int
    side: int
    cells: int
    block_of: tuple[int, ...]
    position_of: tuple[int, ...]
    block_mask: tuple[int, ...]
    cell_patterns: tuple[tuple[int, ...], ...]
    block_patterns: tuple[tuple[int, ...], ...]
    route_mask: tuple[int, ...]
    route: tuple[tuple[int, ...], ...]
    full_block: str  # rule nested-block-draw, the value as declared
    bonus: str  # rule nested-bonus, the value as declared
    score: Callable[[int, tuple[int, ...]], Scores]


def cell_of(n: int, block: int, position: int) -> int:
    """The cell at `position` (row-major in its block) of `block` (row-major in the board)."""
    side = n * n
    return ((block // n) * n + position // n) * side + (block % n) * n + position % n


def _compile_nested(rs: Ruleset) -> NestedRules:
    n = rs.board
    side, blocks = n * n, n * n
    cells = side * side
    block_of = tuple((c // side // n) * n + (c % side) // n for c in range(cells))
    position_of = tuple((c // side % n) * n + c % side % n for c in range(cells))
    block_mask = tuple(sum(1 << cell_of(n, b, p) for p in range(side)) for b in range(blocks))
    local = grid_patterns(n, rs.rules.block_patterns)
    cell_patterns = tuple(
        tuple(sum(1 << cell_of(n, block_of[c], p) for p in pat.cells)
              for pat in local if pat.mask >> position_of[c] & 1)
        for c in range(cells))
    big = grid_patterns(n, rs.rules.board_patterns)
    block_patterns = tuple(tuple(p.mask for p in big if p.mask >> b & 1) for b in range(blocks))
    given = rs.rules.route
    route = tuple((p,) for p in range(side)) if isinstance(given, str) else given  # "same"
    rules = NestedRules(
        ruleset=rs, n=n, side=side, cells=cells, block_of=block_of, position_of=position_of,
        block_mask=block_mask, cell_patterns=cell_patterns, block_patterns=block_patterns,
        route_mask=tuple(sum(block_mask[b] for b in r) for r in route), route=route,
        full_block=rs.rules.full_block, bonus=rs.rules.bonus,
        score=compile_nested_scoring(rs.scoring, blocks))
    return rules


compile_nested = PerRuleset(_compile_nested)
"""The engine's view of a nested-classical ruleset (built once per ruleset: `PerRuleset`)."""


def award_weights(c: Component, blocks: int) -> tuple[Fraction, ...]:
    """The worth of each block under a draw award (weights = equal: 1 each)."""
    w = c.get("weights")
    return (Fraction(1),) * blocks if w == "equal" else tuple(w)


Scorer = Callable[[int, tuple[int, ...]], Scores]


def compile_nested_scoring(scoring: tuple[Component, ...], blocks: int) -> Scorer:
    """Scores of a finished game from its winner (0 none, 1 x, 2 o) and block states (rules
    nested-score-win, nested-score-draw-blocks, nested-score-draw-majority)."""

    def score(winner: int, states: tuple[int, ...]) -> Scores:
        pts = [ZERO, ZERO]
        for c in scoring:
            if c.award == "win":
                if winner:
                    pts[winner - 1] += c.get("points")
                continue
            if winner:  # the draw awards score only a game without a winner
                continue
            weights = award_weights(c, blocks)
            worth = [sum((w for w, s in zip(weights, states, strict=True) if s == who), ZERO)
                     for who in (X_WON, O_WON)]
            if c.award == "draw-blocks":
                pts[0] += worth[0]
                pts[1] += worth[1]
            elif worth[0] == worth[1]:
                pts[0] += c.get("equal")
                pts[1] += c.get("equal")
            else:
                more = 0 if worth[0] > worth[1] else 1
                pts[more] += c.get("more")
                pts[1 - more] += c.get("fewer")
        return pts[0], pts[1]
    return score


STATE = PositionState("nested-classical", fields=(
    Field("ply", "per cell, the number of the move that marked it (0: empty)",
          ("nested-cell-empty",)),
    Field("masks", "the cells marked by x and by o",
          ("nested-block-win", "nested-block-draw", "nested-board-win")),
    Field("last", "the cell of the previous move (-1 before the first)",
          ("nested-route", "nested-free-move")),
    Field("extra", "whether the next move is a bonus move", ("nested-bonus",)),
    Field("player", "the player to move (0 x, 1 o)", ("nested-turn", "nested-bonus")),
), derived=(
    Derived("status", "per block: open, won by x or o, drawn", ("masks",)),
    Derived("avail", "the empty cells of open blocks", ("ply", "masks")),
    Derived("move", "the number of the next move", ("ply",)),
    Derived("over", "whether the game is over", ("masks",)),
    Derived("winner", "the player whose won blocks form a pattern (0: none)", ("masks",)),
    Derived("scores", "the points of a finished game (0-0 before)", ("masks",)),
))
"""The nested-classical family's position state: every field of `_NestedBoard` the rules read,
declared once (`qttt.boardstate`); `NestedState.key` is their values."""
KEY_COVER = STATE.cover("qttt.nested.engine:NestedState.key", kept={f: "as is" for f in STATE.names})


class _NestedBoard:
    """Mutable position. `ply[c]`: number of the move that marked c, 0 if empty; `masks`: cells
    marked by x and by o; `avail`: empty cells of open blocks; `status[b]`: OPEN, X_WON, O_WON or
    DRAWN; `last`: the previous move's cell (-1 before the first); `extra`: this move is a bonus."""

    __slots__ = ("avail", "extra", "last", "masks", "move", "over", "player", "ply", "r", "scores",
                 "status", "winner")

    def __init__(self, r: NestedRules) -> None:
        self.r = r
        self.ply = [0] * r.cells
        self.masks = [0, 0]
        self.avail = (1 << r.cells) - 1
        self.status = [OPEN] * (r.n * r.n)
        self.last = -1
        self.extra = False
        self.player = 0
        self.move = 1
        self.over = False
        self.winner = 0
        self.scores: Scores = (ZERO, ZERO)

    def copy(self) -> _NestedBoard:
        b = _NestedBoard.__new__(_NestedBoard)
        b.r, b.ply, b.masks, b.avail = self.r, self.ply[:], self.masks[:], self.avail
        b.status = self.status[:]
        b.last, b.extra, b.player, b.move = self.last, self.extra, self.player, self.move
        b.over, b.winner, b.scores = self.over, self.winner, self.scores
        return b

    def allowed(self) -> int:
        """Mask of the legal cells: rules nested-first-move, nested-route, nested-free-move."""
        if self.over:
            return 0
        if self.last >= 0:  # nested-route: empty cells of the open blocks the previous cell names
            routed = self.avail & self.r.route_mask[self.r.position_of[self.last]]
            if routed:
                return routed
        return self.avail  # nested-first-move, nested-free-move: any empty cell of an open block

    def _routed_blocks(self) -> tuple[int, ...]:
        return tuple(b for b in self.r.route[self.r.position_of[self.last]] if self.status[b] == OPEN)

    def _free(self) -> bool:
        """Rule nested-free-move: the routed blocks have no empty cell (or no move was made yet)."""
        return self.last < 0 or not self.avail & self.r.route_mask[self.r.position_of[self.last]]

    def mark(self, c: int) -> None:
        """Rules nested-mark, nested-block-win, nested-block-draw, nested-board-win,
        nested-end-closed, nested-bonus, nested-turn."""
        r, p = self.r, self.player
        bit = 1 << c
        self.ply[c] = self.move
        self.masks[p] |= bit
        self.avail &= ~bit
        mine = self.masks[p]
        b = r.block_of[c]
        bm = r.block_mask[b]
        full = (self.masks[0] | self.masks[1]) & bm == bm
        won = False
        if full and r.full_block == "drawn-first":  # nested-block-draw
            self.status[b] = DRAWN
        elif any(m & mine == m for m in r.cell_patterns[c]):  # nested-block-win
            self.status[b] = X_WON + p
            won = True
        elif full:  # nested-block-draw
            self.status[b] = DRAWN
        if self.status[b] != OPEN:  # nested-block-closed
            self.avail &= ~bm
        self.last = c
        self.move += 1
        if won:  # nested-board-win: a pattern of blocks won by the mover
            owned = sum(1 << i for i, s in enumerate(self.status) if s == X_WON + p)
            if any(m & owned == m for m in r.block_patterns[b]):
                self._finish(p + 1)
                return
        if not self.avail:  # nested-end-closed: every block is won or drawn
            self._finish(0)
            return
        if won and (r.bonus == "chain" or (r.bonus == "block-win" and not self.extra)):  # nested-bonus
            self.extra = True
        else:  # nested-turn
            self.extra = False
            self.player = 1 - p

    def _finish(self, winner: int) -> None:
        self.over = True
        self.winner = winner
        self.scores = self.r.score(winner, tuple(self.status))

    def check(self, action: object) -> Mark:
        """The action, or IllegalAction naming the first rule it breaks."""
        if not isinstance(action, Mark):
            kind = type(action).__name__.lower()
            raise RecordError("record-format", f"a nested-classical game takes mark actions, not {kind}")
        if self.over:
            raise IllegalAction("over-no-action", "the game is over; no action is legal")
        c = action.cell
        if not isinstance(c, int) or isinstance(c, bool) or not 0 <= c < self.r.cells:
            raise IllegalAction("nested-board", f"cell {c!r} is not on the board "
                                f"(cells 0 to {self.r.cells - 1})")
        if self.ply[c]:
            raise IllegalAction("nested-cell-empty", f"cell {c} already holds a mark")
        b = self.r.block_of[c]
        if self.status[b] != OPEN:
            raise IllegalAction("nested-block-closed", f"cell {c} is in block {b}, which is "
                                f"{'drawn' if self.status[b] == DRAWN else 'won'}")
        if not self.allowed() >> c & 1:
            blocks = self._routed_blocks()
            raise IllegalAction("nested-route", f"cell {c} is in block {b}; the previous move "
                                f"(cell {self.last}) sends this move to block "
                                + " or ".join(str(x) for x in blocks))
        return action


class NestedState(BoardState[_NestedBoard]):
    """An immutable state of a nested-classical game."""

    __slots__ = ()
    _b: _NestedBoard  # the board this state reads (BoardState's slot)

    @classmethod
    def initial(cls, ruleset: Ruleset) -> NestedState:
        """The empty board, X to move anywhere."""
        return cls(_NestedBoard(compile_nested(ruleset)))

    def legal_actions(self) -> tuple[Mark, ...]:
        """Every legal action, by cell."""
        return tuple(Mark(c) for c in bits(self._b.allowed()))

    def apply(self, action: object) -> NestedState:
        """The state after `action`; raises IllegalAction (naming the rule) if it is illegal, and
        RecordError (record-format) for an action of another family."""
        act = self._b.check(action)
        nb = self._b.copy()
        nb.mark(act.cell)
        return NestedState(nb)

    @property
    def phase(self) -> str:
        """place or over."""
        return "over" if self._b.over else "place"

    @property
    def over(self) -> bool:
        return self._b.over

    @property
    def to_move(self) -> str | None:
        """x or o; None when over."""
        return None if self._b.over else PLAYERS[self._b.player]

    @property
    def bonus(self) -> bool:
        """Whether the next move is a bonus move (rule nested-bonus)."""
        return self._b.extra and not self._b.over

    @property
    def last(self) -> int | None:
        """The cell of the previous move, or None before the first."""
        return None if self._b.last < 0 else self._b.last

    @property
    def marks(self) -> tuple[str | None, ...]:
        """Per cell: its mark (player and move number, such as x1 or o12), or None."""
        b = self._b
        return tuple(None if not k else f"{'x' if b.masks[0] >> c & 1 else 'o'}{k}"
                     for c, k in enumerate(b.ply))

    @property
    def cell_masks(self) -> tuple[int, int]:
        """The cells marked by x and by o, as bitmasks."""
        return self._b.masks[0], self._b.masks[1]

    @property
    def blocks(self) -> tuple[str, ...]:
        """Per block: open, x, o (won by that player) or drawn."""
        return tuple(BLOCK_STATES[s] for s in self._b.status)

    @property
    def target(self) -> tuple[int, ...] | None:
        """The open blocks the next move must use, or None for a free move (or after the end)."""
        if self._b.over or self._b._free():
            return None
        return self._b._routed_blocks()

    @property
    def winner(self) -> str | None:
        """The player whose won blocks form a pattern, if any."""
        return PLAYERS[self._b.winner - 1] if self._b.winner else None

    @property
    def score_notes(self) -> tuple[str, ...]:
        """No nested-classical score rests on an unstated rule."""
        return ()

    def key(self) -> tuple[Any, ...]:
        """Hashable identity of the position within its ruleset: the declared fields' values
        (`STATE`)."""
        return STATE.values(self._b)

    def fields(self) -> dict[str, Any]:
        """The declared position state (`STATE`), by field name."""
        return STATE.of(self._b)


def nested_playout(ruleset: Ruleset, rng: random.Random) -> tuple[list[Mark], NestedState]:
    """One game of uniformly random legal moves; returns its moves and the final state."""
    b = _NestedBoard(compile_nested(ruleset))
    moves: list[Mark] = []
    rand = rng.random
    while not b.over:
        cells = bits(b.allowed())
        c = cells[int(rand() * len(cells))]
        moves.append(Mark(c))
        b.mark(c)
    return moves, NestedState(b)
