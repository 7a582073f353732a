"""The quantum family's catalogue: the properties its checker settles for a ruleset (stable ids,
never reused), and the sentences its reports use."""

from __future__ import annotations

from ..catalogue import Property

SHAPE_KEY = ("Shape key: two positions are one shape class when their open cells' entanglement graphs "
             "are isomorphic (the pending move marked) with the same phase and parity of the next move; "
             "the rules' legal actions and the shapes they lead to depend on nothing else")
"""The walk's key (`verify.quantum.exhaustive.shape_key`) in a sentence, for reports."""

REFUSAL_ORDER = ("over-no-action", "chance-turn", "measure-pending", "board-cells", "place-open",
                 "place-distinct", "place-two-cycle", "measure-cell", "chance-outcome")
"""The rules an illegal action can break, in the order rule check-order reports them (after
record-format, which a well-formed action never breaks): the rule the checker expects the engine
(and the compiled core) to name when refusing an action. Rule collapse-chance is broken in two
places of the order, named here by what breaks it (`RULE_OF`)."""
RULE_OF = {"chance-turn": "collapse-chance", "chance-outcome": "collapse-chance"}
"""The rule of each REFUSAL_ORDER entry that is not a rule id itself: an action other than an
outcome during a chance turn, or an outcome outside one; an outcome the chance turn does not offer."""


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
        "ways give different marks to exactly the cycle's cells. Under a chance collapse the measurement "
        "names a cell and a chance turn offers exactly these two outcomes, the named cell with "
        "probability p and the other with 1 − p, positive and summing to one (at p = 1 the other, of "
        "probability 0, is not offered).",
        ("measure-cell", "collapse-component", "collapse-chance"),
        "every quantum ruleset, components of 2..n² cells",
        "Z3 per component size (at most one, a constructive outcome, and for up to 9 cells a quantified "
        "existence query; outcomes differ exactly on the cycle); unreduced encodings up to 6 cells; "
        "enumeration of every unicyclic graph up to 6 cells; every measurement in sampled games against "
        "the enumerated outcome; every chance turn of sampled games and of the walk against the "
        "checker's own list of outcomes and probabilities (exact fractions).",
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
        "ruleset names (the opponent of its creator, or the creator; under collapse = chance-second, o "
        "names the cell); chance acts right after a chance measurement, and only then; nobody acts once "
        "the game is over.",
        ("turn-order", "measure-by", "collapse-chance", "turn-after-measure", "over-no-action"),
        "every quantum ruleset",
        "the checker's own count of the placements played gives the next move number, the pending move "
        "and who acts (never read back from the engine); compared with the engine's at every position of "
        "sampled games and of the walk.",
    ),
    Property(
        "legal-actions", "Exactly the legal actions are allowed",
        "At every position the engine lists exactly the actions the rules allow, and refuses every "
        "other action of the board's action space (every placement, every measurement, every chance "
        "outcome, a cell off the board) naming the first rule it breaks in the order of rule check-order.",
        ("check-order", "over-no-action", "collapse-chance", "measure-pending", "board-cells", "place-open",
         "place-distinct", "place-two-cycle", "measure-cell"),
        "every quantum ruleset",
        "every action of the action space tried at every position of sampled games and of the walk, "
        "against the checker's own reading of the rules.",
    ),
    Property(
        "cores-agree",
        "The compiled core and the framework adapters give the engine's output at every position",
        "At every position, each path of the compiled core registered with the checker (verify.paths) "
        "gives the engine's output: replaying the same actions the core holds the same position (phase, "
        "move numbers, pending cycle, player to act, classical and spooky marks, scores), lists the same "
        "legal actions, refuses every other action under the same rule and reaches the same position after "
        "each legal action; qttt replay --json writes the engine's state of the position's record; perft "
        "counts the same; the position keys are the checker's shape key and merge what the engine's key "
        "merges; the solver finds the engine's value; the OpenSpiel game and the PettingZoo environment "
        "name the same player to act (chance at a chance turn), list the same legal action numbers (the "
        "waiting agent's mask empty), refuse every other number under the rule and give the returns the "
        "engine's points give, zero-sum where the reading is. A path that crashes, aborts or hangs fails.",
        ("check-order", "score-at-end", "core-compiled", "solve-fast", "framework-action"),
        "every quantum ruleset: the compiled core where it plays it (up to 4×4; the solver up to 3×3) "
        "and a C compiler is available, the adapters where OpenSpiel and PettingZoo are installed",
        "each registered path run in a child process, at every position of sampled games and of the walk "
        "(the solver where at most 4 cells are open), against the engine.",
    ),
    Property(
        "random-games-agree", "The compiled core's random games are the engine's",
        "From the same seed, each random-game path of the compiled core registered with the checker "
        "(verify.paths) gives the engine's output for the same games: qttt random writes the engine's "
        "records byte for byte, the core's random games have the engine's actions, final phases, scores "
        "and digests and leave the generator where the engine leaves it, and qttt analyze random tallies "
        "the engine's scores and line results. A path that crashes, aborts or hangs fails.",
        ("record-format", "score-at-end", "core-compiled"),
        "every quantum ruleset the compiled core plays (up to 4×4), where a C compiler is available",
        "each registered path run in a child process on the games qttt random plays from the check's seed, "
        "as many as the checker samples, against the engine's records and tallies of the same games.",
    ),
    Property(
        "no-deadlock", "A game never gets stuck",
        "Every position that is not over has a legal action, whatever outcome chance gives.",
        ("place-open", "place-distinct", "place-two-cycle", "measure-pending", "turn-after-measure",
         "last-square", "end-full", "over-no-action"),
        "every quantum ruleset",
        "exhaustive over the component-size abstraction (exact for which actions are legal; the end by "
        "a line is ignored, which only adds positions; every chance outcome is a branch of its own); a "
        "deadlock is confirmed by a game the engine replays; the engine matched the abstraction on "
        "sampled positions.",
    ),
    Property(
        "termination", "Every game ends within a computed bound",
        "No game has more actions than the bound the checker computes (the longest action sequence of "
        "the component-size abstraction, a chance outcome counted as an action); with no-deadlock, every "
        "game ends within it, whatever outcomes chance gives; the engine ends a game exactly when the end "
        "rules say.",
        ("turn-order", "cycle-close", "collapse-component", "end-line", "end-full", "last-square"),
        "every quantum ruleset",
        "exhaustive longest path of the component-size abstraction (acyclic: each placement merges "
        "components or closes a cycle, each measurement makes cells classical); a game of that length "
        "replayed by the engine when one exists; sampled game lengths.",
    ),
    Property(
        "scores-well-defined", "Scores are well defined",
        "Every finished game gets exactly one score per player, whatever outcomes chance gave on the "
        "way; no simultaneous lines are left equal by the criteria the sources state (so that the result "
        "rests on a fallback or an award no source states); the declared score range of each player is "
        "tight (both ends are reached).",
        ("score-at-end", "score-per-pattern", "score-first-line", "score-tie-gap", "score-rank",
         "score-draw-second", "pattern-line", "pattern-square"),
        "every quantum ruleset; ties concern first-line awards with source criteria; the range is "
        "computed up to 4×4",
        "case analysis of the awards (min-max never ties; min-sum only on lines of even length), a "
        "designed game the engine replays for a possible tie; the declared range exhaustive over every "
        "set of cells a player can hold, its ends reached by designed games; scores of sampled games.",
    ),
)

NOTES = {"shape": SHAPE_KEY}
"""What each key of its walks means, for reports (by the walk's `key`)."""
