"""Settings told apart: every rule parameter and scoring field of a ruleset whose value is not the
default, each with the ruleset that has the default there instead (its counterpart: the rules an
engine that ignores the value plays), and the games and cases after which the two expect
something different.

The settings derive from the declarations of qttt.vocabulary: each parameter its family reads (but
`game` and `board`, which choose the family and the action space itself), each scoring component
(its counterpart leaves it out: an engine that does not know the award), its pattern and length,
and each of its settings (`Setting`). A case tells a setting apart when its expectations (the
start position, each step's error, state and legal actions) differ when it is replayed under the
counterpart (`tells`); `qttt vectors generate` adds a case for every setting no other case tells
apart (`telling_case`, from the earliest difference in seeded random games) and `qttt vectors check`
holds every suite to it. The checker's design properties (verify) ask the same question of the
rules themselves: a setting no game tells apart changes nothing.
"""

from __future__ import annotations

import itertools
import random
import re
import tomllib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

from ..errors import QtttError
from ..family import GameState
from ..games import new_game
from ..notation import Json, action_from_json, action_to_json, state_to_json
from ..ruleset import Ruleset, with_params, with_scoring
from ..spec import spec_dir
from ..vocabulary import AWARD_DECLARATIONS, COMMON_FIELDS, PARAMETERS, format_value, lists, plain_value
from .casespec import MAX_DESCRIPTION, CaseSpec, seed_of
from .values import Reading, default_readings, readings, ruleset_readings

STRUCTURAL = ("game", "board")
"""Parameters with no counterpart: they choose the game family and the board, so the action space
itself; every case names cells of its board."""

SEARCH_GAMES = 300  # seeded random games searched for a difference before a setting is given up
SEARCH_POSITIONS = 30_000
"""Positions replayed at most in that search: more than 300 games of any shipped board (a 9×9
nested board's come to about 24,000), a bound on the boards where 300 games would take hours (a
49×49 nested board's come to about 700,000)."""
LEAD = 2  # actions of a telling case's steps before the one that differs


@dataclass(frozen=True)
class Setting:
    """A value of a ruleset that is not the default: where it is (`field`: a parameter's name,
    `scoring[i]` for a whole component, `scoring[i].name` for one of its fields), the value and the
    default as variant files write them, the rule it selects, the ruleset with the default instead
    (`counterpart`) and the readings (qttt.conformance.values) the value shows and the default
    does not."""

    field: str
    value: str
    default: str
    rule: str
    counterpart: Ruleset
    readings: frozenset[Reading]

    @property
    def text(self) -> str:
        """`measurer = creator`, `scoring[0].tie = 1/2`."""
        return f"{self.field} = {self.value}"


def settings(rs: Ruleset) -> list[Setting]:
    """Every setting of rs that is not its default, in declaration order: its family's parameters,
    then each scoring component, its pattern, length and settings."""
    out: list[Setting] = []
    shown = _readings(rs)

    def add(field: str, value: str, default: str, rule: str, counterpart: Ruleset) -> None:
        readings_ = frozenset(shown - _readings(counterpart))
        out.append(Setting(field, value, default, rule, counterpart, readings_))

    for p in PARAMETERS:
        if p.name in STRUCTURAL or rs.game not in p.games or rs.value(p.name) == p.default:
            continue
        add(p.name, format_value(rs.value(p.name)), format_value(p.default), p.rule,
            with_params(rs, **_reset(p.name)))
    tables = rs.to_dict()["scoring"]
    for i, (component, table) in enumerate(zip(rs.scoring, tables, strict=True)):
        declared = AWARD_DECLARATIONS[component.award]
        others = [t for j, t in enumerate(tables) if j != i]
        add(f"scoring[{i}]", _component_text(table), "left out", declared.rule, with_scoring(rs, others))
        for name, value, default in _fields(table):
            changed = {k: v for k, v in table.items() if k != name}
            if default is not None:
                changed[name] = default
            text = "unstated" if default is None else format_value(default)
            add(f"scoring[{i}].{name}", format_value(value), text, declared.rule,
                with_scoring(rs, [*tables[:i], changed, *tables[i + 1:]]))
    return out


def _readings(rs: Ruleset) -> set[Reading]:
    """The readings rs shows, from its parameters as a suite's header holds them."""
    return ruleset_readings({name: lists(value) for name, value in rs.to_dict().items()})


def _reset(name: str) -> dict[str, Any]:
    """Parameter `name` at its default, with every parameter that needs another value of it
    (`needs`, where the vocabulary declares one) at its own default too."""
    default = next(p.default for p in PARAMETERS if p.name == name)
    reset = {name: default}
    for p in PARAMETERS:
        if any(other == name and default not in allowed for other, allowed in p.needs):
            reset[p.name] = p.default
    return reset


