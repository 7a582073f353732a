"""The ruleset model: a family's rule parameters, its scoring components and its metadata, checked
as a whole (rule `variant-file`). Variant files and canonical names (qttt.variant) build rulesets;
the engine interprets them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Generic, TypeVar

from .canonical import SCORING_KEYS, NameChanges, canonical_name, canonical_value, set_field
from .errors import VariantError
from .vocabulary import (
    AWARD_DECLARATIONS,
    AWARDS,
    PARAMETER_BY_NAME,
    PARAMETERS,
    PATTERNS,
    RULE,
    Component,
    Parameters,
    check_param,
    format_value,
    normalise,
    only_keys,
    setting_value,
    toml_text,
)


@dataclass(frozen=True)
class MatchRules:
    """How a referee runs games of a ruleset: the [match] table of a variant file."""

    move_seconds: Fraction = Fraction(0)
    game_seconds: Fraction = Fraction(0)
    forfeit: tuple[Fraction, Fraction] = (Fraction(1), Fraction(0))

    def to_dict(self) -> dict[str, Any]:
        """Plain data: numbers as strings."""
        return {"move_seconds": str(self.move_seconds), "game_seconds": str(self.game_seconds),
                "forfeit": [str(f) for f in self.forfeit]}


@dataclass(frozen=True)
class Ruleset:
    """A resolved ruleset: its rule parameters (typed, stored once), scoring components and
    descriptive metadata. `basis` is the ruleset named by `base`, attached by whoever resolved it
    (None: the ruleset is its own base, or the base is `qttt`, every default)."""

    rules: Parameters
    scoring: tuple[Component, ...]
    name: str = "qttt"
    base: str = "qttt"
    title: str = ""
    summary: str = ""
    sources: tuple[str, ...] = ()
    path: str | None = field(default=None, compare=False)
    match: MatchRules = field(default=MatchRules(), compare=False)
    basis: Ruleset | None = field(default=None, compare=False, repr=False)

    @property
    def params(self) -> tuple[tuple[str, Any], ...]:
        """The parameters its game family reads, as (name, value) in declaration order."""
        return tuple((p.name, getattr(self.rules, p.name)) for p in PARAMETERS if self.rules.game in p.games)

    @property
    def game(self) -> str:
        """The game family: quantum or nested-classical."""
        return self.rules.game

    def value(self, name: str) -> Any:
        """The value of rule parameter `name`, for listings (code reads the typed `rules`)."""
        return getattr(self.rules, name)

    @property
    def board(self) -> int:
        """Board side n."""
        return self.rules.board

    def to_dict(self) -> dict[str, Any]:
        """The resolved parameters as plain data: rule parameters (exact numbers as strings) plus
        `scoring`."""
        out: dict[str, Any] = {k: str(v) if isinstance(v, Fraction) else v for k, v in self.params}
        out["scoring"] = [c.to_dict() for c in self.scoring]
        return out

    @property
    def based_on(self) -> Ruleset:
        """The ruleset named by `base` (itself for a built-in ruleset)."""
        if self.basis is not None:
            return self.basis
        return default_ruleset() if self.base == "qttt" else self

    @property
    def canonical(self) -> str:
        """Canonical name: the base ruleset and the parameters that differ from it."""
        base = self.based_on
        return canonical_name(self.base, dict(self.params), self.scoring, dict(base.params), base.scoring)

    def key(self) -> tuple[Parameters, tuple[Component, ...]]:
        """What makes two rulesets the same rules, whatever their names."""
        return (self.rules, self.scoring)


T = TypeVar("T")


class PerRuleset(Generic[T]):
    """An engine's view of rulesets (its compiled tables), built once per ruleset: found by
    identity, then by equality (the rules and the names alike), never by the rules alone, so that
    a view carries the ruleset it was asked for and not another with the same rules under another
    name (russian and russian-unstable(untouched=keep): states would print the other's name)."""

    def __init__(self, build: Callable[[Ruleset], T]) -> None:
        self._build = build
        self._by_id: dict[int, tuple[Ruleset, T]] = {}
        self._by_ruleset: dict[Ruleset, T] = {}

    def __call__(self, rs: Ruleset) -> T:
        hit = self._by_id.get(id(rs))
        if hit is not None and hit[0] is rs:
            return hit[1]
        view = self._by_ruleset.get(rs)
        if view is None:
            view = self._by_ruleset[rs] = self._build(rs)
        self._by_id[id(rs)] = (rs, view)
        return view


def default_ruleset() -> Ruleset:
    """Every quantum parameter at its default and no scoring: the base `qttt` of canonical names."""
    return Ruleset(rules=Parameters(), scoring=())


def derived(rs: Ruleset, parent: Ruleset) -> Ruleset:
    """`rs` (over `parent`) based on what `parent` is based on and named by its canonical name,
    with a title and summary saying what changed from `parent` (whose own title and summary
    describe other rules), unless nothing did."""
    rs = replace(rs, basis=None if parent.base == "qttt" else parent.based_on)
    changed = changes(rs, parent)
    if not changed:
        return replace(rs, name=rs.canonical if rs.base == "qttt" else rs.name)
    return replace(rs, name=rs.canonical, title=f"{parent.name} with {', '.join(changed)}",
                   summary=f"The {parent.name} ruleset with {', '.join(changed)}.")


def changes(rs: Ruleset, parent: Ruleset) -> list[str]:
    """The parameters of `rs` that differ from `parent`'s, as key=value (scoring as one item)."""
    before = dict(parent.params)
    out = [f"{k}={format_value(v)}" for k, v in rs.params if k not in before or v != before[k]]
    if rs.scoring != parent.scoring:
        out.append("scoring changed")
    return out


def changed(rs: Ruleset, change: NameChanges, where: str) -> Ruleset:
    """`rs` with the changes of a canonical name applied and checked as a whole."""
    origin = f"ruleset {rs.name!r}"
    params = merge_params(rs.rules, change.values, where, origin)
    scoring = rs.scoring if change.scoring is None else components(change.scoring, where, params)
    if change.scoring is None:
        refit(scoring, params, where, origin)
    for key, value in change.fields.items():
        award, field_name, _ = SCORING_KEYS[key]
        scoring = set_field(scoring, award, field_name, value, f"{where}: {key}")
    check_scoring_game(scoring, params, where)
    out = Ruleset(rules=params, scoring=scoring, name=rs.base, base=rs.base, title=rs.title,
                  summary=rs.summary, sources=rs.sources, match=rs.match)
    return derived(out, rs)


def merge_params(base: Parameters, values: dict[str, Any], where: str,
                 parent: str = "") -> Parameters:
    """The parameters of the merged family (its own, from `values`, `base` or the defaults; the
    other families' at their defaults), checked again as a whole: a value inherited from `parent`
    that no longer fits is named with both."""
    merged = {**{p.name: getattr(base, p.name) for p in PARAMETERS}, **values}
    game = merged["game"]
    for key in values:
        if game not in PARAMETER_BY_NAME[key].games:
            raise VariantError(RULE, f"{where}: {key} does not apply to game = {json.dumps(game)}; "
                               "its parameters: " + ", ".join(p.name for p in PARAMETERS if game in p.games))
    if game != base.game:  # another family: its parameters start from defaults
        merged = {**{p.name: p.default for p in PARAMETERS}, **values}
    out = {p.name: merged.get(p.name, p.default) for p in PARAMETERS if game in p.games}
    if "end_line" in out and out["end_line"] > out["board"]:
        inherited = f" (inherited from {parent})" if parent and "end_line" not in values else ""
        raise VariantError(RULE, f"{where}: end_line = {out['end_line']}{inherited} is not allowed with "
                           f"board = {out['board']}; allowed: 0 (the board size) to {out['board']}")
    for name, value in out.items():  # a parameter that selects nothing unless another allows it
        for other, allowed in PARAMETER_BY_NAME[name].needs:
            if value != PARAMETER_BY_NAME[name].default and out[other] not in allowed:
                inherited = f" (inherited from {parent})" if parent and name not in values else ""
                raise VariantError(RULE, f"{where}: {name} = {canonical_value(value)}{inherited} does not "
                                   f"apply with {other} = {json.dumps(out[other])}; it needs {other} = "
                                   + " or ".join(json.dumps(a) for a in allowed))
    if "route" in out and out["route"] != "same":
        blocks = out["board"] ** 2
        route = out["route"]
        if len(route) != blocks or any(not 0 <= b < blocks or list(r).count(b) > 1 for r in route for b in r):
            raise VariantError(RULE, f"{where}: route = {canonical_value(route)} is not allowed; "
                               f"allowed: \"same\", or {blocks} lists (one per cell position) of "
                               f"distinct block numbers 0 to {blocks - 1}")
    return Parameters(**out)


def refit(scoring: tuple[Component, ...], params: Parameters, where: str, parent: str) -> None:
    """Inherited scoring components checked again against the board they now score."""
    board = params.board
    for i, c in enumerate(scoring):
        if c.length > board:
            what = "a line of" if c.pattern == "line" else "a square of side"
            raise VariantError(RULE, f"{where}: board = {board} does not fit scoring[{i}] inherited from "
                               f"{parent}: {what} {c.length} (length = {c.length}); allowed: lengths up to "
                               f"the board size {board}; give this file its own [[scoring]]")


def components(raw: Any, where: str, params: Parameters) -> tuple[Component, ...]:
    """The [[scoring]] tables (or a name's scoring JSON), each checked against the board."""
    if not isinstance(raw, list):
        raise VariantError(RULE, f"{where}: scoring must be an array of tables ([[scoring]])")
    return tuple(_component(c, f"{where}: scoring[{i}]", params.board)
                 for i, c in enumerate(raw))


def check_scoring_game(scoring: tuple[Component, ...], params: Parameters, where: str) -> None:
    """Every component belongs to the ruleset's game family; weights fit its blocks."""
    game = params.game
    for i, c in enumerate(scoring):
        if AWARD_DECLARATIONS[c.award].game != game:
            allowed = ", ".join(json.dumps(a.name) for a in AWARD_DECLARATIONS.values() if a.game == game)
            raise VariantError(RULE, f"{where}: scoring[{i}]: award = {json.dumps(c.award)} does not "
                               f"apply to game = {json.dumps(game)}; allowed: {allowed}")
        weights = dict(c.settings).get("weights", "equal")
        if weights != "equal" and len(weights) != params.board ** 2:
            raise VariantError(RULE, f"{where}: scoring[{i}]: weights has {len(weights)} entries; "
                               f"allowed: \"equal\" or one per block ({params.board ** 2})")


def _component(raw: Any, where: str, board: int) -> Component:
    if not isinstance(raw, dict):
        raise VariantError(RULE, f"{where}: must be a table")
    award = raw.get("award")
    if award not in AWARDS:
        raise VariantError(RULE, f"{where}: award = {toml_text(award)} is not allowed; allowed: "
                           + ", ".join(json.dumps(a) for a in AWARDS))
    declared = AWARD_DECLARATIONS[award]
    only_keys(raw, ("award", *declared.fields), where, "scoring")
    if not declared.scores_pattern:  # it scores the game's result, not a pattern of marks
        settings = [(name, setting_value(kind, raw.get(name, default), f"{where}: {name}"))
                    for name, (kind, default, _) in declared.settings.items()]
        return Component(award, "line", 0, tuple(settings))  # no pattern: to_dict leaves it out
    pattern = raw.get("pattern", "line")
    if pattern not in PATTERNS:
        raise VariantError(RULE, f"{where}: pattern = {toml_text(pattern)} is not allowed; allowed: "
                           + ", ".join(json.dumps(p) for p in PATTERNS))
    if award != "per-pattern" and pattern != "line":
        raise VariantError(RULE, f"{where}: pattern = {toml_text(pattern)} is not allowed with award "
                           f"{award!r}; allowed: \"line\"")
    length = raw.get("length", 0 if pattern == "line" else 2)
    low = 0 if pattern == "line" else 1
    if not isinstance(length, int) or isinstance(length, bool) or not low <= length <= board:
        raise VariantError(RULE, f"{where}: length = {toml_text(length)} is not allowed; allowed: an "
                           f"integer from {low} to the board size {board}"
                           + (" (0: the board size)" if pattern == "line" else ""))
    settings = []
    for name, (kind, default, _) in declared.settings.items():
        settings.append((name, setting_value(kind, raw.get(name, default), f"{where}: {name}")))
    return normalise(Component(award, pattern, length, tuple(settings)))


def with_params(rs: Ruleset, **changes: Any) -> Ruleset:
    """A copy of `rs` with some rule parameters changed (validated), keeping its base."""
    values = {k: check_param(PARAMETER_BY_NAME[k], v, "parameters") if k in PARAMETER_BY_NAME
              else _unknown(k) for k, v in changes.items()}
    origin = rs.path or f"ruleset {rs.name!r}"
    params = merge_params(rs.rules, values, "parameters", origin)
    refit(rs.scoring, params, "parameters", origin)
    return derived(replace(rs, rules=params, path=None), rs)


def with_scoring(rs: Ruleset, scoring: list[dict[str, Any]]) -> Ruleset:
    """A copy of `rs` with other [[scoring]] tables (plain data, as `to_dict` gives them; validated),
    keeping its base."""
    where = rs.path or f"ruleset {rs.name!r}"
    components_ = components(scoring, where, rs.rules)
    check_scoring_game(components_, rs.rules, where)
    return derived(replace(rs, scoring=components_, path=None), rs)


def _unknown(key: str) -> Any:
    raise VariantError(RULE, f"parameters: unknown key {key!r}; allowed: "
                       + ", ".join(PARAMETER_BY_NAME))
