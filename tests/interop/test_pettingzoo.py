"""The PettingZoo adapter (qttt.pettingzoo): PettingZoo's own api_test and seed_test on every
built-in ruleset and on drawn variants, rewards against our engine's final scores under each
reading, forfeits by the ruleset's [match] table naming the rule that refuses the action, the
mask, the ansi rendering, the observation shared with OpenSpiel, names taken as written, chance
turns drawn from the seed as qttt.chance.draw draws them."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset
from qttt.chance import draw
from qttt.family import family_of
from qttt.games import new_game
from qttt.interop import RETURNS, RULE, rules_of
from qttt.nested.strategies import nested_rulesets
from qttt.quantum.strategies import random_rulesets
from qttt.spec import spec_dir
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


# both families, chance rulesets among the quantum ones
DRAWN = random_rulesets(max_board=3) | nested_rulesets(max_board=2)
CHANCE_VARIANTS = [str(p) for p in sorted((spec_dir() / "coverage").glob("chance-*.toml"))]


@settings(max_examples=examples(10))
@given(DRAWN, st.sampled_from(RETURNS))
def test_api_test_on_drawn_rulesets(rs: Any, returns: str) -> None:
    pettingzoo_test.api_test(env(ruleset=rs.canonical, returns=returns), num_cycles=200)


def play(e: Any, rng: random.Random) -> tuple[list[int], dict[str, float]]:
    """Random masked actions to the end; the numbers played, each chance outcome the environment
    drew after the action opening its turn (its infos tell it), and each agent's reward at the end."""
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
        drawn = [e.infos[a].get("chance") for a in AGENTS]
        assert drawn[0] == drawn[1]
        if drawn[0] is not None:
            actions.append(drawn[0][0])
    return actions, rewards


@settings(max_examples=examples(20))
@given(DRAWN | st.sampled_from(builtin_names(None)).map(load_ruleset),
       st.integers(0, 2**32 - 1))
def test_rewards_are_the_final_scores(rs: Any, seed: int) -> None:
    rules = rules_of(rs)
    for returns in RETURNS:
        e = env(ruleset=rs.canonical, returns=returns, render_mode="ansi")
        e.reset(seed=seed)
        actions, rewards = play(e, random.Random(seed))
        final = rules.record(actions).replay()
        x, o = rules.codec.points(final)
        won = (x > o) - (x < o)
        want: tuple[Any, Any] = {"points": (x, o), "margin": (x - o, o - x), "result": (won, -won)}[returns]
        assert [rewards[a] for a in AGENTS] == [float(v) for v in want]
        assert e.render() == family_of(rs).board_text(final, False)


@pytest.mark.parametrize("name", ["bonus4x4", "intelligent"])
@pytest.mark.parametrize("returns", RETURNS)
def test_an_illegal_action_forfeits(name: str, returns: str) -> None:
    rs = load_ruleset(name)
    won, lost = (float(v) for v in rs.match.forfeit)
    e = env(ruleset=name, returns=returns)
    e.reset()
    e.step(int(np.flatnonzero(e.observe("player_0")["action_mask"])[0]))
    assert e.agent_selection == "player_1"
    illegal = int(np.flatnonzero(e.observe("player_1")["action_mask"] == 0)[0])
    e.step(illegal)
    assert all(e.terminations.values())
    want = {"points": (lost, won), "margin": (lost - won, won - lost), "result": (-1.0, 1.0)}[returns]
    assert e.rewards == dict(zip(("player_1", "player_0"), want, strict=True))
    assert "match-forfeit" in e.infos["player_1"]["forfeit"]


@settings(max_examples=examples(20))
@given(DRAWN | st.sampled_from(builtin_names(None)).map(load_ruleset), st.integers(0, 2**32 - 1),
       st.integers(0, 30), st.data())
def test_every_unoffered_action_forfeits_naming_the_rule(rs: Any, seed: int, depth: int, data: Any) -> None:
    """Any number the mask does not offer, in the action space or beyond, ends the game as a
    forfeit of the agent to act, naming the rule that refuses it: the engine's for the action the
    number stands for, framework-action for a number standing for none."""
    rules, rng = rules_of(rs), random.Random(seed)
    e = env(ruleset=rs.canonical)
    e.reset(seed=seed)
    raw = e.unwrapped
    for _ in range(depth):
        if any(e.terminations.values()):
            break
        e.step(rng.choice(np.flatnonzero(e.observe(e.agent_selection)["action_mask"]).tolist()))
    if any(e.terminations.values()):
        return
    agent = e.agent_selection
    mask = e.observe(agent)["action_mask"]
    code = data.draw(st.integers(-3, len(mask) + 3).filter(lambda c: not 0 <= c < len(mask) or not mask[c]))
    engine = rules.refusal(raw.state, code)
    assert engine is not None
    action = rules.action(code)
    if action is None:
        assert engine.rule == RULE
    raw.step(code)  # the raw environment: the wrapper asserts numbers beyond the space itself
    assert all(raw.terminations.values())
    assert f"(rule {engine.rule})" in raw.infos[agent]["forfeit"]
    assert raw.rewards[agent] == -1.0


def test_names_are_taken_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(Exception, match="unknown ruleset '%77ikipedia'"):
        env(ruleset="%77ikipedia")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "my%20v.toml").write_text((spec_dir() / "coverage" / "small-vanish-ranks.toml").read_text())
    assert env(ruleset="my%20v.toml").unwrapped.rules.ruleset.key() == load_ruleset("my%20v.toml").key()


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
    with pytest.raises(ValueError, match="returns='x': not one of result, margin, points"):
        env(ruleset="wikipedia", returns="x")
    with pytest.raises(ValueError, match="render_mode='rgb_array': not one of ansi, human"):
        env(ruleset="wikipedia", render_mode="rgb_array")


@pytest.mark.parametrize("name", CHANCE_VARIANTS, ids=[Path(v).stem for v in CHANCE_VARIANTS])
def test_chance_turns_are_drawn_from_the_seed(name: str) -> None:
    """PettingZoo's api_test and seed_test pass; the environment draws each chance outcome as
    qttt.chance.draw draws it from a generator seeded by reset(seed), telling its number and exact
    probability in both agents' infos; one seed gives one game for the same actions."""
    pettingzoo_test.api_test(env(ruleset=name), num_cycles=300)
    pettingzoo_test.seed_test(lambda: env(ruleset=name), num_cycles=300)
    rules, games = rules_of(name), set()
    for seed in range(6):
        e = env(ruleset=name)
        e.reset(seed=seed)
        history, _ = play(e, random.Random(0))  # the same agents' choices: only the draws differ
        games.add(tuple(history))
        draws, state = random.Random(seed), rules.start()
        for code in history:
            if state.to_move == "chance":
                assert rules.codec.encode(draw(state.chance_outcomes(), draws)) == code
            action = rules.action(code, rules.chance(state))
            assert action is not None
            state = state.apply(action)
        again = env(ruleset=name)
        again.reset(seed=seed)
        assert play(again, random.Random(0))[0] == history
    assert len(games) > 1