def _component_text(table: Mapping[str, Any]) -> str:
    """A component as messages name it: `per-pattern square 2`, `win`."""
    if "pattern" not in table:
        return str(table["award"])
    return f"{table['award']} {table['pattern']} {table['length']}"


def _fields(table: Mapping[str, Any]) -> Iterator[tuple[str, Any, Any]]:
    """A component's fields whose value is not the default: (name, value, default; None for an
    unstated one). A square's length defaults to 2, a line's to 0 (the board size)."""
    declared = AWARD_DECLARATIONS[table["award"]]
    for name, setting in declared.fields.items():
        if name not in table:
            continue
        value = table[name]
        default = setting.default
        if name == "length":
            default = 0 if table.get("pattern", COMMON_FIELDS["pattern"].default) == "line" else 2
        if not _same(setting.kind, value, default):
            yield name, value, None if default is None else plain_value(default)


def _same(kind: str, value: Any, default: Any) -> bool:
    if default is None:
        return False
    if kind == "fraction":
        return bool(Fraction(value) == default)
    if isinstance(default, tuple):
        return bool(list(value) == list(default))
    return bool(value == default)


# -- telling them apart ------------------------------------------------------------------------

def expectation(state: GameState, variant: str) -> dict[str, Json]:
    """What a case expects at a position: its state (v1 JSON, named `variant`) and legal actions."""
    return {"state": state_to_json(state, variant),
            "legal": [action_to_json(a) for a in state.legal_actions()]}


def _expectations(rs: Ruleset, label: str, start: Sequence[Json], steps: Sequence[Json]) -> list[Json]:
    """What a case expects when rs plays it (as build_case computes it, the variant named `label`):
    the start position, then each step's error or none, state and legal actions; a start record rs
    refuses ends the list with its error."""
    state = new_game(rs)
    try:
        for action in start:
            state = state.apply(action_from_json(action))
    except QtttError as e:
        return [{"start_error": {"kind": e.kind, "rule": e.rule}}]
    out: list[Json] = [expectation(state, label)]
    for action in steps:
        step: dict[str, Json] = {}
        try:
            state = state.apply(action_from_json(action))
        except QtttError as e:
            step["error"] = {"kind": e.kind, "rule": e.rule}
        step.update(expectation(state, label))
        out.append(step)
    return out


def committed_expectations(case: Mapping[str, Json]) -> list[Json]:
    """The expectations a suite's case states, in `_expectations`' form."""
    steps = [{k: v for k, v in step.items() if k != "action"} for step in case["steps"]]
    return [case["expect_start"], *steps]


def tells(case: Mapping[str, Json], setting: Setting) -> bool:
    """Whether the case expects something else when the setting's counterpart plays it (a case that
    names another ruleset, such as an unknown one, tells nothing apart)."""
    if "start_error" in case:
        return False
    start = case["start"]
    steps = [step["action"] for step in case["steps"]]
    return _expectations(setting.counterpart, start["variant"], start["actions"], steps) \
        != committed_expectations(case)


@dataclass(frozen=True)
class Telling:
    """A game after which two rulesets expect something different: its actions (the last is the
    first after which they differ; none when the start differs), what differs, and the seed of the
    random game it came from (None: a game given to the search)."""

    actions: list[Json]
    what: str
    seed: int | None = None


def _what(mine: GameState, theirs: GameState, label: str) -> str | None:
    """What differs between the expectations at two positions (`expectation`): `legal actions`, or
    the first field of the state; None when nothing does. Equal legal actions are equal as JSON, so
    only a difference is written out (a 9×9 board has thousands of legal placements)."""
    legal, others = mine.legal_actions(), theirs.legal_actions()
    if legal != others and [action_to_json(a) for a in legal] != [action_to_json(a) for a in others]:
        return "legal actions"
    state, other = state_to_json(mine, label), state_to_json(theirs, label)
    return next((key for key in state if state[key] != other.get(key)), None if state == other else "state")


def first_difference(rs: Ruleset, other: Ruleset, actions: Sequence[Json]) -> tuple[int, str] | None:
    """How many of `actions` rs and other play alike before they expect something different (the
    position after that many actions, or other's refusal of the next) and what differs; None if
    they never do."""
    label = rs.canonical
    mine, theirs = new_game(rs), new_game(other)
    if (what := _what(mine, theirs, label)) is not None:
        return 0, what
    for i, action in enumerate(actions):
        act = action_from_json(action)
        try:
            mine = mine.apply(act)
        except QtttError:  # rs refuses it: the game is not one of rs's
            return None
        try:
            theirs = theirs.apply(act)
        except QtttError:
            return i + 1, "refusal"
        if (what := _what(mine, theirs, label)) is not None:
            return i + 1, what
    return None


