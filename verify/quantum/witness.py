"""Concrete games built to order, replayed by the engine: the witnesses of the checker.

A designed collapse makes a chosen set of cells classical with chosen move numbers in one
measurement. Its moves are placed as a path r - c1 - c2 - ... (the move meant for c_i joins c_i
to c_(i-1)), the largest move, meant for the root r, closes the path into a cycle, and the
measurer names r: forcing then sends every path move to its own cell (see `verify.quantum.graphs`). So
any assignment of the numbers K-s+1..K, or any s numbers with the largest closing, to s cells is
one collapse away, as long as nothing else happens in between.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from qttt import Ruleset
from qttt.geometry import lines
from qttt.notation import action_to_json
from qttt.quantum.engine import Action, Measure, Place, State, mark_name, named_outcomes

from ..report import Witness


def component_actions(assignment: Mapping[int, int]) -> dict[int, list[Action]]:
    """The actions of a designed collapse, keyed by move number: cell -> move for its cells (at
    least two; two cells make a 2-cycle). The largest move closes the cycle and is measured."""
    cells = sorted(assignment, key=lambda c: assignment[c])
    root = cells[-1]
    path = [root, *cells[:-1]]
    acts: dict[int, list[Action]] = {}
    for prev, cell in itertools.pairwise(path):
        acts[assignment[cell]] = [Place(min(prev, cell), max(prev, cell))]
    far = path[-1]
    acts[assignment[root]] = [Place(min(root, far), max(root, far)), Measure(root)]
    return acts


def plan_actions(components: Sequence[Mapping[int, int]], parked: Mapping[int, tuple[int, int]] | None = None,
                 tail: Iterable[Action] = ()) -> list[Action]:
    """Moves 1..M in order: each belongs to one designed component or is parked on a given pair
    of cells (left spooky); then the tail actions."""
    by_move: dict[int, list[Action]] = {}
    for comp in components:
        by_move.update(component_actions(comp))
    for move, (a, b) in (parked or {}).items():
        by_move[move] = [Place(min(a, b), max(a, b))]
    if sorted(by_move) != list(range(1, len(by_move) + 1)):
        raise ValueError(f"moves {sorted(by_move)} are not 1..{len(by_move)}")
    return [act for move in sorted(by_move) for act in by_move[move]] + list(tail)


def replay(rs: Ruleset, actions: Sequence[Action]) -> State | None:
    """The engine's final state from the start of rs, or None when the engine refuses an action
    (or raises on one)."""
    state = State.initial(rs)
    try:
        for act in actions:
            state = state.apply(act)
    except Exception:
        return None
    return state


def record(variant: str, actions: Sequence[Action]) -> dict[str, Any]:
    """The JSON game record."""
    return {"variant": variant, "actions": [action_to_json(a) for a in actions]}


def owners_have_line(cells: Mapping[int, int], masks: Sequence[int]) -> bool:
    """Whether the classical marks in cells (cell -> move) complete one of the lines for a player."""
    x = sum(1 << c for c, m in cells.items() if m & 1)
    o = sum(1 << c for c, m in cells.items() if not m & 1)
    return any(m & x == m or m & o == m for m in masks)


def deadlock_witness(rs: Ruleset, variant: str, end_masks: Sequence[int], attempts: int = 2000,
                     seed: int = 0) -> Witness | None:
    """A game reaching a position that is not over and has no legal action: all cells but two
    made classical by one designed collapse without completing an end line, then a placement on
    the last two cells, which forbids every further placement when 2-cycles are forbidden."""
    cells = rs.board * rs.board
    rng = random.Random(seed)
    size = cells - 2
    if size < (2 if rs.rules.two_cycles else 3):
        return None
    for _ in range(attempts):
        order = list(range(cells))
        rng.shuffle(order)
        a, b = order[:2]
        assignment = {c: i + 1 for i, c in enumerate(order[2:])}
        if owners_have_line(assignment, end_masks):
            continue
        acts = named_outcomes(rs, plan_actions([assignment], {size + 1: (a, b)}))
        state = replay(rs, acts)
        if state is not None and not state.over and not state.legal_actions():
            joined = mark_name(size + 1)
            return Witness(record(variant, acts), f"after {len(acts)} actions only cells {min(a, b)} and "
                           f"{max(a, b)} are open, joined by {joined}; {state.to_move} to place has no "
                           "legal action and the game is not over")
    return None


def stuck_without_line(rs: Ruleset) -> bool:
    """Whether some owner colouring of all cells but two leaves every end line incomplete: the
    only way a position with two open cells can fail to be over (rules end-line, end-full). When
    none does, a game whose last two open cells are joined by a live move is over, never stuck.
    Without end lines, always."""
    masks = [p.mask for p in lines(rs.board, rs.rules.end_line)] if rs.rules.end == "first-line" else []
    if not masks:
        return True
    cells = rs.board * rs.board
    for a, b in itertools.combinations(range(cells), 2):
        rest = [c for c in range(cells) if c not in (a, b)]
        for bits in range(1 << len(rest)):
            x = sum(1 << c for i, c in enumerate(rest) if bits >> i & 1)
            o = sum(1 << c for c in rest) & ~x
            if not any(m & x == m or m & o == m for m in masks):
                return True
    return False
