"""The published 4×4 walks (results/verification/walks/, `python -m verify.quantum.published`):
each file is for the ruleset it names, complete, clean (its only failures are ties the ruleset's
documented gap accepts: score-tie-gap), and the same as a walk re-run to
DRIFT_PLY with the code as it is (a change of the rules, the compiled core or the checks that
alters the walk fails here until the walk is published again); `qttt check` cites the file."""

from __future__ import annotations

import json
from typing import Any

import pytest

from qttt import load_ruleset
from qttt.quantum import compiled
from verify.quantum.check import ENGINE_EVERY, ENGINE_PLY, check, core_walks, documented_gap
from verify.quantum.exhaustive import RELABELLED, walk, walk_ruleset
from verify.quantum.published import main
from verify.quantum.walk_results import DRIFT_PLY, NAMES, cited, results_dir, source

needs_core = pytest.mark.skipif(compiled.available() is not None, reason="no compiled core here")


def published(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((results_dir() / f"{name}.json").read_text(encoding="utf-8"))
    return data


def test_every_published_walk_is_there() -> None:
    assert main(["--check"]) == 0


@needs_core
@pytest.mark.parametrize("name", NAMES)
def test_a_published_walk_is_complete_and_clean(name: str) -> None:
    data = published(name)
    rs = load_ruleset(source(name))
    assert data["canonical"] == rs.canonical and data["ruleset"] == name
    structural = data["structural"]
    assert structural["ruleset"] == walk_ruleset(rs).canonical and structural["complete"]
    assert structural["walker"] == "core" and structural["members_per_class"] == RELABELLED
    assert (structural["engine_ply"], structural["engine_every"]) == (ENGINE_PLY, ENGINE_EVERY)
    assert not structural["key_errors"]
    assert sum(structural["members_by_ply"]) > 2 * sum(structural["positions_by_ply"])
    own = data["own_rules"]
    assert own is not None and own["complete"] and not own["key_errors"]
    failed = {f[0] for f in structural["failures"] + own["failures"]}
    assert failed <= {"score-tie-gap"} and (not failed or documented_gap(rs) is not None), failed
    assert own["final_positions"] > 0
    assert core_walks(rs)


@needs_core
@pytest.mark.parametrize("name", NAMES)
def test_a_published_walk_is_what_the_code_walks_now(name: str) -> None:
    """The drift test: the structural walk's first DRIFT_PLY plies walked again by the compiled core
    give the published classes and members ply by ply, and the engine's share past ENGINE_PLY the
    published one (the engine checks every class only to ply 3 here, so the core does the work: the
    plies before the end rules apply are the same on the ruleset's own rules)."""
    data = published(name)
    rs = load_ruleset(source(name))
    again = walk(walk_ruleset(rs), max_ply=DRIFT_PLY, members=RELABELLED, walker="core", engine_ply=3,
                 engine_every=ENGINE_EVERY, load=source(name), params={"end": "full"})
    saved = data["structural"]
    assert not again.failures and not again.key_errors
    assert again.positions_by_ply == saved["positions_by_ply"][:DRIFT_PLY + 1]
    assert again.members_by_ply == saved["members_by_ply"][:DRIFT_PLY + 1]
    assert again.engine_by_ply[ENGINE_PLY + 1:] == saved["engine_by_ply"][ENGINE_PLY + 1:DRIFT_PLY + 1]
    assert again.positions_by_ply == data["own_rules"]["positions_by_ply"][:DRIFT_PLY + 1]


@needs_core
def test_check_cites_the_published_walk() -> None:
    rs = load_ruleset("bonus4x4")
    found = cited(rs)
    assert found is not None
    structural, own = found
    assert structural.published == "results/verification/walks/bonus4x4.json" and structural.complete
    assert own is not None and own.ruleset == rs.canonical


@needs_core
@pytest.mark.slow
def test_the_check_of_bonus4x4_rests_on_the_published_walk() -> None:
    report = check("bonus4x4", games=20)
    statuses = {f.property: f.status for f in report.findings}
    walked = ("single-cycle-per-move", "collapse-uniqueness", "collapse-totality", "turn-order",
              "legal-actions", "no-deadlock", "termination")
    assert all(statuses[p] == "classes" for p in walked), statuses
    turn = next(f for f in report.findings if f.property == "turn-order")
    assert "published walk results/verification/walks/bonus4x4.json, not re-run by this check" in turn.label
    assert report.walk is not None and report.walk["published"] == "results/verification/walks/bonus4x4.json"
