"""The catalogue of properties the checker settles for a ruleset: stable ids, never reused."""

from __future__ import annotations

from dataclasses import dataclass

STATUSES = ("proved", "exhaustive", "sampled", "unknown", "violated")
"""From least to most severe: proved for every game (Z3, or exhaustive analysis of the rules); the
engine checked at every reachable position (up to a stated merging); the engine checked in sampled
games only; not settled; a witness game shows the failure. A property's status is the weakest of
the parts that settle it, and its label says how each part was settled."""
LABELS = {"proved": "proved", "exhaustive": "exhaustive (engine)", "sampled": "sampled (engine)",
          "unknown": "unknown", "violated": "violated"}


@dataclass(frozen=True)
class Property:
    """A property: its stable id, a plain statement, the rule ids it rests on (spec/rules.toml),
    the rulesets it applies to and how the checker settles it."""

    id: str
    title: str
    statement: str
    rules: tuple[str, ...]
    applies_to: str
    method: str


PROPERTIES: tuple[Property, ...] = (
    Property(
        "single-cycle-per-move", "One cycle per placement",
        "Before each placement the entanglement graph of the open cells is a forest, so a placement closes "
        "at most one cycle: exactly one, which contains the new move, when its two cells were already "
        "entangled (a repeated pair is a 2-cycle), and none otherwise.",
        ("entanglement", "cycle-close", "place-two-cycle"),
        "every quantum ruleset, any board size (forbidding 2-cycles only removes cases)",
        "Z3 over every forest on the board's n² cells plus any new edge; the same claims without symmetry "
        "reduction up to 6 cells; enumeration of every forest up to 6 cells; the engine's live graph in "
        "sampled games.",
    ),
    Property(
        "collapse-uniqueness", "A measurement has exactly two outcomes",
        "For each of the two cells of the cycle-closing move there is exactly one way to make every mark "
        "of the cycle's component classical in one of its two cells with one mark per cell, and the two "
        "ways give different marks to exactly the cycle's cells.",
        ("measure-cell", "collapse-component"),
        "every quantum ruleset, components of 2..n² cells",
        "Z3 per component size (at most one, a constructive outcome, and for up to 9 cells a quantified "
        "existence query; outcomes differ exactly on the cycle); unreduced encodings up to 6 cells; "
        "enumeration of every unicyclic graph up to 6 cells; every measurement in sampled games against "
        "the enumerated outcome.",
    ),
    Property(
        "collapse-totality", "A measurement settles its whole component and nothing else",
        "After a measurement every cell of the collapsed component holds exactly one classical mark and "
        "every mark of the component is classical in one of its two cells; forcing from the measured "
        "cell reaches every mark; no mark outside the component moves (marks outside stay, or vanish "
        "when untouched = vanish).",
        ("collapse-component", "collapse-untouched", "classical-fixed"),
        "every quantum ruleset",
        "Z3 per component size (forcing from the measured cell reaches every mark; the constructive "
        "outcome is valid); every measurement in sampled games (component classical, outside unchanged "
        "or vanished).",
    ),
    Property(
        "turn-order", "The right player acts",
        "Placements alternate x, o, x, ... by move number, and a pending cycle is measured by the player the "
        "ruleset names (the opponent of its creator, or the creator); nobody acts once the game is over.",
        ("turn-order", "measure-by", "turn-after-measure", "over-no-action"),
        "every quantum ruleset",
        "the engine's player to act compared with the rules at every position of sampled games and of the "
        "exhaustive walk.",
    ),
    Property(
        "no-deadlock", "A game never gets stuck",
        "Every position that is not over has a legal action.",
        ("place-open", "place-distinct", "place-two-cycle", "measure-pending", "turn-after-measure",
         "last-square", "end-full", "over-no-action"),
        "every quantum ruleset",
        "exhaustive over the component-size abstraction (exact for which actions are legal; the end by "
        "a line is ignored, which only adds positions); a deadlock is confirmed by a game the engine "
        "replays; the engine matched the abstraction on sampled positions.",
    ),
    Property(
        "termination", "Every game ends within a computed bound",
        "No game has more actions than the bound the checker computes (the longest action sequence of "
        "the component-size abstraction); with no-deadlock, every game ends within it; the engine ends a "
        "game exactly when the end rules say.",
        ("turn-order", "cycle-close", "collapse-component", "end-line", "end-full", "last-square"),
        "every quantum ruleset",
        "exhaustive longest path of the component-size abstraction (acyclic: each placement merges "
        "components or closes a cycle, each measurement makes cells classical); a game of that length "
        "replayed by the engine when one exists; sampled game lengths.",
    ),
    Property(
        "scores-well-defined", "Scores are well defined",
        "Every finished game gets exactly one score per player; no simultaneous lines are left equal by "
        "the criteria the sources state (so that the result rests on a fallback or an award no source "
        "states); the declared score range of each player is tight (both ends are reached).",
        ("score-at-end", "score-per-pattern", "score-first-line", "score-tie-gap", "score-rank",
         "pattern-line", "pattern-square"),
        "every quantum ruleset; ties concern first-line awards with source criteria; the range is "
        "computed up to 4×4",
        "case analysis of the awards (min-max never ties; min-sum only on lines of even length), a "
        "designed game the engine replays for a possible tie; the declared range exhaustive over every "
        "set of cells a player can hold, its ends reached by designed games; scores of sampled games.",
    ),
)

# The nested-classical family (Intelligent Tic-Tac-Toe and its editions): verify/nested.py.
NESTED_PROPERTIES: tuple[Property, ...] = (
    Property(
        "nested-legal-move", "A legal move exists until the end",
        "Every position of a nested-classical game that is not over has a legal move.",
        ("nested-block-draw", "nested-block-win", "nested-end-closed", "nested-route", "nested-free-move"),
        "every nested-classical ruleset",
        "proof by the rules (a block without an empty cell is closed; the free move opens every empty "
        "cell of an open block); its premise checked on every position of sampled games.",
    ),
    Property(
        "nested-termination", "Every game ends",
        "No nested-classical game has more moves than the board has cells.",
        ("nested-cell-empty", "nested-end-closed"),
        "every nested-classical ruleset",
        "proof: each move fills one empty cell; sampled game lengths.",
    ),
    Property(
        "nested-scores-defined", "Every end has a defined score",
        "Every finished game is won by exactly one player or ends with every block closed, and each "
        "player's score lies within the range its scoring components allow.",
        ("nested-board-win", "nested-end-closed", "nested-score-win", "nested-score-draw-blocks",
         "nested-score-draw-majority", "score-at-end"),
        "every nested-classical ruleset",
        "proof: only the mover completes patterns, so a won game has one winner; scores of sampled games "
        "against the awards' range.",
    ),
)
PROPERTIES = PROPERTIES + NESTED_PROPERTIES

BY_ID = {p.id: p for p in PROPERTIES}
