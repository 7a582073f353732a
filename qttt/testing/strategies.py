"""Hypothesis strategies for variant files of every family: any parameter of the parent's family
set to any allowed value, scoring components kept, removed or added. The strategies of a family's
states and actions live beside it (qttt.quantum.strategies, qttt.nested.strategies).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import strategies as st

from ..ruleset import Ruleset, default_ruleset
from ..variant import builtin_names, load_ruleset
from ..vocabulary import AWARD_DECLARATIONS, AWARD_FIELDS, CRITERIA, PARAMETER_BY_NAME, PARAMETERS, PATTERNS


def _toml_value(value: Any) -> str:
    """A value as TOML: booleans, integers, strings (fractions quoted), lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + str(value) + '"'


_FRACTIONS = st.sampled_from(["0", "1", "1/2", "2", "3/2", "20", "-1"])


def exact_numbers(low: Fraction, high: Fraction) -> st.SearchStrategy[Fraction]:
    """Exact numbers from low to high: the ends, and fractions of small denominators between."""
    inner = st.builds(lambda d, t: low + (high - low) * Fraction(t % (d + 1), d),
                      st.integers(1, 20), st.integers(0, 20))
    return st.one_of(st.sampled_from([low, high]), inner)


@st.composite
def scoring_components(draw: st.DrawFn, game: str, board: int) -> dict[str, Any]:
    """One valid scoring component of a family's awards, every field drawn or left to its default."""
    award = draw(st.sampled_from([a.name for a in AWARD_DECLARATIONS.values() if a.game == game]))
    out: dict[str, Any] = {"award": award}
    if AWARD_DECLARATIONS[award].scores_pattern:
        pattern = draw(st.sampled_from(PATTERNS)) if award == "per-pattern" else "line"
        if draw(st.booleans()) or pattern == "square":
            out["pattern"] = pattern
        low = 2 if pattern == "square" else 0
        length = draw(st.sampled_from([0, *range(2, board + 1)] if pattern == "line"
                                      else list(range(low, board + 1))))
        if draw(st.booleans()) or length:
            out["length"] = length
    for name, (kind, _, _) in AWARD_FIELDS[award].items():
        if not draw(st.booleans()):
            continue
        if kind == "fraction":
            out[name] = draw(_FRACTIONS)
        elif kind == "criteria":
            out[name] = draw(st.lists(st.sampled_from(CRITERIA), max_size=2, unique=True))
        elif kind == "ranks":
            out[name] = draw(st.one_of(st.just("harmonic"), st.lists(_FRACTIONS, min_size=1, max_size=3)))
        elif kind == "weights":
            out[name] = draw(st.one_of(st.just("equal"), st.lists(_FRACTIONS, min_size=board ** 2,
                                                                   max_size=board ** 2)))
    return out


def _meet_needs(rules: dict[str, Any], parent: Ruleset, game: str) -> None:
    """A drawn value that needs another parameter's value (Parameter.needs) gets it, or, when that
    parameter was drawn too, goes back to its default."""
    for p in PARAMETERS:
        value = Fraction(rules[p.name]) if p.type is Fraction and p.name in rules else rules.get(
            p.name, getattr(parent.rules, p.name))
        for other, allowed in p.needs if game in p.games and value != p.default else ():
            if rules.get(other, getattr(parent.rules, other)) not in allowed:
                if other in rules:
                    rules[p.name] = str(p.default) if p.type is Fraction else p.default
                else:
                    rules[other] = allowed[0]


@st.composite
def variant_files(draw: st.DrawFn) -> str:
    """The text of a valid variant file: it extends a built-in ruleset (or none), sets any of its
    family's parameters to any allowed value, and keeps the parent's scoring or gives its own:
    the parent's components with some removed and new ones of every award added."""
    parent_name = draw(st.sampled_from([None, *builtin_names(None)]))
    parent = load_ruleset(parent_name) if parent_name else default_ruleset()
    game = parent.game
    lines = ["[variant]", 'name = "generated"'] + ([f'extends = "{parent_name}"'] if parent_name else [])
    own_scoring = draw(st.booleans())
    longest = max([2, *(c.length for c in parent.scoring)]) if not own_scoring else 2
    rules: dict[str, Any] = {}
    board = parent.board
    if draw(st.booleans()):
        board = rules["board"] = draw(st.integers(longest, 4))  # patterns kept must fit
    for p in PARAMETERS:
        if game not in p.games or p.name in ("game", "board") or not draw(st.booleans()):
            continue
        if p.name == "end_line":
            rules[p.name] = draw(st.integers(0, board))
        elif p.name == "route":
            blocks = board ** 2
            rules[p.name] = draw(st.one_of(st.just("same"), st.lists(
                st.lists(st.integers(0, blocks - 1), min_size=1, max_size=2, unique=True),
                min_size=blocks, max_size=blocks)))
        elif p.type is tuple:
            rules[p.name] = draw(st.lists(st.sampled_from(p.allowed), min_size=1, unique=True))
        elif p.type is Fraction:
            rules[p.name] = str(draw(exact_numbers(*p.allowed)))
        else:
            rules[p.name] = draw(st.sampled_from(p.allowed))
    _meet_needs(rules, parent, game)
    reads_end_line = game in PARAMETER_BY_NAME["end_line"].games
    if reads_end_line and "end_line" not in rules and parent.rules.end_line > board:
        rules["end_line"] = 0
    if rules:
        lines += ["", "[rules]"] + [f"{k} = {_toml_value(v)}" for k, v in rules.items()]
    if own_scoring:
        kept = [c.to_dict() for c in parent.scoring if draw(st.booleans())
                and c.length <= board and all(len(w) == board ** 2 for k, w in c.to_dict().items()
                                              if k == "weights" and isinstance(w, list))]
        added = draw(st.lists(scoring_components(game, board), max_size=3))
        for comp in kept + added:
            lines += ["", "[[scoring]]"] + [f"{k} = {_toml_value(v)}" for k, v in comp.items()]
        if not kept + added:
            lines.insert(0, "scoring = []")  # a top-level key: before the first table
    return "\n".join(lines) + "\n"


