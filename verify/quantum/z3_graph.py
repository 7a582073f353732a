"""Z3 proofs of the entanglement-graph and collapse rules, for any n×n board.

In the style of pysmt's model checking and Programming Z3's bmc: each small function builds one
formula; a `Query` bundles the formulas whose models are exactly the counterexamples to a claim
with a decoder that turns a model into concrete graphs; `prove` answers `Proved`,
`Counterexample` (decoded) or `Unknown`. Every query is existential, so `unsat` proves the claim
for every graph of the given size; `check_premises` shows the premises alone satisfiable, with a
model, so that a broken premise cannot make every claim "proved" (vacuity).

What is proved, for a board of N cells (`obligations(N)`):

* single cycle per move (rules entanglement, cycle-close). For every forest F on the N cells and
  every new edge e = {a, b}, a != b (e may repeat an edge of F): F + e has at most one nonempty
  even subgraph (`single_cycle_query`), so at most one simple cycle; every such subgraph
  contains e (`cycle_through_new_edge_query`); if a and b are joined in F, the joining path
  plus e is one (`joined_closes_cycle_query`), so F + e has exactly one cycle and it contains
  e; if a cut separates a from b, F + e has none (`separated_stays_forest_query`), so it is a
  forest.
* collapse (rule collapse-component), for every component size m = 2..N: the component is a
  tree T on its m cells plus the measured edge k (the cycle-closing move) between a and b, so
  it is connected with exactly one cycle, which passes through k; conversely every such graph
  with k on its cycle is T + k with T = graph - k. Given the measured cell (an end of k):
  at most one assignment of every edge to one of its ends gives every cell exactly one mark
  and k to that cell (`collapse_at_most_one_query`); at least one does: the constructive
  outcome (`collapse_at_least_one_query`, and for m <= 9 also the quantified
  `collapse_exists_query`, which needs no witness); the outcomes of the two ends give a
  different mark to exactly the cells of the cycle (`collapse_outcomes_differ_query`), so they
  differ; forcing from the measured cell (a landed mark sends every other mark of its cell to
  that mark's other cell) reaches every mark of the component (`collapse_forcing_total_query`).
  Totality (every cell of the component ends with exactly one mark, every mark in one of its
  two cells) is the assignment constraint itself, satisfied by the outcome that exists.

Symmetry reductions. The claims are invariant under renaming cells, so proving them for one
labelling of each graph proves them for all. With the default (`rooted`) shapes the simple graph
is labelled breadth-first, tree by tree, starting from a chosen vertex, which becomes cell 0:

* `labelled_forest`: every cell has at most one neighbour with a smaller label. Such a graph is
  a forest (the largest cell of a cycle would have two smaller neighbours on it), and every
  forest can be so labelled starting from any vertex; so an end of the new edge is cell 0.
* `labelled_tree`: every cell but 0 has exactly one smaller neighbour: a spanning tree labelled
  breadth-first from cell 0, taken as the measured cell (or, for the differ query, an end of k).

The unreduced shapes `ranked_forest` / `ranked_tree` (parent pointers with integer ranks, no
assumption on labels) prove the same claims on small sizes (`unreduced_obligations`), which
checks the reductions; `verify.quantum.graphs` checks everything again by enumeration.

Lemmas the decomposition rests on (standard, and re-checked by enumeration): a set of forest
edges in which exactly a and b have odd degree exists iff a and b are joined; a cut separating
a from b exists iff they are not joined; the least set of marks closed under forcing is
contained in every closed set, and a valid outcome is closed.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeAlias, TypeVar

import z3

from .graphs import Multigraph, Pair, all_pairs

W = TypeVar("W")

# Results ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Proved:
    """Z3 found the counterexample constraints unsatisfiable."""

    seconds: float


@dataclass(frozen=True)
class Counterexample(Generic[W]):
    """Z3 found a model; `witness` is that model decoded."""

    witness: W
    seconds: float


@dataclass(frozen=True)
class Unknown:
    """Z3 gave up (timeout or incompleteness)."""

    reason: str
    seconds: float


Result: TypeAlias = Proved | Counterexample[W] | Unknown


@dataclass(frozen=True)
class Query(Generic[W]):
    """A claim and the constraints whose models are exactly its counterexamples, with a decoder.
    The last constraint is the negated conclusion; the others are the premises."""

    claim: str
    constraints: tuple[z3.BoolRef, ...]
    decode: Callable[[z3.ModelRef], W]

    @property
    def premises(self) -> tuple[z3.BoolRef, ...]:
        """The hypotheses of the claim: every constraint but the negated conclusion."""
        return self.constraints[:-1]


@dataclass(frozen=True)
class Premises:
    """The vacuity check of a query: whether its premises alone are satisfiable (`sat`, `unsat`
    or `unknown`), with a model of them shown. A proof from unsatisfiable premises proves nothing."""

    verdict: str
    model: str
    seconds: float


def _check(solver: z3.Solver) -> z3.CheckSatResult:
    """`solver.check()`; Z3 answers Ctrl-C with `unknown (interrupted ...)`, which is never a
    status: it is raised as the KeyboardInterrupt it was."""
    verdict = solver.check()
    if verdict == z3.unknown and any(w in str(solver.reason_unknown()) for w in ("interrupted", "canceled")):
        raise KeyboardInterrupt
    return verdict


def _timed(constraints: tuple[z3.BoolRef, ...], timeout: float) -> tuple[z3.Solver, Any, float]:
    """A solver over `constraints` checked within `timeout` seconds: the solver, its verdict and the
    seconds it took."""
    solver = z3.Solver()
    solver.set("timeout", max(1, int(timeout * 1000)))
    solver.add(*constraints)
    start = time.perf_counter()
    verdict = _check(solver)
    return solver, verdict, time.perf_counter() - start


def check_premises(query: Query[Any], timeout: float = 60.0) -> Premises:
    """Whether the premises of query are satisfiable, with a decoded model when they are."""
    solver, verdict, seconds = _timed(query.premises, timeout)
    if verdict == z3.sat:
        shown = repr(query.decode(solver.model()))
        return Premises("sat", shown if len(shown) <= 300 else shown[:297] + "...", seconds)
    if verdict == z3.unsat:
        return Premises("unsat", "", seconds)
    return Premises("unknown", str(solver.reason_unknown()), seconds)


def claim(statement: str, formula: z3.BoolRef) -> Query[dict[str, str]]:
    """The query proving that formula is valid; a counterexample is the raw model."""

    def decode(model: z3.ModelRef) -> dict[str, str]:
        return {str(d): str(model[d]) for d in model.decls()}

    return Query(statement, (z3.Not(formula),), decode)


def prove(query: Query[W], timeout: float = 60.0) -> Result[W]:
    """Search for a counterexample to query.claim for at most timeout seconds."""
    solver, verdict, seconds = _timed(query.constraints, timeout)
    if verdict == z3.unsat:
        return Proved(seconds)
    if verdict == z3.sat:
        return Counterexample(query.decode(solver.model()), seconds)
    return Unknown(str(solver.reason_unknown()), seconds)


# Symbolic graphs --------------------------------------------------------------------------------


@dataclass(frozen=True)
class SymGraph:
    """A simple graph on cells 0..n-1 (`edge`) plus one extra edge whose two ends are the cells
    with `end` true: the new placement, or the measured move k. The extra edge may be parallel
    to an edge of the simple graph (a 2-cycle)."""

    n: int
    tag: str
    edge: Mapping[Pair, z3.BoolRef]
    end: tuple[z3.BoolRef, ...]


@dataclass(frozen=True)
class SymEdgeSet:
    """A subset of a SymGraph's edges: `member` for the simple edges, `extra` for the extra one."""

    member: Mapping[Pair, z3.BoolRef]
    extra: z3.BoolRef


