"""The framework adapters (qttt.openspiel, qttt.pettingzoo) compared with the engine at the positions
the checker visits: each is a registered path (verify.paths, one entry each), called by a family's
checker at every position it checks (sampled games and walks; the quantum checker's entry points
are in verify.quantum.adapters), with the engine's state there, the
actions reaching it, the engine's legal actions and the rule the checker's own reading of the rules
says refuses each other action.

What an adapter must show there is read from the engine's state and the checker's refusals, never
from `qttt.interop` (the adapters' shared code, under test here): who acts (OpenSpiel's
`current_player()`, PettingZoo's `agent_selection`; at a measurement the measurer), whether the
game has ended, the legal action numbers (`legal_actions()`; the acting agent's action mask, and an
empty mask for the waiting agent), the refusal of every other number with the rule (OpenSpiel's
`apply_action` raises IllegalAction naming it and leaves the state as it was; PettingZoo's `step`
ends the game as a forfeit whose info names it), and at the end the returns under each reading
(result: 1, 0, -1 by the engine's points; margin: the difference; points), zero-sum where the
reading says so. The numbering itself (the family's Codec: the adapters' documented contract) maps
the engine's actions to numbers. A number standing for no action (beyond the range, a placement
written larger square first) must be refused under rule framework-action; OpenSpiel refuses -1
(its own invalid action) before the adapter sees it.

At a chance turn (rule collapse-chance) OpenSpiel's state must be a chance node (current player
PlayerId.CHANCE) whose `chance_outcomes()` are the engine's outcomes, numbered apart (0 to the
outcome count), with their probabilities as floats and exactly (`chance_fractions()`), every other
outcome number refused. The PettingZoo environment plays chance turns itself, drawing from its
`chance_rng`: the checker gives a copy a generator whose one draw lands in the middle of the
outcome the engine took (`qttt.chance.draw` takes outcomes in their listed order), so the
environment must take that outcome and tell it in both agents' infos; at the chance turn itself
there is nothing of PettingZoo's to compare.

A failure is (message, the engine action whose number shows it, or None); the family's checker
turns it into a violation whose witness game replays it.
"""

from __future__ import annotations

import zlib
from collections import OrderedDict
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache
from typing import Any

from qttt import IllegalAction, Ruleset
from qttt.chance import CHANCE
from qttt.errors import QtttError
from qttt.family import AnyAction, GameState
from qttt.games import new_game

Refusal = Callable[[AnyAction], str | None]
"""The rule refusing an action at the position, by the checker's reading (None: legal)."""
Found = tuple[str, AnyAction | None] | None
"""What an adapter shows otherwise than the rules, and the action showing it (None: the position)."""

READINGS = ("result", "margin", "points")
"""The readings of a game's end each adapter offers (qttt.interop.RETURNS, restated here)."""
PLAYERS = {"x": 0, "o": 1, CHANCE: -1}
"""Who acts, as OpenSpiel numbers players (-1: PlayerId.CHANCE)."""
AGENTS = ("player_0", "player_1")
FRAMEWORK_RULE = "framework-action"
BEYOND = 3
"""Numbers probed on each side of the action space (below 0, at and above the count)."""
SWEEP, SPREAD = 32, 48
"""Which unlisted numbers a position's refusals are probed with, by a hash of the actions reaching
it (so that a witness replays the same probes): all of them at one position in SWEEP, elsewhere
those whose number plus the hash is a multiple of SPREAD (two or so)."""
KEPT = 4096
"""Adapter states kept per ruleset for positions one action further (sampled games)."""


def openspiel_reason(rs: Ruleset) -> str | None:
    """None when OpenSpiel and the adapter load here, else why not."""
    try:
        import qttt.openspiel  # noqa: F401  (registers the game; imports pyspiel)
    except ImportError as e:
        return f"OpenSpiel is not installed here ({e}; pip install 'qttt[openspiel]')"
    return _unserved(rs)


def pettingzoo_reason(rs: Ruleset) -> str | None:
    """None when PettingZoo and the adapter load here, else why not."""
    try:
        import qttt.pettingzoo  # noqa: F401
    except ImportError as e:
        return f"PettingZoo is not installed here ({e}; pip install 'qttt[pettingzoo]')"
    return _unserved(rs)


