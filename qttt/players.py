"""Computer players: each chooses one legal action for the side to move.

Players only call the engine (`legal_actions`, `apply`, `scores` of a state of any game family);
they know no rule of their own. Given the same seed and the same states, they choose the same actions.
"""

from __future__ import annotations

import math
import random
import time
from fractions import Fraction
from typing import Protocol

from .chance import CHANCE, draw
from .errors import IllegalAction
from .family import AnyAction, GameState, Rollout, family_of


class Player(Protocol):
    """Anything that picks an action for the side to move."""

    name: str

    def choose(self, state: GameState) -> AnyAction:
        """One of `state.legal_actions()`."""
        ...


def _legal(state: GameState) -> tuple[AnyAction, ...]:
    """The legal actions, or IllegalAction when there are none (game over, or a deadlock)."""
    legal = state.legal_actions()
    if not legal:
        if state.over:
            raise IllegalAction("over-no-action", "the game is over; no action is legal")
        raise IllegalAction("place-two-cycle", f"{state.to_move} has no legal placement: every "
                            "pair of open cells already holds a spooky move")
    return legal


def margin(state: GameState, player: str) -> Fraction:
    """`player`'s points minus the opponent's (0 until the game is over: rule score-at-end)."""
    return points_margin(state.scores, player)


def points_margin(scores: dict[str, Fraction], player: str) -> Fraction:
    """`player`'s points minus the opponent's."""
    return scores[player] - scores["o" if player == "x" else "x"]


class RandomPlayer:
    """Chooses uniformly among the legal actions with its own `random.Random(seed)`."""

    name = "random"
    summary = "uniform among the legal actions"

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random(seed)

    def choose(self, state: GameState) -> AnyAction:
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
    summary = ("wins at once when it can, else avoids actions that let the opponent win at once, "
               "else random")

    def __init__(self, seed: int | None = None, rng: random.Random | None = None) -> None:
        self.rng = rng if rng is not None else random.Random(seed)

    def value(self, state: GameState, action: AnyAction) -> Fraction:
        """The value of `action` for the side to move in `state`, as defined above."""
        me = state.to_move
        assert me is not None
        after = state.apply(action)
        if after.over:
            return margin(after, me)
        if after.to_move == CHANCE:  # the expected value over chance's outcomes
            return sum((p * (margin(r, me) if r.over else Fraction(0))
                        for r, p in ((after.apply(o), p) for o, p in after.chance_outcomes())), Fraction(0))
        if after.to_move == me:
            return Fraction(0)
        return min((margin(r, me) if r.over else Fraction(0)
                    for r in (after.apply(b) for b in after.legal_actions())), default=Fraction(0))

    def choose(self, state: GameState) -> AnyAction:
        legal = _legal(state)
        values = [self.value(state, a) for a in legal]
        top = max(values)
        best = [a for a, v in zip(legal, values, strict=True) if v == top]
        return best[0] if len(best) == 1 else self.rng.choice(best)


def outcome(margin_: Fraction) -> float:
    """A final margin as a value in [0, 1]: win, draw or loss first, then the size of the margin."""
    m = float(margin_)
    return 0.5 + 0.4 * ((m > 0) - (m < 0)) + 0.1 * math.tanh(m / 5)


class _Node:
    """A search-tree node: the state, its untried actions, visits and the value summed for
    `mover`, the player whose action led here."""

    __slots__ = ("children", "mover", "state", "untried", "value", "visits")

    def __init__(self, state: GameState, mover: str | None, rng: random.Random) -> None:
        self.state = state
        self.mover = mover if mover != CHANCE else None
        untried = [] if state.to_move == CHANCE else list(state.legal_actions())
        rng.shuffle(untried)
        self.untried = untried
        self.children: list[tuple[AnyAction, _Node]] = []
        self.visits = 0
        self.value = 0.0