@dataclass(frozen=True)
class SymAssignment:
    """Where each edge lands: simple edge (u, v), u < v, in v when `high` is true, else in u; the
    extra edge in the cell whose `extra_at` is true."""

    high: Mapping[Pair, z3.BoolRef]
    extra_at: tuple[z3.BoolRef, ...]


@dataclass(frozen=True)
class SymForcing:
    """A partial outcome: the `forced` simple edges land where `landing` says; the extra edge is
    always forced; other edges are still open."""

    forced: Mapping[Pair, z3.BoolRef]
    landing: SymAssignment


@dataclass(frozen=True)
class Shape:
    """Which simple graphs a query ranges over. When `rooted`, every model is labelled
    breadth-first from cell 0, so cell 0 may stand for one chosen vertex (wlog)."""

    name: str
    formula: Callable[[SymGraph], z3.BoolRef]
    rooted: bool


Receive: TypeAlias = Callable[[Sequence[z3.BoolRef]], z3.BoolRef]
"""Given one literal per mark landing in a cell, says whether that cell is acceptable."""


def sym_graph(n: int, tag: str = "g") -> SymGraph:
    """Fresh variables for a graph on n cells."""
    edge = {p: z3.Bool(f"{tag}_e_{p[0]}_{p[1]}") for p in all_pairs(n)}
    return SymGraph(n, tag, edge, tuple(z3.Bool(f"{tag}_end_{v}") for v in range(n)))


