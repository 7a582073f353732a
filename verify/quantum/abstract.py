"""The component-size abstraction of a ruleset: exhaustive over every board size.

An abstract position keeps the phase, the sizes of the entanglement components of the open cells
and, while a measurement is pending, the size of the component holding the cycle. The rules make
everything that decides which actions are legal, and which abstract position each leads to, a
function of these sizes (given the graph proofs: between measurements the graph on the open cells
is a forest, and a measurement makes its whole component classical):

* place, o open cells: o = 0 ends the game; o = 1 is the forced last-square placement or the end
  (last_square); otherwise a pair of cells in two components of sizes s, t merges them (s·t
  placements), a pair inside one component of size s closes a cycle (s(s-1)/2 placements, less
  the s - 1 live pairs when 2-cycles are forbidden);
* measure: two choices, both making the cycle's component classical; with untouched = vanish
  every other component falls apart into single cells. Under a chance collapse (rule
  collapse-chance) the two choices name a cell and lead to one chance turn, whose outcomes (two, or
  one at p = 1) then collapse the component as a measurement does.

The abstraction ignores the end by a line (end = first-line), so it over-approximates the games of
such rulesets: every concrete game is an abstract path cut short, and a deadlock it finds must
still be confirmed by a concrete game. `simulates` checks the correspondence on engine states.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from fractions import Fraction
from functools import cache

from qttt import Ruleset
from qttt.quantum.engine import Action, State
from qttt.quantum.game import compile_game

PLACE, MEASURE, OVER, CHANCE = "place", "measure", "over", "chance"


@dataclass(frozen=True, order=True)
class Abstract:
    """Phase, sorted sizes of the open components (the pending one excluded), pending size."""

    phase: str
    parts: tuple[int, ...]
    pending: int = 0

    @property
    def open(self) -> int:
        """Number of open cells."""
        return sum(self.parts) + self.pending


@dataclass(frozen=True)
class Params:
    """The ruleset parameters the abstraction depends on: Game fields, as the Game holds them."""

    cells: int
    two_cycles: bool  # rule place-two-cycle
    last_square: str  # rule last-square
    untouched: str  # rule collapse-untouched
    collapse: str  # rule collapse-chance
    p: Fraction  # rule collapse-chance: the probability of the cell named

    @classmethod
    def of(cls, rs: Ruleset) -> Params:
        """The abstraction's view of a ruleset, read from its compiled Game."""
        g = compile_game(rs)
        return cls(**{f.name: getattr(g, f.name) for f in fields(cls)})


def initial(p: Params) -> Abstract:
    """Every cell open and alone."""
    return Abstract(PLACE, (1,) * p.cells)


def settle(p: Params, parts: tuple[int, ...]) -> Abstract:
    """The position after a collapse or forced placement, with no pending cycle (rules end-full,
    last-square; the end by a line is not modelled)."""
    left = sum(parts)
    if left == 0 or (left == 1 and p.last_square == "end"):
        return Abstract(OVER, ())
    return Abstract(PLACE, tuple(sorted(parts)))


def moves(p: Params, a: Abstract) -> Iterator[tuple[int, Abstract]]:
    """The abstract successors of a, each with the number of concrete actions leading to it."""
    if a.phase == MEASURE and p.collapse != "choice":
        yield 2, Abstract(CHANCE, a.parts, a.pending)
        return
    if a.phase in (MEASURE, CHANCE):
        rest = (1,) * sum(a.parts) if p.untouched == "vanish" else a.parts
        yield 2 if a.phase == MEASURE or p.p != 1 else 1, settle(p, rest)
        return
    if a.phase == OVER:
        return
    parts = a.parts
    if sum(parts) == 1:
        yield 1, settle(p, ())
        return
    for i, s in enumerate(parts):
        others = parts[:i] + parts[i + 1:]
        closing = s * (s - 1) // 2 - (0 if p.two_cycles else s - 1)
        if closing:
            yield closing, Abstract(MEASURE, others, s)
        for j in range(i + 1, len(parts)):
            t = parts[j]
            merged = tuple(sorted(others[:j - 1] + others[j:] + (s + t,)))
            yield s * t, Abstract(PLACE, merged)


