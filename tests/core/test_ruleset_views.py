"""A game carries the ruleset it was started with, whatever else shares its rules: each family's
engine builds its view of a ruleset once (qttt.ruleset.PerRuleset), and a view built for one
ruleset was handed to another with the same rules under another name, so that russian's states
printed russian-unstable(untouched=keep) once a test had played that first."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset
from qttt.games import new_game
from qttt.notation import state_to_json
from qttt.quantum.notation import position
from qttt.quantum.strategies import random_rulesets
from qttt.ruleset import Ruleset
from qttt.spec import spec_dir
from qttt.variant import builtin_names

SHIPPED = [*builtin_names(None), *sorted(str(p) for p in (spec_dir() / "coverage").glob("*.toml"))]


def rulesets() -> st.SearchStrategy[Ruleset]:
    """Every shipped ruleset (each family) and random quantum rules."""
    return st.one_of(st.sampled_from(SHIPPED).map(load_ruleset), random_rulesets(max_board=4))


@given(rulesets(), st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True), st.booleans())
@settings(max_examples=examples(60), deadline=None)
def test_a_game_carries_its_own_ruleset(rs: Ruleset, name: str, twin_first: bool) -> None:
    twin = dataclasses.replace(rs, name=f"{rs.name}-{name}", title="the same rules, another name")
    assert twin.key() == rs.key() and twin != rs
    for r in (twin, rs) if twin_first else (rs, twin):
        state = new_game(r)
        assert state.ruleset == r and state.ruleset.canonical == r.canonical
        assert state_to_json(state, r.name) == state_to_json(new_game(r), r.name)


def test_russian_is_printed_as_russian_after_its_twin() -> None:
    twin, russian = load_ruleset("russian-unstable(untouched=keep)"), load_ruleset("russian")
    assert twin.key() == russian.key()
    assert position(new_game(twin)).startswith("russian-unstable(untouched=keep) ")  # type: ignore[arg-type]
    assert position(new_game(russian)).startswith("russian ")  # type: ignore[arg-type]
