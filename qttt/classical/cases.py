"""The conformance cases and perft positions of a classical ruleset."""

from __future__ import annotations

import random
from typing import Any

from ..conformance.casespec import CaseSpec, seed_of
from ..family import GameState
from ..ruleset import Ruleset
from .engine import ClassicalState

Json = Any


def mark(c: int) -> Json:
    """A mark as interchange JSON."""
    return {"mark": c}


def _line_game(rs: Ruleset) -> list[Json]:
    """X completes the first row's first k cells while O plays on the last row (k < n or n ≥ 3) or
    the middle: the shortest win for X."""
    n = rs.board
    k = rs.rules.end_line or n
    last_row = (n - 1) * n
    out: list[Json] = []
    for i in range(k):
        out.append(mark(i))
        if i < k - 1:
            out.append(mark(last_row + i))
    return out


def _draw(rs: Ruleset) -> list[Json] | None:
    """A game that fills the board without a line, found by seeded random play that never completes
    a line when it can avoid it; None when 200 such games all end in a line."""
    rng = random.Random(seed_of(f"{rs.canonical}/draw"))
    for _ in range(200):
        state, actions = ClassicalState.initial(rs), list[Json]()
        while not state.over:
            legal = state.legal_actions()
            quiet = [a for a in legal if not state.apply(a).over] or list(legal)
            act = quiet[rng.randrange(len(quiet))]
            actions.append(mark(act.cell))
            state = state.apply(act)
        if state.winner is None:
            return actions
    return None


def case_specs(rs: Ruleset) -> list[CaseSpec]:
    """Every case of a classical ruleset's suite, in a fixed order."""
    cells = rs.board * rs.board
    win = _line_game(rs)
    draw = _draw(rs)
    full = ([CaseSpec("full-board", "A board filled without a line is a draw: 1/2 each.", tuple(draw[:-1]),
                      (draw[-1],), refs=("classical-full", "classical-score"))] if draw else [])
    return [*full,
        CaseSpec("first-move", "X moves first; a cell off the board, a taken cell and another family's "
                 "action are refused.", (), (mark(cells), mark(0), mark(0), {"place": [1, 2]}),
                 refs=("classical-board", "classical-turn", "classical-cell-empty", "record-format")),
        CaseSpec("line-wins", "Completing k in a row wins at once; then no action is legal.",
                 tuple(win[:-1]), (win[-1], mark(cells - 1)),
                 refs=("classical-line", "classical-score", "over-no-action")),
        CaseSpec("variant-unknown", "an unknown ruleset name is refused", (), (), ("record-variant",),
                 variant="no-such-ruleset"),
        CaseSpec("variant-quantum-key", "a quantum parameter in a classical ruleset is refused", (), (),
                 ("variant-file",), variant="qttt(game=classical,measurer=creator)"),
        CaseSpec("variant-long-line", "a line longer than the board is refused", (), (), ("variant-file",),
                 variant=f"qttt(game=classical,board={rs.board},end_line={rs.board + 1})"),
    ]


def perft_positions(rs: Ruleset) -> list[tuple[str, str, list[Json]]]:
    """The positions of a classical perft table: the empty board and after one move."""
    return [("start", "the empty board", []), ("after-one", "after X's first mark", [mark(0)])]


def start_refs(rs: Ruleset) -> set[str]:
    """Rule ids a case from the empty board exercises."""
    return {"classical-board", "classical-turn"}


def error_refs(rs: Ruleset, before: GameState) -> set[str]:
    """No rule beyond the one an illegal classical action breaks."""
    return set()


def move_refs(rs: Ruleset, before: GameState, action: Json, after: GameState) -> set[str]:
    """Rule ids a legal classical move exercises, from what it did."""
    assert isinstance(after, ClassicalState)
    refs = {"classical-turn", "classical-cell-empty"}
    if after.over:
        refs |= {"score-at-end", "classical-score", "classical-line" if after.winner else "classical-full"}
    return refs


def field_rules(rs: Ruleset, state: GameState) -> dict[str, tuple[str, ...]]:
    """Per field of the v1 state at `state` (and `legal`), the rules that decide it, most specific
    first."""
    ends = ("classical-line", "classical-full")
    scores = ("classical-score", "score-at-end", *ends) if state.over else ("score-at-end",)
    return {"variant": ("record-variant",), "to_move": ("classical-turn",),
            "board": ("classical-cell-empty",), "move": ("classical-turn",),
            "phase": ends, "over": ends, "scores": scores,
            "legal": ("classical-cell-empty", "over-no-action", *ends)}
