"""Every parameter value and award of the vocabulary has one owner in the product and exactly two
deliberate, independent copies: for the quantum family the compiled C cores (which state the
vocabulary they implement in their header) and the tests' reference model; for the nested-classical
family the engine (qttt/nested.py), its compiled core (qttt/analysis/_nested.c, its header) and its
reference model (tests/support/nested_reference.py).
Adding a value or an award fails here until both copies cover it; removing one fails until both
drop it."""

from __future__ import annotations

import re
from pathlib import Path

import nested_reference
import pytest
import reference

from qttt.analysis.nested_core import AWARD_CODES
from qttt.geometry import grid_patterns
from qttt.nested.engine import AWARD_RULES
from qttt.quantum.scoring import AWARD_TYPES, CRITERIA_CODES
from qttt.spec import rules
from qttt.variant import (
    AWARD_FIELDS,
    AWARD_GAME,
    AWARDS,
    CRITERIA,
    NESTED,
    PARAMETERS,
    PATTERN_KINDS,
    QUANTUM,
)

QUANTUM_PARAMETERS = [p for p in PARAMETERS if QUANTUM in p.games]

ROOT = Path(__file__).resolve().parents[2]
C_CORES = ("qttt/analysis/_solve.c", "qttt/analysis/_core.c")
NESTED_CORE = "qttt/analysis/_nested.c"


def _word(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def product_vocabulary() -> dict[str, tuple[str, ...]]:
    """Parameter values (integer ranges aside), awards and criteria, each with its C code if any."""
    out = {p.name: tuple(_word(v) for v in p.allowed if v != NESTED) for p in QUANTUM_PARAMETERS
           if p.type is not int}
    out["award"] = tuple(w for a in AWARD_TYPES.values() for w in (str(a.code), a.name))
    out["criteria"] = tuple(w for name, code in CRITERIA_CODES.items() for w in (str(code), name))
    return out


def c_vocabulary(path: Path) -> dict[str, tuple[str, ...]]:
    header = path.read_text(encoding="utf-8").split("*/", 1)[0]
    found = re.search(r"Vocabulary \([^)]*\):(.*)", header, re.S)
    assert found, f"{path.name} states no vocabulary in its header"
    items = " ".join(found[1].split()).rstrip(".").split("; ")
    return {key: tuple(words.split()) for key, _, words in (i.partition(" ") for i in items)}


def test_the_product_has_one_owner_per_award_and_parameter() -> None:
    # awards: the Award classes; the variant file's validation reads the same names and fields
    assert tuple(AWARD_TYPES) == tuple(a for a in AWARDS if AWARD_GAME[a] == QUANTUM)
    assert tuple(AWARD_FIELDS) == AWARDS
    assert tuple(AWARD_RULES) == tuple(a for a in AWARDS if AWARD_GAME[a] == NESTED)
    assert tuple(CRITERIA_CODES) == CRITERIA
    catalogue = rules()
    for name, rule in AWARD_RULES.items():
        assert catalogue[rule].scope == name
    for award in AWARD_TYPES.values():
        assert catalogue[award.rule].scope == award.name
    assert len({a.code for a in AWARD_TYPES.values()}) == len(AWARD_TYPES)
    # parameters: the typed Parameters declaration; each names a rule of the catalogue, its own
    # scoped rule where rules.toml has one
    for p in PARAMETERS:
        scoped = [r.id for r in catalogue.values() if r.scope == p.name]
        assert p.rule == (scoped[0] if scoped else p.rule) and p.rule in catalogue
        if p.type is tuple:  # route ("same" or block lists) and pattern-kind lists
            assert p.default == "same" if p.name == "route" else set(p.default) <= set(p.allowed)
        else:
            assert p.default in p.allowed


@pytest.mark.parametrize("path", C_CORES)
def test_each_compiled_core_covers_exactly_the_vocabulary(path: str) -> None:
    assert c_vocabulary(ROOT / path) == product_vocabulary()


def test_the_compiled_nested_core_covers_exactly_the_nested_vocabulary() -> None:
    expected = {p.name: tuple(str(v) for v in p.allowed) for p in PARAMETERS
                if NESTED in p.games and p.type is str and p.name != "game"}
    expected["award"] = tuple(w for a in AWARD_RULES for w in (str(AWARD_CODES[a]), a))
    assert c_vocabulary(ROOT / NESTED_CORE) == expected


def test_the_reference_model_covers_exactly_the_vocabulary() -> None:
    quantum = QUANTUM_PARAMETERS
    assert tuple(reference.RULE_DEFAULTS) == tuple(p.name for p in quantum)
    assert [reference.RULE_DEFAULTS[p.name] for p in quantum] == [p.default for p in quantum]
    choices = {p.name: tuple(v for v in p.allowed if v != NESTED) for p in quantum if p.type is str}
    assert choices == reference.RULE_CHOICES
    assert {k: tuple(v) for k, v in reference.AWARD_DEFAULTS.items()} == {
        award: tuple(fields) for award, fields in AWARD_FIELDS.items() if AWARD_GAME[award] == QUANTUM}
    assert reference.CRITERIA == CRITERIA


def test_the_nested_reference_model_covers_exactly_the_vocabulary() -> None:
    nested = [p for p in PARAMETERS if NESTED in p.games and p.name != "game"]
    assert tuple(nested_reference.DEFAULTS) == tuple(p.name for p in nested)
    assert [nested_reference.DEFAULTS[p.name] for p in nested] == [
        list(p.default) if isinstance(p.default, tuple) else p.default for p in nested]
    for kind in PATTERN_KINDS:  # every pattern kind, alone, gives the same cells in both
        for n in (3, 4):
            ref = sorted(sorted(r * n + c for r, c in cells)
                         for cells in nested_reference.grid_sets(n, [kind]))
            assert ref == sorted(list(p.cells) for p in grid_patterns(n, (kind,))), (kind, n)


def test_a_missing_or_extra_word_is_caught(tmp_path: Path) -> None:
    text = (ROOT / C_CORES[0]).read_text(encoding="utf-8")
    for changed in (text.replace("untouched keep vanish", "untouched keep"),
                    text.replace("2 rank;", "2 rank 3 majority;")):
        path = tmp_path / "core.c"
        path.write_text(changed, encoding="utf-8")
        assert c_vocabulary(path) != product_vocabulary()
