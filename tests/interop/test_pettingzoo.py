"""The PettingZoo adapter (qttt.pettingzoo): PettingZoo's own api_test and seed_test on every
built-in ruleset and on drawn variants, rewards against our engine's final scores, forfeits by the
ruleset's [match] table, the mask, the ansi rendering and the observation shared with OpenSpiel."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset
from qttt.family import family_of
from qttt.games import new_game
from qttt.interop import rules_of
from qttt.nested.strategies import nested_rulesets
from qttt.quantum.strategies import random_rulesets
from qttt.variant import builtin_names

pytestmark = pytest.mark.frameworks

pettingzoo_test = pytest.importorskip("pettingzoo.test",
                                      reason="pettingzoo is not installed (pip install -e '.[pettingzoo]')")
import numpy as np  # noqa: E402  (PettingZoo's dependency)

from qttt.pettingzoo import AGENTS, env  # noqa: E402


@pytest.mark.parametrize("name", builtin_names(None))
def test_api_and_seed_tests_on_every_builtin_ruleset(name: str) -> None:
    pettingzoo_test.api_test(env(ruleset=name, render_mode="ansi"), num_cycles=300)
    pettingzoo_test.seed_test(lambda: env(ruleset=name), num_cycles=300)


# both families; chance rulesets come to the adapters with OpenSpiel's explicit chance (issue 33)
DRAWN = random_rulesets(max_board=3, chance=False) | nested_rulesets(max_board=2)


@settings(max_examples=examples(10))
@given(DRAWN, st.sampled_from(["points", "margin"]))
def test_api_test_on_drawn_rulesets(rs: Any, returns: str) -> None:
    pettingzoo_test.api_test(env(ruleset=rs.canonical, returns=returns), num_cycles=200)


def play(e: Any, rng: random.Random) -> tuple[list[int], dict[str, float]]:
    """Random masked actions to the end; the actions played and each agent's reward at the end."""
    actions, rewards = [], {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        if terminated or truncated:
            rewards[agent] = reward
            e.step(None)
            continue
        assert agent == e.agent_selection
        legal = np.flatnonzero(obs["action_mask"]).tolist()
        other = AGENTS[1 - AGENTS.index(agent)]
        assert not e.observe(other)["action_mask"].any()
        action = rng.choice(legal)
        actions.append(action)
        e.step(action)
    return actions, rewards


@settings(max_examples=examples(20))
@given(DRAWN | st.sampled_from(builtin_names(None)).map(load_ruleset),
       st.integers(0, 2**32 - 1))
def test_rewards_are_the_final_scores(rs: Any, seed: int) -> None:
    rules = rules_of(rs)
    for returns in ("points", "margin"):
        e = env(ruleset=rs.canonical, returns=returns, render_mode="ansi")
        e.reset(seed=seed)
        actions, rewards = play(e, random.Random(seed))
        final = rules.record(actions).replay()
        x, o = rules.codec.points(final)
        want = (x, o) if returns == "points" else (x - o, o - x)
        assert [rewards[a] for a in AGENTS] == [float(v) for v in want]
        assert e.render() == family_of(rs).board_text(final, False)


@pytest.mark.parametrize("name", ["bonus4x4", "intelligent"])
def test_an_illegal_action_forfeits(name: str) -> None:
    rs = load_ruleset(name)
    won, lost = (float(v) for v in rs.match.forfeit)
    e = env(ruleset=name)
    e.reset()
    e.step(int(np.flatnonzero(e.observe("player_0")["action_mask"])[0]))
    assert e.agent_selection == "player_1"
    illegal = int(np.flatnonzero(e.observe("player_1")["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    assert e.rewards == {"player_1": lost, "player_0": won}
    assert "match-forfeit" in e.infos["player_1"]["forfeit"]


@pytest.mark.parametrize("name", builtin_names(None))
def test_observation_is_the_openspiel_tensor_and_legal_mask(name: str) -> None:
    rules = rules_of(name)
    e = env(ruleset=name)
    e.reset()
    obs = e.observe("player_0")
    planes, rows, cols = rules.codec.shape
    assert obs["observation"].shape == (rows, cols, planes)
    flat = np.moveaxis(obs["observation"], -1, 0).reshape(-1).tolist()
    assert flat == rules.codec.planes(new_game(rules.ruleset))
    assert np.flatnonzero(obs["action_mask"]).tolist() == rules.legal(new_game(rules.ruleset))


def test_bad_arguments_name_the_problem() -> None:
    with pytest.raises(ValueError, match="returns='x': not one of points, margin"):
        env(ruleset="wikipedia", returns="x")
    with pytest.raises(ValueError, match="render_mode='rgb_array': not one of ansi, human"):
        env(ruleset="wikipedia", render_mode="rgb_array")