def sym_edge_set(g: SymGraph, tag: str) -> SymEdgeSet:
    """Fresh variables for a subset of g's edges."""
    member = {p: z3.Bool(f"{g.tag}_{tag}_{p[0]}_{p[1]}") for p in g.edge}
    return SymEdgeSet(member, z3.Bool(f"{g.tag}_{tag}_extra"))


def sym_assignment(g: SymGraph, tag: str) -> SymAssignment:
    """Fresh variables for a landing cell per edge of g."""
    high = {p: z3.Bool(f"{g.tag}_{tag}_hi_{p[0]}_{p[1]}") for p in g.edge}
    return SymAssignment(high, tuple(z3.Bool(f"{g.tag}_{tag}_k_{v}") for v in range(g.n)))


def sym_forcing(g: SymGraph, tag: str) -> SymForcing:
    """Fresh variables for a partial outcome of g."""
    forced = {p: z3.Bool(f"{g.tag}_{tag}_forced_{p[0]}_{p[1]}") for p in g.edge}
    return SymForcing(forced, sym_assignment(g, tag))


def at_most_one(xs: Sequence[z3.BoolRef]) -> z3.BoolRef:
    """At most one of xs is true."""
    return z3.BoolVal(True) if len(xs) < 2 else z3.PbLe([(x, 1) for x in xs], 1)


def exactly_one(xs: Sequence[z3.BoolRef]) -> z3.BoolRef:
    """Exactly one of xs is true."""
    if not xs:
        return z3.BoolVal(False)
    return xs[0] if len(xs) == 1 else z3.PbEq([(x, 1) for x in xs], 1)


def parity(xs: Iterable[z3.BoolRef]) -> z3.BoolRef:
    """An odd number of xs is true."""
    return functools.reduce(z3.Xor, xs, z3.BoolVal(False))


# Shapes of the simple graph ---------------------------------------------------------------------


def smaller_neighbours(g: SymGraph, v: int) -> list[z3.BoolRef]:
    """For each u < v, whether u and v are adjacent."""
    return [g.edge[(u, v)] for u in range(v)]


def labelled_forest(g: SymGraph) -> z3.BoolRef:
    """Every cell has at most one neighbour with a smaller label."""
    return z3.And(*[at_most_one(smaller_neighbours(g, v)) for v in range(g.n)])


def labelled_tree(g: SymGraph) -> z3.BoolRef:
    """Every cell but 0 has exactly one neighbour with a smaller label: a spanning tree."""
    return z3.And(*[exactly_one(smaller_neighbours(g, v)) for v in range(1, g.n)])


def ranked_forest(g: SymGraph) -> z3.BoolRef:
    """Each edge names one end the child of the other, each cell is a child at most once, and a
    child's integer rank exceeds its parent's. Sound (round a cycle every cell would be a child
    once, so ranks would rise all the way round) and complete (root each tree, rank = depth)."""
    rank = [z3.Int(f"{g.tag}_rank_{v}") for v in range(g.n)]
    low_child = {p: z3.Bool(f"{g.tag}_lowchild_{p[0]}_{p[1]}") for p in g.edge}
    parts = []
    child: list[list[z3.BoolRef]] = [[] for _ in range(g.n)]
    for (u, v), present in g.edge.items():
        down, up = z3.And(present, low_child[(u, v)]), z3.And(present, z3.Not(low_child[(u, v)]))
        parts += [z3.Implies(down, rank[u] > rank[v]), z3.Implies(up, rank[v] > rank[u])]
        child[u].append(down)
        child[v].append(up)
    return z3.And(*parts, *[at_most_one(c) for c in child])


def ranked_tree(g: SymGraph) -> z3.BoolRef:
    """A ranked forest with n - 1 edges: a spanning tree."""
    return z3.And(ranked_forest(g), z3.PbEq([(x, 1) for x in g.edge.values()], g.n - 1))


