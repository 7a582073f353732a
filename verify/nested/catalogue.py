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
        "proved by Z3 over the checker's model of the rules for every position of the board satisfying an "
        "invariant that the empty board satisfies and every move keeps (a block at a time, then the board "
        "of blocks); both cores compared with that model (nested-cores-agree).",
    ),
    Property(
        "nested-termination", "Every game ends",
        "Every move fills one empty cell, so no nested-classical game has more moves than the board has "
        "cells.",
        ("nested-cell-empty", "nested-block-closed", "nested-route", "nested-free-move", "nested-end-closed"),
        "every nested-classical ruleset",
        "proved by Z3 over the model: every cell the rules allow is an empty cell of an open block, and a "
        "move fills exactly one.",
    ),
    Property(
        "nested-one-winner", "At most one player completes a pattern",
        "After a move, the other player completes no block pattern in the block moved in and owns no board "
        "pattern of blocks: a won game has exactly one winner, the mover.",
        ("nested-block-win", "nested-board-win", "nested-turn"),
        "every nested-classical ruleset",
        "proved by Z3 over the model, for every content of a block and every state of the blocks.",
    ),
    Property(
        "nested-scores-defined", "Every end has a defined score",
        "Every finished game is won by exactly one player or ends with every block closed and no pattern of "
        "blocks; the loser of a won game scores nothing, and each player's score lies within the range its "
        "scoring components allow.",
        ("nested-board-win", "nested-end-closed", "nested-score-win", "nested-score-draw-blocks",
         "nested-score-draw-majority", "score-at-end"),
        "every nested-classical ruleset",
        "proved by Z3 over the model, for every state of the blocks at an end.",
    ),
    Property(
        "nested-cores-agree", "Both cores follow the rules",
        "Replaying the same moves, the Python engine and the compiled core hold the position the rules give "
        "(v1 state: marks and move numbers, block states, target, bonus, player, scores), list the legal "
        "moves, refuse every other cell under the rule nested-check-order names and reach the position the "
        "rules give after each move; the core's random-game writer writes the engine's random games for a "
        "seed, its perft counts and its rollouts' points are the rules'; the core never crashes or hangs.",
        ("nested-check-order", "nested-turn", "nested-route", "nested-block-win", "nested-block-draw",
         "nested-board-win", "nested-bonus", "score-at-end"),
        "every nested-classical ruleset (the compiled core where a C compiler is available, boards up to "
        "8×8 blocks)",
        "the checker's own model of the rules (verify/nested/model.py, from the documents) against both "
        "cores, the core out of process: at every class of positions of the ruleset on 2×2 blocks, on 3×3 "
        "blocks to a depth, and at every position of the rules' random games of the real board, which the "
        "engine's and the core's random games for the seed must be.",
    ),
)
NOTES: dict[str, str] = {}  # its walks are described in each finding's method
