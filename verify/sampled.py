"""Random games through the engine, checked against the proved properties at every step.

This ties the Z3 proofs (about graphs) and the abstraction (about component sizes) to the engine:
on every visited position the live entanglement graph has the proved shape, every measurement
gives the unique outcome the naive enumeration finds, and the engine's actions match the
abstraction's. A failure keeps the actions that reach the offending position.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from qttt import Action, Measure, Ruleset, State

from .abstract import Params, simulates
from .graphs import Multigraph, assignments, is_forest, propagate

SHAPE, UNIQUE, TOTAL, DEADLOCK, LENGTH, SCORES, ABSTRACT = (
    "single-cycle-per-move", "collapse-uniqueness", "collapse-totality", "no-deadlock", "termination",
    "scores-well-defined", "abstraction")


@dataclass
class Sample:
    """What the sampled games showed: counts, and the first failure per property with the actions
    reaching it."""

    games: int = 0
    positions: int = 0
    measurements: int = 0
    simulated: int = 0
    longest: int = 0
    longest_game: tuple[Action, ...] = ()
    failures: dict[str, tuple[str, tuple[Action, ...]]] = field(default_factory=dict)

    def fail(self, prop: str, message: str, actions: Sequence[Action]) -> None:
        """Keep the first failure of a property."""
        self.failures.setdefault(prop, (message, tuple(actions)))


def core(cells: set[int], edges: Sequence[tuple[int, int]]) -> set[int]:
    """The cells left after repeatedly removing cells of degree at most one (the cycle's cells,
    for a connected graph with one cycle)."""
    left, live = set(cells), list(edges)
    while True:
        degree = {c: 0 for c in left}
        for a, b in live:
            degree[a] += 1
            degree[b] += 1
        leaves = {c for c, d in degree.items() if d <= 1}
        if not leaves:
            return left
        left -= leaves
        live = [(a, b) for a, b in live if a in left and b in left]


def check_shape(state: State) -> str | None:
    """Between measurements the live graph is a simple forest; while one is pending, the pending
    move's component has as many moves as cells, its core is the engine's cycle, and every other
    component is a tree."""
    edges = state.edges
    if state.pending is None:
        return None if is_forest(len(state.classical), list(edges.values())) else f"not a forest: {edges}"
    comp = set(state.component[edges[state.pending][0]])
    inside = [e for e in edges.values() if e[0] in comp]
    outside = [e for e in edges.values() if e[0] not in comp]
    if len(inside) != len(comp):
        return f"pending component {sorted(comp)} has {len(inside)} moves"
    if not is_forest(len(state.classical), outside):
        return f"other components are not trees: {outside}"
    if state.cycle is None or core(comp, inside) != set(state.cycle):
        return f"cycle {state.cycle}, but the component's core is {sorted(core(comp, inside))}"
    return None


def check_measurements(state: State, vanish: bool) -> tuple[str | None, str | None]:
    """(uniqueness failure, totality failure) of the two measurements of the pending cycle."""
    pending = state.pending
    assert pending is not None
    edges = state.edges
    comp = sorted(state.component[edges[pending][0]])
    moves = sorted(k for k, e in edges.items() if e[0] in comp)
    index = {c: i for i, c in enumerate(comp)}
    graph = Multigraph(len(comp), tuple((index[edges[k][0]], index[edges[k][1]]) for k in moves))
    outcomes = []
    for cell in edges[pending]:
        after = state.apply(Measure(cell))
        landed = {after.classical[c]: c for c in comp}
        if sorted(landed) != moves or any(landed[k] not in edges[k] for k in moves):
            return None, f"measuring {cell}: component cells hold {[after.classical[c] for c in comp]}"
        for c in range(len(state.classical)):
            if c in comp:
                continue
            if after.classical[c] != state.classical[c]:
                return None, f"measuring {cell}: cell {c} outside the component changed"
            if after.spooky[c] != (() if vanish else state.spooky[c]):
                return None, f"measuring {cell}: spooky marks of cell {c} outside the component"
        engine = tuple(index[landed[k]] for k in moves)
        k = moves.index(pending)
        if len(moves) <= 12:
            found = assignments(graph, k, index[cell])
            if found != [engine]:
                return f"measuring {cell}: engine {engine}, enumeration {found}", None
        elif propagate(graph, k, index[cell]) != engine:
            return f"measuring {cell}: engine {engine} is not the forced outcome", None
        outcomes.append({c: after.classical[c] for c in comp})
    moved = {c for c in comp if outcomes[0][c] != outcomes[1][c]}
    if state.cycle is None or moved != set(state.cycle):
        return f"the two outcomes differ at {sorted(moved)}, the cycle is {state.cycle}", None
    return None, None


def sample(rs: Ruleset, games: int, seed: int = 0, simulate: int = 200, bound: int | None = None) -> Sample:
    """Play `games` uniformly random games, checking every position (and the abstraction on the
    first `simulate` positions)."""
    rng = random.Random(seed)
    out = Sample()
    params = Params.of(rs)
    first_line = rs.rules.end == "first-line"
    vanish = rs.rules.untouched == "vanish"
    for _ in range(games):
        state, actions = State.initial(rs), list[Action]()
        out.games += 1
        while not state.over:
            out.positions += 1
            legal = state.legal_actions()
            problem = check_shape(state)
            if problem:
                out.fail(SHAPE, problem, actions)
            if out.simulated < simulate:
                out.simulated += 1
                problem = simulates(params, state, first_line)
                if problem:
                    out.fail(ABSTRACT, problem, actions)
            if state.pending is not None:
                out.measurements += 1
                unique, total = check_measurements(state, vanish)
                if unique:
                    out.fail(UNIQUE, unique, actions)
                if total:
                    out.fail(TOTAL, total, actions)
            if not legal:
                out.fail(DEADLOCK, f"open cells {list(state.open_cells)}, live moves {state.edges}: "
                         f"{state.to_move} has no legal action and the game is not over", actions)
                break
            act = legal[rng.randrange(len(legal))]
            actions.append(act)
            state = state.apply(act)
        if state.over:
            scores = state.scores
            if set(scores) != {"x", "o"} or not all(isinstance(v, Fraction) for v in scores.values()):
                out.fail(SCORES, f"scores {scores}", actions)
        if bound is not None and len(actions) > bound:
            out.fail(LENGTH, f"{len(actions)} actions, more than the bound {bound}", actions)
        if len(actions) > out.longest:
            out.longest, out.longest_game = len(actions), tuple(actions)
    return out
