"""The compiled core of the nested-classical family: `_core.c`, a second implementation of the
rules of qttt/nested/engine.py, built on demand with the system C compiler (`qttt.native.build`)
and used through ctypes.

It plays random games drawing from a `random.Random`'s own Mersenne Twister state, so a seed gives
the same games as `nested.nested_playout` (the generator is left where the Python engine would
leave it); it counts perft, and plays the search player's rollouts from the engine's states.
`supports` says which rulesets it takes; callers fall back to the Python engine where there is no
compiler (`available`). Points are integers scaled by `NestedCore.scale`.

Ruleset layout passed to C (int64 array): n, drawn-first (0/1), bonus on a block win (0/1); per
cell position (n² entries) the blocks its route names, as a mask of blocks; block patterns (count,
masks of positions); board patterns (count, masks of blocks); components (count, then each: type
0 win, 1 draw-blocks, 2 draw-majority; points, more, fewer, equal; one weight per block), every
point value scaled.
"""

from __future__ import annotations

import ctypes
import json
import math
import random
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from functools import cache, cached_property
from pathlib import Path
from typing import NamedTuple

from ..errors import IllegalAction, QtttError, RecordError
from ..family import Mark, Tally
from ..geometry import grid_patterns
from ..native import CoreUnavailable, bind, generator_state, unavailable, usable
from ..notation import action_to_json
from ..quantum.scoring import scaled
from ..ruleset import Ruleset
from ..vocabulary import AWARD_DECLARATIONS, AWARD_FIELDS, NESTED, Component
from .engine import BLOCK_STATES, DRAWN, PLAYERS, NestedState, award_weights, compile_nested

SOURCE = Path(__file__).with_name("_core.c")
MAX_BOARD = 8
MAX_COMPONENTS = 8
HEADER = 9  # over, mover, move, last, extra, winner, x points, o points, free; then block states
AWARD_CODES = {a.name: a.code for a in AWARD_DECLARATIONS.values() if a.game == NESTED}
_I64 = ctypes.POINTER(ctypes.c_int64)
_I32 = ctypes.POINTER(ctypes.c_int32)
_U32 = ctypes.POINTER(ctypes.c_uint32)
_U64 = ctypes.POINTER(ctypes.c_uint64)
_I8 = ctypes.POINTER(ctypes.c_int8)
_P = ctypes.c_void_p
_INT = ctypes.c_int


@cache
def library() -> ctypes.CDLL:
    """The built core, compiling it first if no cached build matches the source."""
    return bind(SOURCE, "qttt_nested", {
        "qn_new": (_P, [_I64, ctypes.c_int64]),
        "qn_free": (None, [_P]),
        "qn_pos_size": (_INT, []),
        "qn_pos_init": (None, [_P, _P]),
        "qn_apply": (_INT, [_P, _P, _INT]),
        "qn_legal": (_INT, [_P, _P, _I32]),
        "qn_load": (None, [_P, _P, _U64, _U64, _I8, _INT, _INT, _INT, _INT, _INT, _INT]),
        "qn_export": (None, [_P, _P, _I64]),
        "qn_marks": (None, [_P, _P, _U64]),
        "qn_perft": (None, [_P, _P, _INT, _U64]),
        "qn_games": (ctypes.c_int64, [_P, _U32, ctypes.c_int64, _I32, ctypes.c_int64, _I32, _I64, _I8]),
        "qn_playout": (_INT, [_P, _P, _U32]),
    })


def available() -> str | None:
    """None when the core can be built and loaded here, else the reason it cannot."""
    return unavailable(library)


def supports(rs: Ruleset) -> str | None:
    """None when the core handles `rs`, else the reason it does not."""
    if rs.game != NESTED:
        return f"the compiled nested core plays nested-classical rulesets, not {rs.game}"
    if rs.board > MAX_BOARD:
        return f"the compiled nested core handles boards of at most {MAX_BOARD}×{MAX_BOARD} blocks"
    if len(rs.scoring) > MAX_COMPONENTS:
        return f"the compiled nested core handles at most {MAX_COMPONENTS} scoring components"
    return None


