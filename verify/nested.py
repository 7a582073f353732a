"""The checker's properties of a nested-classical ruleset: a legal move exists until the end, every
game ends, every end has a defined score. Each is proved by a short argument over the rules; the
argument's premises are then checked on every position of seeded random games, and a position that
breaks one is a violation with the game that reaches it as witness."""

from __future__ import annotations

import random
import time
from fractions import Fraction

from qttt import Ruleset, load_ruleset
from qttt.family import Mark
from qttt.nested.engine import NestedState
from qttt.notation import action_to_json

from .check import Report, finding
from .witness import Witness

DEFAULT_GAMES = 200


def _block_cells(n: int, block: int) -> list[int]:
    side = n * n
    top, left = (block // n) * n, (block % n) * n
    return [(top + i) * side + left + j for i in range(n) for j in range(n)]


def max_points(rs: Ruleset, winner: bool) -> Fraction:
    """The most points one player can get from the scoring components, in a won or drawn game."""
    total = Fraction(0)
    blocks = rs.board ** 2
    for c in rs.scoring:
        if c.award == "win" and winner:
            total += c.get("points")
        elif c.award == "draw-blocks" and not winner:
            w = c.get("weights")
            total += blocks if w == "equal" else sum(w, Fraction(0))
        elif c.award == "draw-majority" and not winner:
            total += max(c.get("more"), c.get("fewer"), c.get("equal"))
    return total


def check_nested(spec: str, *, games: int | None = None, seed: int = 0, **options: object) -> Report:
    """Settle the nested-classical properties of the ruleset named by spec over `games` seeded
    random games; the quantum checker's other options (progress, timeout, exhaustive, …) have
    nothing to settle here."""
    rs = load_ruleset(spec)
    games = games or DEFAULT_GAMES
    cells = (rs.board ** 2) ** 2
    block_cells = [_block_cells(rs.board, b) for b in range(rs.board ** 2)]
    rng = random.Random(seed)
    t0 = time.perf_counter()
    broken: dict[str, Witness] = {}
    longest = 0
    ends = {"x": 0, "o": 0, "none": 0}
    for _ in range(games):
        state = NestedState.initial(rs)
        actions: list[Mark] = []

        def fail(prop: str, shows: str, actions: list[Mark] = actions) -> None:
            record = {"variant": rs.canonical, "actions": [action_to_json(a) for a in actions]}
            broken.setdefault(prop, Witness(record, shows))

        while not state.over:
            legal = state.legal_actions()
            if not legal:
                fail("nested-legal-move", "a position that is not over has no legal move")
                break
            marks = state.marks
            if sum(m is None for m in marks) != cells - len(actions):
                fail("nested-termination", "a move did not fill exactly one empty cell")
            for b, status in enumerate(state.blocks):
                if status == "open" and all(marks[c] is not None for c in block_cells[b]):
                    fail("nested-legal-move", "an open block has no empty cell")
            act = legal[rng.randrange(len(legal))]
            actions.append(act)
            state = state.apply(act)
        longest = max(longest, len(actions))
        if state.over:
            winner = state.winner
            ends[winner or "none"] += 1
            if winner is None and "open" in state.blocks:
                fail("nested-scores-defined", "the game ended without a winner with a block open")
            best = max_points(rs, winner is not None)
            if any(v < 0 or v > best for v in state.scores.values()):
                fail("nested-scores-defined", f"a score outside 0..{best}")
            if winner is not None and state.scores["o" if winner == "x" else "x"] != 0:
                fail("nested-scores-defined", "the loser of a won game scored")
    sampled = time.perf_counter() - t0
    findings = []
    argument = {
        "nested-legal-move": "proof: a block is closed as soon as it has no empty cell (nested-block-win, "
        "nested-block-draw) and the game ends when no block is open (nested-end-closed), so a position "
        "that is not over has an empty cell in an open block; the route or, failing it, the free move "
        f"allows it (nested-route, nested-free-move); the premise checked on every position of {games} "
        "sampled games",
        "nested-termination": f"proof: every move fills one empty cell of the {cells} (nested-cell-empty), "
        f"so no game has more than {cells} moves; checked on {games} sampled games, the longest "
        f"{longest} moves",
        "nested-scores-defined": "proof: only the mover's marks change, so at most one player completes "
        "a pattern of blocks and a won game has one winner (nested-board-win); otherwise every block is "
        "closed and the draw awards score the blocks (nested-end-closed); scores checked against the "
        f"awards' range on {games} sampled games ({ends['x']} won by x, {ends['o']} by o, "
        f"{ends['none']} without a winner)",
    }
    for prop, method in argument.items():
        witness = broken.get(prop)
        parts = [("proved", "argued from the rules (by hand)"), ("sampled", f"sampled ({games} games)")]
        findings.append(finding(prop, parts, method, sampled / 3, witness,
                                {"sampled_games": games, "longest": longest, "ends": ends}
                                if prop == "nested-scores-defined" else None))
    return Report(spec, rs.name, rs.canonical, rs.board ** 2, findings, games, sampled)