def _unserved(rs: Ruleset) -> str | None:
    """Why the adapters do not take rs (their refusal, naming the rule), or None."""
    from qttt.interop import rules_of

    try:
        rules_of(rs)
    except QtttError as e:
        return f"the adapter refuses the ruleset: {e}"
    return None


def expected_returns(x: Fraction, o: Fraction, reading: str) -> list[float]:
    """What a player gets at the end under a reading, from the engine's points."""
    if reading == "result":
        won = (x > o) - (x < o)
        return [float(won), float(-won)]
    return [float(x - o), float(o - x)] if reading == "margin" else [float(x), float(o)]


class Numbering:
    """The family's numbering of actions (its Codec: the adapters' documented contract)."""

    def __init__(self, rs: Ruleset) -> None:
        from qttt.interop import rules_of

        self.codec = rules_of(rs).codec
        self.count = self.codec.actions

    def number(self, action: AnyAction) -> int:
        return self.codec.encode(action)

    def action(self, code: int, chance: bool = False) -> AnyAction | None:
        """The action number (`chance`: the outcome number) `code` stands for (None: none)."""
        count, read = (self.codec.outcomes, self.codec.outcome) if chance else (self.count, self.codec.decode)
        found = read(code) if 0 <= code < count else None
        return found if found is not None and self.codec.encode(found) == code else None

    def is_outcome(self, action: AnyAction) -> bool:
        """Whether `action` is a chance turn's outcome (numbered apart)."""
        found = self.action(self.number(action), True)
        return found is not None and type(found) is type(action) and found == action

    def probes(self, codes: tuple[int, ...], listed: Sequence[int], chance: bool = False) -> list[int]:
        """The unlisted numbers (`chance`: outcome numbers) whose refusal is probed at the position
        `codes` reach (SWEEP)."""
        h = zlib.crc32(",".join(map(str, codes)).encode())
        every = h % SWEEP == 0
        allowed = set(listed)
        count = self.codec.outcomes if chance else self.count
        return [c for c in range(-BEYOND, count + BEYOND)
                if c not in allowed and (every or (c + h) % SPREAD == 0)]

    def points(self, state: GameState) -> tuple[Fraction, Fraction]:
        """The engine's final points; at a deadlock the board scored as it stands (the family's
        reading, as `qttt analyze solve` values it)."""
        if state.over:
            return state.scores["x"], state.scores["o"]
        return self.codec.points(state)


def _wanted(n: Numbering, state: GameState, legal: Sequence[AnyAction]) -> tuple[bool, list[int]] | str:
    """Whether the game has ended and the legal numbers, increasing; or what is wrong with the
    numbering of the legal actions."""
    numbers = sorted(n.number(act) for act in legal)
    if len(set(numbers)) != len(numbers):
        return f"the numbering gives two legal actions one number: {list(legal)} get {numbers}"
    return state.over or not legal, numbers


def _rule_for(n: Numbering, code: int, refusal: Refusal,
              chance: bool = False) -> tuple[AnyAction | None, str]:
    """The action number (`chance`: outcome number) `code` stands for and the rule refusing it here."""
    action = n.action(code, chance)
    rule = refusal(action) if action is not None else FRAMEWORK_RULE
    return action, rule or FRAMEWORK_RULE


def _name(n: Numbering, code: int, chance: bool = False) -> str:
    action = n.action(code, chance)
    kind = "outcome number" if chance else "number"
    return f"{kind} {code} ({action})" if action is not None else f"{kind} {code} (none)"


def _who(state: GameState, ended: bool) -> str:
    return ("the game has ended" if ended else "a chance turn is due" if state.to_move == CHANCE
            else f"{state.to_move} acts")


# OpenSpiel ----------------------------------------------------------------------------------------


