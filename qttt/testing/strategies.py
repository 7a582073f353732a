"""Hypothesis strategies for rulesets, states and actions, and a lockstep state machine.

The state machine drives the engine and a reference model (any object with `state()`,
`legal()` and `apply(action_json)` raising an exception with a `.rule` attribute, such as
tests/support/reference.py's RefGame) through the same actions, and checks after every step that
they agree on the v1 state JSON and on the legal actions, and that the engine keeps the
invariants of the common rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any, Protocol

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ..notation import Record, action_to_json, record_from_json, record_to_json, state_to_json
from ..quantum.engine import Action, Measure, Place, State
from ..quantum.game import compile_game
from ..quantum.notation import from_notation, from_position, position, to_notation
from ..quantum.scoring import PerPattern, compile_scoring
from ..ruleset import Ruleset, default_ruleset, with_params
from ..variant import builtin_names, load_ruleset
from ..vocabulary import (
    AWARD_FIELDS,
    AWARD_GAME,
    AWARDS,
    CRITERIA,
    NESTED,
    PARAMETER_BY_NAME,
    PARAMETERS,
    PATTERN_KINDS,
    PATTERNS,
    Component,
)


class ReferenceGame(Protocol):
    """What the state machine needs of a reference model: the v1 state JSON, the legal actions
    as JSON in the engine's order, and `apply`, which raises an exception with a `.rule`
    attribute (a rule id) for an illegal action and then leaves the game unchanged."""

    def state(self) -> dict[str, Any]: ...

    def legal(self) -> list[dict[str, Any]]: ...

    def apply(self, action: dict[str, Any]) -> None: ...


# -- rulesets -----------------------------------------------------------------------------------

def builtin_rulesets() -> st.SearchStrategy[Ruleset]:
    """One of the built-in rulesets."""
    return st.sampled_from(builtin_names()).map(load_ruleset)


@st.composite
def random_rulesets(draw: st.DrawFn, max_board: int = 4) -> Ruleset:
    """A built-in ruleset with random valid rule parameters (via with_params); scoring kept."""
    base = draw(builtin_rulesets())
    fits = max([2, *(c.length for c in base.scoring)])  # inherited patterns must fit the board
    board = draw(st.integers(fits, max(fits, max_board)))
    changes: dict[str, Any] = {"board": board}
    for name in ("measurer", "two_cycles", "last_square", "untouched", "end"):
        changes[name] = draw(st.sampled_from(PARAMETER_BY_NAME[name].allowed))
    changes["end_line"] = draw(st.integers(0, board))
    return with_params(base, **changes)


def _toml_value(value: Any) -> str:
    """A value as TOML: booleans, integers, strings (fractions quoted), lists."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return '"' + str(value) + '"'


_FRACTIONS = st.sampled_from(["0", "1", "1/2", "2", "3/2", "20", "-1"])


@st.composite
def scoring_components(draw: st.DrawFn, game: str, board: int) -> dict[str, Any]:
    """One valid scoring component of a family's awards, every field drawn or left to its default."""
    award = draw(st.sampled_from([a for a in AWARDS if AWARD_GAME[a] == game]))
    out: dict[str, Any] = {"award": award}
    if game == "quantum":
        pattern = draw(st.sampled_from(PATTERNS)) if award == "per-pattern" else "line"
        if draw(st.booleans()) or pattern == "square":
            out["pattern"] = pattern
        low = 2 if pattern == "square" else 0
        length = draw(st.sampled_from([0, *range(2, board + 1)] if pattern == "line"
                                      else list(range(low, board + 1))))
        if draw(st.booleans()) or length:
            out["length"] = length
    for name, (kind, _, _) in AWARD_FIELDS[award].items():
        if not draw(st.booleans()):
            continue
        if kind == "fraction":
            out[name] = draw(_FRACTIONS)
        elif kind == "criteria":
            out[name] = draw(st.lists(st.sampled_from(CRITERIA), max_size=2, unique=True))
        elif kind == "ranks":
            out[name] = draw(st.one_of(st.just("harmonic"), st.lists(_FRACTIONS, min_size=1, max_size=3)))
        elif kind == "weights":
            out[name] = draw(st.one_of(st.just("equal"), st.lists(_FRACTIONS, min_size=board ** 2,
                                                                   max_size=board ** 2)))
    return out


