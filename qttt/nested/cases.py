"""The cases and perft positions of a nested-classical ruleset's conformance suite.

Positions are found by seeded random play, so the same ruleset always gives the same cases; a
case a ruleset cannot reach (a bonus move without bonus = block-win) is simply absent, and the
coverage table shows what is left uncovered.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from ..conformance.casespec import CaseSpec, seed_of
from ..family import GameState, Mark
from ..notation import action_to_json
from ..ruleset import Ruleset
from .engine import AWARD_RULES, NestedState

Json = Any
SEARCH_GAMES = 300
Transition = tuple[NestedState, Mark, NestedState]


def mark(c: int) -> Json:
    """A mark as interchange JSON."""
    return {"mark": c}


def random_game(rs: Ruleset, seed: int) -> Iterator[Transition]:
    """A seeded uniform random game as (before, action, after) transitions."""
    rng = random.Random(seed)
    state = NestedState.initial(rs)
    while not state.over:
        legal = state.legal_actions()
        act = legal[rng.randrange(len(legal))]
        after = state.apply(act)
        yield state, act, after
        state = after


def search(rs: Ruleset, slug: str, description: str, found: Callable[[NestedState, Mark, NestedState], bool],
           extra: Callable[[NestedState], list[Json]] | None = None, to_end: bool = False) -> CaseSpec | None:
    """A case whose last step is the first transition of seeded random games where `found`
    holds, after one move of lead; `extra` adds steps (illegal ones) after it; `to_end` plays on."""
    base = seed_of(f"{rs.canonical}/{slug}")
    for trial in range(SEARCH_GAMES):
        actions: list[Json] = []
        for before, act, after in random_game(rs, base + trial):
            actions.append(action_to_json(act))
            if found(before, act, after):
                steps = actions[-2:]
                if extra is not None:
                    steps += extra(after)
                if to_end:
                    steps += [action_to_json(a) for _, a, _ in _continue(after, base + trial)]
                return CaseSpec(slug, description, tuple(actions[:-2]), tuple(steps))
    return None


def _continue(state: NestedState, seed: int) -> Iterator[Transition]:
    rng = random.Random(seed)
    while not state.over:
        legal = state.legal_actions()
        act = legal[rng.randrange(len(legal))]
        after = state.apply(act)
        yield state, act, after
        state = after


def _closed_cell(state: NestedState) -> list[Json]:
    """An empty cell of a closed block, if any: marking it breaks nested-block-closed."""
    n = state.ruleset.board
    side = n * n
    for c, m in enumerate(state.marks):
        r, col = divmod(c, side)
        if m is None and state.blocks[(r // n) * n + col // n] != "open":
            return [mark(c)]
    return []


def _outside_target(state: NestedState) -> list[Json]:
    """An empty cell of an open block the route does not name: it breaks nested-route."""
    legal = {a.cell for a in state.legal_actions()}
    n = state.ruleset.board
    side = n * n
    for c, m in enumerate(state.marks):
        r, col = divmod(c, side)
        if m is None and c not in legal and state.blocks[(r // n) * n + col // n] == "open":
            return [mark(c)]
    return []


def case_specs(rs: Ruleset) -> list[CaseSpec]:
    """Every case of a nested-classical ruleset's suite, in a fixed order."""
    cells = (rs.board ** 2) ** 2
    out: list[CaseSpec | None] = [
        CaseSpec("first-move", "The first move is free; then cells off the board, occupied or "
                 "outside the route are refused.",
                 (), (mark(cells), mark(0), mark(0), mark(cells - 1), mark(1)),
                 refs=("nested-board", "nested-first-move", "nested-cell-empty", "nested-route",
                       "nested-turn")),
        CaseSpec("malformed", "A quantum placement is not an action of a nested-classical game.",
                 (), ({"place": [0, 1]}, {"mark": -1}), refs=("record-format", "nested-board")),
        CaseSpec("variant-unknown", "an unknown ruleset name is refused", (), (), ("record-variant",),
                 variant="no-such-ruleset"),
        CaseSpec("variant-quantum-key", "a quantum parameter in a nested-classical ruleset is refused",
                 (), (), ("variant-file",), variant=f"{rs.base}(measurer=creator)"),
        CaseSpec("variant-bad-route", "a route naming a block off the board is refused", (), (),
                 ("variant-file",), variant=f"{rs.base}(route=[[{rs.board ** 2}]])"),
        search(rs, "route", "The next move must use a block the route names for the previous "
               "cell; others are refused.",
               lambda b, a, s: b.last is not None and s.target is not None and len(s.blocks) > 1,
               _outside_target),
        search(rs, "block-win", "A move completes a block pattern: the block is won and closed; its "
               "empty cells are refused.",
               lambda b, a, s: b.blocks.count("open") > s.blocks.count("open") and not s.over
               and "drawn" not in s.blocks and s.blocks.count("x") + s.blocks.count("o") == 1,
               _closed_cell),
        search(rs, "block-draw", "A move fills a block without winning it: the block is drawn.",
               lambda b, a, s: s.blocks.count("drawn") > b.blocks.count("drawn") and not s.over,
               _closed_cell),
        search(rs, "free-move", "The routed blocks are closed: any empty cell of an open block will "
               "do, none of a closed block.",
               lambda b, a, s: s.target is None and not s.over, _closed_cell),
        search(rs, "bonus", "Winning a block gives the same player one more move at once.",
               lambda b, a, s: s.bonus, to_end=False) if rs.rules.bonus != "none" else None,
        search(rs, "board-win", "A pattern of won blocks ends the game: the mover wins; no move is "
               "legal afterwards.", lambda b, a, s: s.winner is not None, lambda s: [mark(0)]),
        search(rs, "all-closed", "Every block is closed and no pattern of blocks formed: no winner; "
               "the draw awards score the game.",
               lambda b, a, s: s.over and s.winner is None, lambda s: [mark(0)]),
    ]
    return [c for c in out if c is not None]


