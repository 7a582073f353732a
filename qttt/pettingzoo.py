"""Every ruleset as a PettingZoo AEC environment, in the manner of PettingZoo's classic board games.

    from qttt.pettingzoo import env
    e = env(ruleset="bonus4x4", render_mode="ansi")

Agents `player_0` (x) and `player_1` (o). An observation is a dict: `observation`, the position as 0/1 planes
(rows × columns × planes, the OpenSpiel adapter's tensor) and `action_mask` (1 for the legal
action numbers of the agent to act; all 0 for the other). Rewards come at the end, read as
`returns` says (`qttt.interop.RETURNS`): 1 a win, 0 a draw, -1 a loss (`"result"`, the default, as
PettingZoo's classic games), own points minus the opponent's (`"margin"`) or the points. An action
the mask does not offer ends the game as a forfeit with the ruleset's forfeit score (the referee's
forfeit rule; under `"result"` a loss), `infos` naming the rule that refuses it. Who acts next
follows the rules (a measurement, a bonus move), not strict alternation. Under a ruleset with
chance (rule collapse-chance) the environment plays the chance turns itself: after an action that
opens one it draws the outcome from `chance_rng` (`qttt.chance.draw`, as `qttt random` and the
referee draw; `reset(seed)` seeds it, so one seed gives one game for the same actions) and gives
both agents' infos `chance`, the outcome's number (`qttt.interop`) and exact probability. Needs
the `pettingzoo` extra.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .chance import draw
from .competition.match import RULE as FORFEIT_RULE
from .family import GameState
from .interop import RETURNS, Rules, rules_of

RENDER_MODES = ("ansi", "human")
AGENTS = ("player_0", "player_1")  # x and o, the players numbered as in qttt.interop

Obs = dict[str, np.ndarray[Any, Any]]


def env(**kwargs: Any) -> AECEnv:
    """The environment of `ruleset` (default wikipedia), with PettingZoo's order and bounds checks."""
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(raw_env(**kwargs)))


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]
    """The AEC environment of one ruleset."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "name": "qttt_v0",
                                          "is_parallelizable": False, "render_fps": 1}

    def __init__(self, ruleset: str = "wikipedia", returns: str = RETURNS[0],
                 render_mode: str | None = None) -> None:
        super().__init__()
        EzPickle.__init__(self, ruleset, returns, render_mode)
        if returns not in RETURNS:
            raise ValueError(f"returns={returns!r}: not one of {', '.join(RETURNS)}")
        if render_mode not in (None, *RENDER_MODES):
            raise ValueError(f"render_mode={render_mode!r}: not one of ansi, human")
        self.rules: Rules = rules_of(ruleset)
        self.returns = returns
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        codec = self.rules.codec
        planes, rows, cols = codec.shape
        self.action_spaces = {a: spaces.Discrete(codec.actions) for a in self.agents}
        self.observation_spaces = {a: spaces.Dict({
            "observation": spaces.Box(0, 1, (rows, cols, planes), np.int8),
            "action_mask": spaces.Box(0, 1, (codec.actions,), np.int8)}) for a in self.agents}
        self.state: GameState = self.rules.start()
        self._legal: list[int] = []
        self.chance_rng = random.Random()
        """The generator the chance turns draw from; `reset(seed)` seeds it."""
        self._start()

    def _start(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._at(self.rules.start())
        self.agent_selection = AGENTS[self.rules.player(self.state)]

    def _at(self, state: GameState) -> None:
        """Move to `state`, past any chance turn (its outcome drawn and told in infos), with its
        legal action numbers (none once the game has ended)."""
        while self.rules.chance(state):
            outcomes = state.chance_outcomes()
            outcome = draw(outcomes, self.chance_rng)
            drawn: tuple[int, Fraction] = (self.rules.codec.encode(outcome), dict(outcomes)[outcome])
            for agent in self.possible_agents:
                self.infos[agent]["chance"] = drawn
            state = state.apply(outcome)
        self.state = state
        self._legal = [] if self.rules.ended(state) else self.rules.legal(state)

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game; `seed` seeds the chance turns' generator and the action spaces."""
        if seed is not None:
            self.chance_rng.seed(seed)
            for i, agent in enumerate(self.possible_agents):
                self.action_spaces[agent].seed(seed + i)
        self._start()

    def observe(self, agent: str) -> Obs:
        codec = self.rules.codec
        planes, rows, cols = codec.shape
        board = np.asarray(codec.planes(self.state), np.int8).reshape(planes, rows, cols)
        mask = np.zeros(codec.actions, np.int8)
        if agent == self.agent_selection:
            mask[self._legal] = 1
        return {"observation": np.moveaxis(board, 0, -1).copy(), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self.rewards = dict.fromkeys(self.agents, 0.0)
        for info in self.infos.values():
            info.pop("chance", None)
        refused = self.rules.refusal(self.state, int(action), self._legal)
        if refused is None:
            taken = self.rules.action(int(action))
            assert taken is not None  # a listed number stands for an action
            self._at(self.state.apply(taken))
            if self.rules.ended(self.state):
                returns = self.rules.returns(self.state, self.returns)
                self.rewards = dict(zip(AGENTS, returns, strict=True))
                self.terminations = dict.fromkeys(self.agents, True)
            else:
                self.agent_selection = AGENTS[self.rules.player(self.state)]
        else:
            won, lost = (float(v) for v in self.rules.ruleset.match.forfeit)
            if self.returns == "margin":
                won, lost = won - lost, lost - won
            elif self.returns == "result":
                won, lost = (won > lost) - (won < lost), (lost > won) - (lost < won)
            self.rewards = {agent: float(lost), AGENTS[1 - AGENTS.index(agent)]: float(won)}
            self.terminations = dict.fromkeys(self.agents, True)
            self._legal = []  # the game is over: no mask offers anything
            self.infos[agent]["forfeit"] = (f"action {action} is not legal here: {refused} "
                                            f"(rule {FORFEIT_RULE})")
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The board and status as text (ansi: returned; human: printed)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render called without a render_mode (ansi or human)")
            return None
        text = self.rules.text(self.state)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
