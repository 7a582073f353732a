"""Which rule a difference of a conformance case fails. The case is replayed by our engine and
the family's `cases` tool names the rules each action exercises (as the generator cites them). The
candidates of a difference are the rules its action exercises first in the case (those exercised
before passed there: a placement closing the first cycle points at cycle-close, not turn-order),
narrowed to the rules that decide the field that differs (the family's `field_rules`: to_move
after a cycle points at measure-by). Of its candidates, the rule blamed is the one the most failing
items share, then the first in catalogue order (`most_common`): one root cause is named once."""

from __future__ import annotations

import json
from functools import cache

from ..errors import QtttError
from ..family import GameState, cases
from ..games import new_game
from ..notation import Json, action_from_json
from ..ruleset import Ruleset
from ..spec import rules
from ..variant import load_ruleset
from .scope import rule_ids
from .telling import expectation

ORDER_RULE = "engine-protocol"  # the rule of spec/rules.toml that fixes the order of the legal list


@cache
def known_rules() -> frozenset[str]:
    """Every rule id of spec/rules.toml."""
    return frozenset(rules())


@cache
def _order() -> dict[str, int]:
    return {rule: i for i, rule in enumerate(rules())}


class CaseRules:
    """The rules each action of a case exercises (start actions, then steps), computed on first use."""

    def __init__(self, case: dict[str, Json]) -> None:
        self.case = case
        self._refs: list[set[str]] | None = None
        self._states: list[GameState] = []  # our engine's position before the first action and after each
        self._expects: list[dict[str, Json]] = []
        self._allowed: set[str] = set()
        self._rs: Ruleset | None = None

    def actions(self) -> list[Json]:
        """The start actions, then the steps' actions."""
        return [*self.case["start"]["actions"], *(s["action"] for s in self.case.get("steps", []))]

    def _compute(self) -> list[set[str]]:
        if self._refs is not None:
            return self._refs
        self._refs = []
        try:
            self._rs = rs = load_ruleset(self.case["start"]["variant"])
        except QtttError:
            return self._refs
        self._allowed = set(rule_ids(rs))
        tool = cases(rs)
        variant = self.case["start"]["variant"]
        state = new_game(rs)
        self._states = [state]
        self._expects = [expectation(state, variant)]
        for action in self.actions():
            try:
                after = state.apply(action_from_json(action))
            except QtttError as e:
                self._refs.append({e.rule} | tool.error_refs(rs, state))
            else:
                self._refs.append(tool.move_refs(rs, state, action, after))
                state = after
            self._states.append(state)
            self._expects.append(expectation(state, variant))
        return self._refs

    def expects(self) -> list[dict[str, Json]]:
        """Our engine's state (v1 JSON) and legal actions before the first action and after each."""
        self._compute()
        return self._expects

    def at(self, index: int, field: str | None = None, text: str = "") -> tuple[str, ...]:
        """The rules a difference in `field` (of the state, or `legal`; `text` says how it differs)
        right after action `index` (0-based, start actions first) may fail, most likely first.
        A legal action missing: the rules it would exercise; one listed that is not legal: the rule
        that refuses it. Else the rules that decide the field (the family's `field_rules`, most
        specific first) among those the action exercises first in the case; else among those it
        exercises; else any that decides it; else the rules it exercises first, else all it
        exercises. Before any action (-1): the ruleset's board rule. Empty when the case cannot be
        replayed here."""
        refs = self._compute()
        if not -1 <= index < len(refs) or self._rs is None:
            return ()
        state = self._states[index + 1]
        deciding = [r for r in cases(self._rs).field_rules(self._rs, state).get(field or "", ())
                    if r in self._allowed]
        if field == "legal" and "out of order" in text:
            return (ORDER_RULE,)  # the order of the legal list is the protocol's, no game rule's
        if index == -1:
            return tuple(deciding[:1]) or tuple(ordered(self._allowed))[:1]
        if field == "legal":
            found = self._legal(state, text, deciding)
            if found:
                return found
        before = set().union(*refs[:index])
        mine = refs[index] & self._allowed or refs[index]
        new = mine - before or mine
        for pool in (new, mine):
            picked = [r for r in deciding if r in pool]
            if picked:
                return tuple(picked)
        return tuple(deciding) or tuple(ordered(new))

    def _legal(self, state: GameState, text: str, deciding: list[str]) -> tuple[str, ...]:
        """For `legal: missing [A, ...]`: the deciding rules action A exercises; for `legal:
        unexpected [B, ...]`: the rule that refuses B."""
        assert self._rs is not None
        head, _, rest = text.partition(" [")
        try:
            action, _ = json.JSONDecoder().raw_decode(rest)
            after = state.apply(action_from_json(action))
        except QtttError as e:
            return (e.rule,) if head.endswith("unexpected") else ()
        except ValueError:
            return ()
        if not head.endswith("missing"):
            return ()
        made = cases(self._rs).move_refs(self._rs, state, action, after)
        return tuple(r for r in deciding if r in made)


def field_of(text: str) -> str | None:
    """The field a difference's text is about: `board` of `state.board[3]: ...`, `legal`."""
    head = text.split(":", 1)[0]
    if head.startswith("state."):
        return head.removeprefix("state.").split(".")[0].split("[")[0]
    return "legal" if head.startswith("legal") else None


def ordered(ids: set[str]) -> list[str]:
    """`ids` in catalogue order (unknown ids last)."""
    order = _order()
    return sorted(ids, key=lambda r: (order.get(r, len(order)), r))


def most_common(candidates: list[tuple[str, ...]]) -> dict[tuple[str, ...], str]:
    """For each tuple of candidate rules (one per failing item, its first difference's; most likely
    first), the rule to blame: the candidate that most items share (one root cause explains them),
    then the likelier."""
    share: dict[str, int] = {}
    for c in set(candidates):
        for rule in c:
            share[rule] = share.get(rule, 0) + candidates.count(c)
    return {c: min(c, key=lambda r: (-share[r], c.index(r))) for c in set(candidates) if c}
