"""The nested-classical family's catalogue (Intelligent Tic-Tac-Toe and its editions): the
properties its checker (verify/nested/check.py) settles for a ruleset; stable ids, never reused."""

from __future__ import annotations

from ..catalogue import Property

PROPERTIES: tuple[Property, ...] = (
    Property(
        "nested-legal-move", "A legal move exists until the end",
        "Every position of a nested-classical game that is not over has a legal move.",
        ("nested-block-draw", "nested-block-win", "nested-end-closed", "nested-route", "nested-free-move"),
        "every nested-classical ruleset",
        "argued from the rules by hand (a block without an empty cell is closed; the free move opens "
        "every empty cell of an open block), not by machine; its premise checked on every position of "
        "sampled games.",
    ),
    Property(
        "nested-termination", "Every game ends",
        "No nested-classical game has more moves than the board has cells.",
        ("nested-cell-empty", "nested-end-closed"),
        "every nested-classical ruleset",
        "argued from the rules by hand: each move fills one empty cell; sampled game lengths.",
    ),
    Property(
        "nested-scores-defined", "Every end has a defined score",
        "Every finished game is won by exactly one player or ends with every block closed, and each "
        "player's score lies within the range its scoring components allow.",
        ("nested-board-win", "nested-end-closed", "nested-score-win", "nested-score-draw-blocks",
         "nested-score-draw-majority", "score-at-end"),
        "every nested-classical ruleset",
        "argued from the rules by hand: only the mover completes patterns, so a won game has one winner; "
        "scores of sampled games against the awards' range.",
    ),
)
NOTES: dict[str, str] = {}  # its checker walks no positions
