"""Every ruleset as an OpenSpiel game: importing this module registers `python_qttt`.

    import pyspiel, qttt.openspiel
    game = pyspiel.load_game("python_qttt(ruleset=bonus4x4)")

`ruleset` takes a built-in or canonical name or a variant file path. OpenSpiel's game strings
split at commas and read a value ending in `)` as a nested game, so a name with parentheses is
percent-encoded (`game_string` does it: `wikipedia(double_line=2)` becomes
`wikipedia%28double_line%3D2%29`), or given unencoded in the parameter dictionary of
`pyspiel.load_game("python_qttt", {"ruleset": ...})`. `returns=margin` makes the game zero-sum
(each player's points minus the opponent's, the value `qttt analyze solve` computes); the default,
`returns=points`, gives the ruleset's points. Actions are numbered by `qttt.interop`; a state's
history maps one-to-one to our records (`record_of`, `history_of`). Needs the `openspiel` extra.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from .family import AnyAction, GameState
from .interop import Rules, encode_name, rules_of
from .notation import Record, action_to_json

SHORT_NAME = "python_qttt"
DEFAULT_RULESET = "wikipedia"
RETURNS = ("points", "margin")
_T = pyspiel.GameType


def game_type(rules: Rules | None = None, margin: bool = False) -> Any:
    """The GameType of a ruleset's game (None: the registered one, whose utility is general-sum)."""
    if rules is None:
        utility = _T.Utility.GENERAL_SUM
    elif margin or rules.constant_sum() == 0:
        utility = _T.Utility.ZERO_SUM
    elif rules.constant_sum() is not None:
        utility = _T.Utility.CONSTANT_SUM
    else:
        utility = _T.Utility.GENERAL_SUM
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Quantum tic-tac-toe and its variants (qttt)",
        dynamics=_T.Dynamics.SEQUENTIAL, chance_mode=_T.ChanceMode.DETERMINISTIC,
        information=_T.Information.PERFECT_INFORMATION, utility=utility,
        reward_model=_T.RewardModel.TERMINAL, max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"ruleset": DEFAULT_RULESET, "returns": "points"})


def game_info(rules: Rules, margin: bool = False) -> Any:
    """The GameInfo of a ruleset's game: action count, utility range and sum, longest game."""
    low, high = rules.utility_range(margin)
    total = 0.0 if margin else rules.constant_sum()
    return pyspiel.GameInfo(
        num_distinct_actions=rules.codec.actions, max_chance_outcomes=0, num_players=2,
        min_utility=low, max_utility=high, utility_sum=None if total is None else float(total),
        max_game_length=rules.codec.max_length)


def game_string(ruleset: str, returns: str = "points") -> str:
    """The `pyspiel.load_game` string of a ruleset, its name percent-encoded."""
    extra = "" if returns == "points" else f",returns={returns}"
    return f"{SHORT_NAME}(ruleset={encode_name(ruleset)}{extra})"


class QtttGame(pyspiel.Game):  # type: ignore[misc]
    """A ruleset as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        returns = str(params.get("returns", "points"))
        if returns not in RETURNS:
            raise ValueError(f"returns={returns}: not one of {', '.join(RETURNS)}")
        self.rules = rules_of(str(params.get("ruleset", DEFAULT_RULESET)))
        low, high = self.rules.utility_range()
        if low == high:
            raise ValueError(f"ruleset {self.rules.name}: every game ends {low:g}-{low:g}; OpenSpiel "
                             "needs a least utility below the greatest")
        self.margin = returns == "margin"
        super().__init__(game_type(self.rules, self.margin), game_info(self.rules, self.margin),
                         {"ruleset": encode_name(self.rules.name), "returns": returns})

    def new_initial_state(self) -> QtttState:
        """The empty board."""
        return QtttState(self, Position(self.rules, self.rules.start()))

    def state_at(self, position: GameState) -> QtttState:
        """A state at `position` of this game's ruleset, with no history (for bots)."""
        return QtttState(self, Position(self.rules, position, None))

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        """The observer: the whole position (perfect information), the same for both players."""
        return Observer(self.rules, params)