def any_graph(g: SymGraph) -> z3.BoolRef:
    """No constraint: every simple graph (a deliberately wrong forest, for tests)."""
    return z3.BoolVal(True)


LABELLED_FOREST = Shape("labelled forest", labelled_forest, rooted=True)
LABELLED_TREE = Shape("labelled tree", labelled_tree, rooted=True)
RANKED_FOREST = Shape("ranked forest", ranked_forest, rooted=False)
RANKED_TREE = Shape("ranked tree", ranked_tree, rooted=False)


def extra_edge(g: SymGraph) -> z3.BoolRef:
    """The extra edge has two distinct ends."""
    return z3.PbEq([(x, 1) for x in g.end], 2)


def pin(g: SymGraph, edges: Iterable[Pair], extra: Pair | None = None) -> z3.BoolRef:
    """Fix g's simple edges (and the ends of the extra edge, when given)."""
    wanted = {(min(p), max(p)) for p in edges}
    parts = [x if p in wanted else z3.Not(x) for p, x in g.edge.items()]
    if extra is not None:
        parts += [x if v in extra else z3.Not(x) for v, x in enumerate(g.end)]
    return z3.And(*parts)


def shaped(g: SymGraph, shape: Shape) -> list[z3.BoolRef]:
    """g has the shape and an extra edge, which (wlog, when rooted) has an end in cell 0."""
    return [shape.formula(g), extra_edge(g), *([g.end[0]] if shape.rooted else [])]


# Edge sets: cycles, paths, cuts -----------------------------------------------------------------


def inside(s: SymEdgeSet, g: SymGraph) -> z3.BoolRef:
    """s only uses edges present in g."""
    return z3.And(*[z3.Implies(x, g.edge[p]) for p, x in s.member.items()])


def degree_terms(s: SymEdgeSet, g: SymGraph, v: int) -> list[z3.BoolRef]:
    """One literal per edge of s at cell v."""
    return [x for p, x in s.member.items() if v in p] + [z3.And(s.extra, g.end[v])]


def even(s: SymEdgeSet, g: SymGraph) -> z3.BoolRef:
    """Every cell has even degree in s."""
    return z3.And(*[z3.Not(parity(degree_terms(s, g, v))) for v in range(g.n)])


def nonempty(s: SymEdgeSet) -> z3.BoolRef:
    """s has an edge."""
    return z3.Or(s.extra, *s.member.values())


def different(s: SymEdgeSet, t: SymEdgeSet) -> z3.BoolRef:
    """s and t differ in some edge."""
    return z3.Or(s.extra != t.extra, *[x != t.member[p] for p, x in s.member.items()])


def cycle(s: SymEdgeSet, g: SymGraph) -> z3.BoolRef:
    """s is a nonempty even subgraph of g. Every such subgraph is an edge-disjoint union of simple
    cycles, so a graph has at most one simple cycle iff it has at most one such subgraph."""
    return z3.And(inside(s, g), even(s, g), nonempty(s))


def on_cycle(s: SymEdgeSet, g: SymGraph, v: int) -> z3.BoolRef:
    """Some edge of s touches cell v."""
    return z3.Or(*degree_terms(s, g, v))


def path_between_ends(s: SymEdgeSet, g: SymGraph) -> z3.BoolRef:
    """s is a set of simple edges of g in which exactly the ends of the extra edge have odd
    degree: such a set exists iff the ends are joined in g (a path is one; conversely the
    component of one end in s holds an even number of odd cells, so also the other end)."""
    odd = [parity(x for p, x in s.member.items() if v in p) == g.end[v] for v in range(g.n)]
    return z3.And(inside(s, g), z3.Not(s.extra), *odd)


def cut_between_ends(side: Sequence[z3.BoolRef], g: SymGraph) -> z3.BoolRef:
    """A side per cell, the ends of the extra edge on different sides, no simple edge across:
    such a cut exists iff the ends are not joined in g (one side: the component of one end)."""
    apart = [z3.Implies(z3.And(g.end[u], g.end[v]), side[u] != side[v]) for u, v in g.edge]
    return z3.And(*apart, *[z3.Implies(x, side[u] == side[v]) for (u, v), x in g.edge.items()])


# Assignments (collapse outcomes) ----------------------------------------------------------------


