"""The classical family's catalogue (n×n tic-tac-toe, k in a row): the properties its checker
(verify/classical/check.py) settles for a ruleset; stable ids, never reused."""

from __future__ import annotations

from ..catalogue import Property

PROPERTIES: tuple[Property, ...] = (
    Property(
        "classical-legal-move", "A legal move exists until the end",
        "Every position of a classical game that is not over (no line, an empty cell) has a legal move.",
        ("classical-cell-empty", "classical-line", "classical-full"),
        "every classical ruleset",
        "proved by Z3 over the checker's model of the rules, for every position of the board; the engine "
        "compared with that model (classical-engine-agrees).",
    ),
    Property(
        "classical-termination", "Every game ends",
        "Every move fills one empty cell, so no classical game has more moves than the board has cells.",
        ("classical-cell-empty", "classical-full"),
        "every classical ruleset",
        "proved by Z3 over the model: every allowed cell is empty, and a move fills exactly one.",
    ),
    Property(
        "classical-one-winner", "At most one player completes a line",
        "After a move the other player completes no line: a won game has exactly one winner, the mover.",
        ("classical-line", "classical-turn"),
        "every classical ruleset",
        "proved by Z3 over the model, for every position and every cell moved in.",
    ),
    Property(
        "classical-scores-defined", "Every end has a defined score",
        "Every finished game is won by exactly one player or is a full board without a line; the points are "
        "1 and 0, or 1/2 each.",
        ("classical-line", "classical-full", "classical-score", "score-at-end"),
        "every classical ruleset",
        "proved by Z3 over the model, for every end.",
    ),
    Property(
        "classical-engine-agrees", "The engine follows the rules",
        "Replaying the same moves, the engine holds the position the rules give (v1 state), lists the "
        "legal moves, refuses every other cell under the rule the rules name and reaches the position the "
        "rules give after each move; its random games for a seed are the rules' random games.",
        ("classical-board", "classical-turn", "classical-cell-empty", "classical-line", "classical-full",
         "classical-score", "over-no-action"),
        "every classical ruleset",
        "the checker's own model of the rules (verify/classical/model.py, from the rule statements) against "
        "the engine: at every class of positions (positions equal up to a symmetry of the square) of the "
        "3×3 board and of the real board (to a depth above 3×3), and at every position of random games of "
        "the real board.",
    ),
)
NOTES: dict[str, str] = {}  # its walks are described in each finding's method
