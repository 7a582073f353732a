"""Computer players: each chooses one legal action for the side to move.

Players only call the engine (`State.legal_actions`, `State.apply`, `State.scores`); they
know no rule of their own. Given the same seed and the same states, they choose the same actions.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Protocol

from .engine import Action, State
from .errors import IllegalAction


class Player(Protocol):
    """Anything that picks an action for the side to move."""

    name: str

    def choose(self, state: State) -> Action:
        """One of `state.legal_actions()`."""
        ...


def _legal(state: State) -> tuple[Action, ...]:
    """The legal actions, or IllegalAction when there are none (game over, or a deadlock)."""
    legal = state.legal_actions()
    if not legal:
        if state.over:
            raise IllegalAction("over-no-action", "the game is over; no action is legal")
        raise IllegalAction("place-two-cycle", f"{state.to_move} has no legal placement: every "
                            "pair of open cells already holds a spooky move")
    return legal


def margin(state: State, player: str) -> Fraction:
    """`player`'s points minus the opponent's (0 until the game is over: rule score-at-end)."""
    scores = state.scores
    return scores[player] - scores["o" if player == "x" else "x"]


class RandomPlayer:
    """Chooses uniformly among the legal actions with its own `random.Random(seed)`."""

    name = "random"

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random(seed)

    def choose(self, state: State) -> Action:
        return self.rng.choice(_legal(state))


class GreedyPlayer:
    """Looks one action ahead for itself and one for the opponent.

    For the side to move, P, each legal action a gets a value:
    - if the game is over after a: P's points minus the opponent's;
    - else, if the opponent acts next: the least value of the opponent's replies b, where a
      reply that ends the game is worth P's points minus the opponent's and any other reply 0
      (no reply at all, a deadlock: 0);
    - else (P acts again, as after P's own measurement): 0.
    It plays an action of greatest value, drawing uniformly among equal ones with its own
    `random.Random(seed)`. So it takes an immediate win, the largest if several; failing that
    it avoids actions that let the opponent win at once (blocking their best reply); otherwise
    it plays at random.
    """

    name = "greedy"

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random(seed)

    def value(self, state: State, action: Action) -> Fraction:
        """The value of `action` for the side to move in `state`, as defined above."""
        me = state.to_move
        assert me is not None
        after = state.apply(action)
        if after.over:
            return margin(after, me)
        if after.to_move == me:
            return Fraction(0)
        return min((margin(r, me) if r.over else Fraction(0)
                    for r in (after.apply(b) for b in after.legal_actions())), default=Fraction(0))

    def choose(self, state: State) -> Action:
        legal = _legal(state)
        values = [self.value(state, a) for a in legal]
        top = max(values)
        best = [a for a, v in zip(legal, values, strict=True) if v == top]
        return best[0] if len(best) == 1 else self.rng.choice(best)


PLAYERS: dict[str, type[RandomPlayer] | type[GreedyPlayer]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
}


def make_player(kind: str, rng: random.Random) -> Player:
    """A computer player by name (random, greedy), drawing from `rng`."""
    return PLAYERS[kind](rng=rng)
