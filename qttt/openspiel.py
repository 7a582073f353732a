"""Every ruleset as an OpenSpiel game: importing this module registers `python_qttt`.

    import pyspiel, qttt.openspiel
    game = pyspiel.load_game("python_qttt(ruleset=bonus4x4)")

`ruleset` takes a built-in or canonical name or a variant file path, as written. OpenSpiel's game
strings split at commas, read a value ending in `)` as a nested game, a value of digits as a
number and the last `=` as the key's end, so a name that would not come back as written is given
percent-encoded (RFC 3986) under another key, `ruleset_encoded` (`game_string` chooses:
`wikipedia(double_line=2)` becomes `ruleset_encoded=wikipedia%28double_line%3D2%29`), or unencoded
in the parameter dictionary of `pyspiel.load_game("python_qttt", {"ruleset": ...})`. `returns`
reads the end of a game (`qttt.interop.RETURNS`): `result` (the default: 1 a win, 0 a draw, -1 a
loss, by points; zero-sum, as OpenSpiel's own games), `margin` (own points minus the opponent's,
zero-sum, the value `qttt analyze solve` computes) or `points`. An action number `legal_actions()`
does not list is refused (IllegalAction naming the rule). Actions are numbered by `qttt.interop`
and named as OpenSpiel's games name them (`x(1,9)`); `action_json` gives an action's record JSON.
A ruleset with chance (rule collapse-chance) is an `EXPLICIT_STOCHASTIC` game: at a chance turn
`current_player()` is `PlayerId.CHANCE` and `chance_outcomes()` lists the outcome numbers with their
probabilities as floats (`chance_fractions()`: the exact fractions); the others are
`DETERMINISTIC`. A state's history, chance outcomes included, maps one-to-one to our records
(`record_of`, `history_of`). Needs the `openspiel` extra.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any
from urllib.parse import quote, unquote

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts

from .errors import IllegalAction
from .family import AnyAction, GameState
from .interop import CHANCE, RETURNS, RULE, Rules, rules_of
from .jsonstream import dumps, loads
from .notation import Record, action_from_json, action_to_json

SHORT_NAME = "python_qttt"
DEFAULT_RULESET = "wikipedia"
ENCODED = "ruleset_encoded"
"""The key of a ruleset name given percent-encoded (RFC 3986) in a game string."""
_T = pyspiel.GameType


def game_type(rules: Rules | None = None, returns: str = RETURNS[0]) -> Any:
    """The GameType of a ruleset's game read as `returns` says (None: the registered one, whose
    default reading is zero-sum)."""
    total = rules.constant_sum(returns) if rules is not None else 0
    utility = (_T.Utility.ZERO_SUM if total == 0 else _T.Utility.CONSTANT_SUM if total is not None
               else _T.Utility.GENERAL_SUM)
    chance = rules is not None and rules.codec.outcomes > 0
    return pyspiel.GameType(
        short_name=SHORT_NAME, long_name="Quantum tic-tac-toe and its variants (qttt)",
        dynamics=_T.Dynamics.SEQUENTIAL,
        chance_mode=_T.ChanceMode.EXPLICIT_STOCHASTIC if chance else _T.ChanceMode.DETERMINISTIC,
        information=_T.Information.PERFECT_INFORMATION, utility=utility,
        reward_model=_T.RewardModel.TERMINAL, max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification={"ruleset": "", ENCODED: "", "returns": RETURNS[0]})


def game_info(rules: Rules, returns: str = RETURNS[0]) -> Any:
    """The GameInfo of a ruleset's game: action and chance outcome counts, utility range and sum,
    longest game."""
    low, high = rules.utility_range(returns)
    total = rules.constant_sum(returns)
    return pyspiel.GameInfo(
        num_distinct_actions=rules.codec.actions, max_chance_outcomes=rules.codec.outcomes, num_players=2,
        min_utility=low, max_utility=high, utility_sum=None if total is None else float(total),
        max_game_length=rules.codec.max_length)


def name_parameter(name: str) -> tuple[str, str]:
    """The game-string key and value giving ruleset `name`: `ruleset` and the name as written
    when OpenSpiel reads it back unchanged, else `ruleset_encoded` and `encode(name)`."""
    return ("ruleset", name) if _reads_back("ruleset", name) else (ENCODED, encode(name))


def encode(name: str) -> str:
    """`name` percent-encoded (RFC 3986: every UTF-8 byte but letters, digits and -._~ as %XX),
    and its first character too where OpenSpiel would read the value as a number or a truth value
    (0 is %30, true is %74rue): one encoding per name."""
    text = quote(name, safe="")
    return text if not text or _reads_back(ENCODED, text) else f"%{ord(text[0]):02X}{text[1:]}"


def _reads_back(key: str, value: str) -> bool:
    """Whether OpenSpiel's game-string parser gives `value` back as written under `key`."""
    try:
        return bool(pyspiel.game_parameters_from_string(f"{SHORT_NAME}({key}={value})")
                    == {"name": SHORT_NAME, key: value})
    except pyspiel.SpielError:
        return False


