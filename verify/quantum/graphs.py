"""Small multigraphs and naive enumeration: the independent cross-check of the Z3 graph proofs.

Nothing here imports Z3 or the engine. Every function works by brute force on labelled graphs
(all subsets, all assignments, all edge multisets), so that a mis-encoded Z3 formula and this
module are unlikely to share a mistake.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

Pair = tuple[int, int]
Accept = Callable[[Sequence[int]], bool]
"""Decides whether per-cell mark counts are acceptable (the rule is: exactly one each)."""


@dataclass(frozen=True)
class Multigraph:
    """Vertices 0..vertices-1 and a list of edges; an edge is named by its index, pairs may repeat."""

    vertices: int
    edges: tuple[Pair, ...]

    def incident(self, v: int) -> list[int]:
        """Indices of the edges that touch vertex v."""
        return [i for i, (a, b) in enumerate(self.edges) if v in (a, b)]


def all_pairs(n: int) -> list[Pair]:
    """The pairs (i, j), i < j, of n vertices in lexicographic order."""
    return list(itertools.combinations(range(n), 2))


def other_end(edge: Pair, v: int) -> int:
    """The endpoint of edge that is not v (v itself for a loop)."""
    return edge[1] if edge[0] == v else edge[0]


def components(vertices: int, edges: Sequence[Pair]) -> list[int]:
    """A component label per vertex (the smallest vertex of its component)."""
    label = list(range(vertices))

    def find(v: int) -> int:
        while label[v] != v:
            v = label[v]
        return v

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            label[max(ra, rb)] = min(ra, rb)
    return [find(v) for v in range(vertices)]


def connected(vertices: int, edges: Sequence[Pair], a: int, b: int) -> bool:
    """Whether a path joins a and b, by breadth-first search."""
    seen, frontier = {a}, [a]
    while frontier:
        v = frontier.pop()
        for x, y in edges:
            for u, w in ((x, y), (y, x)):
                if u == v and w not in seen:
                    seen.add(w)
                    frontier.append(w)
    return b in seen


def is_forest(vertices: int, edges: Sequence[Pair]) -> bool:
    """No loop and no cycle (a repeated pair is one): each edge joins two components, so there are
    exactly vertices − edges components."""
    if any(a == b for a, b in edges):
        return False
    return len(set(components(vertices, edges))) == vertices - len(edges)


def simple_cycles(graph: Multigraph) -> list[frozenset[int]]:
    """Every simple cycle, as a set of edge indices: a nonempty edge subset that is connected and
    gives each vertex it touches exactly two edges (two parallel edges form a 2-cycle).

    Brute force over all edge subsets, with an incidence-parity filter in front of the degree and
    connectivity check."""
    m = len(graph.edges)
    incidence = [(1 << a) ^ (1 << b) for a, b in graph.edges]
    parity = [0] * (1 << m)
    found: list[frozenset[int]] = []
    for mask in range(1, 1 << m):
        low = (mask & -mask).bit_length() - 1
        parity[mask] = parity[mask & (mask - 1)] ^ incidence[low]
        if parity[mask]:
            continue
        chosen = [i for i in range(m) if mask >> i & 1]
        degree = [0] * graph.vertices
        for i in chosen:
            a, b = graph.edges[i]
            degree[a] += 1
            degree[b] += 1
        if any(d not in (0, 2) for d in degree):
            continue
        touched = [v for v in range(graph.vertices) if degree[v]]
        sub = [graph.edges[i] for i in chosen]
        if all(connected(graph.vertices, sub, touched[0], v) for v in touched[1:]):
            found.append(frozenset(chosen))
    return found


def cycle_cells(graph: Multigraph, cycle: frozenset[int]) -> frozenset[int]:
    """The vertices a set of edges touches."""
    return frozenset(v for i in cycle for v in graph.edges[i])


def forests(vertices: int) -> Iterator[tuple[Pair, ...]]:
    """Every labelled forest (simple graph without cycles) on the given vertices, each once."""
    pairs = all_pairs(vertices)

    def extend(index: int, chosen: tuple[Pair, ...]) -> Iterator[tuple[Pair, ...]]:
        if index == len(pairs):
            yield chosen
            return
        yield from extend(index + 1, chosen)
        a, b = pairs[index]
        if not connected(vertices, chosen, a, b):
            yield from extend(index + 1, (*chosen, pairs[index]))

    yield from extend(0, ())


def unicyclic_graphs(vertices: int) -> Iterator[Multigraph]:
    """Every connected multigraph on the given vertices with as many edges as vertices and exactly
    one simple cycle (a repeated pair is a 2-cycle), edges listed in sorted order.

    Generated as all multisets of pairs of that size, then filtered."""
    for edges in itertools.combinations_with_replacement(all_pairs(vertices), vertices):
        if len(set(components(vertices, edges))) != 1:
            continue
        graph = Multigraph(vertices, edges)
        if len(simple_cycles(graph)) == 1:
            yield graph


def exactly_one_each(counts: Sequence[int]) -> bool:
    """The collapse rule: every cell receives exactly one mark."""
    return all(c == 1 for c in counts)


def assignments(graph: Multigraph, k: int, cell: int,
                accept: Accept = exactly_one_each) -> list[tuple[int, ...]]:
    """Every way to send each edge to one of its endpoints, edge k to cell, such that the number of
    edges each vertex receives is accepted; each way is the receiving vertex per edge index."""
    choices = [(cell,) if i == k else edge for i, edge in enumerate(graph.edges)]
    found = []
    for ends in itertools.product(*choices):
        counts = [0] * graph.vertices
        for v in ends:
            counts[v] += 1
        if accept(counts):
            found.append(tuple(ends))
    return found


def propagate(graph: Multigraph, k: int, cell: int) -> tuple[int | None, ...]:
    """Forcing, as a player collapses by hand: edge k lands in cell; whenever an edge lands in a
    vertex, every other edge at that vertex lands in its other endpoint. Returns the landing
    vertex per edge (None when never forced). Raises ValueError when an edge is forced into
    both of its endpoints."""
    landing: list[int | None] = [None] * len(graph.edges)
    landing[k] = cell
    queue = [k]
    while queue:
        f = queue.pop()
        v = landing[f]
        assert v is not None
        for g in graph.incident(v):
            if g == f:
                continue
            target = other_end(graph.edges[g], v)
            if landing[g] is None:
                landing[g] = target
                queue.append(g)
            elif landing[g] != target:
                raise ValueError(f"edge {g} forced into both ends")
    return tuple(landing)


def bfs_labelling(vertices: int, edges: Sequence[Pair], roots: Sequence[int] = ()) -> list[int]:
    """A relabelling (new label per old vertex) that numbers vertices in breadth-first order, tree
    by tree, starting from the given roots and then from the smallest unvisited vertex."""
    new: dict[int, int] = {}
    order = [*roots, *range(vertices)]
    for root in order:
        if root in new:
            continue
        new[root] = len(new)
        frontier = [root]
        while frontier:
            nxt = []
            for v in frontier:
                for a, b in sorted(edges):
                    for u, w in ((a, b), (b, a)):
                        if u == v and w not in new:
                            new[w] = len(new)
                            nxt.append(w)
            frontier = nxt
    return [new[v] for v in range(vertices)]


def has_smaller_neighbour_at_most_once(vertices: int, edges: Sequence[Pair]) -> bool:
    """The labelling condition the Z3 forest encoding uses: each vertex has at most one neighbour
    with a smaller label."""
    return all(sum(1 for a, b in edges if max(a, b) == v) <= 1 for v in range(vertices))


@dataclass(frozen=True)
class Tally:
    """The outcome of one enumeration: how many cases were examined and which ones failed."""

    claim: str
    max_vertices: int
    cases: int
    failures: tuple[str, ...]

    @property
    def holds(self) -> bool:
        """Whether no case failed."""
        return not self.failures


def enumerate_single_cycle(max_vertices: int) -> Tally:
    """For every forest F on up to max_vertices vertices and every new edge e = {a, b}, a != b:
    F + e has at most one simple cycle; exactly one, through e, when a and b are joined in F;
    none otherwise."""
    cases, failures = 0, []
    for n in range(2, max_vertices + 1):
        for forest in forests(n):
            for a, b in all_pairs(n):
                cases += 1
                graph = Multigraph(n, (*forest, (a, b)))
                cycles = simple_cycles(graph)
                new = len(forest)
                joined = connected(n, forest, a, b)
                good = len(cycles) == 1 and new in cycles[0] if joined else not cycles
                if not good:
                    failures.append(f"forest {forest} + {(a, b)}: cycles {cycles}")
    return Tally("single-cycle", max_vertices, cases, tuple(failures))


def enumerate_collapse(max_vertices: int) -> Tally:
    """For every unicyclic multigraph on 2..max_vertices vertices, every edge k of its cycle and
    both of k's ends: exactly one assignment gives every vertex one edge; the two outcomes
    differ exactly in the cycle's cells; forcing from k reaches every edge and yields that
    assignment."""
    cases, failures = 0, []
    for n in range(2, max_vertices + 1):
        for graph in unicyclic_graphs(n):
            (cycle,) = simple_cycles(graph)
            on_cycle = cycle_cells(graph, cycle)
            for k in sorted(cycle):
                outcomes = []
                for cell in graph.edges[k]:
                    cases += 1
                    found = assignments(graph, k, cell)
                    if len(found) != 1:
                        failures.append(f"{graph} k={k} cell={cell}: {len(found)} assignments")
                        continue
                    outcomes.append(found[0])
                    try:
                        forced = propagate(graph, k, cell)
                    except ValueError as err:
                        failures.append(f"{graph} k={k} cell={cell}: {err}")
                        continue
                    if forced != found[0]:
                        failures.append(f"{graph} k={k} cell={cell}: forcing gives {forced}, not {found[0]}")
                if len(outcomes) == 2:
                    moved = {v for v in range(n) if outcomes[0].index(v) != outcomes[1].index(v)}
                    if moved != on_cycle:
                        failures.append(f"{graph} k={k}: outcomes differ at {sorted(moved)}")
    return Tally("collapse", max_vertices, cases, tuple(failures))