class SearchPlayer:
    """Monte Carlo tree search (UCT) over the engine's own states, within a time budget.

    Each iteration descends the tree by UCB1 (exploration constant `c`), adds one untried
    action, finishes the game with uniformly random actions and backs up `outcome(margin)` for
    the player who chose each action on the path (a deadlock counts as a draw). It stops after
    `playouts` iterations or `seconds` of wall time, whichever comes first, and plays the most
    visited action; a game-ending action that wins is played at once. With a `playouts` budget
    and no time budget it is repeatable for a given seed. Rollouts are played by the family's
    faster way (Family.rollout: the compiled nested core) when `core` allows it (auto: when it can be
    built), drawing the same moves as the engine would.
    """

    name = "search"
    summary = "Monte Carlo tree search within a time budget per action; the strongest"

    def __init__(self, seed: int | None = None, rng: random.Random | None = None,
                 seconds: float | None = 0.5, playouts: int | None = None, c: float = 1.0,
                 core: str = "auto") -> None:
        self.rng = rng if rng is not None else random.Random(seed)
        self.seconds, self.playouts, self.c, self.core = seconds, playouts, c, core
        self._fast: Rollout | None = None

    def choose(self, state: GameState) -> AnyAction:
        legal = _legal(state)
        me = state.to_move
        assert me is not None
        if len(legal) == 1:
            return legal[0]
        for action in legal:  # a win now needs no search
            after = state.apply(action)
            if after.over and margin(after, me) > 0:
                return action
        rs = state.ruleset
        self._fast = family_of(rs).rollout(rs, self.core)
        root = _Node(state, None, self.rng)
        deadline = time.monotonic() + self.seconds if self.seconds is not None else math.inf
        budget = self.playouts if self.playouts is not None else 1 << 62
        done = 0
        while done < budget and (done == 0 or time.monotonic() < deadline):
            self._iterate(root)
            done += 1
        return max(root.children, key=lambda pair: pair[1].visits)[0]

    def _iterate(self, root: _Node) -> None:
        node, path = root, [root]
        while True:
            if node.state.to_move == CHANCE:  # chance picks its child by its probabilities
                node = self._chance_child(node)
            elif not node.untried and node.children:
                node = self._select(node)
            else:
                break
            path.append(node)
        if node.untried:
            action = node.untried.pop()
            child = _Node(node.state.apply(action), node.state.to_move, self.rng)
            node.children.append((action, child))
            node, path = child, [*path, child]
        final = self._rollout(node.state)
        for n in path:
            n.visits += 1
            if n.mover is not None:
                n.value += outcome(points_margin(final, n.mover))

    def _chance_child(self, node: _Node) -> _Node:
        """The child of a chance turn for an outcome drawn by qttt.chance.draw, added when new."""
        action = draw(node.state.chance_outcomes(), self.rng)
        for known, child in node.children:
            if known == action:
                return child
        child = _Node(node.state.apply(action), CHANCE, self.rng)
        node.children.append((action, child))
        return child

    def _select(self, node: _Node) -> _Node:
        log_n = math.log(node.visits)
        return max((child for _, child in node.children),
                   key=lambda ch: ch.value / ch.visits + self.c * math.sqrt(log_n / ch.visits))

    def _rollout(self, state: GameState) -> dict[str, Fraction]:
        """The points at the end of `state` played on with uniformly random actions."""
        rng = self.rng
        if self._fast is not None:
            return self._fast(state, rng)
        while not state.over:
            if state.to_move == CHANCE:
                state = state.apply(draw(state.chance_outcomes(), rng))
                continue
            legal = state.legal_actions()
            if not legal:
                break
            state = state.apply(legal[int(rng.random() * len(legal))])
        return state.scores


PLAYERS: dict[str, type[RandomPlayer] | type[GreedyPlayer] | type[SearchPlayer]] = {
    "random": RandomPlayer,
    "greedy": GreedyPlayer,
    "search": SearchPlayer,
}


def make_player(kind: str, rng: random.Random) -> Player:
    """A computer player by name (random, greedy, search), drawing from `rng`."""
    return PLAYERS[kind](rng=rng)