class OpenSpielGames:
    """A ruleset's OpenSpiel games, one per reading that loads, and the states reached lately by
    their action numbers."""

    def __init__(self, rs: Ruleset) -> None:
        import pyspiel

        from qttt.openspiel import game_string

        self.numbering = Numbering(rs)
        self.games: dict[str, Any] = {}
        self.refused: dict[str, str] = {}
        for reading in READINGS:
            try:
                self.games[reading] = pyspiel.load_game(game_string(rs.canonical, reading))
            except ValueError as e:  # every game ends alike in points: OpenSpiel needs a range
                self.refused[reading] = str(e)
        self.states: OrderedDict[tuple[str, tuple[int, ...]], Any] = OrderedDict()

    def reach(self, reading: str, codes: tuple[int, ...], position: GameState) -> tuple[Any, str | None]:
        """The state after `codes`: a kept state one number short with that number applied (as in
        sampled games, where each position follows the last), else the game's state at
        `position` (`state_at`); or the state where the number was refused and why."""
        key = (reading, codes)
        kept = self.states.get(key)
        if kept is not None:
            self.states.move_to_end(key)
            return kept, None
        parent = self.states.get((reading, codes[:-1])) if codes else None
        if parent is None:
            here = self.games[reading].state_at(position)
        else:
            here = parent.clone()
            try:
                here.apply_action(codes[-1])
            except Exception as e:
                return here, f"OpenSpiel refuses action {len(codes)}, number {codes[-1]}: {e}"
        self.states[key] = here
        if len(self.states) > KEPT:
            self.states.popitem(last=False)
        return here, None

    def forget(self, reading: str, codes: tuple[int, ...]) -> None:
        self.states.pop((reading, codes), None)


@cache
def _openspiel(canonical: str) -> OpenSpielGames:
    from qttt import load_ruleset

    return OpenSpielGames(load_ruleset(canonical))


def compare_openspiel(rs: Ruleset, path: Sequence[AnyAction], state: GameState, legal: Sequence[AnyAction],
                      refusal: Refusal) -> Found:
    """The OpenSpiel game of rs after the numbers of `path` against the engine's `state` (see the
    module docstring)."""
    import pyspiel

    games = _openspiel(rs.canonical)
    n = games.numbering
    wanted = _wanted(n, state, legal)
    if isinstance(wanted, str):
        return wanted, None
    ended, numbers = wanted
    codes = tuple(n.number(a) for a in path)
    here, stuck = games.reach("result", codes, state)
    if stuck:
        return stuck, None
    player = int(pyspiel.PlayerId.TERMINAL) if ended else PLAYERS[state.to_move or "x"]
    if here.is_terminal() != ended or here.current_player() != player:
        return (f"OpenSpiel's state says terminal = {here.is_terminal()}, current player "
                f"{here.current_player()}; the engine says {_who(state, ended)} (player {player})"), None
    listed = here.legal_actions()
    if listed != ([] if ended else numbers):
        return f"OpenSpiel's legal_actions() are {listed}; the engine's are numbers {numbers}", None
    chance = state.to_move == CHANCE
    odds = sorted((n.number(a), p) for a, p in state.chance_outcomes()) if chance else []
    if here.is_chance_node() != chance or here.chance_outcomes() != [(c, float(p)) for c, p in odds] \
            or here.chance_fractions() != odds:
        return (f"OpenSpiel's is_chance_node() is {here.is_chance_node()}, chance_outcomes() "
                f"{here.chance_outcomes()}, chance_fractions() {here.chance_fractions()}; the engine's "
                f"outcomes are {[(c, str(p)) for c, p in odds]}"), None
    found = _openspiel_refusals(n, here, codes, listed, refusal, chance)
    if found is not None:
        games.forget("result", codes)
        return found
    if here.legal_actions() != listed or here.current_player() != player:
        games.forget("result", codes)
        return "a refused action number changed OpenSpiel's state", None
    if not ended:
        got = here.returns()
        return (f"OpenSpiel's returns() are {got} before the end", None) if got != [0.0, 0.0] else None
    x, o = n.points(state)
    for reading in READINGS:
        if reading in games.refused:
            continue
        at, stuck = games.reach(reading, codes, state) if reading != "result" else (here, None)
        if stuck:
            return stuck, None
        differs = _returns_differ("OpenSpiel's returns", at.returns(), x, o, reading)
        if differs:
            return differs, None
    return None