def lands_at(y: SymAssignment, g: SymGraph, v: int) -> list[z3.BoolRef]:
    """One literal per edge of g, true when that edge is present and lands in cell v under y."""
    low = [z3.And(x, z3.Not(y.high[(u, w)])) for (u, w), x in g.edge.items() if u == v]
    high = [z3.And(x, y.high[(u, w)]) for (u, w), x in g.edge.items() if w == v]
    return [*low, *high, y.extra_at[v]]


def extra_on_an_end(y: SymAssignment, g: SymGraph) -> z3.BoolRef:
    """The extra edge lands in exactly one cell, one of its ends."""
    return z3.And(exactly_one(y.extra_at), *[z3.Implies(x, g.end[v]) for v, x in enumerate(y.extra_at)])


def one_mark_each(y: SymAssignment, g: SymGraph, receive: Receive = exactly_one) -> z3.BoolRef:
    """The collapse rule: every edge lands in one of its ends and every cell receives exactly one
    mark (or whatever `receive` accepts)."""
    return z3.And(extra_on_an_end(y, g), *[receive(lands_at(y, g, v)) for v in range(g.n)])


def same_outcome(y: SymAssignment, z: SymAssignment, g: SymGraph) -> z3.BoolRef:
    """y and z send every present edge to the same cell."""
    simple = [z3.Implies(x, y.high[p] == z.high[p]) for p, x in g.edge.items()]
    return z3.And(*simple, *[a == b for a, b in zip(y.extra_at, z.extra_at, strict=True)])


def same_mark_at(y: SymAssignment, z: SymAssignment, g: SymGraph, v: int) -> z3.BoolRef:
    """Some edge lands in cell v under both y and z."""
    return z3.Or(*[z3.And(a, b) for a, b in zip(lands_at(y, g, v), lands_at(z, g, v), strict=True)])


def children_first(y: SymAssignment, g: SymGraph) -> z3.BoolRef:
    """The constructive outcome for a tree labelled breadth-first from the measured cell 0: the
    measured edge lands in 0, every tree edge in its larger (child) end."""
    return z3.And(y.extra_at[0], *[z3.Not(x) for x in y.extra_at[1:]], *y.high.values())


def forcing_closed(f: SymForcing, g: SymGraph, cell: int) -> z3.BoolRef:
    """The extra edge lands in cell, and whenever a forced edge lands in a cell every other edge
    there is forced into its other end (so no two land in one cell)."""
    y = f.landing
    parts = [y.extra_at[cell], *[z3.Not(x) for v, x in enumerate(y.extra_at) if v != cell]]
    for v in range(g.n):
        items = []  # (edge at v, forced edge lands in v, forced elsewhere)
        for (u, w), x in g.edge.items():
            if v in (u, w):
                here = y.high[(u, w)] if w == v else z3.Not(y.high[(u, w)])
                items.append((x, z3.And(x, f.forced[(u, w)], here), z3.And(f.forced[(u, w)], z3.Not(here))))
        items.append((g.end[v], y.extra_at[v], z3.Not(y.extra_at[v])))
        hits = [hit for _, hit, _ in items]
        parts.append(at_most_one(hits))
        some_hit = z3.Or(*hits)
        parts += [z3.Implies(z3.And(some_hit, at_v, z3.Not(hit)), away) for at_v, hit, away in items]
    return z3.And(*parts)


# Decoded counterexamples ------------------------------------------------------------------------


@dataclass(frozen=True)
class GraphWitness:
    """A concrete simple graph plus extra edge (the last of graph.edges) and the edge sets the
    query named, as sets of edge indices."""

    graph: Multigraph
    edge_sets: tuple[frozenset[int], ...]


@dataclass(frozen=True)
class CollapseWitness:
    """A concrete tree plus measured edge k (the last of graph.edges) and the outcomes the query
    named: the landing cell per edge index, None where an edge is open."""

    graph: Multigraph
    outcomes: tuple[tuple[int | None, ...], ...]


def _true(model: z3.ModelRef, x: z3.BoolRef) -> bool:
    return bool(z3.is_true(model.eval(x, model_completion=True)))


def decode_graph(model: z3.ModelRef, g: SymGraph) -> Multigraph:
    """The concrete graph: present simple edges in order, then the extra edge."""
    simple = tuple(p for p, x in g.edge.items() if _true(model, x))
    ends = [v for v, x in enumerate(g.end) if _true(model, x)]
    return Multigraph(g.n, (*simple, (ends[0], ends[-1])))


