"""Random nested-classical games replayed in the engine and in the reference model
(tests/nested_reference.py), step by step: every state (board, block states, target, bonus, turn,
end, scores) and every legal set must agree. The games come from `qttt random`; `qttt replay
--json` must print the same final states."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from lanes import examples
from nested_reference import RefNested, load_nested, random_nested

from qttt import load_ruleset
from qttt.cli import main
from qttt.family import Mark
from qttt.games import new_game
from qttt.notation import action_to_json, state_to_json

EXAMPLES = Path(__file__).resolve().parents[2] / "spec" / "editions"
EDITIONS = [str(EXAMPLES / "intelligent-2016.toml"), str(EXAMPLES / "intelligent-2018.toml")]
GAMES = 2000
QUICK = 60
# 2,000 games of the built-in ruleset and 300 of each edition in the deep lane (about 3 minutes, and
# one under CI's load for the 2018 edition's), 300 and 60 of the built-in one and 60 of each edition
# in CI's; the quick lane plays 20 and 10.
CASES = [pytest.param("intelligent", GAMES, marks=pytest.mark.deep), ("intelligent", examples(QUICK, 20))]
CASES += [pytest.param("intelligent", 300, marks=pytest.mark.slow)]
CASES += [pytest.param(e, 300, marks=pytest.mark.deep) for e in EDITIONS]
CASES += [(e, examples(60, 10)) for e in EDITIONS]


def _walk(name: str, record: dict[str, object], i: int) -> dict[str, object]:
    """Replay one record in both models, comparing each state and legal set; the final state.
    `name` is the variant file (or built-in name) the reference reads; states carry the record's
    own variant name."""
    rs = load_ruleset(name)
    label = str(record.get("variant", name))
    assert load_ruleset(label).key() == rs.key()
    ref = RefNested(load_nested(name), label)
    state = new_game(rs)
    actions = record["actions"]
    assert isinstance(actions, list)
    for k, action in enumerate([*actions, None]):
        where = f"game {i}, step {k}"
        assert state_to_json(state, label) == ref.state(), where
        assert [action_to_json(a) for a in state.legal_actions()] == ref.legal(), where
        if action is None:
            break
        ref.apply(action)
        state = state.apply(Mark(action["mark"]))
    assert state.over and ref.legal() == []
    return ref.state()


@pytest.mark.parametrize(("name", "count"), CASES)
def test_random_games_agree_step_by_step(name: str, count: int, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    games = tmp_path / "games.jsonl"
    assert main(["random", name, "-n", str(count), "--seed", "2017", "-o", str(games)]) == 0
    assert main(["replay", str(games), "--json"]) == 0
    out = capsys.readouterr()
    assert out.err == ""
    finals = [json.loads(line) for line in out.out.splitlines()]
    records = [json.loads(line) for line in games.read_text().splitlines()]
    assert len(records) == len(finals) == count
    ends = set()
    for i, (record, final) in enumerate(zip(records, finals, strict=True)):
        assert _walk(name, record, i) == final, f"game {i}"
        ref = RefNested(load_nested(name), name)
        for action in record["actions"]:
            ref.apply(action)
        ends.add("draw" if ref.winner is None else "win")
    assert ends == {"draw", "win"}  # both kinds of end occur


@pytest.mark.parametrize("name", ["intelligent", *EDITIONS])
def test_reference_games_replay_in_the_engine(name: str) -> None:
    """Games the reference chooses (its own legal sets) replay identically in the engine."""
    params = load_nested(name)
    rng = random.Random(11)
    for i in range(10):
        actions = random_nested(params, rng, name)
        _walk(name, {"actions": actions}, i)