def perft_positions(rs: Ruleset) -> list[tuple[str, str, list[Json]]]:
    """The positions of a nested-classical perft table: (slug, description, actions)."""
    out: list[tuple[str, str, list[Json]]] = [("start", "the empty board: any cell", [])]
    wanted: list[tuple[str, str, Callable[[NestedState, Mark, NestedState], bool]]] = [
        ("routed", "after one move: the routed block", lambda b, a, s: b.last is None),
        ("free-move", "a free move: the routed blocks are closed",
         lambda b, a, s: s.target is None and not s.over and b.last is not None)]
    for slug, description, found in wanted:
        base = seed_of(f"{rs.canonical}/perft/{slug}")
        for trial in range(SEARCH_GAMES):
            actions: list[Json] = []
            hit = False
            for before, act, after in random_game(rs, base + trial):
                actions.append(action_to_json(act))
                if found(before, act, after):
                    hit = True
                    break
            if hit:
                out.append((slug, description, actions))
                break
    return out


def start_refs(rs: Ruleset) -> set[str]:
    """Rule ids a case from the empty board exercises."""
    return {"nested-board", "nested-turn"}


def error_refs(rs: Ruleset, before: GameState) -> set[str]:
    """An illegal nested-classical action also exercises the order of the checks."""
    return {"nested-check-order"}


def move_refs(rs: Ruleset, before_state: GameState, action: Json, after_state: GameState) -> set[str]:
    """Rule ids a legal nested-classical move exercises, from what it did."""
    before, after = _nested(before_state), _nested(after_state)
    refs = {"nested-turn", "nested-cell-empty"}
    refs.add("nested-first-move" if before.last is None else
             "nested-route" if before.target is not None else "nested-free-move")
    if after.blocks != before.blocks:
        changed = next(a for a, b in zip(after.blocks, before.blocks, strict=True) if a != b)
        refs |= {"nested-block-closed", "nested-patterns"}
        refs.add("nested-block-draw" if changed == "drawn" else "nested-block-win")
        if changed != "drawn" and not after.over and (after.bonus or rs.rules.bonus == "none"):
            refs.add("nested-bonus")  # a bonus move follows, or (bonus = none) the turn passes
    if after.over:
        refs |= {"score-at-end", "nested-board-win" if after.winner else "nested-end-closed"}
        refs |= {AWARD_RULES[c.award] for c in rs.scoring}
    return refs


def _nested(state: GameState) -> NestedState:
    assert isinstance(state, NestedState)
    return state


def field_rules(rs: Ruleset, state: GameState) -> dict[str, tuple[str, ...]]:
    """Per field of the v1 state at `state` (and `legal`), the rules that decide it, most specific
    first."""
    ends = ("nested-board-win", "nested-end-closed")
    scores = ("nested-score-win", "nested-score-draw-blocks", "nested-score-draw-majority", "score-at-end",
              *ends) if state.over else ("score-at-end",)
    return {"variant": ("record-variant",), "to_move": ("nested-bonus", "nested-turn"),
            "board": ("nested-cell-empty",),
            "blocks": ("nested-block-win", "nested-block-draw", "nested-block-closed", "nested-patterns"),
            "target": ("nested-route", "nested-free-move", "nested-first-move"),
            "bonus": ("nested-bonus",),
            "move": ("nested-turn",),
            "phase": ends, "over": ends, "scores": scores,
            "legal": ("nested-route", "nested-free-move", "nested-first-move", "nested-cell-empty",
                      "nested-block-closed", "nested-bonus", "over-no-action")}