def decode_edge_set(model: z3.ModelRef, g: SymGraph, s: SymEdgeSet) -> frozenset[int]:
    """The indices, in decode_graph's order, of the edges in s."""
    simple = [p for p, x in g.edge.items() if _true(model, x)]
    chosen = {i for i, p in enumerate(simple) if _true(model, s.member[p])}
    return frozenset(chosen | ({len(simple)} if _true(model, s.extra) else set()))


def decode_outcome(model: z3.ModelRef, g: SymGraph, y: SymAssignment,
                   forced: Mapping[Pair, z3.BoolRef] | None = None) -> tuple[int | None, ...]:
    """The landing cell per edge index, in decode_graph's order; None for an open edge."""
    cells: list[int | None] = []
    for (u, v), x in g.edge.items():
        if _true(model, x):
            if forced is not None and not _true(model, forced[(u, v)]):
                cells.append(None)
            else:
                cells.append(v if _true(model, y.high[(u, v)]) else u)
    at = [v for v, x in enumerate(y.extra_at) if _true(model, x)]
    return (*cells, at[0] if len(at) == 1 else None)


def graph_query(text: str, g: SymGraph, sets: Sequence[SymEdgeSet],
                constraints: Sequence[z3.BoolRef]) -> Query[GraphWitness]:
    """A query whose counterexample is g with the given edge sets."""

    def decode(model: z3.ModelRef) -> GraphWitness:
        return GraphWitness(decode_graph(model, g), tuple(decode_edge_set(model, g, s) for s in sets))

    return Query(text, tuple(constraints), decode)


def collapse_query(text: str, g: SymGraph, ys: Sequence[SymAssignment], constraints: Sequence[z3.BoolRef],
                   forced: Mapping[Pair, z3.BoolRef] | None = None) -> Query[CollapseWitness]:
    """A query whose counterexample is g with the given outcomes."""

    def decode(model: z3.ModelRef) -> CollapseWitness:
        return CollapseWitness(decode_graph(model, g), tuple(decode_outcome(model, g, y, forced) for y in ys))

    return Query(text, tuple(constraints), decode)


# Queries: one placement on the entanglement graph (rules entanglement, cycle-close) --------------


def single_cycle_query(n: int, shape: Shape = LABELLED_FOREST) -> Query[GraphWitness]:
    """Counterexample: a forest on n cells plus a new edge with two different cycles."""
    g = sym_graph(n)
    c1, c2 = sym_edge_set(g, "c1"), sym_edge_set(g, "c2")
    return graph_query(f"a forest on {n} cells plus an edge has at most one cycle", g, (c1, c2),
                       [*shaped(g, shape), cycle(c1, g), cycle(c2, g), different(c1, c2)])


def cycle_through_new_edge_query(n: int, shape: Shape = LABELLED_FOREST) -> Query[GraphWitness]:
    """Counterexample: a forest plus a new edge with a cycle that avoids the new edge."""
    g = sym_graph(n)
    c = sym_edge_set(g, "c")
    return graph_query(f"every cycle of a forest on {n} cells plus an edge contains that edge", g, (c,),
                       [*shaped(g, shape), cycle(c, g), z3.Not(c.extra)])


def joined_closes_cycle_query(n: int, shape: Shape = LABELLED_FOREST) -> Query[GraphWitness]:
    """Counterexample: a path joining the new edge's ends that, with the new edge, is no cycle."""
    g = sym_graph(n)
    p = sym_edge_set(g, "p")
    closed = SymEdgeSet(p.member, z3.BoolVal(True))
    return graph_query(f"on {n} cells, a path joining the ends plus the edge is a cycle", g, (p,),
                       [*shaped(g, shape), path_between_ends(p, g), z3.Not(cycle(closed, g))])


def separated_stays_forest_query(n: int, shape: Shape = LABELLED_FOREST) -> Query[GraphWitness]:
    """Counterexample: a cut separates the new edge's ends, yet forest + edge has a cycle."""
    g = sym_graph(n)
    c = sym_edge_set(g, "c")
    side = [z3.Bool(f"{g.tag}_side_{v}") for v in range(n)]
    return graph_query(f"on {n} cells, an edge between two trees closes no cycle", g, (c,),
                       [*shaped(g, shape), cut_between_ends(side, g), cycle(c, g)])


# Queries: the collapse of one component of m cells (rule collapse-component) --------------------


