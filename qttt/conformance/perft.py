"""Perft: the number of action sequences of each length from a position, as chess engines count
them, and `divide`, the same count split by first action.

Every action counts: placements, measurements (each choice of cell) and the forced last-square
placement. A finished game has no continuation, so sequences that reach the end early are not
counted at greater depths. One walk serves every position: an engine state (`GameState`), or a
compiled core's position (`family.CorePosition`), which counts its own subtrees.
"""

from __future__ import annotations

from typing import Any, TypeGuard, cast

from ..errors import UsageError
from ..family import CorePosition, GameState, cases
from ..games import new_game
from ..notation import Json, action_from_json, action_to_json
from ..ruleset import Ruleset

EXPAND_LIMIT = 20_000  # a depth is tabled when the positions one level above it are at most this many
MAX_DEPTH = 6
PERFT_LIMIT = 1_000_000  # positions one perft request may expand (spec/protocol.md, qttt perft)


Position = GameState | CorePosition


def _counts_itself(p: Position) -> TypeGuard[CorePosition]:
    return hasattr(p, "perft")


def children(p: Position) -> list[tuple[Any, Position]]:
    """Each legal action, in order, with the position after it."""
    if not _counts_itself(p):
        state = cast(GameState, p)
        return [(a, state.apply(a)) for a in state.legal_actions()]
    out: list[tuple[Any, Position]] = []
    for a in p.legal():
        child = p.copy()
        child.apply(a)
        out.append((a, child))
    return out


class _Walk:
    """Perft counting with a budget of positions expanded (applied and asked for their legal
    actions), shared by every count it makes."""

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.expanded = 0

    def refuse(self, whole: int) -> UsageError:
        return UsageError(None, f"perft to depth {whole} expands more than {self.limit:,} positions, "
                          "the limit")

    def counts(self, state: Position, depth: int, whole: int) -> list[int]:
        """Counts for depths 1..depth, one depth at a time: before each, the positions it must
        expand (every shorter sequence, known from the depth before) are held to the budget, so
        a request beyond it is refused after at most the work of the depths that fit, never
        after spending the budget; once a depth counts 0 the deeper ones are 0 too."""
        counts: list[int] = []
        for d in range(1, depth + 1):
            if counts and counts[-1] == 0:
                return counts + [0] * (depth - len(counts))
            if self.limit is not None and self.expanded + sum(counts) > self.limit:
                raise self.refuse(whole)
            counts = state.perft(d) if _counts_itself(state) else _walk(cast(GameState, state), d)
        self.expanded += sum(counts[:-1])
        return counts


def _walk(state: GameState, depth: int) -> list[int]:
    """The number of action sequences of length 1..depth from `state`, by the engine."""
    counts = [0] * depth

    def walk(s: GameState, level: int) -> None:
        legal = s.legal_actions()
        counts[level] += len(legal)
        if level + 1 < depth:
            for act in legal:
                walk(s.apply(act), level + 1)

    if depth > 0:
        walk(state, 0)
    return counts


def perft_counts(state: Position, depth: int, limit: int | None = None) -> list[int]:
    """The number of action sequences of length 1..depth from `state`; UsageError when that
    needs more than `limit` positions expanded."""
    return _Walk(limit).counts(state, depth, depth)


def perft(state: Position, depth: int, limit: int | None = None) -> int:
    """The number of action sequences of length exactly `depth` (1 for depth 0)."""
    return perft_counts(state, depth, limit)[-1] if depth > 0 else 1


def divide(state: Position, depth: int, limit: int | None = None) -> list[tuple[Json, int]]:
    """perft(depth) split by first action: (action JSON, sequences starting with it), sorted;
    `limit` bounds the positions expanded, as for `perft_counts` (checked first, on the whole)."""
    if limit is not None:
        perft_counts(state, depth, limit)
    w = _Walk(None)
    out = []
    for a, child in children(state):
        counts = w.counts(child, depth - 1, depth)
        out.append((action_to_json(a), counts[-1] if depth > 1 else 1))
    return out


def short(action: Json) -> str:
    """An action as --divide names it: its cells joined by - (0-8 a placement, 4 a measurement)."""
    numbers: list[int] = []

    def walk(value: Any) -> None:
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            numbers.append(value)
        elif isinstance(value, list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for v in value.values():
                walk(v)
    walk(action)
    return "-".join(map(str, numbers))


def table_depth(state: Position) -> list[int]:
    """Counts for depths 1..d, d the largest (up to MAX_DEPTH) with perft(d-1) <= EXPAND_LIMIT."""
    counts: list[int] = []
    depth = 0
    while depth < MAX_DEPTH and (not counts or counts[-1] <= EXPAND_LIMIT):
        depth += 1
        counts = perft_counts(state, depth)
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
