"""Perft: the number of action sequences of each length from a position, as chess engines count
them, and `divide`, the same count split by first action.

Every action counts: placements, measurements (each choice of cell) and the forced last-square
placement. A finished game has no continuation, so sequences that reach the end early are not
counted at greater depths.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import UsageError
from ..family import GameState, cases
from ..games import new_game
from ..notation import Json, action_from_json, action_to_json
from ..variant import Ruleset

EXPAND_LIMIT = 20_000  # a depth is tabled when the positions one level above it are at most this many
MAX_DEPTH = 6
PERFT_LIMIT = 1_000_000  # positions one perft request may expand (spec/protocol.md, qttt perft)


class _Walk:
    """Perft counting with a budget of positions expanded (applied and asked for their legal
    actions), shared by every count it makes."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.expanded = 0

    def counts(self, state: GameState, depth: int, whole: int) -> list[int]:
        counts = [0] * depth

        def walk(s: GameState, level: int) -> None:
            legal = s.legal_actions()
            counts[level] += len(legal)
            if level + 1 < depth:
                self.expanded += len(legal)
                if self.limit is not None and self.expanded > self.limit:
                    raise UsageError(None, f"perft to depth {whole} expands more than "
                                     f"{self.limit:,} positions, the limit")
                for act in legal:
                    walk(s.apply(act), level + 1)

        if depth > 0:
            walk(state, 0)
        return counts


def perft_counts(state: GameState, depth: int, limit: int | None = None) -> list[int]:
    """The number of action sequences of length 1..depth from `state`; UsageError when that
    needs more than `limit` positions expanded."""
    return _Walk(limit).counts(state, depth, depth)


def perft(state: GameState, depth: int, limit: int | None = None) -> int:
    """The number of action sequences of length exactly `depth` (1 for depth 0)."""
    return perft_counts(state, depth, limit)[-1] if depth > 0 else 1


def divide(state: GameState, depth: int, limit: int | None = None) -> list[tuple[Json, int]]:
    """perft(depth) split by first action: (action JSON, sequences starting with it), sorted;
    `limit` bounds the positions expanded, as for `perft_counts`."""
    w = _Walk(limit)
    out = []
    for a in state.legal_actions():
        w.expanded += 1
        counts = w.counts(state.apply(a), depth - 1, depth)
        out.append((action_to_json(a), counts[-1] if depth > 1 else 1))
    return out


def table_depth(state: GameState, count: Callable[[int], list[int]] | None = None) -> list[int]:
    """Counts for depths 1..d, d the largest (up to MAX_DEPTH) with perft(d-1) <= EXPAND_LIMIT;
    `count(depth)` counts 1..depth from the position (default: `perft_counts` of `state`)."""
    counts: list[int] = []
    depth = 0
    while depth < MAX_DEPTH and (not counts or counts[-1] <= EXPAND_LIMIT):
        depth += 1
        counts = count(depth) if count is not None else perft_counts(state, depth)
        if counts[-1] == 0:
            break
    return counts


def perft_entries(rs: Ruleset, prefix: str) -> list[dict[str, Json]]:
    """The perft table of a ruleset: per position, counts by depth and the deepest divide."""
    entries = []
    for slug, description, actions in cases(rs).perft_positions(rs):
        state: GameState = new_game(rs)
        for a in actions:
            state = state.apply(action_from_json(a))
        counts = table_depth(state)
        entries.append({
            "id": f"{prefix}.perft.{slug}",
            "description": description,
            "start": {"variant": rs.canonical, "actions": actions},
            "counts": counts,
            "divide": [{"action": a, "nodes": n} for a, n in divide(state, len(counts))],
        })
    return entries
