"""Design properties: rules that cannot matter or contradict each other, found for the designer
of a ruleset (issue 30 item 6). They are not violations (the engine follows the rules as written)
but findings of their own kind: `qttt check` reports them in a section of their own, and
`--strict` fails on them.

Every question is derived from the declarations, so a new parameter value, award or end rule is
covered without new code here:

- `value-matters`: each setting of the ruleset that is not the default (qttt.conformance.telling:
  every rule parameter its family reads, each scoring field) changes some game: a game after which
  the ruleset and its counterpart (the default in that one place) expect something different;
- `award-earned`: each scoring component changes some game's outcome: leaving it out does (an
  award no game can earn changes nothing);
- and the family's own questions (its `design` tool, e.g. verify.quantum.design: an end condition
  no game reaches, a game that ends on a line no award scores).

Each answer says what settled it: a witness game, replayed from the start under the rules (and
the counterpart's) and showing the difference; or an argument: the compiled configuration is the
same (the rules the family's compiled core reads, and the checker compares that core with the
engine), every reachable position walked (its count stated), or a family's argument (stated).
Otherwise `unknown`, with the bound of the search. A finding the ambiguity register keeps on
purpose (a point's `design` entries, `RULESET: SUBJECT`) names that point.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from qttt import Ruleset, load_ruleset
from qttt.conformance.casespec import seed_of
from qttt.conformance.telling import (
    Setting,
    Telling,
    documented,
    expectation,
    first_difference,
    random_actions,
    settings,
    telling_game,
)
from qttt.errors import QtttError
from qttt.family import GameState, family_of, load
from qttt.games import new_game
from qttt.notation import Json, action_from_json, action_to_json

from .report import Design, Progress, Report, Witness

GAMES = 300  # seeded random games searched for a witness
BUDGET = 10_000  # positions an exhaustive walk may visit before it gives up (every 2×2 game: at most 2407)


class FamilyDesign(Protocol):
    """A family's `design` tool: games built to show what its rules can do, its own arguments and
    its own design properties."""

    def designed_games(self, rs: Ruleset) -> list[list[Json]]:
        """Whole games of rs (JSON actions) built to reach rare positions (lines for both players,
        ties, a pattern held alone): searched before random games."""

    def argue(self, rs: Ruleset, setting: Setting) -> str | None:
        """Why the setting changes no game of rs, when the family can show it (None otherwise)."""

    def designs(self, rs: Ruleset, spec: str, given: Sequence[Sequence[Json]], games: int,
                budget: int) -> list[Design]:
        """The family's own design properties of rs."""


def family_design(rs: Ruleset) -> FamilyDesign | None:
    """The `design` tool of rs's family, when it has one."""
    ref = family_of(rs).tools.get("design")
    return None if ref is None else load(ref)


@dataclass(frozen=True)
class Designed:
    """A family's checker with the ruleset's design properties added to its report (`qttt check`
    runs every checker so), once the rule properties found the engine sound: the design games are
    the engine's, so over a violated or erroneous check they are not played (none is reported)."""

    checker: Callable[..., Report]

    def __call__(self, spec: str, progress: Progress | None = None, **options: Any) -> Report:
        report = self.checker(spec, progress=progress, **options)
        if report.has("violated") or report.has("error"):
            return report  # the engine plays these rules wrongly: no design question has an answer yet
        if progress is not None:
            progress("design properties")
        report.design = check(spec)
        return report


def check(spec: str, games: int = GAMES, budget: int = BUDGET) -> list[Design]:
    """Every design property of the ruleset spec names (a name, canonical name or file)."""
    rs = load_ruleset(spec)
    tool = family_design(rs)
    given = tool.designed_games(rs) if tool is not None else []
    out = [setting_design(rs, spec, s, given, tool, games, budget) for s in settings(rs)]
    if tool is not None:
        out += tool.designs(rs, spec, given, games, budget)
    for d in out:
        if d.verdict == "finding":
            d.documented = documented().get((rs.name, d.key))
    return out


# -- value-matters and award-earned ------------------------------------------------------------

