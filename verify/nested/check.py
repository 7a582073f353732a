"""The checker's properties of a nested-classical ruleset: a legal move exists until the end, every
game ends, every end has a defined score. Each is proved by a short argument over the rules; the
argument's premises are then checked on every position of seeded random games, and a position that
breaks one is a violation with the game that reaches it as witness."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from fractions import Fraction

from qttt import Ruleset, load_ruleset
from qttt.family import Mark
from qttt.nested.engine import NestedState
from qttt.notation import action_to_json
from qttt.processes import Mapper, serial_mapper

from ..report import Confirmed, Report, finding

DEFAULT_GAMES = 200


def _block_cells(n: int, block: int) -> list[int]:
    side = n * n
    top, left = (block // n) * n, (block % n) * n
    return [(top + i) * side + left + j for i in range(n) for j in range(n)]


def points_range(rs: Ruleset, winner: bool) -> tuple[Fraction, Fraction]:
    """The fewest and the most points one player can get from the scoring components, in a won
    or a drawn game (a sound bound: each component's own range, added up; points may be negative)."""
    low = high = Fraction(0)
    blocks = rs.board ** 2
    for c in rs.scoring:
        if c.award == "win" and winner:
            low, high = low + min(c.get("points"), 0), high + max(c.get("points"), 0)
        elif c.award == "draw-blocks" and not winner:
            w = c.get("weights")
            weights = [Fraction(1)] * blocks if w == "equal" else list(w)
            low += sum((v for v in weights if v < 0), Fraction(0))
            high += sum((v for v in weights if v > 0), Fraction(0))
        elif c.award == "draw-majority" and not winner:
            given = (c.get("more"), c.get("fewer"), c.get("equal"))
            low, high = low + min(given), high + max(given)
    return low, high


def position_failures(rs: Ruleset, state: NestedState, actions: Sequence[Mark]) -> list[tuple[str, str]]:
    """The nested properties failing at the position `actions` reach: a legal move until the end,
    one cell filled per move, an open block with an empty cell, a defined score at the end."""
    cells = (rs.board ** 2) ** 2
    found = []
    marks = state.marks
    if sum(m is None for m in marks) != cells - len(actions):
        found.append(("nested-termination", f"after {len(actions)} moves {sum(m is not None for m in marks)} "
                      "cells are filled: a move did not fill exactly one empty cell"))
    for b, status in enumerate(state.blocks):
        if status == "open" and all(marks[c] is not None for c in _block_cells(rs.board, b)):
            found.append(("nested-legal-move", f"block {b} is open with no empty cell"))
    if not state.over:
        if not state.legal_actions():
            found.append(("nested-legal-move", "a position that is not over has no legal move"))
        return found
    winner = state.winner
    if winner is None and "open" in state.blocks:
        found.append(("nested-scores-defined", "the game ended without a winner with a block open"))
    low, high = points_range(rs, winner is not None)
    if any(not low <= v <= high for v in state.scores.values()):
        found.append(("nested-scores-defined", f"a score outside {low}..{high}: {state.scores}"))
    if winner is not None and state.scores["o" if winner == "x" else "x"] != 0:
        found.append(("nested-scores-defined", "the loser of a won game scored"))
    return found


def confirm_nested(rs: Ruleset, variant: str, prop: str, actions: Sequence[Mark]) -> Confirmed | None:
    """The nested family's `confirm`: replay the moves from the start with the engine and return
    the game when prop fails at the position they reach."""
    state = NestedState.initial(rs)
    try:
        for act in actions:
            state = state.apply(act)
    except Exception:
        return None
    for p, shows in position_failures(rs, state, actions):
        if p == prop:
            return Confirmed({"variant": variant, "actions": [action_to_json(a) for a in actions]}, shows)
    return None


def check_nested(spec: str, *, games: int | None = None, seed: int = 0, mapper: Mapper = serial_mapper,
                 **options: object) -> Report:
    """Settle the nested-classical properties of the ruleset named by spec over `games` seeded
    random games: each is argued from the rules by hand (status `argued`, never `proved`), its
    premises checked at every position of the games; the quantum checker's other options
    (progress, timeout, exhaustive, …) have nothing to settle here. The whole check is one unit of
    work on `mapper`."""
    report: Report = next(iter(mapper(settle_nested, [(spec, load_ruleset(spec), games, seed)])))
    return report


def settle_nested(spec: str, rs: Ruleset, games: int | None, seed: int) -> Report:
    """`check_nested` of rs (named spec in its records), in the process that runs it."""
    games = games or DEFAULT_GAMES
    cells = (rs.board ** 2) ** 2
    rng = random.Random(seed)
    t0 = time.perf_counter()
    broken: dict[str, Confirmed] = {}
    longest = 0
    ends = {"x": 0, "o": 0, "none": 0}
    for _ in range(games):
        state = NestedState.initial(rs)
        actions: list[Mark] = []
        while True:
            for prop, _ in position_failures(rs, state, actions):
                if prop not in broken:
                    w = confirm_nested(rs, spec, prop, actions)
                    if w is not None:
                        broken[prop] = w
            legal = state.legal_actions()
            if state.over or not legal:
                break
            act = legal[rng.randrange(len(legal))]
            actions.append(act)
            state = state.apply(act)
        longest = max(longest, len(actions))
        if state.over:
            ends[state.winner or "none"] += 1
    sampled = time.perf_counter() - t0
    findings = []
    argument = {
        "nested-legal-move": "argued by hand: a block is closed as soon as it has no empty cell "
        "(nested-block-win, nested-block-draw) and the game ends when no block is open (nested-end-closed), "
        "so a position that is not over has an empty cell in an open block; the route or, failing it, the "
        f"free move allows it (nested-route, nested-free-move); the premise checked on every position of "
        f"{games} sampled games",
        "nested-termination": f"argued by hand: every move fills one empty cell of the {cells} "
        f"(nested-cell-empty), so no game has more than {cells} moves; checked on {games} sampled games, "
        f"the longest {longest} moves",
        "nested-scores-defined": "argued by hand: only the mover's marks change, so at most one player "
        "completes a pattern of blocks and a won game has one winner (nested-board-win); otherwise every "
        "block is closed and the draw awards score the blocks (nested-end-closed); scores checked against "
        f"the awards' range on {games} sampled games ({ends['x']} won by x, {ends['o']} by o, "
        f"{ends['none']} without a winner)",
    }
    for prop, method in argument.items():
        parts = [("argued", "argued from the rules (by hand, not by machine)"),
                 ("sampled", f"sampled ({games} game{'s' * (games != 1)})")]
        findings.append(finding(prop, parts, method, 0.0, broken.get(prop),
                                {"sampled_games": games, "longest": longest, "ends": ends}
                                if prop == "nested-scores-defined" else None))
        findings[-1].shared = ("games",)  # every property rests on the same games
    return Report(spec, rs.name, rs.canonical, rs.board ** 2, findings, games, sampled, None,
                  "engine (Python) only: the compiled core plays quantum rulesets",
                  {"games": (f"{games} sampled games", sampled)})
