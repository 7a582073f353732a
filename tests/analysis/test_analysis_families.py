"""`qttt analyze` reaches each family's analyses through the registry: a task the family has runs,
a task it lacks is refused in one line naming the family (exit 2), and random play works for every
family, through its `tally` tool or, without one, its playouts (the classical family: checked
against the naive reference model, drawing as the sampler documents)."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest
from classical_reference import RefClassical
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.analysis.sample import sample_games
from qttt.cli import main
from qttt.family import families
from qttt.variant import builtin_names, load_ruleset

TASKS = ("count", "solve", "fairness")
RULESETS = {"quantum": "kumar(board=2,last_square=end,untouched=vanish)", "nested-classical": "intelligent",
            "classical": "qttt(game=classical,board=2)"}


def test_every_family_has_a_ruleset_here() -> None:
    assert {f.name for f in families()} == set(RULESETS)
    assert {load_ruleset(name).game for name in RULESETS.values()} == set(RULESETS)
    assert {load_ruleset(n).game for n in builtin_names(None)} <= set(RULESETS)


@pytest.mark.parametrize("family", sorted(RULESETS))
@pytest.mark.parametrize("task", TASKS)
def test_a_task_runs_where_the_family_has_it_and_is_refused_in_one_line_otherwise(
        family: str, task: str, capsys: pytest.CaptureFixture[str]) -> None:
    has = task in next(f for f in families() if f.name == family).tools
    extra = ["--max-ply", "2"] if task == "count" else []
    status = main(["analyze", task, RULESETS[family], "--quiet", *extra])
    out, err = capsys.readouterr()
    if has:
        assert status == 0 and out and not err
    else:
        assert status == 2 and not out
        assert err.count("\n") == 1 and f"the {family} family has no {task}" in err


def reference_scores(n: int, k: int, seed: int, chunks: list[int]) -> Counter[tuple[Fraction, Fraction]]:
    """Final (x, o) points of the reference model's random games, chunk i drawn from
    random.Random(f"{seed}:{i}"), each move the legal cell at index int(u × count)."""
    scores: Counter[tuple[Fraction, Fraction]] = Counter()
    for index, games in enumerate(chunks):
        rng = random.Random(f"{seed}:{index}")
        for _ in range(games):
            game = RefClassical(n, k, "v")
            while legal := game.legal():
                assert game.apply(legal[int(rng.random() * len(legal))]) is None
            s = game.scores()
            scores[(Fraction(s["x"]), Fraction(s["o"]))] += 1
    return scores


@settings(max_examples=examples(25), deadline=None)
@given(n=st.integers(2, 4), data=st.data(), seed=st.integers(0, 10**6), games=st.integers(1, 40),
       chunk=st.integers(1, 15))
def test_random_play_of_a_family_without_a_tally_counts_its_final_points(
        n: int, data: st.DataObject, seed: int, games: int, chunk: int) -> None:
    k = data.draw(st.integers(0, n))
    res = sample_games(load_ruleset(f"qttt(game=classical,board={n},end_line={k})"), games, seed=seed,
                       chunk=chunk)
    sizes = [min(chunk, games - i) for i in range(0, games, chunk)]
    assert res.histogram == reference_scores(n, k, seed, sizes)
    assert not res.lines and not res.shapes