def setting_design(rs: Ruleset, spec: str, setting: Setting, given: Sequence[Sequence[Json]],
                   tool: FamilyDesign | None, games: int, budget: int) -> Design:
    """Whether the setting changes some game: a telling game (designed, then random games), else
    the same compiled configuration, an exhaustive walk of both rulesets or the family's argument."""
    award = re.fullmatch(r"scoring\[\d+\]", setting.field) is not None
    kind = "award-earned" if award else "value-matters"
    subject = f"{setting.field} ({setting.value})" if award else setting.text
    rules = (setting.rule,)
    found = telling_game(rs, setting.counterpart, games, setting.field, given, first=True)
    searched = f"{len(given)} designed and {games} random games"
    walked: Telling | int | None = None
    if found is None:
        walked = product_walk(rs, setting.counterpart, budget)
        if isinstance(walked, Telling):
            found = walked
    if found is not None:
        witness = telling_witness(rs, spec, setting, found)
        if witness is not None:
            what = "it left out" if award else f"the default {setting.default}"
            differs = f"{found.what} differ{'s' * (not found.what.endswith('s'))}"
            return Design(kind, setting.field, subject, "clean",
                          f"{subject} changes a game: with {what} instead, {differs} after "
                          f"{len(found.actions)} actions", f"a game, replayed under both ({searched})",
                          rules, witness)
    why = same_configuration(rs, setting.counterpart)
    how = f"proved (the compiled core's configuration is the same: {why})" if why else None
    if how is None and isinstance(walked, int):
        how = (f"proved (exhaustive: every reachable position of both, {walked} positions, expects the "
               "same)")
    if how is None and tool is not None and (argument := tool.argue(rs, setting)) is not None:
        how = f"proved ({argument})"
    if how is None:
        reach = "" if walked is None else f"; the walk stopped at {budget} positions"
        return Design(kind, setting.field, subject, "unknown",
                      f"no game found telling {subject} from the default",
                      f"unknown (searched {searched}{reach})", rules)
    if award:
        text = f"{subject} is never earned: leaving it out changes no game"
    else:
        text = f"{setting.text} changes no game: the default {setting.default} plays every game alike"
    return Design(kind, setting.field, subject, "finding", text, how, rules)


def telling_witness(rs: Ruleset, spec: str, setting: Setting, found: Telling) -> Witness | None:
    """The telling game as a witness, after replaying it from the start under both rulesets and
    seeing them differ after its last action (None if they do not)."""
    again = first_difference(rs, setting.counterpart, found.actions)
    if again is None or again[0] != len(found.actions):
        return None
    return Witness({"variant": spec, "actions": list(found.actions)},
                   f"after these actions {setting.text} and the default {setting.default} differ in "
                   f"{again[1]}")


def same_configuration(rs: Ruleset, other: Ruleset) -> str | None:
    """What shows that the two rulesets' compiled configurations (their family's `core` tool's
    `config`: every value its compiled core reads) are the same, or None when they differ or the
    family has no compiled core."""
    ref = family_of(rs).tools.get("core")
    if ref is None:
        return None
    config: Callable[[Ruleset], Any] = getattr(load(ref), "config", None)  # type: ignore[assignment]
    if config is None:
        return None
    try:
        mine, theirs = config(rs), config(other)
    except QtttError:
        return None
    return "the same end lines, award encodings and rule codes" if mine == theirs else None


def product_walk(rs: Ruleset, other: Ruleset, budget: int) -> Telling | int | None:
    """Both rulesets walked together over every position reachable under both (breadth first, so
    the first difference is a shortest game): the telling game, or the number of positions when
    every one expects the same under both, or None when more than `budget` positions exist."""
    label = rs.canonical
    start = (new_game(rs), new_game(other))
    if expectation(start[0], label) != expectation(start[1], label):
        return Telling([], "state")
    seen = {(start[0].key(), start[1].key())}
    queue: deque[tuple[GameState, GameState, tuple[Json, ...]]] = deque([(*start, ())])
    while queue:
        mine, theirs, path = queue.popleft()
        if mine.over:
            continue
        for act in mine.legal_actions():
            a = mine.apply(act)
            here = (*path, action_to_json(act))
            try:
                b = theirs.apply(act)
            except QtttError:
                return Telling(list(here), "refusal")
            ea, eb = expectation(a, label), expectation(b, label)
            if ea != eb:
                found = first_difference(rs, other, list(here))
                return Telling(list(here), found[1] if found else "state")
            key = (a.key(), b.key())
            if key not in seen:
                if len(seen) >= budget:
                    return None
                seen.add(key)
                queue.append((a, b, here))
    return len(seen)


def positions(rs: Ruleset, budget: int) -> list[tuple[GameState, tuple[Json, ...]]] | None:
    """Every reachable position of rs with a shortest game reaching it (breadth first), or None
    when there are more than `budget`."""
    start = new_game(rs)
    seen = {start.key()}
    out = [(start, ())]
    queue: deque[tuple[GameState, tuple[Json, ...]]] = deque(out)
    while queue:
        state, path = queue.popleft()
        if state.over:
            continue
        for act in state.legal_actions():
            after = state.apply(act)
            key = after.key()
            if key not in seen:
                if len(seen) >= budget:
                    return None
                seen.add(key)
                item = (after, (*path, action_to_json(act)))
                out.append(item)
                queue.append(item)
    return out


def finals(rs: Ruleset, given: Iterable[Sequence[Json]], games: int,
           tag: str) -> list[tuple[GameState, list[Json]]]:
    """The final positions of the given games (those rs plays to the end) and of `games` seeded
    random games, each with its actions."""
    out = []
    base = seed_of(f"design:{rs.canonical}:{tag}")
    candidates = [list(g) for g in given] + [random_actions(rs, base + i) for i in range(games)]
    for actions in candidates:
        state = new_game(rs)
        try:
            for a in actions:
                state = state.apply(action_from_json(a))
        except QtttError:
            continue
        if state.over:
            out.append((state, actions))
    return out
