"""The declarations of qttt.vocabulary drive validation, canonical names, the schema, the compiled
core's configuration and the rules' wording: every declared parameter value and award is accepted,
named, listed and encoded, and anything undeclared is refused with a message naming it.
(That C and the engine then behave alike for every value is tests/project/test_vocabulary.py.)"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qttt.docgen.pages import value_readings
from qttt.docgen.prose import parameter_statement
from qttt.errors import VariantError
from qttt.nested import compiled as nested_compiled
from qttt.nested.engine import compile_nested
from qttt.quantum import compiled
from qttt.quantum.game import COMPILED, compile_game
from qttt.quantum.scoring import AWARD_TYPES
from qttt.ruleset import Ruleset, with_params
from qttt.schema import variant_schema
from qttt.spec import rules
from qttt.variant import load_ruleset
from qttt.vocabulary import AWARD_DECLARATIONS, COMMON_FIELDS, PARAMETERS, QUANTUM, Parameter, c_name

# A built-in or canonical ruleset of each family, to change one parameter of.
FAMILY_BASE = {"quantum": "wikipedia", "nested-classical": "intelligent", "classical": "qttt(game=classical)"}
SCHEMA = variant_schema()
HEADER = compiled.config_header()


def declared_values(p: Parameter) -> list[Any]:
    """The values a parameter declares: every enumerated or boolean value, the ends of an integer
    range, one list of each item for a list parameter ("same" for route)."""
    if p.type in (int, Fraction):
        return [p.allowed[0], p.allowed[-1]]
    if p.name == "route":
        return ["same"]
    if p.type is tuple:
        return [(v,) for v in p.allowed]
    return list(p.allowed)


CASES = [(p, v) for p in PARAMETERS if p.name != "game" for v in declared_values(p)]


def ruleset_with(p: Parameter, value: Any) -> Ruleset:
    """A ruleset of a family reading `p`, with p = value (end_line needs a board that long)."""
    if p.name == "end_line":
        return with_params(load_ruleset(f"qttt(board={max(value, 2)})"), end_line=value)
    return with_params(load_ruleset(FAMILY_BASE[p.games[0]]), **p.enabling(value), **{p.name: value})


@pytest.mark.parametrize(("p", "value"), CASES, ids=[f"{p.name}={v}" for p, v in CASES])
def test_every_declared_value_is_accepted_named_and_listed(p: Parameter, value: Any) -> None:
    """Validation accepts it; the canonical name says it and loads back to the same rules; the
    schema lists it."""
    rs = ruleset_with(p, value)
    assert rs.value(p.name) == value
    assert load_ruleset(rs.canonical).key() == rs.key()
    schema = SCHEMA["properties"]["rules"]["properties"][p.name]
    assert schema["description"] == p.description
    if p.type is str and p.name != "route":
        assert value in schema["enum"]
    elif p.type is bool:
        assert schema["type"] == "boolean"
    elif p.type is int:
        assert schema["minimum"] <= value <= schema["maximum"]
    elif p.type is Fraction:
        assert schema["default"] == str(p.default) and f"{p.allowed[0]} to {p.allowed[-1]}" in p.description
    elif p.name != "route":
        assert set(value) <= set(schema["items"]["enum"])


@pytest.mark.parametrize("p", [p for p in PARAMETERS if p.values], ids=lambda p: p.name)
def test_every_value_reads_as_its_declared_reading(p: Parameter) -> None:
    """The rules pages state each value by its declared reading (quantum family: parameter_statement)."""
    assert [v.value for v in p.values] == list(p.allowed) and all(v.reading for v in p.values)
    if QUANTUM not in p.games:
        return
    for value in p.allowed:
        rs = ruleset_with(p, value)
        statement = parameter_statement(rs, p.name)
        head = p.reading(value).split("{")[0]
        assert statement.startswith(head) and "{" not in statement


@pytest.mark.parametrize("p", COMPILED, ids=lambda p: p.name)
def test_every_compiled_value_has_a_generated_constant_and_is_serialised_as_it(p: Parameter) -> None:
    """The header defines QC_<PARAMETER>_<VALUE> for each enumerated value, and config() sends the
    value's code in the parameter's Game field (a fraction: its numerator and denominator)."""
    indices = [compiled.CONFIG_FIELDS.index(f) for f in p.c_fields]
    assert all(f"X({f})" in HEADER for f in p.c_fields)
    for value in p.allowed:
        rs = ruleset_with(p, value)
        assert getattr(compile_game(rs), p.name) == value
        sent = tuple(compiled.config(rs)[i] for i in indices)
        assert sent == p.c_values(value)
        if p.type is Fraction:
            assert Fraction(*sent) == value
            continue
        code = p.code(value)
        assert sent == (code,)
        if p.type is str:
            name = c_name(f"QC_{p.name}_{value}")
            assert re.search(rf"^#define {name} {code}$", HEADER, re.M), name


@pytest.mark.parametrize("p", nested_compiled.COMPILED, ids=lambda p: p.name)
def test_every_nested_compiled_value_has_a_generated_constant_and_is_serialised_as_it(p: Parameter) -> None:
    """The nested core's header defines QN_<PARAMETER>_<VALUE>; config() sends the value's code."""
    header = nested_compiled.config_header()
    index = 1 + nested_compiled.COMPILED.index(p)
    for value in p.allowed:
        rs = ruleset_with(p, value)
        assert getattr(compile_nested(rs), p.name) == value
        code = nested_compiled.config(rs)[0][index]
        assert code == p.code(value)
        assert re.search(rf"^#define {c_name(f'QN_{p.name}_{value}')} {code}$", header, re.M)


@pytest.mark.parametrize("core", [compiled, nested_compiled], ids=["quantum", "nested"])
def test_the_committed_headers_are_the_generated_ones(core: Any) -> None:
    assert core.HEADER_PATH.read_text(encoding="utf-8") == core.config_header()


@pytest.mark.parametrize("award", list(AWARD_DECLARATIONS.values()), ids=lambda a: a.name)
def test_every_award_declaration_drives_the_schema_and_the_core(award: Any) -> None:
    """The schema's component of each award has exactly its declared fields (the pattern fields
    only when it scores a pattern); a pattern-scoring award's C fields are in the header."""
    components = SCHEMA["properties"]["scoring"]["items"]["oneOf"]
    schema = next(c for c in components if c["properties"]["award"]["const"] == award.name)
    assert set(schema["properties"]) == {"award", *award.fields}
    assert ("pattern" in award.fields) == award.scores_pattern == (award.game == QUANTUM)
    pattern_fields = set(COMMON_FIELDS) - {"award"} if award.scores_pattern else set()
    assert set(award.fields) == set(award.settings) | pattern_fields
    if award.game == QUANTUM:
        compiled_award = AWARD_TYPES[award.name]
        assert (compiled_award.code, compiled_award.c_fields, compiled_award.rule) == (
            award.code, award.c_fields, award.rule)
        fields = " ".join(f"X({f})" for f in award.c_fields)
        assert f"#define QC_AWARD_{c_name(award.name)}_FIELDS(X) {fields}".rstrip() in HEADER