def random_actions(rs: Ruleset, seed: int) -> list[Json]:
    """A seeded game of uniformly random legal actions under rs, as JSON actions."""
    rng = random.Random(seed)
    state, out = new_game(rs), list[Json]()
    while not state.over:
        legal = state.legal_actions()
        if not legal:
            break
        act = legal[rng.randrange(len(legal))]
        out.append(action_to_json(act))
        state = state.apply(act)
    return out


def telling_game(rs: Ruleset, other: Ruleset, games: int = SEARCH_GAMES, tag: str = "",
                 given: Iterable[Sequence[Json]] = (), first: bool = False) -> Telling | None:
    """The shortest telling game (`first_difference`) among the `given` games of rs, then `games`
    seeded random games of rs, SEARCH_POSITIONS positions at most (with `first`, the first of them
    that tells: a witness, not the shortest); None when none differs."""
    base = seed_of(f"telling:{rs.canonical}:{other.canonical}:{tag}")
    candidates = itertools.chain(((None, list(g)) for g in given),
                                 ((base + i, random_actions(rs, base + i)) for i in range(games)))
    best: Telling | None = None
    replayed = 0
    for seed, actions in candidates:
        if replayed >= SEARCH_POSITIONS:
            break
        replayed += len(actions)
        if best is not None:
            actions = actions[:len(best.actions)]
        found = first_difference(rs, other, actions)
        if found is not None and (best is None or found[0] < len(best.actions)):
            best = Telling(actions[:found[0]], found[1], seed)
            if found[0] <= 1 or first:
                break
    return best


def slug(setting: Setting) -> str:
    """The case slug of a setting: `tells-measurer`, `tells-scoring-0-tie`."""
    return "tells-" + re.sub(r"[^a-z0-9]+", "-", setting.field.lower()).strip("-")


def telling_case(rs: Ruleset, setting: Setting, games: int = SEARCH_GAMES) -> CaseSpec | None:
    """A case that tells the setting apart: the earliest difference found in seeded random games of
    rs, its last LEAD actions before it and the action that differs as steps; None if no game
    differs."""
    found = telling_game(rs, setting.counterpart, games, setting.field)
    if found is None:
        return None
    actions = found.actions
    cut = max(0, len(actions) - 1 - LEAD)
    what = f"{found.what} differ{'s' * (not found.what.endswith('s'))} after {len(actions)} actions"
    text = f"{setting.text} against {setting.default}: {what}"
    if len(text) > MAX_DESCRIPTION:
        text = f"{setting.field} against its default: {what}"
    return CaseSpec(slug(setting), text, tuple(actions[:cut]), tuple(actions[cut:]), (setting.rule,),
                    seed_note=f"random game seed {found.seed}")


# -- the suites held to it ---------------------------------------------------------------------

def told(suite: Mapping[str, Json], rs: Ruleset) -> tuple[list[Setting], list[Setting]]:
    """The settings of rs (the suite's ruleset) that some case of the suite tells apart, and those
    none does (an engine that ignores one of these passes the suite) but the ambiguity register
    documents as changing no game of the suite's ruleset, by its name (`documented`)."""
    yes, no = [], []
    for setting in settings(rs):
        if any(tells(case, setting) for case in suite["cases"]):
            yes.append(setting)
        elif (suite["ruleset"]["name"], setting.field) not in documented():
            no.append(setting)
    return yes, no


@cache
def documented() -> dict[tuple[str, str], str]:
    """The design findings the ambiguity register keeps on purpose (a setting that changes no game
    of its ruleset, an end that no game reaches): (ruleset name, subject: a setting's field or a
    rule id) -> the id of the point saying why (a point's `design` entries, "RULESET: SUBJECT")."""
    with open(spec_dir() / "ambiguities.toml", "rb") as f:
        points = tomllib.load(f)["point"]
    out = {}
    for point in points:
        for entry in point.get("design", ()):
            name, _, field = entry.partition(": ")
            out[(name, field)] = point["id"]
    return out


def to_tell() -> list[Reading]:
    """The readings some suite must tell apart from the default: every reading of the vocabulary
    but the defaults' (`default_readings`) and those of the STRUCTURAL parameters."""
    defaults = default_readings()
    return [r for r in readings() if r not in defaults and r[0] not in STRUCTURAL]