def use_compiled(rs: Ruleset, core: str) -> bool:
    """Whether to use the compiled nested core for `rs`: never for a ruleset of another family (its
    own core serves it), otherwise as `qttt.native.usable` decides."""
    return rs.game == NESTED and usable(core, lambda: supports(rs) or available())


POINT_FIELDS = ("points", "more", "fewer", "equal")  # the fraction fields of the nested awards


def _component(c: Component, blocks: int) -> tuple[int, list[Fraction]]:
    """An award's code and its values as C reads them: points, more, fewer, equal (0 where the
    award has no such field), then one weight per block (0 for an award without weights)."""
    fields = AWARD_FIELDS[c.award]
    values = [Fraction(c.get(k)) if k in fields else Fraction(0) for k in POINT_FIELDS]
    weights = award_weights(c, blocks) if "weights" in fields else (Fraction(0),) * blocks
    return AWARD_CODES[c.award], [*values, *weights]


def config(rs: Ruleset) -> tuple[list[int], int]:
    """The ruleset as the C core reads it (layout in the module docstring) and the scale of its
    point values."""
    r = compile_nested(rs)
    components = [_component(c, r.side) for c in rs.scoring]
    scale = math.lcm(1, *(v.denominator for _, values in components for v in values))
    out = [r.n, int(r.drawn_first), int(r.bonus)]
    out += [sum(1 << b for b in route) for route in r.route]
    for kinds in (rs.rules.block_patterns, rs.rules.board_patterns):
        masks = [p.mask for p in grid_patterns(r.n, kinds)]
        out += [len(masks), *masks]
    out.append(len(components))
    for code, values in components:
        out += [code, *(scaled(v, scale) for v in values)]
    return out, scale


class NestedView(NamedTuple):
    """A position as the core holds it: over, the mover (None when over), the next move's number,
    the previous cell (None before the first), bonus, winner, (x, o) points (0-0 until over), the
    block states, the open blocks the next move must use (None: any, or over) and the cells of
    each player."""

    over: bool
    to_move: str | None
    move: int
    last: int | None
    bonus: bool
    winner: str | None
    scores: tuple[Fraction, Fraction]
    blocks: tuple[str, ...]
    target: tuple[int, ...] | None
    x: int
    o: int


