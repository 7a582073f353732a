"""Canonical position keys: positions with equal keys have the same future (up to what a key keeps).

Three keys, coarsest first, each valid for a purpose stated with it:

- `partition_key`: the phase and the sizes of the entanglement components of the open cells. Under
  end = full, the legal action sequences from a position depend on nothing else (any pair of open
  cells is a placement; a pair inside a component of s cells closes a cycle, and without 2-cycles
  s − 1 of those pairs are forbidden; a collapse makes the whole component classical whichever cell
  is measured). Valid for counting games, not for scores.
- `owner_key`: cell owners (open, x, o, dead), the spooky edges as cell pairs with their owner,
  the pending edge and the parity of the next move, minimised over the board symmetries. Move
  numbers are forgotten. Valid for counting under any end rule, and for values when the scoring
  does not look at move numbers.
- `numbered_key`: as `owner_key` but keeping move numbers up to an order- and parity-preserving
  relabelling (scores compare move numbers only by order). Valid for values under every scoring.

A classical cell is dead when every scoring pattern and end line through it already holds both
players' classical marks: no such pattern can ever be owned, so its owner and number do not matter.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any

from ...geometry import cells_of
from ...ruleset import Ruleset
from ..engine import CHANCE_TURN, MEASURE, STATE, Board
from ..game import Game, compile_game

Key = tuple[Any, ...]


@cache
def _inverses(game: Game) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """The game's symmetries, each with its inverse permutation."""
    out = []
    for p in game.symmetries:
        inv = [0] * len(p)
        for c, d in enumerate(p):
            inv[d] = c
        out.append((p, tuple(inv)))
    return tuple(out)


def dead_cells(rs: Ruleset, xmask: int, omask: int) -> int:
    """Classical cells that lie in no pattern either player can still own."""
    live = 0
    for m in compile_game(rs).relevant_masks:
        if not (m & xmask and m & omask):
            live |= m
    return (xmask | omask) & ~live


PARTITION_COVER = STATE.cover(
    "qttt.quantum.analysis.keys:partition_key",
    kept={"spk": "as the sizes of the open cells' entanglement components", "phase": "as is",
          "pending": "as the size of its component"},
    forgotten={"cls": "beyond which cells are open: under end = full no rule of legality reads a classical "
                      "mark's owner, number or cell",
               "chosen": "a chance turn offers two outcomes (one at p = 1) whichever cell was named, each "
                         "collapsing the same component",
               "move": "no rule of legality reads it (it names who acts, which counting does not ask)"})
OWNER_COVER = STATE.cover(
    "qttt.quantum.analysis.keys:owner_key",
    kept={"cls": "as owners (open, x, o, dead), up to the board's symmetries",
          "spk": "as owner-labelled cell pairs, up to the board's symmetries", "move": "its parity",
          "phase": "as is", "pending": "as its cell pair and owner",
          "chosen": "as its cell under the same symmetry, at a chance turn"},
    forgotten={})
NUMBERED_COVER = STATE.cover(
    "qttt.quantum.analysis.keys:numbered_key",
    kept={"cls": "move numbers relabelled keeping order and parity (dead cells dropped), up to the board's "
                 "symmetries",
          "spk": "as numbered cell pairs, relabelled with the rest", "move": "relabelled with the rest",
          "phase": "as is", "pending": "relabelled with the rest",
          "chosen": "as its cell under the same symmetry, at a chance turn"})


def partition_key(b: Board) -> Key:
    """Phase, sorted sizes of the other components, and the size of the pending cycle's component."""
    comps = {b.comp[c] for c in cells_of(b.open)}
    pend = 0
    if b.phase in (MEASURE, CHANCE_TURN):
        pmask = b.comp[b.ends[b.pending][0]]
        comps.discard(pmask)
        pend = pmask.bit_count()
    return (b.phase, pend, tuple(sorted(m.bit_count() for m in comps)))


def owner_key(rs: Ruleset, b: Board) -> Key:
    """Owners of cells, owner-labelled edges and pending edge, minimised over the symmetries."""
    n2 = b.r.cells
    dead = dead_cells(rs, b.xmask, b.omask)
    code = [0] * n2
    for c in range(n2):
        if dead >> c & 1:
            code[c] = 3
        elif b.xmask >> c & 1:
            code[c] = 1
        elif b.omask >> c & 1:
            code[c] = 2
    edges = [(a, e, k & 1) for k, (a, e) in b.ends.items()]
    pend = b.ends[b.pending] + (b.pending & 1,) if b.phase in (MEASURE, CHANCE_TURN) else None
    best: Key | None = None
    for p, inv in _inverses(compile_game(rs)):
        cells = tuple([code[i] for i in inv])
        es = tuple(sorted([(p[a] * n2 + p[e] if p[a] < p[e] else p[e] * n2 + p[a]) * 2 + o
                           for a, e, o in edges]))
        named = p[b.chosen] if b.phase == CHANCE_TURN else -1
        if pend is not None:
            a, e, o = pend
            pk = (p[a] * n2 + p[e] if p[a] < p[e] else p[e] * n2 + p[a]) * 2 + o
            cand: Key = (cells, es, pk, named)
        else:
            cand = (cells, es, -1, named)
        if best is None or cand < best:
            best = cand
    assert best is not None
    return (b.phase, b.move & 1, *best)


def relabel(numbers: Sequence[int]) -> dict[int, int]:
    """Map distinct positive move numbers to the smallest numbers with the same order and parities."""
    out: dict[int, int] = {}
    last = 0
    for k in sorted(set(numbers)):
        nxt = last + 1
        if (nxt ^ k) & 1:
            nxt += 1
        out[k] = nxt
        last = nxt
    return out


def numbered_key(rs: Ruleset, b: Board) -> Key:
    """Classical move numbers (dead cells dropped), numbered edges and the next move number, relabelled
    by `relabel`, minimised over the symmetries."""
    n2 = b.r.cells
    dead = dead_cells(rs, b.xmask, b.omask)
    cls = [0 if dead >> c & 1 else b.cls[c] for c in range(n2)]
    dead_code = -1
    ren = relabel([k for k in cls if k] + list(b.ends) + [b.move])
    code = [dead_code if dead >> c & 1 else ren.get(cls[c], 0) for c in range(n2)]
    edges = sorted(b.ends.items())
    best: Key | None = None
    for p, inv in _inverses(compile_game(rs)):
        cand = (tuple([code[i] for i in inv]),
                tuple([p[a] * n2 + p[e] if p[a] < p[e] else p[e] * n2 + p[a] for _, (a, e) in edges]),
                p[b.chosen] if b.phase == CHANCE_TURN else -1)
        if best is None or cand < best:
            best = cand
    assert best is not None
    pend = ren[b.pending] if b.phase in (MEASURE, CHANCE_TURN) else 0
    return (b.phase, ren[b.move], pend, tuple(ren[k] for k, _ in edges), *best)
