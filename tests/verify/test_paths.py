"""The registry of paths the checker compares with the engine (verify.paths): every symbol a compiled
core exports is covered by a registered path (or declared uncompared, with why), every registered
name is real, and every path the checker runs is one it can load."""

from __future__ import annotations

import pytest

from qttt import load_ruleset
from qttt.family import families, load
from verify import paths as P


@pytest.fixture(scope="module")
def exported() -> dict[str, frozenset[str]]:
    """Each family's core's exported symbols, by family (a core that cannot be built here skips)."""
    out = {}
    for family, module in P.cores().items():
        found = P.exported(module.__name__)
        if not found:
            pytest.skip(f"the {family} core cannot be built here")
        out[family] = found
    return out


def test_every_exported_symbol_is_covered_by_a_registered_path(exported: dict[str, frozenset[str]]) -> None:
    covered = P.covered()
    missing = {family: sorted(s for s in symbols if s not in covered and s not in P.UNCOMPARED)
               for family, symbols in exported.items()}
    assert not any(missing.values()), f"exported by a core, compared by no registered path: {missing}"


def test_the_declared_gaps_are_exactly_the_uncovered_symbols(exported: dict[str, frozenset[str]]) -> None:
    """A symbol some path covers, or no core exports, leaves UNCOMPARED."""
    every = frozenset().union(*exported.values())
    assert not set(P.UNCOMPARED) & set(P.covered()), "covered, yet declared uncompared"
    assert set(P.UNCOMPARED) <= every, f"declared uncompared, exported by none: {set(P.UNCOMPARED) - every}"
    assert set(P.covered()) <= every, f"registered, exported by no core: {set(P.covered()) - every}"


def test_a_path_covers_only_its_own_familys_symbols(exported: dict[str, frozenset[str]]) -> None:
    for p in P.PATHS:
        if p.family in exported:
            assert set(p.symbols) <= exported[p.family], (p.name, set(p.symbols) - exported[p.family])


def test_every_path_loads_and_names_a_family() -> None:
    names = {f.name for f in families()}
    assert len({p.name for p in P.PATHS}) == len(P.PATHS), "two paths of one name"
    for p in P.PATHS:
        assert p.family in names, p
        assert p.at in P.AT, p
        assert callable(p.comparison()), p
        assert p.serves is None or callable(load(p.serves)), p
        assert p.settles, p


def test_a_symbol_nobody_registers_fails_the_coverage_check(exported: dict[str, frozenset[str]],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The check itself can fail: a path taken out of the registry leaves its symbols uncovered."""
    first = P.PATHS[0]
    monkeypatch.setattr(P, "PATHS", P.PATHS[1:])
    with pytest.raises(AssertionError, match=first.symbols[0]):
        test_every_exported_symbol_is_covered_by_a_registered_path(exported)


def test_check_runs_and_names_every_registered_path_that_serves_the_ruleset() -> None:
    """`qttt check` reports each registered path of the ruleset's family by name, under the
    property its kind is checked under, with what settled it; none is left out."""
    from verify.quantum.check import PROPERTY_AT, check
    report = check("qttt(board=2,end=full)", games=5, exhaustive=False, timeout=30)
    named = {(f.property, p["path"]): p for f in report.findings for p in f.details.get("paths", [])}
    rs = load_ruleset("qttt(board=2,end=full)")
    for p in P.paths("quantum"):
        entry = named[(PROPERTY_AT[p.at], p.name)]
        why = p.reason(rs)  # the expectimax plays only chance rulesets
        if why is None:
            assert entry["status"] == "sampled" and str(5) in entry["label"], entry
        else:
            assert entry["status"] == "unknown" and entry["label"] == f"not compared: {why}", entry
        assert entry["symbols"] == list(p.symbols)
    serving = [p for p in P.paths("quantum") if p.reason(rs) is None]
    assert f"compared with it: {len(serving)} compiled paths" in report.cores