def collapse_at_most_one_query(m: int, shape: Shape = LABELLED_TREE,
                               receive: Receive = exactly_one) -> Query[CollapseWitness]:
    """Counterexample: two different valid outcomes with the measured edge in the same cell
    (cell 0 when rooted, either end otherwise)."""
    g = sym_graph(m, "k")
    y, z = sym_assignment(g, "y"), sym_assignment(g, "z")
    parts = [*shaped(g, shape), *([y.extra_at[0]] if shape.rooted else []),
             *[a == b for a, b in zip(y.extra_at, z.extra_at, strict=True)],
             one_mark_each(y, g, receive), one_mark_each(z, g, receive), z3.Not(same_outcome(y, z, g))]
    return collapse_query(f"component of {m} cells: at most one outcome per measured cell", g, (y, z), parts)


def collapse_at_least_one_query(m: int, receive: Receive = exactly_one,
                                witness: Callable[[SymAssignment, SymGraph], z3.BoolRef] = children_first,
                                ) -> Query[CollapseWitness]:
    """Counterexample: a component where the constructive outcome for measured cell 0 (tree
    labelled breadth-first from it) breaks the collapse rule."""
    g = sym_graph(m, "k")
    y = sym_assignment(g, "y")
    parts = [*shaped(g, LABELLED_TREE), witness(y, g), z3.Not(one_mark_each(y, g, receive))]
    return collapse_query(f"component of {m} cells: the constructive outcome is valid", g, (y,), parts)


def collapse_exists_query(m: int, shape: Shape = LABELLED_TREE,
                          receive: Receive = exactly_one) -> Query[CollapseWitness]:
    """Counterexample: a component and measured cell for which no assignment is valid, as a
    quantified query (the graph exists, every assignment fails); practical for m <= 9."""
    g = sym_graph(m, "k")
    y = sym_assignment(g, "y")
    cell = tuple(z3.Bool(f"{g.tag}_cell_{v}") for v in range(m))
    chosen = SymAssignment({}, cell)
    valid = z3.And(one_mark_each(y, g, receive), *[a == b for a, b in zip(y.extra_at, cell, strict=True)])
    parts = [*shaped(g, shape), cell[0] if shape.rooted else z3.BoolVal(True), extra_on_an_end(chosen, g),
             z3.ForAll([*y.high.values(), *y.extra_at], z3.Not(valid))]

    def decode(model: z3.ModelRef) -> CollapseWitness:
        graph = decode_graph(model, g)
        at = [v for v, x in enumerate(cell) if _true(model, x)]
        return CollapseWitness(graph, ((*(None for _ in graph.edges[1:]), at[0]),))

    return Query(f"component of {m} cells: some outcome per measured cell (quantified)", tuple(parts), decode)


def collapse_outcomes_differ_query(m: int, shape: Shape = LABELLED_TREE,
                                   receive: Receive = exactly_one) -> Query[CollapseWitness]:
    """Counterexample: valid outcomes y, z for the two ends of the measured edge and a cycle whose
    cells are not exactly those where y and z give different marks. When rooted, y is the
    outcome for cell 0, which by the two queries above is the constructive one."""
    g = sym_graph(m, "k")
    y, z = sym_assignment(g, "y"), sym_assignment(g, "z")
    c = sym_edge_set(g, "c")
    first = children_first(y, g) if shape.rooted else one_mark_each(y, g, receive)
    moved = [z3.Not(same_mark_at(y, z, g, v)) for v in range(m)]
    parts = [*shaped(g, shape), first, one_mark_each(z, g, receive),
             z3.Or(*[a != b for a, b in zip(y.extra_at, z.extra_at, strict=True)]),
             cycle(c, g), z3.Or(*[on_cycle(c, g, v) != moved[v] for v in range(m)])]
    return collapse_query(f"component of {m} cells: the two outcomes differ exactly on the cycle",
                          g, (y, z), parts)


def collapse_forcing_total_query(m: int, closed: Callable[[SymForcing, SymGraph, int], z3.BoolRef]
                                 = forcing_closed) -> Query[CollapseWitness]:
    """Counterexample: a set of landings closed under forcing from measured cell 0 that leaves a
    mark open. None exists, so the least one (what forcing by hand computes) is total; a valid
    outcome is closed, so forcing never contradicts itself and ends in the unique outcome."""
    g = sym_graph(m, "k")
    f = sym_forcing(g, "f")
    parts = [*shaped(g, LABELLED_TREE), closed(f, g, 0),
             z3.Or(*[z3.And(x, z3.Not(f.forced[p])) for p, x in g.edge.items()])]
    return collapse_query(f"component of {m} cells: forcing from the measured cell reaches every mark",
                          g, (f.landing,), parts, forced=f.forced)