def _openspiel_refusals(n: Numbering, here: Any, codes: tuple[int, ...], listed: Sequence[int],
                        refusal: Refusal, chance: bool) -> Found:
    """The first probed number (`Numbering.probes`; at a chance turn outcome numbers) apply_action
    does not refuse under the rule."""
    for code in n.probes(codes, listed, chance):
        if code == -1:  # OpenSpiel's own invalid action, refused before the game sees it
            continue
        action, rule = _rule_for(n, code, refusal, chance)
        name = _name(n, code, chance)
        try:
            here.apply_action(code)
        except IllegalAction as e:
            if e.rule != rule:
                return (f"OpenSpiel's apply_action refuses {name} under rule {e.rule}; the rules name "
                        f"{rule}"), action
            continue
        except Exception as e:
            return f"OpenSpiel's apply_action({code}) raised {type(e).__name__}: {e}", action
        return (f"OpenSpiel's apply_action accepts {name}, which legal_actions() does not list "
                f"(rule {rule} refuses it)"), action
    return None


def _returns_differ(what: str, got: Sequence[float], x: Fraction, o: Fraction, reading: str) -> str | None:
    """How an adapter's returns at the end differ from those the engine's points give."""
    want = expected_returns(x, o, reading)
    if list(got) == want:
        return None
    kind = " (not zero-sum)" if reading != "points" and sum(got) != 0 else ""
    return (f"{what} under returns={reading} are {list(got)}{kind}; the engine's points x {x}, o {o} "
            f"give {want}")


# PettingZoo ---------------------------------------------------------------------------------------


class PettingZooEnvs:
    """A ruleset's PettingZoo environments (raw, one per reading) and those reached lately, by
    their action numbers."""

    def __init__(self, rs: Ruleset) -> None:
        from qttt.pettingzoo import raw_env

        self.rs = rs
        self.numbering = Numbering(rs)
        self.fresh = {r: raw_env(ruleset=rs.canonical, returns=r) for r in READINGS}
        self.envs: OrderedDict[tuple[str, tuple[AnyAction, ...]], tuple[Any, GameState]] = OrderedDict()

    def reach(self, reading: str, path: tuple[AnyAction, ...]) -> tuple[Any, str | None]:
        """The reading's environment stepped through the numbers of `path`, its chance outcomes
        drawn by the environment where a generator lands them (`Lands`): a copy of one kept one
        action short (two past an outcome, whose chance turn is not kept) stepped on (sampled games,
        and the walk's classes, follow the positions before them), else reset and stepped from the
        start; or where a number was not taken, or an outcome not drawn, and why. Kept as it is
        returned: the caller probes copies."""
        key = (reading, path)
        kept = self.envs.get(key)
        if kept is not None:
            self.envs.move_to_end(key)
            return kept[0], None
        start = next((len(path) - back for back in (1, 2) if len(path) >= back
                      and (reading, path[:-back]) in self.envs), 0)
        if start:
            env, state = self.envs[(reading, path[:start])]
            env = _copy(env)
        else:
            env, state = _copy(self.fresh[reading]), new_game(self.rs)
            env.reset()
        n = self.numbering
        for i in range(start, len(path)):
            action, code = path[i], n.number(path[i])
            if n.is_outcome(action):
                told = [env.infos[a].get("chance") for a in AGENTS]
                want = (code, dict(state.chance_outcomes()).get(action))
                if told != [want, want]:
                    return env, (f"PettingZoo's infos after action {i} tell the chance outcomes {told}; its "
                                 f"generator landed on outcome {code} of {state.chance_outcomes()}")
            else:
                after = state.apply(action)
                outcome = path[i + 1] if i + 1 < len(path) else None
                env.chance_rng = Lands(after.chance_outcomes(), outcome)
                env.step(code)
                forfeit = env.infos[AGENTS[0]].get("forfeit") or env.infos[AGENTS[1]].get("forfeit")
                if forfeit:
                    return env, f"PettingZoo forfeits action {i + 1}, {_name(n, code)}: {forfeit}"
                due = after.to_move == CHANCE
                if env.chance_rng.drawn != due:
                    return env, (f"PettingZoo {'drew' if env.chance_rng.drawn else 'drew no'} chance outcome "
                                 f"after action {i + 1}; the rules {'' if due else 'do not '}give a chance "
                                 "turn there")
            state = state.apply(action)
        self.envs[key] = env, state
        if len(self.envs) > KEPT:
            self.envs.popitem(last=False)
        return env, None


