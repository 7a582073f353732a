"""Hypothesis strategies for quantum rulesets, states and actions, and a lockstep state machine.

The state machine drives the quantum engine and a reference model (any object with `state()`,
`legal()` and `apply(action_json)` raising an exception with a `.rule` attribute, such as
tests/support/reference.py's RefGame) through the same actions, and checks after every step that
they agree on the v1 state JSON and on the legal actions, and that the engine keeps the
invariants of the common rules. Family-free strategies (variant files): qttt.testing.strategies.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, Protocol

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ..chance import check_outcomes
from ..notation import Record, action_to_json, record_from_json, record_to_json, state_to_json
from ..ruleset import Ruleset, with_params
from ..testing.strategies import exact_numbers
from ..variant import builtin_names, load_ruleset
from ..vocabulary import PARAMETER_BY_NAME
from .engine import Action, Measure, Outcome, Place, State
from .game import compile_game
from .notation import from_notation, from_position, position, to_notation
from .scoring import PerPattern, compile_scoring


class ReferenceGame(Protocol):
    """What the state machine needs of a reference model: the v1 state JSON, the legal actions
    as JSON in the engine's order, and `apply`, which raises an exception with a `.rule`
    attribute (a rule id) for an illegal action and then leaves the game unchanged."""

    def state(self) -> dict[str, Any]: ...

    def legal(self) -> list[dict[str, Any]]: ...

    def apply(self, action: dict[str, Any]) -> None: ...


# -- rulesets -----------------------------------------------------------------------------------

def builtin_rulesets() -> st.SearchStrategy[Ruleset]:
    """One of the built-in quantum rulesets."""
    return st.sampled_from(builtin_names()).map(load_ruleset)


@st.composite
def random_rulesets(draw: st.DrawFn, max_board: int = 4, chance: bool = True) -> Ruleset:
    """A built-in ruleset with random valid rule parameters (via with_params); scoring kept;
    `chance`: a chance collapse may be drawn (rule collapse-chance)."""
    base = draw(builtin_rulesets())
    fits = max([2, *(c.length for c in base.scoring)])  # inherited patterns must fit the board
    board = draw(st.integers(fits, max(fits, max_board)))
    changes: dict[str, Any] = {"board": board}
    for name in ("measurer", "collapse", "two_cycles", "last_square", "untouched", "end"):
        changes[name] = draw(st.sampled_from(PARAMETER_BY_NAME[name].allowed))
    if not chance:
        changes["collapse"] = "choice"
    changes["end_line"] = draw(st.integers(0, board))
    if changes["collapse"] != "choice":  # rule collapse-chance: p, and O names the cell under chance-second
        changes["p"] = draw(exact_numbers(*PARAMETER_BY_NAME["p"].allowed))
        changes["measurer"] = "opponent" if changes["collapse"] == "chance-second" else changes["measurer"]
    changes["draw_second"] = draw(st.sampled_from([Fraction(0), Fraction(0), Fraction(1, 2), Fraction(1, 3)]))
    return with_params(base, **changes)


def rulesets(max_board: int = 4) -> st.SearchStrategy[Ruleset]:
    """A built-in ruleset, or one with random valid parameters."""
    return st.one_of(builtin_rulesets(), random_rulesets(max_board))


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
    return st.one_of(st.builds(Place, cells, cells), st.builds(Measure, cells), st.builds(Outcome, cells))


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


def collapses(action: Action, after: State) -> bool:
    """Whether `action` collapsed a component: a measurement under choice, a chance outcome."""
    return isinstance(action, Outcome) or (isinstance(action, Measure) and after.phase != "chance")


def check_chance_turn(state: State) -> None:
    """Rule collapse-chance: a chance turn (and only one) offers its legal actions as outcomes with
    positive probabilities summing to one."""
    outcomes = state.chance_outcomes()
    assert (state.to_move == "chance") == bool(outcomes)
    if outcomes:
        assert check_outcomes(outcomes) is None
        assert tuple(a for a, _ in outcomes) == state.legal_actions()


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
            if collapses(action, after):
                check_collapse(before, action.cell, after)  # type: ignore[union-attr]
            self.placements += isinstance(action, Place)
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
            assert cycle_count(self.state) == (1 if self.state.phase in ("measure", "chance") else 0)

        @invariant()
        def chance_turns(self) -> None:
            check_chance_turn(self.state)

        @invariant()
        def round_trips(self) -> None:
            check_round_trips(self.state.ruleset, self.variant, self.acts, self.state)

    return EngineVersusReference