def ruleset_name(params: dict[str, Any]) -> str:
    """The ruleset name a game's parameters give: `ruleset` as written, or `ruleset_encoded`
    decoded (it must be written as `name_parameter` writes it); wikipedia when neither is given
    (OpenSpiel fills both in as empty)."""
    name, encoded = str(params.get("ruleset", "")), params.get(ENCODED, "")
    if encoded == "":
        return name or DEFAULT_RULESET
    if name != "":
        raise ValueError(f"ruleset and {ENCODED} both given: give the name once")
    if not isinstance(encoded, str) or encode(unquote(encoded)) != encoded:
        raise ValueError(f"{ENCODED}={encoded!r}: not a name percent-encoded as game_string writes it "
                         "(RFC 3986, every byte but letters, digits and -._~ as %XX; the first "
                         "character too only where the value would read as a number)")
    return unquote(encoded)


def game_string(ruleset: str, returns: str = RETURNS[0]) -> str:
    """The `pyspiel.load_game` string of a ruleset (its name as `name_parameter` gives it)."""
    key, value = name_parameter(ruleset)
    extra = "" if returns == RETURNS[0] else f",returns={returns}"
    return f"{SHORT_NAME}({key}={value}{extra})"


class QtttGame(pyspiel.Game):  # type: ignore[misc]
    """A ruleset as an OpenSpiel game."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        returns = str(params.get("returns", RETURNS[0]))
        if returns not in RETURNS:
            raise ValueError(f"returns={returns}: not one of {', '.join(RETURNS)}")
        self.rules = rules_of(ruleset_name(params))
        low, high = self.rules.utility_range(returns)
        if low == high:
            raise ValueError(f"ruleset {self.rules.name}: every game ends {low:g}-{low:g} in points; "
                             "OpenSpiel needs a least utility below the greatest (returns=result works)")
        self.returns = returns
        key, value = name_parameter(self.rules.name)
        super().__init__(game_type(self.rules, returns), game_info(self.rules, returns),
                         {key: value, "returns": returns})

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

    __slots__ = ("_legal", "codes", "rules", "state")

    def __init__(self, rules: Rules, state: GameState, codes: tuple[int, ...] | None = ()) -> None:
        self.rules, self.state, self.codes = rules, state, codes
        self._legal: list[int] | None = None

    @property
    def legal(self) -> list[int]:
        """The legal action numbers, increasing (at a chance turn the outcome numbers; none once
        the game has ended)."""
        if self._legal is None:
            self._legal = [] if self.rules.ended(self.state) else self.rules.legal(self.state)
        return self._legal

    def after(self, code: int) -> Position:
        """The position after action number `code`; IllegalAction, naming the rule, for a number
        the legal list does not hold (`Rules.refusal`), the position unchanged."""
        if code not in self.legal:
            raise self.rules.refusal(self.state, code, self.legal) or IllegalAction(
                RULE, f"action number {code}: the engine takes it, but does not list it as legal")
        action = self.rules.action(code, self.rules.chance(self.state))
        assert action is not None  # a listed number stands for an action
        codes = None if self.codes is None else (*self.codes, code)
        return Position(self.rules, self.state.apply(action), codes)

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
        self._returns = game.returns
        self._at = at

    @property
    def position(self) -> GameState:
        """Our state of the game."""
        return self._at.state

    def current_player(self) -> int:
        if self.rules.ended(self.position):
            return int(pyspiel.PlayerId.TERMINAL)
        return self.rules.player(self.position)  # PlayerId.CHANCE (interop.CHANCE) at a chance turn

    def _legal_actions(self, player: int) -> list[int]:
        return list(self._at.legal)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance turn, the outcome numbers with their probabilities (floats; `chance_fractions`
        gives them exactly), increasing; else none."""
        return [(code, float(p)) for code, p in self.chance_fractions()]

    def chance_fractions(self) -> list[tuple[int, Fraction]]:
        """At a chance turn, the outcome numbers with their exact probabilities, increasing; else none."""
        return self.rules.chance_outcomes(self.position)

    def _apply_action(self, action: int) -> None:
        self._at = self._at.after(action)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.rules.action_text(player, action)

    def is_terminal(self) -> bool:
        return self.rules.ended(self.position)

    def returns(self) -> list[float]:
        return self.rules.returns(self.position, self._returns)

    def __str__(self) -> str:
        return self.rules.text(self.position)


