"""The JSON Schemas of spec/schema/: valid draft 2020-12, the variant schema current with the
parameter vocabulary, and every record and state the engine emits valid against them."""

from __future__ import annotations

import json
import random
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]
from lanes import examples

from qttt import Record, VariantError, builtin_names, load_ruleset, record_to_json, state_to_json
from qttt.quantum.engine import State, playout
from qttt.quantum.strategies import random_rulesets
from qttt.schema import main as schema_main
from qttt.schema import render
from qttt.spec import spec_dir

SCHEMA = spec_dir() / "schema"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMA / f"{name}.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


RECORD, STATE, VARIANT = validator("record"), validator("state"), validator("variant")


def test_variant_schema_is_current() -> None:
    assert (SCHEMA / "variant.schema.json").read_text(encoding="utf-8") == render(), \
        "spec/schema/variant.schema.json is stale: run python -m qttt.schema"
    assert schema_main(["--check"]) == 0


def test_variant_schema_lists_every_parameter() -> None:
    from qttt.vocabulary import AWARD_FIELDS, PARAMETERS
    schema = json.loads(render())
    rules = schema["properties"]["rules"]["properties"]
    assert list(rules) == [p.name for p in PARAMETERS]
    for p in PARAMETERS:
        default = (list(p.default) if isinstance(p.default, tuple)
                   else str(p.default) if isinstance(p.default, Fraction) else p.default)
        assert rules[p.name]["default"] == default and rules[p.name]["description"] == p.description
    components = schema["properties"]["scoring"]["items"]["oneOf"]
    assert [c["properties"]["award"]["const"] for c in components] == list(AWARD_FIELDS)
    for comp in components:
        assert set(AWARD_FIELDS[comp["properties"]["award"]["const"]]) < set(comp["properties"])


@pytest.mark.parametrize("name", builtin_names(None))
def test_builtin_variant_files_validate(name: str) -> None:
    data = tomllib.loads((spec_dir() / "variants" / f"{name}.toml").read_text(encoding="utf-8"))
    VARIANT.validate(data)


BAD_VARIANTS: list[tuple[str, str]] = [
    ('[variant]\nname = "v"\n[rules]\nboard = 9\n', "board above 8"),
    ('[variant]\nname = "v"\n[rules]\nmeasurer = "nobody"\n', "measurer not allowed"),
    ('[variant]\nname = "v"\n[rules]\ntwo_cycles = "yes"\n', "two_cycles not a boolean"),
    ('[variant]\nname = "v"\n[rules]\ncolour = "red"\n', "unknown rule key"),
    ('[variant]\nname = "v"\nauthor = "me"\n', "unknown variant key"),
    ('[variant]\nname = ""\n', "empty name"),
    ('[rules]\nboard = 3\n', "no [variant]"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "bonus"\n', "unknown award"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "rank"\npattern = "square"\n', "rank of squares"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "per-pattern"\npoints = "a half"\n', "points"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "per-pattern"\npoints = "1/0"\n', "zero denominator"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "first-line"\ntiebreak = ["max"]\n', "criterion"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "rank"\nranks = []\n', "empty ranks"),
    ('[variant]\nname = "v"\n[[scoring]]\naward = "per-pattern"\nsole = "1"\n', "field of another award"),
]
GOOD_VARIANTS = [
    '[variant]\nname = "v"\nextends = "wikipedia"\n[rules]\nmeasurer = "creator"\n',
    '[variant]\nname = "v"\n[[scoring]]\naward = "per-pattern"\npattern = "square"\npoints = "0.5"\n',
    '[variant]\nname = "v"\n[[scoring]]\naward = "rank"\nranks = ["3", 1, "1/2"]\n',
    '[variant]\nname = "v"\nsources = ["a"]\nnotes = "n"\n[rules]\nboard = 4\nend_line = 3\n',
]


