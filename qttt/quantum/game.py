"""A ruleset compiled once into the game every consumer reads: typed parameters, geometry, end lines,
awards, symmetries and the length bound (rule `variant-file`: the engine interprets the data).

`compile_game(rs)` is memoised. The engine plays a `Game`; analysis keys, bounds and serialises it
for the compiled core; the docs read its awards' statements; code that needs one parameter reads
the typed `Ruleset.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from math import lcm

from ..errors import VariantError
from ..geometry import Pattern, board_symmetries, cells_of, lines
from ..ruleset import PerRuleset, Ruleset
from ..vocabulary import PARAMETERS, QUANTUM, Parameters
from .scoring import Award, Scorer, compile_awards, compile_scoring, score_bound, score_scale


@dataclass(frozen=True, eq=False)
class Game:
    """A ruleset compiled for play and analysis: the parameters its compiled core reads as fast
    fields (named and valued as declared, `COMPILED`), its end lines and its awards."""

    ruleset: Ruleset
    rules: Parameters
    n: int
    cells: int
    measurer: str  # rule measure-by
    collapse: str  # rule collapse-chance
    p: Fraction  # rule collapse-chance: the probability of the cell named
    two_cycles: bool  # rule place-two-cycle
    last_square: str  # rule last-square
    untouched: str  # rule collapse-untouched
    draw_second: Fraction  # rule score-draw-second
    end_lines: tuple[Pattern, ...]  # rule end-line: empty when the game ends only on a full board
    end_masks: tuple[int, ...]  # the end lines as bitmasks
    awards: tuple[Award, ...]
    score: Scorer  # rule score-at-end

    @cached_property
    def scale(self) -> int:
        """A common denominator of every score: searches count in integers of 1/scale."""
        return lcm(score_scale(self.awards), self.draw_second.denominator)

    @cached_property
    def bound(self) -> Fraction:
        """An upper bound on |x − o| at the end of any game (a drawn game: 2 × draw_second)."""
        return max(score_bound(self.awards), 2 * self.draw_second)

    @property
    def chance(self) -> bool:
        """Whether chance decides measurements (rule collapse-chance)."""
        return self.collapse != "choice"

    @cached_property
    def uses_move_numbers(self) -> bool:
        """Whether some award compares move numbers (rank, or first-line with criteria)."""
        return any(a.uses_move_numbers for a in self.awards)

    @cached_property
    def relevant_masks(self) -> tuple[int, ...]:
        """Every cell set whose ownership the game looks at: scoring patterns and end lines, sorted."""
        masks = {p.mask for a in self.awards for p in a.patterns} | set(self.end_masks)
        return tuple(sorted(masks))

    @cached_property
    def symmetries(self) -> tuple[tuple[int, ...], ...]:
        """The board symmetries (cell permutations, identity first) that map the scoring patterns
        and end lines onto themselves."""
        masks = set(self.relevant_masks)
        return tuple(p for p in board_symmetries(self.n)
                     if all(sum(1 << p[c] for c in cells_of(m)) in masks for m in masks))

    @cached_property
    def length_bound(self) -> int:
        """Most placements a game can have.

        untouched = keep: every placement's marks end classical (a collapse makes its component's
        v moves classical in v cells, a forced placement one), or stay spooky at the end, where the
        live moves form a forest on the open cells (fewer than their number); so at most n².
        untouched = vanish: between two collapses the live moves form a forest on the o open cells
        plus the closing move, so at most o placements; a collapse makes at least two cells classical
        (a cycle has two cells at least) and the last open cell takes one forced placement, so at most
        n² + (n² - 2) + (n² - 4) + … placements in all.
        """
        return sum(range(self.cells, 0, -2)) if self.untouched == "vanish" else self.cells


# The quantum parameters the compiled core reads: each is a Game field of its name.
COMPILED = tuple(q for q in PARAMETERS if q.compiled and QUANTUM in q.games)
def _compile_game(rs: Ruleset) -> Game:
    if rs.game != "quantum":
        raise VariantError("record-variant", f"{rs.name} is a {rs.game} ruleset; this command plays "
                           "quantum rulesets only")
    p = rs.rules
    awards = compile_awards(rs)
    end_lines = lines(p.board, p.end_line) if p.end == "first-line" else ()
    return Game(
        ruleset=rs, rules=p, n=p.board, cells=p.board * p.board,
        **{q.name: getattr(p, q.name) for q in COMPILED},
        end_lines=end_lines, end_masks=tuple(p.mask for p in end_lines),
        awards=awards,
        score=compile_scoring(awards, p.draw_second),
    )


compile_game = PerRuleset(_compile_game)
"""The game of a ruleset (built once per ruleset: `PerRuleset`)."""