class NestedCore:
    """The compiled nested core configured for one ruleset (see `core_for`)."""

    def __init__(self, rs: Ruleset) -> None:
        reason = supports(rs) or available()
        if reason is not None:
            raise CoreUnavailable("core-compiled", reason)
        self.rs = rs
        self.rules = compile_nested(rs)
        self.cells = self.rules.cells
        self.words = (self.cells + 63) // 64
        self.lib = library()
        cfg, self.scale = config(rs)
        handle = self.lib.qn_new((ctypes.c_int64 * len(cfg))(*cfg), len(cfg))
        if not handle:
            raise CoreUnavailable("core-compiled", f"the core refused the configuration of {rs.canonical}")
        self.handle: int = handle
        self.pos_size = int(self.lib.qn_pos_size())

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            self.lib.qn_free(self.handle)
            self.handle = 0

    def points(self, v: int) -> Fraction:
        """A scaled score as points."""
        return Fraction(v, self.scale)

    def games(self, rng: random.Random, games: int, cells: bool = True
              ) -> tuple[list[list[int]], list[int], list[tuple[int, int]]]:
        """`games` random games drawn from `rng` as `nested.nested_playout` would (rng is advanced
        the same way): their cells (empty lists when `cells` is false), their lengths in moves and
        their scaled (x, o) points."""
        state, finish = generator_state(rng)
        count = max(games, 1)
        cap = games * self.cells if cells else 0
        out = (ctypes.c_int32 * max(cap, 1))()
        lens = (ctypes.c_int32 * count)()
        scores = (ctypes.c_int64 * (2 * count))()
        winners = (ctypes.c_int8 * count)()
        used = self.lib.qn_games(self.handle, state, games, out if cells else None, cap, lens, scores,
                                 winners)
        if used < 0:
            raise QtttError("core-compiled", "the compiled nested core's cell buffer overflowed")
        finish()
        moves = list(lens[:games])
        played: list[list[int]] = []
        if cells:
            flat, at = out[:used], 0
            for k in moves:
                played.append(flat[at:at + k])
                at += k
        else:
            played = [[] for _ in range(games)]
        pts = scores[:2 * games]
        return played, moves, list(zip(pts[0::2], pts[1::2], strict=True))

    def random_actions(self, rng: random.Random, games: int) -> list[list[Mark]]:
        """The moves of `games` random games drawn from `rng` as `nested_playout` draws them."""
        return [[Mark(c) for c in cells] for cells in self.games(rng, games)[0]]

    def jsonl(self, rng: random.Random, games: int, head: str, tail: str) -> str:
        """`games` random games drawn from `rng` as `nested_playout` draws them, as text: per game
        `head`, the moves' JSON (`notation.action_to_json`, compact) joined by commas, `tail`."""
        frag = self._fragments
        return "".join([head + ",".join([frag[c] for c in cells]) + tail
                        for cells in self.games(rng, games)[0]])

    @cached_property
    def _fragments(self) -> list[str]:
        return [json.dumps(action_to_json(Mark(c)), separators=(",", ":")) for c in range(self.cells)]

    def sample(self, rng: random.Random, games: int) -> Tally:
        """Over `games` random games drawn from `rng`: the histogram of final (x, o) points, no line
        results (no such award in this family) and the games by (moves, cells left empty), as
        `sample.play_chunk` tallies them."""
        _, moves, pts = self.games(rng, games, cells=False)
        hist = Counter(pts)
        shapes = Counter((m, self.cells - m) for m in moves)
        return (Counter({(self.points(x), self.points(o)): k for (x, o), k in hist.items()}),
                Counter(), shapes)

    def position(self, actions: Iterable[object] = ()) -> NestedPosition:
        """The position after `actions` from the empty board (IllegalAction if one is illegal)."""
        pos = NestedPosition(self)
        for act in actions:
            pos.apply(act)
        return pos

    def load(self, state: NestedState) -> NestedPosition:
        """The position of an engine state."""
        if state.ruleset.key() != self.rs.key():
            raise QtttError("core-compiled", "a state of another ruleset")
        pos = NestedPosition(self)
        x, o = state.cell_masks
        blocks = (ctypes.c_int8 * self.rules.side)(*(BLOCK_STATES.index(b) for b in state.blocks))
        last = state.last
        self.lib.qn_load(self.handle, pos.buf, self._words(x), self._words(o), blocks,
                         -1 if last is None else last, int(state.bonus),
                         PLAYERS.index(state.to_move or "x"), state.move, int(state.over),
                         PLAYERS.index(state.winner) + 1 if state.winner else 0)
        return pos

    def rollout(self, state: NestedState, rng: random.Random) -> dict[str, Fraction]:
        """The final points of `state` played to the end with uniformly random legal moves drawn
        from `rng` (the moves and draws of `nested.nested_playout` from that state)."""
        if state.over:
            return state.scores
        pos = self.load(state)
        gen, finish = generator_state(rng)
        self.lib.qn_playout(self.handle, pos.buf, gen)
        finish()
        x, o = pos.view().scores
        return {"x": x, "o": o}

    def _words(self, mask: int) -> ctypes.Array[ctypes.c_uint64]:
        return (ctypes.c_uint64 * self.words).from_buffer_copy(mask.to_bytes(8 * self.words, "little"))


@cache
def _cores(key: object, rs: Ruleset) -> NestedCore:
    return NestedCore(rs)