@pytest.mark.parametrize(("text", "why"), BAD_VARIANTS)
def test_schema_and_loader_reject_the_same_files(text: str, why: str, tmp_path: Path) -> None:
    assert not VARIANT.is_valid(tomllib.loads(text)), why
    path = tmp_path / "v.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(VariantError):
        load_ruleset(str(path))


@pytest.mark.parametrize("text", GOOD_VARIANTS)
def test_schema_and_loader_accept_the_same_files(text: str, tmp_path: Path) -> None:
    VARIANT.validate(tomllib.loads(text))
    path = tmp_path / "v.toml"
    path.write_text(text, encoding="utf-8")
    load_ruleset(str(path))


def emitted(rs_name: str, games: int, seed: int) -> tuple[list[Any], list[Any]]:
    """Records and every intermediate state of random games, as JSON."""
    rs = load_ruleset(rs_name)
    rng = random.Random(seed)
    records: list[Any] = []
    states: list[Any] = []
    for _ in range(games):
        acts, _ = playout(rs, rng)
        record = Record(rs_name, tuple(acts))
        records.append(record_to_json(record))
        states.extend(state_to_json(s, rs_name) for s in record.states())
    return records, states


@pytest.mark.parametrize("name", builtin_names())
def test_engine_output_validates(name: str) -> None:
    records, states = emitted(name, 30, 4)
    phases = {s["phase"] for s in states}
    assert phases == {"place", "measure", "over"}
    for record in records:
        RECORD.validate(record)
    for state in states:
        STATE.validate(state)


@given(random_rulesets())
@settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_engine_output_validates_for_any_parameters(rs: Any) -> None:
    acts, _ = playout(rs, random.Random(1))
    RECORD.validate(record_to_json(Record(rs.canonical, tuple(acts))))
    state = State.initial(rs)
    STATE.validate(state_to_json(state))
    for act in acts:
        state = state.apply(act)
        STATE.validate(state_to_json(state))


WIKI_OVER: dict[str, Any] = {
    "variant": "wikipedia", "board": ["x1", [], "o4", "x3", "o8", "o2", "x7", "x5", "o6"],
    "to_move": None, "phase": "over", "move": 9, "cycle": None, "over": True,
    "scores": {"x": "1/2", "o": "1"}}


def test_state_schema_accepts_a_hand_written_state() -> None:
    STATE.validate(WIKI_OVER)
    STATE.validate({**WIKI_OVER, "engine": "other"})  # more fields may be added


@pytest.mark.parametrize("change", [
    {"to_move": "x"},  # over, but someone to move
    {"phase": "place"},  # over flag true in the place phase
    {"phase": "measure", "over": False, "to_move": "x"},  # measuring without a cycle
    {"scores": {"x": "0.5", "o": "1"}},  # not an exact fraction string
    {"scores": {"x": "1/02", "o": "1"}},  # a leading zero
    {"board": ["x2", *WIKI_OVER["board"][1:]]},  # move 2 is O's
    {"board": ["x1", ["x3", "x3"], *WIKI_OVER["board"][2:]]},  # a mark twice in one cell
    {"move": 0},
    {"cycle": [4]},
])
def test_state_schema_rejects(change: dict[str, Any]) -> None:
    assert not STATE.is_valid({**WIKI_OVER, **change})


def test_record_schema() -> None:
    good = {"variant": "wikipedia", "actions": [{"place": [0, 8]}, {"measure": 8}]}
    RECORD.validate(good)
    RECORD.validate({**good, "event": ["a", "b"]})  # records may carry more fields
    for bad in ([{"place": [0, 8], "measure": 8}], [{"place": [0]}], [{"place": [0, 1, 2]}],
                [{"place": [-1, 2]}], [{"measure": "3"}], [{"measure": 1.5}], [{"pass": 1}],
                [{"place": [0, 1], "note": "x"}]):
        assert not RECORD.is_valid({**good, "actions": bad}), bad
    assert not RECORD.is_valid({"actions": []})
    assert not RECORD.is_valid({"variant": "wikipedia"})
