"""Hypothesis strategies for nested-classical rulesets."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import strategies as st

from ..ruleset import Ruleset, with_params
from ..testing.strategies import scoring_components
from ..variant import load_ruleset
from ..vocabulary import AWARD_FIELDS, PARAMETER_BY_NAME, PATTERN_KINDS, Component
from .family import FAMILY


@st.composite
def nested_components(draw: st.DrawFn, board: int) -> tuple[Component, ...]:
    """The scoring of a nested-classical ruleset: one to three components of `scoring_components`,
    each field drawn or left to its default."""
    out = []
    for raw in draw(st.lists(scoring_components(FAMILY.name, board), min_size=1, max_size=3)):
        award = raw["award"]
        settings = []
        for name, (kind, default, _) in AWARD_FIELDS[award].items():
            value = raw.get(name, default)
            if kind == "fraction":
                value = Fraction(value)
            elif value != "equal":
                value = tuple(Fraction(w) for w in value)
            settings.append((name, value))
        out.append(Component(award, "line", 0, tuple(settings)))
    return tuple(out)


@st.composite
def nested_rulesets(draw: st.DrawFn, max_board: int = 5) -> Ruleset:
    """A nested-classical ruleset with random valid parameters: board, route (same, or any blocks
    per position), block and board pattern kinds, full_block, bonus and scoring."""
    n = draw(st.integers(2, max_board))
    blocks = n * n
    kinds = st.lists(st.sampled_from(PATTERN_KINDS), min_size=1, max_size=4, unique=True).map(tuple)
    route = st.one_of(st.just("same"), st.lists(
        st.lists(st.integers(0, blocks - 1), min_size=1, max_size=3, unique=True).map(tuple),
        min_size=blocks, max_size=blocks).map(tuple))
    rs = with_params(load_ruleset("intelligent"), board=n, route=draw(route),
                     block_patterns=draw(kinds), board_patterns=draw(kinds),
                     full_block=draw(st.sampled_from(PARAMETER_BY_NAME["full_block"].allowed)),
                     bonus=draw(st.sampled_from(PARAMETER_BY_NAME["bonus"].allowed)))
    return replace(rs, scoring=draw(nested_components(n)))