@given(st.data())
def test_an_undeclared_value_is_refused_naming_the_parameter_and_the_allowed(data: st.DataObject) -> None:
    """Any string that no enumerated parameter declares is refused with one line naming the
    parameter, the value and each allowed value."""
    p = data.draw(st.sampled_from([p for p in PARAMETERS if p.type is str and p.name != "route"]))
    value = data.draw(st.text(min_size=1, max_size=12).filter(lambda v: v not in p.allowed))
    base = load_ruleset(FAMILY_BASE[p.games[0]] if p.name != "game" else "wikipedia")
    with pytest.raises(VariantError) as caught:
        with_params(base, **{p.name: value})
    message = str(caught.value)
    assert "\n" not in message and p.name in message and json.dumps(value, ensure_ascii=False)[:20] in message
    assert all(json.dumps(a) in message for a in p.allowed)


SCOPED = [r for r in rules().values() if any(p.name == r.scope and p.values for p in PARAMETERS)]


@pytest.mark.parametrize("rule", SCOPED, ids=lambda r: r.id)
def test_a_rule_scoped_to_a_parameter_leaves_its_values_to_the_declaration(rule: Any) -> None:
    """A new value touches the declaration, not spec/rules.toml: the statement of a rule a parameter
    selects names none of the parameter's values; the rule pages list each declared value's reading."""
    p = next(p for p in PARAMETERS if p.name == rule.scope)
    for v in declared_values(p):
        text = str(v).lower() if isinstance(v, bool) else str(v)
        assert not re.search(rf"{p.name}\s*=\s*{re.escape(text)}\b", rule.statement), (rule.id, v)
        assert not re.search(rf"\({re.escape(text)}\)", rule.statement), (rule.id, v)
    listed = "\n".join(value_readings(rule))
    for v in p.values:
        assert f"`{p.name} = {str(v.value).lower() if isinstance(v.value, bool) else v.value}`" in listed
    assert len(value_readings(rule)) == len(p.values) + 1


def test_every_enumerated_parameter_scopes_a_rule() -> None:
    """Each declared reading reaches the rules pages through the rule its parameter selects."""
    assert {r.scope for r in SCOPED} == {p.name for p in PARAMETERS if p.values and p.name != "game"}
