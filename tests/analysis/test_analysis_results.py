"""The committed analysis results (results/analysis/*.json) agree with fresh runs where that is cheap:
exact counts are recomputed, random play is replayed with the same seed and chunks, and every
principal variation is replayed by the engine to a final score equal to the stated value."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from qttt import load_ruleset, new_game
from qttt.analysis.sample import sample_games
from qttt.notation import action_from_json
from qttt.processes import local_mapper
from qttt.quantum.analysis.count import count_games

RESULTS = sorted((Path(__file__).resolve().parents[2] / "results" / "analysis").glob("*.json"))


def _section(path: Path, name: str) -> dict[str, Any] | None:
    section: dict[str, Any] | None = json.loads(path.read_text(encoding="utf-8")).get(name)
    return section


def test_there_are_results_for_every_3x3_builtin() -> None:
    names = {p.stem for p in RESULTS}
    assert {"wikipedia", "russian", "russian-unstable", "kumar", "ishizeki-complete"} <= names


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_counts_recomputed(path: Path) -> None:
    saved = _section(path, "count")
    if saved is None or not saved["complete"] or saved["key"] != "partition":
        pytest.skip("no complete count that is cheap to recompute")
    assert count_games(load_ruleset(saved["ruleset"])).to_json() == saved


@pytest.mark.slow
@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_random_play_replayed(path: Path) -> None:
    saved = _section(path, "random")
    if saved is None:
        pytest.skip("no random-play section")
    mapper, close = local_mapper(2)
    try:
        res = sample_games(load_ruleset(saved["ruleset"]), saved["games"], seed=saved["seed"],
                           chunk=saved["chunk"], mapper=mapper)
    finally:
        close()
    assert res.to_json() == saved


@pytest.mark.parametrize("path", RESULTS, ids=lambda p: p.stem)
def test_principal_variation_reaches_the_value(path: Path) -> None:
    saved = _section(path, "solve")
    if saved is None:
        pytest.skip("not solved")
    state = new_game(load_ruleset(saved["ruleset"]))
    for action in saved["pv"]:
        state = state.apply(action_from_json(action))
    assert state.over
    assert state.scores["x"] - state.scores["o"] == Fraction(saved["value"])
