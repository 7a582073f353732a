"""A ruleset as game frameworks see it: numbered actions, a tensor and a text observation, final
points, the score range and sum, and the longest game; shared by the OpenSpiel and PettingZoo
adapters (`qttt.openspiel`, `qttt.pettingzoo`), which never ask which family they hold.

Each game family gives a `Codec` through its `frameworks` tool (qttt.family: "module:attribute" of
a function from a ruleset to its Codec). Final points are the state's scores; at a deadlock (no
legal action although the game is not over) the board scored as it stands, as `qttt analyze solve`
values it. Players are numbered 0 (x) and 1 (o). Returns are read three ways (`RETURNS`): the
result (1 a win, 0 a draw, -1 a loss, by points; the default), the margin (own points minus the
opponent's) or the points themselves. An action number the legal list does not hold is refused
(`Rules.refusal`), under the engine's rule or rule framework-action.

A ruleset with chance (rule collapse-chance) has chance turns, whose player is `CHANCE` (-1, as
OpenSpiel's PlayerId.CHANCE): their outcomes are numbered apart, 0 to `Codec.outcomes` - 1 (the
family's `Codec.outcome` reads them), as OpenSpiel numbers chance outcomes, and
`Rules.chance_outcomes` lists them with their exact probabilities. A number is read by the turn it
is given at: a player's action number at a player's turn, an outcome number at a chance turn.

Compiling a ruleset for the adapters costs no exploration: the longest game is the family's
closed-form bound, and the score range, which only `returns=points` and `returns=margin` need,
is computed when first asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, cached_property
from typing import Any

from .chance import CHANCE as CHANCE_TURN
from .errors import IllegalAction
from .family import AnyAction, GameState, family_of, tool
from .games import new_game
from .notation import Record
from .ruleset import Ruleset
from .variant import load_ruleset

PLAYERS = ("x", "o")
CHANCE = -1
"""The player of a chance turn (OpenSpiel's PlayerId.CHANCE)."""
RETURNS = ("result", "margin", "points")
"""How the adapters read the end of a game (the first is the default): 1, 0 or -1 as a player has
more, as many or fewer points than the opponent; own points minus the opponent's; the points."""
RULE = "framework-action"
"""The rule refusing an action number that stands for no action of the game."""
Range = tuple[Fraction, Fraction, Fraction, Fraction]  # x min, x max, o min, o max


@dataclass(frozen=True, eq=False)
class Codec:
    """What a game family gives the framework adapters for one ruleset."""

    actions: int  # distinct action numbers: 0 .. actions - 1
    encode: Callable[[AnyAction], int]
    decode: Callable[[int], AnyAction | None]  # None: the number stands for no action of the game
    text: Callable[[AnyAction], str]  # the action without its player, as in OpenSpiel's games: (1,9)
    shape: tuple[int, ...]  # of the observation tensor: planes, rows, columns
    planes: Callable[[GameState], list[int]]  # the observation tensor, flat, 0/1 entries
    points: Callable[[GameState], tuple[Fraction, Fraction]]  # x, o at the end (or a deadlock)
    score_range: Callable[[], Range]  # called when first needed (it may cost a computation)
    sums: frozenset[Fraction] | None  # every x + o a game can end with, if few; None: unbounded set
    max_length: int  # most actions in a game, chance outcomes included: a bound computed without exploring
    outcomes: int = 0  # distinct chance outcome numbers, 0 .. outcomes - 1 (0: the ruleset has no chance)
    outcome: Callable[[int], AnyAction | None] = lambda code: None  # the outcome a number stands for


@dataclass(frozen=True, eq=False)
class Rules:
    """A ruleset compiled for the framework adapters (memoised by `rules_of`)."""

    ruleset: Ruleset
    codec: Codec

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Copied and pickled by name: copies of a framework state share the compiled rules."""
        return rules_of, (self.name,)

    @property
    def name(self) -> str:
        """The canonical name, which loads the same rules anywhere."""
        return self.ruleset.canonical

    def start(self) -> GameState:
        """The initial state."""
        return new_game(self.ruleset)

    def legal(self, state: GameState) -> list[int]:
        """The legal action numbers, increasing (at a chance turn: the outcome numbers)."""
        return sorted(self.codec.encode(a) for a in state.legal_actions())

    def chance(self, state: GameState) -> bool:
        """Whether `state` is a chance turn (its numbers are outcome numbers)."""
        return state.to_move == CHANCE_TURN

    def chance_outcomes(self, state: GameState) -> list[tuple[int, Fraction]]:
        """At a chance turn, its outcome numbers with their exact probabilities, increasing; else
        none."""
        return sorted((self.codec.encode(a), p) for a, p in state.chance_outcomes())

    def ended(self, state: GameState) -> bool:
        """Over, or no legal action (a deadlock)."""
        return state.over or not state.legal_actions()

    def player(self, state: GameState) -> int:
        """0 (x) or 1 (o): who acts next; `CHANCE` at a chance turn."""
        return CHANCE if self.chance(state) else PLAYERS.index(state.to_move or "x")

    def refusal(self, state: GameState, code: int,
                legal: Sequence[int] | None = None) -> IllegalAction | None:
        """Why action number `code` is refused at `state`, or None when the legal list (`legal`,
        when the caller holds it) has it: the engine's refusal of the action the number stands
        for, else (a number outside the action space, or one the engine would take as another
        number's action) rule framework-action."""
        if code in (self.legal(state) if legal is None else legal):
            return None
        chance = self.chance(state)
        action = self.action(code, chance)
        if action is not None:
            try:
                state.apply(action)
            except IllegalAction as e:
                return e
        kind, count = ("outcome", self.codec.outcomes) if chance else ("action", self.codec.actions)
        return IllegalAction(RULE, f"{kind} number {code} is not listed as legal here; it stands for "
                                   f"{'no ' + kind if action is None else self.codec.text(action)} "
                                   f"({kind} numbers run from 0 to {count - 1})")

    def action(self, code: int, chance: bool = False) -> AnyAction | None:
        """The action number `code` stands for (`chance`: the outcome number), None if none (each
        action has one number)."""
        if chance:
            action = self.codec.outcome(code) if 0 <= code < self.codec.outcomes else None
        else:
            action = self.codec.decode(code) if 0 <= code < self.codec.actions else None
        return action if action is not None and self.codec.encode(action) == code else None

    def returns(self, state: GameState, returns: str = RETURNS[0]) -> list[float]:
        """Each player's return at the end, read as `returns` says (`RETURNS`); 0 before the end."""
        if not self.ended(state):
            return [0.0, 0.0]
        x, o = self.codec.points(state)
        if returns == "result":
            won = (x > o) - (x < o)
            return [float(won), float(-won)]
        return [float(x - o), float(o - x)] if returns == "margin" else [float(x), float(o)]

    @cached_property
    def score_range(self) -> Range:
        """The least and most points of x, then of o, a game can end with."""
        return self.codec.score_range()

    def utility_range(self, returns: str = RETURNS[0]) -> tuple[float, float]:
        """Least and most any player can get at the end, read as `returns` says."""
        if returns == "result":
            return -1.0, 1.0
        x_lo, x_hi, o_lo, o_hi = self.score_range
        if returns == "margin":
            most = max(x_hi - o_lo, o_hi - x_lo)
            return float(-most), float(most)
        return float(min(x_lo, o_lo)), float(max(x_hi, o_hi))

    def constant_sum(self, returns: str = RETURNS[0]) -> Fraction | None:
        """The players' returns added up when every game ends with the same total, else None."""
        if returns != "points":
            return Fraction(0)
        sums = self.codec.sums
        return next(iter(sums)) if sums is not None and len(sums) == 1 else None

    def action_text(self, player: int, code: int) -> str:
        """An action number as OpenSpiel's games name an action: the player, then the move (x(1,9));
        an outcome number of a chance turn (player `CHANCE`) as chance, then the outcome."""
        chance = player == CHANCE
        action = self.action(code, chance)
        who, kind = ("chance", "outcome") if chance else (PLAYERS[player], "action")
        return who + (f" {kind} number {code}: no {kind}" if action is None else self.codec.text(action))

    def text(self, state: GameState) -> str:
        """The board and status as the terminal shows them, without colour."""
        return family_of(self.ruleset).board_text(state, False)

    def record(self, history: Sequence[int]) -> Record:
        """The record of a game given as action numbers, chance outcome numbers at chance turns
        (IllegalAction naming the rule for a number the position does not list as legal)."""
        actions = []
        state = self.start()
        for i, code in enumerate(history):
            error = self.refusal(state, code)
            if error is not None:
                error.index = i
                raise error
            action = self.action(code, self.chance(state))
            assert action is not None  # a listed number stands for an action
            actions.append(action)
            state = state.apply(action)
        return Record(self.name, tuple(actions))

    def history(self, record: Record) -> list[int]:
        """A record's actions as action numbers."""
        return [self.codec.encode(a) for a in record.actions]


@cache
def _rules(name: str) -> Rules:
    rs = load_ruleset(name)
    return Rules(rs, tool(rs, "frameworks")(rs))


def rules_of(ruleset: str | Ruleset) -> Rules:
    """The framework view of a built-in, canonical or file ruleset name (taken as written), or of a
    Ruleset."""
    return _rules(ruleset.canonical if isinstance(ruleset, Ruleset) else ruleset)