class Position:
    """An immutable position and the action numbers that reached it from the start (None: given
    directly, with no history). OpenSpiel copies a Python state's attributes with deepcopy and
    serialises them with pickle: copies share the position; pickles hold the rules' name and the
    actions, replayed when loaded."""

    __slots__ = ("codes", "rules", "state")

    def __init__(self, rules: Rules, state: GameState, codes: tuple[int, ...] | None = ()) -> None:
        self.rules, self.state, self.codes = rules, state, codes

    def after(self, code: int) -> Position:
        """The position after action number `code`."""
        codes = None if self.codes is None else (*self.codes, code)
        return Position(self.rules, self.state.apply(self.rules.codec.decode(code)), codes)

    def __deepcopy__(self, memo: dict[int, Any]) -> Position:
        return self

    def __reduce__(self) -> tuple[Any, tuple[str, tuple[int, ...]]]:
        if self.codes is None:
            raise ValueError("a state made by state_at has no history to serialise")
        return replayed, (self.rules.name, self.codes)


def replayed(name: str, codes: tuple[int, ...]) -> Position:
    """The position after action numbers `codes` from the start of ruleset `name`."""
    rules = rules_of(name)
    at = Position(rules, rules.start())
    for code in codes:
        at = at.after(code)
    return at


class QtttState(pyspiel.State):  # type: ignore[misc]
    """A position of a QtttGame."""

    def __init__(self, game: QtttGame, at: Position) -> None:
        super().__init__(game)
        self.rules = game.rules
        self._margin = game.margin
        self._at = at

    @property
    def position(self) -> GameState:
        """Our state of the game."""
        return self._at.state

    def current_player(self) -> int:
        if self.rules.ended(self.position):
            return int(pyspiel.PlayerId.TERMINAL)
        return self.rules.player(self.position)

    def _legal_actions(self, player: int) -> list[int]:
        return self.rules.legal(self.position)

    def _apply_action(self, action: int) -> None:
        self._at = self._at.after(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return action_string(self.rules.codec.decode(action))

    def is_terminal(self) -> bool:
        return self.rules.ended(self.position)

    def returns(self) -> list[float]:
        return self.rules.returns(self.position, self._margin)

    def __str__(self) -> str:
        return self.rules.text(self.position)


def action_string(action: AnyAction) -> str:
    """An action as its record JSON, such as {"place":[0,4]}."""
    return json.dumps(action_to_json(action), separators=(",", ":"))


class Observer:
    """OpenSpiel's Python observer: the observation tensor (planes × rows × columns) and text."""

    def __init__(self, rules: Rules, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        self.rules = rules
        shape = rules.codec.shape
        self.tensor = np.zeros(int(np.prod(shape)), np.float32)
        self.dict = {"observation": np.reshape(self.tensor, shape)}

    def set_from(self, state: QtttState, player: int) -> None:
        self.tensor[:] = self.rules.codec.planes(state.position)

    def string_from(self, state: QtttState, player: int) -> str:
        return self.rules.text(state.position)


def record_of(state: Any) -> Record:
    """The record of an OpenSpiel state's history (of a python_qttt game)."""
    return rules_of(state.get_game().get_parameters()["ruleset"]).record(state.history())


def history_of(record: Record) -> list[int]:
    """A record's actions as OpenSpiel action numbers."""
    return rules_of(record.variant).history(record)


class MctsPlayer:
    """OpenSpiel's MCTS bot (random rollouts, UCT) as a `qttt.players` player, on the zero-sum
    game (`returns=margin`); repeatable for a given `rng`."""

    name = "mcts"

    def __init__(self, rng: random.Random, simulations: int = 200, uct_c: float = 2.0) -> None:
        self.rng, self.simulations, self.uct_c = rng, simulations, uct_c
        self.games: dict[str, QtttGame] = {}

    def choose(self, state: GameState) -> AnyAction:
        name = state.ruleset.canonical
        game = self.games.get(name)
        if game is None:
            game = self.games[name] = pyspiel.load_game(SHORT_NAME, {"ruleset": name, "returns": "margin"})
        seed = np.random.RandomState(self.rng.getrandbits(32))
        bot = mcts.MCTSBot(game, self.uct_c, self.simulations,
                           mcts.RandomRolloutEvaluator(random_state=seed), random_state=seed, solve=True)
        return game.rules.codec.decode(bot.step(game.state_at(state)))


pyspiel.register_game(game_type(), QtttGame)
