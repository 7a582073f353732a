"""Every parameter value and award of the vocabulary has one owner in the product and exactly two
deliberate, independent copies: for the quantum family the compiled C core (checked by behaviour:
a ruleset using each value plays the same games and perft in C as in the engine) and the tests'
reference model; for the nested-classical family likewise its compiled core (qttt/nested/_core.c,
checked by behaviour) and its reference model (tests/support/nested_reference.py).
Adding a value or an award fails here until both copies
cover it; removing one fails until both drop it."""

from __future__ import annotations

import random
from pathlib import Path

import nested_reference
import pytest
import reference

from qttt.conformance.perft import perft_counts
from qttt.geometry import grid_patterns
from qttt.nested import compiled as nested_compiled
from qttt.nested.engine import AWARD_RULES, nested_playout
from qttt.quantum import compiled
from qttt.quantum.analysis.count import encode
from qttt.quantum.engine import State, playout
from qttt.quantum.scoring import AWARD_TYPES, CRITERIA_CODES
from qttt.ruleset import Ruleset, with_params
from qttt.spec import rules
from qttt.variant import builtin_names, load_ruleset
from qttt.vocabulary import (
    AWARD_DECLARATIONS,
    AWARD_FIELDS,
    AWARDS,
    CRITERIA,
    GAMES,
    NESTED,
    PARAMETER_BY_NAME,
    PARAMETERS,
    PATTERN_KINDS,
    QUANTUM,
)

QUANTUM_PARAMETERS = [p for p in PARAMETERS if QUANTUM in p.games]
OTHER_FAMILIES = set(GAMES) - {QUANTUM}  # values of `game` that are no quantum vocabulary
REASON = compiled.available()
ROOT = Path(__file__).resolve().parents[2]
COVERAGE = sorted((ROOT / "spec" / "coverage").glob("*.toml"))