def action_json(game: Any, action: int) -> str:
    """An action number of a python_qttt game (or of its state's game) as its record JSON, such as
    {"place":[0,8]}; given a state at a chance turn, an outcome number."""
    rules = _rules_of_game(game)
    chance = isinstance(game, pyspiel.State) and game.current_player() == CHANCE
    found = rules.action(action, chance)
    if found is None:
        kind, count = ("outcome", rules.codec.outcomes) if chance else ("action", rules.codec.actions)
        raise IllegalAction(RULE, f"{kind} number {action} stands for no {kind} "
                                  f"({kind} numbers run from 0 to {count - 1})")
    return dumps(action_to_json(found), separators=(",", ":"))


def action_of_json(game: Any, text: str) -> int:
    """The action number (a chance outcome's: its outcome number) of an action given as its record
    JSON (read strictly: qttt.jsonstream); IllegalAction, rule framework-action, for an action the
    game numbers not."""
    rules = _rules_of_game(game)
    action = action_from_json(loads(text))
    try:
        code = rules.codec.encode(action)
    except ValueError:
        code = -1
    for chance in (False, True):
        found = rules.action(code, chance) if code >= 0 else None
        if found is not None and type(found) is type(action) and sorted(found) == sorted(action):
            return code
    outcomes = f", outcome numbers from 0 to {rules.codec.outcomes - 1}" if rules.codec.outcomes else ""
    raise IllegalAction(RULE, f"{text.strip()} is not an action of {rules.name} (action numbers run "
                              f"from 0 to {rules.codec.actions - 1}{outcomes})")


def _rules_of_game(game: Any) -> Rules:
    """The compiled rules of a python_qttt game, or of a state's game."""
    if isinstance(game, pyspiel.State):
        game = game.get_game()
    return rules_of(ruleset_name(game.get_parameters()))


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
    return _rules_of_game(state).record(state.history())


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
        action = game.rules.action(bot.step(game.state_at(state)))
        assert action is not None  # the bot chooses among the legal numbers
        return action


assert int(pyspiel.PlayerId.CHANCE) == CHANCE  # interop's chance player is OpenSpiel's
pyspiel.register_game(game_type(), QtttGame)