# Obligations ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Obligation:
    """One query in the proof of a catalogue property, for graphs of `size` cells."""

    property: str
    name: str
    size: int
    build: Callable[[], Query[Any]]


def obligations(cells: int, quantified_up_to: int = 9) -> list[Obligation]:
    """Every query proving the graph and collapse properties for a board of `cells` cells: the
    one-placement queries on all cells, the collapse queries per component size 2..cells, the
    quantified existence query for sizes up to quantified_up_to."""
    one_move = (("at-most-one-cycle", single_cycle_query),
                ("cycle-through-new-edge", cycle_through_new_edge_query),
                ("joined-closes-cycle", joined_closes_cycle_query),
                ("separated-stays-forest", separated_stays_forest_query))
    found = [Obligation("single-cycle-per-move", name, cells, functools.partial(build, cells))
             for name, build in one_move]
    collapse: tuple[tuple[str, str, Callable[[int], Query[Any]]], ...] = (
        ("collapse-uniqueness", "at-most-one-outcome", collapse_at_most_one_query),
        ("collapse-uniqueness", "at-least-one-outcome", collapse_at_least_one_query),
        ("collapse-uniqueness", "outcomes-differ-on-cycle", collapse_outcomes_differ_query),
        ("collapse-totality", "forcing-reaches-every-mark", collapse_forcing_total_query),
    )
    for m in range(2, cells + 1):
        found += [Obligation(prop, name, m, functools.partial(build, m)) for prop, name, build in collapse]
        if m <= quantified_up_to:
            found.append(Obligation("collapse-uniqueness", "some-outcome-quantified", m,
                                    functools.partial(collapse_exists_query, m)))
    return found


def unreduced_obligations(up_to: int = 6) -> list[Obligation]:
    """The same claims without symmetry reduction (ranked shapes, any labels, either measured
    cell) for sizes 2..up_to: a check on the reductions."""
    found = []
    for n in range(2, up_to + 1):
        for prop, name, build in (
            ("single-cycle-per-move", "at-most-one-cycle", single_cycle_query),
            ("single-cycle-per-move", "cycle-through-new-edge", cycle_through_new_edge_query),
            ("single-cycle-per-move", "joined-closes-cycle", joined_closes_cycle_query),
            ("single-cycle-per-move", "separated-stays-forest", separated_stays_forest_query),
        ):
            found.append(Obligation(prop, f"{name}-unreduced", n, functools.partial(build, n, RANKED_FOREST)))
        for prop, name, tree_build in (
            ("collapse-uniqueness", "at-most-one-outcome", collapse_at_most_one_query),
            ("collapse-uniqueness", "some-outcome-quantified", collapse_exists_query),
            ("collapse-uniqueness", "outcomes-differ-on-cycle", collapse_outcomes_differ_query),
        ):
            build_ranked = functools.partial(tree_build, n, RANKED_TREE)
            found.append(Obligation(prop, f"{name}-unreduced", n, build_ranked))
    return found


@dataclass(frozen=True)
class Discharged:
    """An obligation with its result, its vacuity check and the seconds spent on both."""

    obligation: Obligation
    result: Result[Any]
    seconds: float
    premises: Premises

    @property
    def status(self) -> str:
        """proved (from satisfiable premises), violated (a counterexample) or unknown (Z3 gave up,
        or the premises are not shown satisfiable, so a proof could be vacuous)."""
        if isinstance(self.result, Counterexample):
            return "violated"
        if isinstance(self.result, Proved) and self.premises.verdict == "sat":
            return "proved"
        return "unknown"


def discharge(todo: Iterable[Obligation], timeout: float = 60.0,
              progress: Callable[[Discharged], None] | None = None) -> list[Discharged]:
    """Prove each obligation in turn; `progress` is told of each as it is done."""
    done = []
    for ob in todo:
        start = time.perf_counter()
        query = ob.build()
        result: Result[Any] = prove(query, timeout)
        item = Discharged(ob, result, time.perf_counter() - start, check_premises(query, timeout))
        if progress is not None:
            progress(item)
        done.append(item)
    return done
