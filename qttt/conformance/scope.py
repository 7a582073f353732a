"""Which rule ids of spec/rules.toml belong to a ruleset: the one place this mapping is defined.

A rule's `scope` is `common` (every quantum ruleset), `nested-classical` (every ruleset of that
family), the name of a rule parameter, `scoring` (the pattern rules) or the name of a scoring award.
A ruleset's rule ids are:

- every rule whose scope is its family (`common` for quantum), and for the nested-classical family
  the `common` rules that hold for any game (FAMILY_FREE);
- a parameter-scoped rule when the ruleset's value of that parameter makes the rule apply:
  `end-line` (scope `end`) only with end = first-line; the other parameter-scoped rules
  (two_cycles, measurer, untouched, last_square) apply to every value of their parameter, since
  the rule states what each value means;
- `pattern-line` / `pattern-square` (scope `scoring`) when a scoring component scores lines /
  squares;
- an award-scoped rule when a scoring component has that award; `score-tie-gap` only when a
  first-line component has fallback criteria (the criteria no source states).
"""

from __future__ import annotations

from collections.abc import Callable

from ..spec import rules
from ..variant import NESTED, Ruleset

# `common` rules that are not about quantum moves: they hold for every game family.
FAMILY_FREE = frozenset({"over-no-action", "score-at-end", "record-format", "record-variant",
                         "variant-file"})

# Parameter-scoped rules that apply only to some values: rule id -> predicate on the ruleset.
_PARAMETER_RULES: dict[str, Callable[[Ruleset], bool]] = {
    "end-line": lambda rs: rs.rules.end == "first-line",
}
# Rules of scope `scoring`: rule id -> the pattern kind that selects it.
_PATTERN_RULES = {"pattern-line": "line", "pattern-square": "square"}
# Award-scoped rules that need more than the award: rule id -> predicate on the ruleset.
_AWARD_RULES: dict[str, Callable[[Ruleset], bool]] = {
    "score-tie-gap": lambda rs: any(c.award == "first-line" and c.get("fallback") for c in rs.scoring),
}


def _always(rs: Ruleset) -> bool:
    return True


def rule_ids(rs: Ruleset) -> tuple[str, ...]:
    """The rule ids that a ruleset selects, in catalogue order."""
    awards = {c.award for c in rs.scoring}
    kinds = {c.pattern for c in rs.scoring if rs.game != NESTED}  # nested awards score no pattern
    params = dict(rs.params)
    out = []
    for rule in rules().values():
        if rule.scope == "common":
            selected = rs.game != NESTED or rule.id in FAMILY_FREE
        elif rule.scope == NESTED:
            selected = rs.game == NESTED
        elif rule.scope == "scoring":
            selected = _PATTERN_RULES.get(rule.id) in kinds
        elif rule.scope in params:
            selected = _PARAMETER_RULES.get(rule.id, _always)(rs)
        else:
            selected = rule.scope in awards and _AWARD_RULES.get(rule.id, _always)(rs)
        if selected:
            out.append(rule.id)
    return tuple(out)