@dataclass(frozen=True)
class Summary:
    """What exhaustive exploration of the abstraction establishes."""

    positions: int
    deadlocks: tuple[Abstract, ...]
    longest: int
    longest_path: tuple[Abstract, ...]
    games: int


def explore(p: Params) -> Summary:
    """Every abstract position reachable from the start: the ones with no action although not
    over, the longest action sequence (the graph is acyclic: each placement merges components or
    closes a cycle, each measurement or chance outcome removes cells) and the number of complete
    action sequences."""

    @cache
    def longest(a: Abstract) -> tuple[int, tuple[Abstract, ...]]:
        best: tuple[int, tuple[Abstract, ...]] = (0, (a,))
        for _, b in moves(p, a):
            length, path = longest(b)
            if length + 1 > best[0]:
                best = (length + 1, (a, *path))
        return best

    @cache
    def games(a: Abstract) -> int:
        if a.phase == OVER:
            return 1
        return sum(count * games(b) for count, b in moves(p, a))

    seen: set[Abstract] = set()
    stack = [initial(p)]
    dead = []
    while stack:
        a = stack.pop()
        if a in seen:
            continue
        seen.add(a)
        successors = list(moves(p, a))
        if a.phase != OVER and not successors:
            dead.append(a)
        stack.extend(b for _, b in successors)
    length, path = longest(initial(p))
    return Summary(len(seen), tuple(sorted(dead)), length, path, games(initial(p)))


def open_parts(state: State) -> tuple[int, ...]:
    """Sorted sizes of the entanglement components of the open cells."""
    return tuple(sorted(len(c) for c in {tuple(cells) for cells in state.component.values()}))


def nodes_by_depth(p: Params, depth: int) -> list[int]:
    """How many action sequences of each length 1..depth start from the initial position (the
    engine's perft counts, exact while no line can end a game)."""
    layer = {initial(p): 1}
    counts = []
    for _ in range(depth):
        nxt: dict[Abstract, int] = {}
        for a, ways in layer.items():
            for count, b in moves(p, a):
                nxt[b] = nxt.get(b, 0) + ways * count
        counts.append(sum(nxt.values()))
        layer = nxt
    return counts


def abstract_of(state: State) -> Abstract:
    """The abstraction of an engine state (over-ness as the engine says)."""
    if state.over:
        return Abstract(OVER, ())
    if state.pending is None:
        return Abstract(PLACE, open_parts(state))
    held = len(state.component[state.edges[state.pending][0]])
    parts = list(open_parts(state))
    parts.remove(held)
    return Abstract(CHANCE if state.phase == CHANCE else MEASURE, tuple(parts), held)


def simulates(p: Params, state: State, first_line: bool) -> str | None:
    """None when the engine's actions from state match the abstraction's: as many, leading to the
    same abstract positions with the same multiplicities, where a game the engine ends on a line
    (first_line) counts as the position it would otherwise have reached. Otherwise the difference."""
    expected: dict[Abstract, int] = {}
    for count, b in moves(p, abstract_of(state)):
        expected[b] = expected.get(b, 0) + count
    actual: dict[Abstract, int] = {}
    for act in state.legal_actions():
        after = state.apply(act)
        b = abstract_of(after)
        if b.phase == OVER and first_line:
            b = settle(p, open_parts(after))
        actual[b] = actual.get(b, 0) + 1
    if actual != expected:
        return f"{abstract_of(state)}: engine {actual}, abstraction {expected}"
    return None


def realize(rs: Ruleset, path: Sequence[Abstract], seed: int = 0, attempts: int = 20) -> tuple[Action, ...]:
    """Engine actions that follow an abstract path, as far as the engine allows (a line may end
    the game first): the longest of a few random tries."""
    rng = random.Random(seed)
    best: tuple[Action, ...] = ()
    for _ in range(attempts):
        state, acts = State.initial(rs), list[Action]()
        for target in path[1:]:
            options = [a for a in state.legal_actions() if abstract_of(state.apply(a)) == target]
            if not options:
                break
            act = options[rng.randrange(len(options))]
            acts.append(act)
            state = state.apply(act)
        if len(acts) > len(best):
            best = tuple(acts)
        if len(best) == len(path) - 1:
            break
    return best