@st.composite
def variant_files(draw: st.DrawFn) -> str:
    """The text of a valid variant file: it extends a built-in ruleset (or none), sets any of its
    family's parameters to any allowed value, and keeps the parent's scoring or gives its own:
    the parent's components with some removed and new ones of every award added."""
    parent_name = draw(st.sampled_from([None, *builtin_names(None)]))
    parent = load_ruleset(parent_name) if parent_name else default_ruleset()
    game = parent.game
    lines = ["[variant]", 'name = "generated"'] + ([f'extends = "{parent_name}"'] if parent_name else [])
    own_scoring = draw(st.booleans())
    longest = max([2, *(c.length for c in parent.scoring)]) if not own_scoring else 2
    rules: dict[str, Any] = {}
    board = parent.board
    if draw(st.booleans()):
        board = rules["board"] = draw(st.integers(max(2, longest) if game == "quantum" else 2,
                                                  4 if game == "quantum" else 3))
    for p in PARAMETERS:
        if game not in p.games or p.name in ("game", "board") or not draw(st.booleans()):
            continue
        if p.name == "end_line":
            rules[p.name] = draw(st.integers(0, board))
        elif p.name == "route":
            blocks = board ** 2
            rules[p.name] = draw(st.one_of(st.just("same"), st.lists(
                st.lists(st.integers(0, blocks - 1), min_size=1, max_size=2, unique=True),
                min_size=blocks, max_size=blocks)))
        elif p.type is tuple:
            rules[p.name] = draw(st.lists(st.sampled_from(p.allowed), min_size=1, unique=True))
        else:
            rules[p.name] = draw(st.sampled_from(p.allowed))
    if game == "quantum" and "end_line" not in rules and parent.rules.end_line > board:
        rules["end_line"] = 0
    if rules:
        lines += ["", "[rules]"] + [f"{k} = {_toml_value(v)}" for k, v in rules.items()]
    if own_scoring:
        kept = [c.to_dict() for c in parent.scoring if draw(st.booleans())
                and c.length <= board and all(len(w) == board ** 2 for k, w in c.to_dict().items()
                                              if k == "weights" and isinstance(w, list))]
        added = draw(st.lists(scoring_components(game, board), max_size=3))
        for comp in kept + added:
            lines += ["", "[[scoring]]"] + [f"{k} = {_toml_value(v)}" for k, v in comp.items()]
        if not kept + added:
            lines.insert(0, "scoring = []")  # a top-level key: before the first table
    return "\n".join(lines) + "\n"


def rulesets(max_board: int = 4) -> st.SearchStrategy[Ruleset]:
    """A built-in ruleset, or one with random valid parameters."""
    return st.one_of(builtin_rulesets(), random_rulesets(max_board))


@st.composite
def nested_components(draw: st.DrawFn, board: int) -> tuple[Component, ...]:
    """The scoring of a nested-classical ruleset: one to three components of `scoring_components`,
    each field drawn or left to its default."""
    out = []
    for raw in draw(st.lists(scoring_components(NESTED, board), min_size=1, max_size=3)):
        award = raw["award"]
        settings = []
        for name, (kind, default, _) in AWARD_FIELDS[award].items():
            value = raw.get(name, default)
            if kind == "fraction":
                value = Fraction(value)
            elif value != "equal":
                value = tuple(Fraction(w) for w in value)
            settings.append((name, value))
        out.append(Component(award, "line", 0, tuple(settings)))
    return tuple(out)