class Lands:
    """A generator (`random.Random`'s one method `qttt.chance.draw` calls) whose draw lands in the
    middle of `outcome`'s share of [0, 1), the outcomes taken in their listed order; `drawn` says
    whether it was drawn from."""

    def __init__(self, outcomes: Sequence[tuple[AnyAction, Fraction]], outcome: AnyAction | None) -> None:
        below = Fraction(0)
        self.u = 0.0
        for action, p in outcomes:
            if action == outcome and type(action) is type(outcome):
                self.u = float(below + p / 2)
            below += p
        self.drawn = False

    def random(self) -> float:
        self.drawn = True
        return self.u


@cache
def _pettingzoo(canonical: str) -> PettingZooEnvs:
    from qttt import load_ruleset

    return PettingZooEnvs(load_ruleset(canonical))


def _copy(env: Any) -> Any:
    """An independent copy of a raw environment (its game state is immutable; its dicts are not;
    copy.copy would make a new environment: EzPickle pickles the constructor's arguments)."""
    out = object.__new__(type(env))
    out.__dict__.update(env.__dict__)
    for name in ("rewards", "_cumulative_rewards", "terminations", "truncations"):
        setattr(out, name, dict(getattr(env, name)))
    out.infos = {a: dict(v) for a, v in env.infos.items()}
    out.agents = list(env.agents)
    return out


def compare_pettingzoo(rs: Ruleset, path: Sequence[AnyAction], state: GameState, legal: Sequence[AnyAction],
                       refusal: Refusal) -> Found:
    """The PettingZoo environment of rs after stepping the numbers of `path` against the engine's
    `state` (see the module docstring)."""
    envs = _pettingzoo(rs.canonical)
    n = envs.numbering
    wanted = _wanted(n, state, legal)
    if isinstance(wanted, str):
        return wanted, None
    ended, numbers = wanted
    if state.to_move == CHANCE:
        return None  # the environment plays chance turns itself: what it draws is compared after it
    codes = tuple(n.number(a) for a in path)
    env, stuck = envs.reach("result", tuple(path))
    if stuck:
        return stuck, None
    if [bool(env.terminations[a]) for a in AGENTS] != [ended, ended]:
        return f"PettingZoo's terminations are {env.terminations}; the engine says {_who(state, ended)}", None
    acting = None if ended else AGENTS[PLAYERS[state.to_move or "x"]]
    if acting is not None and env.agent_selection != acting:
        return (f"PettingZoo selects {env.agent_selection}; the engine says {state.to_move} acts "
                f"({acting})"), None
    for agent in AGENTS:
        offered = [int(c) for c in env.observe(agent)["action_mask"].nonzero()[0]]
        want = numbers if agent == acting else []
        if offered != want:
            role = "the acting agent" if agent == acting else "an agent that is not to act"
            return (f"PettingZoo's action mask offers {agent} ({role}, {_who(state, ended)}) numbers "
                    f"{offered}; the rules allow {want}"), None
    if acting is not None:
        found = _pettingzoo_refusals(n, env, acting, codes, numbers, refusal)
        if found is not None:
            return found
        early = any(env.rewards.values())
        return (f"PettingZoo's rewards are {env.rewards} before the end", None) if early else None
    x, o = n.points(state)
    for reading in READINGS:
        at, stuck = envs.reach(reading, tuple(path)) if reading != "result" else (env, None)
        if stuck:
            return stuck, None
        differs = _returns_differ("PettingZoo's rewards", [at.rewards[a] for a in AGENTS], x, o, reading)
        if differs:
            return differs, None
    return None


def _pettingzoo_refusals(n: Numbering, env: Any, acting: str, codes: tuple[int, ...], numbers: Sequence[int],
                         refusal: Refusal) -> Found:
    """The first probed number (`Numbering.probes`) that a copy of env, stepped with it, does not
    end as the acting agent's forfeit naming the rule."""
    for code in n.probes(codes, numbers):
        action, rule = _rule_for(n, code, refusal)
        probe = _copy(env)
        try:
            probe.step(code)
        except Exception as e:
            return f"PettingZoo's step({code}) raised {type(e).__name__}: {e}", action
        forfeit = str(probe.infos[acting].get("forfeit", ""))
        if not all(probe.terminations.values()) or f"(rule {rule})" not in forfeit:
            taken = "as a forfeit: " + forfeit if forfeit else "as a move"
            return (f"PettingZoo's step takes {_name(n, code)}, which the mask does not offer, {taken}; rule "
                    f"{rule} refuses it"), action
    return None
