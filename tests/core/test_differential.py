"""`qttt random` then `qttt replay --json` on 2,000 games per built-in ruleset, against the
reference model (tests/support/reference.py) as an independent referee: every final board, phase,
over flag and score must agree, as must the variant and the other v1 fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lanes import examples
from reference import RefGame, load_variant

from qttt import builtin_names
from qttt.cli import main

GAMES = 2000
# The full 2,000 games per ruleset are marked slow (bonus4x4's deep: about a minute under CI's load);
# the full run also checks the first 200 of them (120 for bonus4x4: the reference collapses by
# trying every assignment, ~14 ms a 4×4 game), the quick lane the first 40.
QUICK = {"bonus4x4": 120}
DEEP = {"bonus4x4"}
# The two other readings of a double line (ambiguity register: double-line), 300 games unmarked.
READINGS = ("wikipedia(double_line=2)", "wikipedia(double_line=3/2)")
# A CodeCup bot's reading of simultaneous lines of four (ambiguity bonus-simultaneous).
BOT = "bonus4x4(tiebreak=[min-max])"
CASES = [pytest.param(n, GAMES, marks=pytest.mark.deep if n in DEEP else pytest.mark.slow)
         for n in (*builtin_names(), *READINGS)] + [
    (n, examples(QUICK.get(n, 200), 40)) for n in builtin_names()] + [
    (n, examples(300, 40)) for n in READINGS] + [(BOT, examples(120, 40))]


@pytest.mark.parametrize(("name", "count"), CASES)
def test_replay_agrees_with_reference(name: str, count: int, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games.jsonl"
    assert main(["random", name, "-n", str(count), "--seed", "2012", "-o", str(games)]) == 0
    capsys.readouterr()
    assert main(["replay", str(games), "--json"]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    states = [json.loads(line) for line in out.out.splitlines()]
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(states) == len(records) == count
    params = load_variant(name)
    phases = set()
    for i, (record, state) in enumerate(zip(records, states, strict=True)):
        referee = RefGame(params, name)
        for action in record["actions"]:
            referee.apply(action)  # raises if the engine's random game made an illegal move
        assert state == referee.state(), f"game {i}: {record}"
        assert referee.legal() == [], f"game {i} stopped early"
        phases.add(state["phase"])
    assert phases == {"over"}
    if "double_line" in name:  # the reading is exercised: some game ends with a double line
        award = name.partition("=")[2][:-1]
        assert any(award in state["scores"].values() for state in states)
