"""Planted rules bugs of the nested-classical family (tests/support/nested_mutants.py): a wrong
correspondence rule, a lost pattern-first order, an inverted majority and a bonus slip, each in
the Python engine only, in the compiled core only (built from a changed copy of _core.c, in the
checker's child process) and in both (one author, one misunderstanding: the cores agree with each
other, not with the rules); and a core that crashes or hangs. `check_nested` must report
nested-cores-agree violated with a witness game that replays under the real rules (the tests'
own reference model plays it), and never crash; the unmutated cores stay clean."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

import nested_mutants as mutants
import pytest
from nested_reference import RefNested

from qttt import load_ruleset
from qttt.nested import compiled
from verify.nested.check import CORES, check_nested
from verify.report import Report

INTELLIGENT = "intelligent"
CHAIN = "spec/coverage/nested-bonus-chain.toml"
MAJORITY = "spec/coverage/nested-weighted-majority.toml"
WALKS: dict[str, Any] = {"max_ply": 1, "games": 2}  # the 2×2 walk does the work
GAMES: dict[str, Any] = {"exhaustive": False, "games": 30}  # the real board's games do

# (id, ruleset, patch, options of check_nested)
MUTANTS: list[tuple[str, str, mutants.Patch, dict[str, Any]]] = [
    ("correspondence by block, engine", INTELLIGENT, mutants.engine_routes_by_block, WALKS),
    ("correspondence by block, core", INTELLIGENT, mutants.core_routes_by_block, WALKS),
    ("correspondence by block, both", INTELLIGENT,
     mutants.both(mutants.engine_routes_by_block, mutants.core_routes_by_block), WALKS),
    ("pattern-first lost, engine", CHAIN, mutants.engine_drawn_first, GAMES),
    ("pattern-first lost, core", CHAIN, mutants.core_drawn_first, GAMES),
    ("pattern-first lost, both", CHAIN,
     mutants.both(mutants.engine_drawn_first, mutants.core_drawn_first), GAMES),
    ("majority inverted, engine", MAJORITY, mutants.engine_majority_inverted, GAMES),
    ("majority inverted, core", MAJORITY, mutants.core_majority_inverted, GAMES),
    ("majority inverted, both", MAJORITY,
     mutants.both(mutants.engine_majority_inverted, mutants.core_majority_inverted), GAMES),
    ("bonus chain stops, engine", CHAIN, mutants.engine_chain_stops, GAMES),
    ("bonus chain stops, core", CHAIN, mutants.core_chain_stops, GAMES),
    ("bonus chain stops, both", CHAIN,
     mutants.both(mutants.engine_chain_stops, mutants.core_chain_stops), GAMES),
    ("the core crashes", CHAIN, mutants.core_crashes, WALKS),
]


@pytest.fixture(autouse=True)
def real_core() -> Iterator[None]:
    """Each test ends with the compiled core built from the real source."""
    yield
    compiled.library.cache_clear()
    compiled._cores.cache_clear()


@functools.cache
def control(spec: str, options: tuple[tuple[str, Any], ...]) -> Report:
    return check_nested(spec, **dict(options))


def replays_under_the_rules(record: dict[str, Any]) -> None:
    """The witness's moves are legal under the rules: the tests' reference model accepts each."""
    rs = load_ruleset(record["variant"])
    ref = RefNested({**dict(rs.params), "scoring": [c.to_dict() for c in rs.scoring]}, record["variant"])
    for action in record["actions"]:
        assert action in ref.legal(), (action, record)
        ref.apply(action)


def assert_caught(report: Report) -> None:
    f = next(f for f in report.findings if f.property == CORES)
    assert f.status == "violated" and f.witness is not None, (f.label, f.method)
    replays_under_the_rules(f.witness.record)
    assert not report.has("error"), [(g.property, g.label) for g in report.findings]


# The legal list leaves out the last allowed cell of each word but the first (a slip the core's
# load-time self-test sees: the commands fall back to the Python engine).
LEGAL_LIST_SHORT = mutants.source_line(
    "out[k++] = w * 64 + __builtin_ctzll(m);",
    "{ if (k < 1 || m & (m - 1)) out[k++] = w * 64 + __builtin_ctzll(m); }")


@pytest.mark.slow
def test_a_core_its_self_test_refuses_is_still_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker compares the core as its source builds it (verify.built.as_built), in its child
    too: the slip is a violation with a game, and the self-test's refusal leaves its own part."""
    LEGAL_LIST_SHORT(monkeypatch)
    assert compiled.available() is not None  # the self-test refuses it: qttt plays the Python engine
    report = check_nested(INTELLIGENT, **WALKS)
    assert_caught(report)
    f = next(f for f in report.findings if f.property == CORES)
    assert "self-test refuses it" in f.label


@pytest.mark.slow
@pytest.mark.parametrize(("name", "spec", "patch", "options"), MUTANTS, ids=[m[0] for m in MUTANTS])
def test_planted_bug_is_caught(name: str, spec: str, patch: mutants.Patch, options: dict[str, Any],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    unmutated = control(spec, tuple(sorted(options.items())))
    assert not unmutated.violated and not unmutated.has("error"), \
        [(f.property, f.label) for f in unmutated.findings]
    patch(monkeypatch)
    assert_caught(check_nested(spec, **options))


@pytest.mark.slow
def test_a_hanging_core_is_a_violation_not_a_hang(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each call that hangs is waited for its whole time, halving the batch down to the probe
    (a fresh child each time): the times are cut to what an answering core needs many times over
    (its calls take milliseconds)."""
    mutants.core_hangs(monkeypatch)
    monkeypatch.setattr("verify.nested.check.CORE_TIMEOUT", 0.5)
    monkeypatch.setattr("verify.nested.check.CORE_PER_PROBE", 0.005)
    report = check_nested(CHAIN, max_ply=1, games=2)
    assert_caught(report)
    f = next(f for f in report.findings if f.property == CORES)
    assert f.witness is not None and "did not answer" in f.witness.shows, f.witness


def test_every_kind_of_slip_is_planted_in_each_core_and_in_both() -> None:
    names = [m[0] for m in MUTANTS]
    for slip in ("correspondence", "pattern-first", "majority", "bonus"):
        assert {n.rsplit(", ", 1)[1] for n in names if n.startswith(slip)} == {"engine", "core", "both"}