def core_for(rs: Ruleset) -> NestedCore:
    """The compiled nested core of `rs`, made once per process and ruleset."""
    return _cores(rs.key(), rs)


class NestedPosition:
    """A mutable position held by the compiled nested core: moves applied in place after the
    core's own legality check, views read back from it."""

    def __init__(self, core: NestedCore) -> None:
        self.core = core
        self.buf = ctypes.create_string_buffer(core.pos_size)
        core.lib.qn_pos_init(core.handle, self.buf)

    def copy(self) -> NestedPosition:
        """An independent copy."""
        out = NestedPosition.__new__(NestedPosition)
        out.core = self.core
        out.buf = ctypes.create_string_buffer(self.buf.raw, self.core.pos_size)
        return out

    def apply(self, action: object) -> None:
        """Apply a mark; IllegalAction naming the first rule it breaks (rule nested-check-order),
        with the engine's message."""
        if not isinstance(action, Mark):
            kind = type(action).__name__.lower()
            raise RecordError("record-format", f"a nested-classical game takes mark actions, not {kind}")
        c = self.core
        got = c.lib.qn_apply(c.handle, self.buf, action.cell)
        if got:
            raise self._refusal(got, action.cell)

    def _refusal(self, code: int, cell: int) -> IllegalAction:
        r, view = self.core.rules, self.view()
        if code == 1:
            return IllegalAction("over-no-action", "the game is over; no action is legal")
        if code == 2:
            return IllegalAction("nested-board", f"cell {cell!r} is not on the board "
                                 f"(cells 0 to {r.cells - 1})")
        if code == 3:
            return IllegalAction("nested-cell-empty", f"cell {cell} already holds a mark")
        b = r.block_of[cell]
        if code == 4:
            return IllegalAction("nested-block-closed", f"cell {cell} is in block {b}, which is "
                                 f"{'drawn' if view.blocks[b] == BLOCK_STATES[DRAWN] else 'won'}")
        return IllegalAction("nested-route", f"cell {cell} is in block {b}; the previous move (cell "
                             f"{view.last}) sends this move to block "
                             + " or ".join(map(str, view.target or ())))

    def legal(self) -> list[Mark]:
        """Legal moves in the engine's order (by cell)."""
        c = self.core
        out = (ctypes.c_int32 * c.cells)()
        n = c.lib.qn_legal(c.handle, self.buf, out)
        return [Mark(k) for k in out[:n]]

    def view(self) -> NestedView:
        """What the core holds about the position."""
        c = self.core
        blocks = c.rules.side
        out = (ctypes.c_int64 * (HEADER + blocks))()
        c.lib.qn_export(c.handle, self.buf, out)
        marks = (ctypes.c_uint64 * (2 * c.words))()
        c.lib.qn_marks(c.handle, self.buf, marks)
        raw = bytes(marks)
        half = 8 * c.words
        over = bool(out[0])
        states = tuple(BLOCK_STATES[out[HEADER + b]] for b in range(blocks))
        target = None if over or out[8] else tuple(
            b for b in c.rules.route[c.rules.position_of[out[3]]] if states[b] == "open")
        return NestedView(
            over=over, to_move=None if over else PLAYERS[out[1]], move=out[2],
            last=None if out[3] < 0 else out[3], bonus=bool(out[4]) and not over,
            winner=PLAYERS[out[5] - 1] if out[5] else None, scores=(c.points(out[6]), c.points(out[7])),
            blocks=states, target=target, x=int.from_bytes(raw[:half], "little"),
            o=int.from_bytes(raw[half:], "little"))

    def perft(self, depth: int) -> list[int]:
        """The number of move sequences of length 1..depth from here."""
        c = self.core
        counts = (ctypes.c_uint64 * max(depth, 1))()
        c.lib.qn_perft(c.handle, self.buf, depth, counts)
        return [counts[i] for i in range(depth)]
