"""Which rule ids of spec/rules.toml belong to a ruleset: the one place this mapping is defined.

A rule's `scope` is `common` (every quantum ruleset), `nested-classical` (every ruleset of that
family), the name of a rule parameter, `scoring` (the pattern rules) or the name of a scoring award.
A ruleset's rule ids are:

- every rule whose scope is its family's (`Family.scope`: `common` for quantum), and for every
  other family the `common` rules that hold for any game (FAMILY_FREE);
- a parameter-scoped rule when the ruleset's value of that parameter makes the rule apply:
  `end-line` (scope `end`) only with end = first-line, `collapse-chance` (scope `collapse`) only
  under a chance collapse, `score-draw-second` only with draw_second above 0; the other
  parameter-scoped rules
  (two_cycles, measurer, untouched, last_square) apply to every value of their parameter, since
  the rule states what each value means;
- `pattern-line` / `pattern-square` (scope `scoring`) when a scoring component scores lines /
  squares;
- an award-scoped rule when a scoring component has that award; `score-tie-gap` only when a
  first-line component has fallback criteria (the criteria no source states);
- except a rule that no game of the ruleset can reach (UNREACHABLE): when a line of two
  ends the game (end = first-line, end_line = 2), `end-full` and `last-square` never apply, since
  any 2×2 block of the board holds four pairwise adjacent cells (a row, column or diagonal of two
  each), so four classical marks in it complete a line, and a board with one open cell or none has
  such a block filled.
"""

from __future__ import annotations

from collections.abc import Callable

from ..family import families, family_of
from ..ruleset import Ruleset
from ..spec import rules

COMMON = "common"  # the scope of the quantum family's rules, some of which hold for every game

# `common` rules that are not about quantum moves: they hold for every game family.
FAMILY_FREE = frozenset({"over-no-action", "score-at-end", "record-format", "record-variant",
                         "variant-file"})

# Parameter-scoped rules that apply only to some values: rule id -> predicate on the ruleset.
_PARAMETER_RULES: dict[str, Callable[[Ruleset], bool]] = {
    "end-line": lambda rs: rs.rules.end == "first-line",
    "collapse-chance": lambda rs: rs.rules.collapse != "choice",
    "score-draw-second": lambda rs: rs.rules.draw_second != 0,
}
# Rules a ruleset cannot reach: rule id -> predicate on the ruleset (see the docstring).
UNREACHABLE: dict[str, Callable[[Ruleset], bool]] = {
    "end-full": lambda rs: rs.rules.end == "first-line" and rs.rules.end_line == 2,
    "last-square": lambda rs: rs.rules.end == "first-line" and rs.rules.end_line == 2,
}
# Rules of scope `scoring`: rule id -> the pattern kind that selects it.
_PATTERN_RULES = {"pattern-line": "line", "pattern-square": "square"}
# Award-scoped rules that need more than the award: rule id -> predicate on the ruleset.
_AWARD_RULES: dict[str, Callable[[Ruleset], bool]] = {
    "score-tie-gap": lambda rs: any(c.award == "first-line" and c.get("fallback") for c in rs.scoring),
}


def _always(rs: Ruleset) -> bool:
    return True


def _never(rs: Ruleset) -> bool:
    return False


def rule_ids(rs: Ruleset) -> tuple[str, ...]:
    """The rule ids that a ruleset selects, in catalogue order."""
    awards = {c.award for c in rs.scoring}
    kinds = {c.to_dict().get("pattern") for c in rs.scoring} - {None}  # a result award has none
    params = dict(rs.params)
    scope = family_of(rs).scope
    scopes = {f.scope for f in families()}
    out = []
    for rule in rules().values():
        if rule.scope in scopes:
            selected = rule.scope == scope or (rule.scope == COMMON and rule.id in FAMILY_FREE)
        elif rule.scope == "scoring":
            selected = _PATTERN_RULES.get(rule.id) in kinds
        elif rule.scope in params:
            selected = _PARAMETER_RULES.get(rule.id, _always)(rs)
        else:
            selected = rule.scope in awards and _AWARD_RULES.get(rule.id, _always)(rs)
        if selected and not UNREACHABLE.get(rule.id, _never)(rs):
            out.append(rule.id)
    return tuple(out)