@st.composite
def nested_rulesets(draw: st.DrawFn, max_board: int = 5) -> Ruleset:
    """A nested-classical ruleset with random valid parameters: board, route (same, or any blocks
    per position), block and board pattern kinds, full_block, bonus and scoring."""
    n = draw(st.integers(2, max_board))
    blocks = n * n
    kinds = st.lists(st.sampled_from(PATTERN_KINDS), min_size=1, max_size=4, unique=True).map(tuple)
    route = st.one_of(st.just("same"), st.lists(
        st.lists(st.integers(0, blocks - 1), min_size=1, max_size=3, unique=True).map(tuple),
        min_size=blocks, max_size=blocks).map(tuple))
    rs = with_params(load_ruleset("intelligent"), board=n, route=draw(route),
                     block_patterns=draw(kinds), board_patterns=draw(kinds),
                     full_block=draw(st.sampled_from(PARAMETER_BY_NAME["full_block"].allowed)),
                     bonus=draw(st.sampled_from(PARAMETER_BY_NAME["bonus"].allowed)))
    return replace(rs, scoring=draw(nested_components(n)))


# -- states and actions -------------------------------------------------------------------------

@st.composite
def states(draw: st.DrawFn, rulesets: st.SearchStrategy[Ruleset] | None = None,
           max_actions: int = 80) -> State:
    """A state reached from the initial one by legal actions, chosen at random."""
    rs = draw(builtin_rulesets() if rulesets is None else rulesets)
    state = State.initial(rs)
    for _ in range(draw(st.integers(0, max_actions))):
        legal = state.legal_actions()
        if not legal:
            break
        state = state.apply(legal[draw(st.integers(0, len(legal) - 1))])
    return state


def legal_actions(state: State) -> st.SearchStrategy[Action]:
    """A legal action of `state` (the state must have one)."""
    return st.sampled_from(state.legal_actions())


def any_actions(state: State) -> st.SearchStrategy[Action]:
    """A well-formed action with cells near the board: legal or not."""
    cells = st.integers(-1, len(state.classical))
    return st.one_of(st.builds(Place, cells, cells), st.builds(Measure, cells))


def actions(state: State) -> st.SearchStrategy[Action]:
    """A legal action (when there is one) or an arbitrary well-formed one."""
    if state.legal_actions():
        return st.one_of(legal_actions(state), any_actions(state))
    return any_actions(state)


# -- invariants as functions ----------------------------------------------------------------------

def component_of(state: State, cell: int) -> frozenset[int]:
    """The cells of `cell`'s entanglement component (rule entanglement)."""
    return frozenset(state.component[cell])


def cycle_count(state: State) -> int:
    """Independent cycles of the entanglement graph: edges minus vertices plus components."""
    parent = list(range(len(state.classical)))

    def find(c: int) -> int:
        while parent[c] != c:
            parent[c] = parent[parent[c]]
            c = parent[c]
        return c

    cycles = 0
    for a, b in state.edges.values():
        ra, rb = find(a), find(b)
        if ra == rb:
            cycles += 1
        else:
            parent[ra] = rb
    return cycles


def per_pattern_scores(state: State) -> tuple[Fraction, Fraction]:
    """Points the non-negative per-pattern components give on the current classical board."""
    parts = [a for a in compile_game(state.ruleset).awards if isinstance(a, PerPattern) and a.points >= 0]
    cls = state.classical
    xmask = sum(1 << c for c, k in enumerate(cls) if k and k & 1)
    omask = sum(1 << c for c, k in enumerate(cls) if k and not k & 1)
    (x, o), _ = compile_scoring(parts)(cls, xmask, omask)
    return x, o


def check_round_trips(rs: Ruleset, variant: str, acts: tuple[Action, ...], state: State) -> None:
    """The record survives JSON and human notation, the state its position string."""
    record = Record(variant, acts)
    assert record_from_json(record_to_json(record)) == record
    assert from_notation(to_notation(record)) == record
    again = from_position(position(state))
    assert position(again) == position(state)
    assert state_to_json(again, variant) == state_to_json(state, variant)
    assert again.legal_actions() == state.legal_actions()
    assert again.edges == state.edges