def _word(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def product_vocabulary() -> dict[str, tuple[str, ...]]:
    """Parameter values (integer ranges aside), awards and criteria of the quantum family."""
    out = {p.name: tuple(_word(v) for v in p.allowed if v not in OTHER_FAMILIES) for p in QUANTUM_PARAMETERS
           if p.type is not int}
    out["award"] = tuple(AWARD_TYPES)
    out["criteria"] = tuple(CRITERIA_CODES)
    return out


def _uses(rs: Ruleset, key: str, word: str) -> bool:
    if key == "award":
        return any(c.award == word for c in rs.scoring)
    if key == "criteria":
        lined = [c for c in rs.scoring if c.award == "first-line"]
        return any(word in c.get("tiebreak") + c.get("fallback") for c in lined)
    return _word(rs.value(key)) == word


def vocabulary_cases() -> list[tuple[str, Ruleset]]:
    """(word, ruleset) pairs: every parameter value on 3×3 and on 4×4 (the core's two builds), and
    every award and criterion in a built-in or coverage ruleset that uses it."""
    known = [load_ruleset(n) for n in builtin_names()] + [load_ruleset(p) for p in COVERAGE]
    known = [rs for rs in known if rs.game == QUANTUM]
    cases = []
    for key, words in product_vocabulary().items():
        for word in words:
            if key in ("award", "criteria"):
                using = [rs for rs in known if _uses(rs, key, word)]
                assert using, f"no built-in or coverage ruleset uses {key} {word}: add a coverage variant"
                cases += [(f"{key}={word}:{rs.name}", rs) for rs in using]
                continue
            declared = PARAMETER_BY_NAME[key]
            value = next(v for v in declared.allowed if _word(v) == word)
            for base in ("wikipedia", "bonus4x4"):
                rs = with_params(load_ruleset(base), **declared.enabling(value), **{key: value})
                cases.append((f"{key}={word}:{base}", rs))
    return cases


CASES = vocabulary_cases()


@pytest.mark.slow
@pytest.mark.skipif(REASON is not None, reason=f"compiled core unavailable: {REASON}")
@pytest.mark.parametrize("rs", [rs for _, rs in CASES], ids=[w for w, _ in CASES])
def test_the_compiled_core_plays_every_vocabulary_value_as_the_engine(rs: Ruleset) -> None:
    """The C core is the one deliberate copy of the rules: a ruleset using each value plays the same
    seeded games (actions, final phase, scores) and counts the same perft as the Python engine."""
    core = compiled.core_for(rs)
    n2 = rs.board ** 2
    r1, r2 = random.Random(11), random.Random(11)
    for codes, x, o, phase, _ in core.games(r1, 150):
        actions, state = playout(rs, r2)
        assert codes == [encode(a, n2) for a in actions]
        assert (phase, core.points(x), core.points(o)) == (state.phase, state.scores["x"], state.scores["o"])
        cut = len(actions) // 2
        start = State.initial(rs)
        for a in actions[:cut]:
            start = start.apply(a)
        depth = 2 if rs.board > 3 else 3
        assert core.position(actions[:cut]).perft(depth) == perft_counts(start, depth)


def test_the_product_has_one_owner_per_award_and_parameter() -> None:
    # awards: the Award classes; the variant file's validation reads the same names and fields
    assert tuple(AWARD_TYPES) == tuple(a for a in AWARDS if AWARD_DECLARATIONS[a].game == QUANTUM)
    assert tuple(AWARD_FIELDS) == AWARDS
    assert tuple(AWARD_RULES) == tuple(a for a in AWARDS if AWARD_DECLARATIONS[a].game == NESTED)
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


def nested_cases() -> list[tuple[str, Ruleset]]:
    """(word, ruleset) pairs for the nested family: every value of its parameters that take words
    (full_block, bonus; each pattern kind alone as block and as board patterns) on intelligent, and
    every nested award in a built-in or coverage ruleset that uses it."""
    files = [*COVERAGE, *sorted((ROOT / "spec" / "editions").glob("*.toml"))]
    known = [rs for rs in (*(load_ruleset(n) for n in builtin_names(None)), *(load_ruleset(p) for p in files))
             if rs.game == NESTED]
    base = load_ruleset("intelligent")
    cases = []
    for p in PARAMETERS:
        if NESTED not in p.games or p.name in ("game", "route"):
            continue
        if p.type is str:
            cases += [(f"{p.name}={v}", with_params(base, **{p.name: v})) for v in p.allowed]
        elif p.type is tuple:  # pattern-kind lists
            cases += [(f"{p.name}={k}", with_params(base, **{p.name: (k,)})) for k in p.allowed]
    for award in AWARD_RULES:
        using = [rs for rs in known if any(c.award == award for c in rs.scoring)]
        assert using, f"no built-in or coverage ruleset uses award {award}: add a coverage variant"
        cases += [(f"award={award}:{rs.name}", rs) for rs in using]
    return cases


NESTED_CASES = nested_cases()
NESTED_REASON = nested_compiled.available()


@pytest.mark.skipif(NESTED_REASON is not None, reason=f"compiled nested core unavailable: {NESTED_REASON}")
@pytest.mark.parametrize("rs", [rs for _, rs in NESTED_CASES], ids=[w for w, _ in NESTED_CASES])
def test_the_compiled_nested_core_plays_every_vocabulary_value_as_the_engine(rs: Ruleset) -> None:
    """The nested C core is the family's deliberate copy of its rules: a ruleset using each value
    and award plays the same seeded games (moves, lengths, points) in C as in the engine."""
    core = nested_compiled.core_for(rs)
    fast, slow = random.Random(5), random.Random(5)
    cells, lengths, points = core.games(fast, 40)
    for i in range(40):
        moves, final = nested_playout(rs, slow)
        assert ([m.cell for m in moves], lengths[i]) == (cells[i], len(moves))
        assert (core.points(points[i][0]), core.points(points[i][1])) == (
            final.scores["x"], final.scores["o"])


def test_the_reference_model_covers_exactly_the_vocabulary() -> None:
    quantum = QUANTUM_PARAMETERS
    assert tuple(reference.RULE_DEFAULTS) == tuple(p.name for p in quantum)
    assert [reference.RULE_DEFAULTS[p.name] for p in quantum] == [p.default for p in quantum]
    choices = {p.name: tuple(v for v in p.allowed if v not in OTHER_FAMILIES)
               for p in quantum if p.type is str}
    assert choices == reference.RULE_CHOICES
    assert {k: tuple(v) for k, v in reference.AWARD_DEFAULTS.items()} == {
        a.name: tuple(a.settings) for a in AWARD_DECLARATIONS.values() if a.game == QUANTUM}
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