def check_collapse(before: State, cell: int, after: State) -> None:
    """Rules collapse-component, collapse-untouched, classical-fixed for one measurement."""
    comp = component_of(before, cell)
    moves = {k for k, (a, _) in before.edges.items() if a in comp}
    placed = {after.classical[c] for c in comp}
    assert all(after.classical[c] for c in comp), "a cell of the component stayed open"
    assert placed == moves and len(placed) == len(comp), "not one mark of the component per cell"
    vanish = before.ruleset.rules.untouched == "vanish"
    for c in range(len(before.classical)):
        if c in comp:
            continue
        assert after.classical[c] == before.classical[c], f"cell {c} outside the component changed"
        assert after.spooky[c] == (() if vanish else before.spooky[c]), f"spooky marks of {c}"


# -- the lockstep state machine -------------------------------------------------------------------

def make_state_machine(reference: Callable[[Ruleset, str], ReferenceGame],
                       rulesets: st.SearchStrategy[Ruleset] | None = None
                       ) -> type[RuleBasedStateMachine]:
    """A state machine comparing the engine with `reference(ruleset, variant_name)` in lockstep."""
    chosen = rulesets if rulesets is not None else builtin_rulesets()

    class EngineVersusReference(RuleBasedStateMachine):
        """Engine and reference play the same actions; they must agree after every step."""

        state: State
        ref: ReferenceGame
        variant: str
        acts: tuple[Action, ...]
        placements: int
        provisional: tuple[Fraction, Fraction]

        @initialize(rs=chosen)
        def start(self, rs: Ruleset) -> None:
            self.variant = rs.canonical
            self.state = State.initial(rs)
            self.ref = reference(rs, self.variant)
            self.acts = ()
            self.placements = 0
            self.provisional = per_pattern_scores(self.state)

        def _advance(self, action: Action, ref_done: bool = False) -> None:
            before = self.state
            self.state = before.apply(action)
            if not ref_done:
                self.ref.apply(action_to_json(action))
            self.acts += (action,)
            after = self.state
            changed = [c for c, k in enumerate(before.classical) if k and after.classical[c] != k]
            assert not changed, f"classical cells changed: {changed}"  # rule classical-fixed
            if isinstance(action, Measure):
                check_collapse(before, action.cell, after)
            else:
                self.placements += 1
                assert self.placements <= compile_game(after.ruleset).length_bound
            now = per_pattern_scores(after)
            assert now[0] >= self.provisional[0] and now[1] >= self.provisional[1]
            self.provisional = now

        @precondition(lambda self: bool(self.state.legal_actions()))
        @rule(data=st.data())
        def play_legal(self, data: st.DataObject) -> None:
            self._advance(data.draw(legal_actions(self.state), label="action"))

        @rule(data=st.data())
        def try_any(self, data: st.DataObject) -> None:
            action = data.draw(any_actions(self.state), label="any action")
            engine_rule = ref_rule = None
            try:
                self.state.apply(action)
            except Exception as e:  # the engine's IllegalAction
                engine_rule = getattr(e, "rule", repr(e))
            try:  # a reference leaves its game unchanged when it rejects an action
                self.ref.apply(action_to_json(action))
            except Exception as e:  # the reference's own error type
                ref_rule = getattr(e, "rule", repr(e))
            assert engine_rule == ref_rule, (action, engine_rule, ref_rule)
            if engine_rule is None:
                self._advance(action, ref_done=True)

        @invariant()
        def agree(self) -> None:
            legal = [action_to_json(a) for a in self.state.legal_actions()]
            assert state_to_json(self.state, self.variant) == self.ref.state()
            assert legal == self.ref.legal()

        @invariant()
        def graph_shape(self) -> None:
            # rules entanglement, cycle-close: a forest, but for the one pending cycle
            assert cycle_count(self.state) == (1 if self.state.phase == "measure" else 0)

        @invariant()
        def round_trips(self) -> None:
            check_round_trips(self.state.ruleset, self.variant, self.acts, self.state)

    return EngineVersusReference
