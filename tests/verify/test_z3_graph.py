"""Tests for the Z3 graph and collapse encodings (verify.quantum.z3_graph) and their enumeration
cross-check (verify.quantum.graphs).

Three kinds: hand-made graphs with answers worked out by hand; the real claims proved and
re-checked by enumeration; deliberately broken rules, which must give counterexamples that
decode to concrete graphs the enumerator confirms.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import pytest
import z3

from verify.quantum import graphs as G
from verify.quantum import z3_graph as Z
from verify.quantum.graphs import Multigraph, Pair


def models(constraints: Sequence[z3.BoolRef], keys: Sequence[z3.BoolRef]) -> list[tuple[bool, ...]]:
    """Every assignment to keys that extends to a model, by blocking clauses."""
    solver = z3.Solver()
    solver.add(*constraints)
    found = []
    while solver.check() == z3.sat:
        model = solver.model()
        values = tuple(bool(z3.is_true(model.eval(k, model_completion=True))) for k in keys)
        found.append(values)
        solver.add(z3.Or(*[k != z3.BoolVal(v) for k, v in zip(keys, values, strict=True)]))
    return found


def satisfiable(*constraints: z3.BoolRef) -> bool:
    solver = z3.Solver()
    solver.add(*constraints)
    return bool(solver.check() == z3.sat)


def even_subsets(graph: Multigraph) -> list[frozenset[int]]:
    """Nonempty edge subsets with every degree even, by the most direct count there is."""
    found = []
    for r in range(1, len(graph.edges) + 1):
        for chosen in itertools.combinations(range(len(graph.edges)), r):
            degree = [0] * graph.vertices
            for i in chosen:
                for v in graph.edges[i]:
                    degree[v] += 1
            if all(d % 2 == 0 for d in degree):
                found.append(frozenset(chosen))
    return found


def simple_graphs(n: int) -> list[tuple[Pair, ...]]:
    pairs = G.all_pairs(n)
    return [tuple(p for i, p in enumerate(pairs) if mask >> i & 1) for mask in range(1 << len(pairs))]


def unicyclic_with_k_on_cycle(graph: Multigraph) -> bool:
    """The decoded component is connected, has exactly one simple cycle, and k (last) is on it."""
    cycles = G.simple_cycles(graph)
    one_component = len(set(G.components(graph.vertices, graph.edges))) == 1
    return one_component and len(cycles) == 1 and len(graph.edges) - 1 in cycles[0]


def landings(tree: Sequence[Pair], found: list[tuple[bool, ...]], cell: int) -> list[tuple[int, ...]]:
    """Decode `high` values per tree edge (plus the measured edge's cell) into landing cells."""
    return [(*(max(e) if hi else min(e) for e, hi in zip(tree, values, strict=True)), cell)
            for values in found]


# The enumerator on graphs worked out by hand ------------------------------------------------------

K4 = ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))


def test_simple_cycles_by_hand() -> None:
    # K4: four triangles and three 4-cycles.
    assert len(G.simple_cycles(Multigraph(4, K4))) == 7
    # A triangle with one side doubled: the 2-cycle and the triangle through either copy.
    doubled = Multigraph(3, ((0, 1), (1, 2), (0, 2), (0, 1)))
    assert sorted(map(sorted, G.simple_cycles(doubled))) == [[0, 1, 2], [0, 3], [1, 2, 3]]
    # Two triangles sharing vertex 0: a figure eight is even but not a simple cycle.
    bowtie = Multigraph(5, ((0, 1), (1, 2), (0, 2), (0, 3), (3, 4), (0, 4)))
    assert sorted(map(sorted, G.simple_cycles(bowtie))) == [[0, 1, 2], [3, 4, 5]]
    assert G.simple_cycles(Multigraph(4, ((0, 1), (1, 2), (2, 3)))) == []


def test_forest_and_unicyclic_counts_match_published_sequences() -> None:
    # Labelled forests, OEIS A001858: 1, 2, 7, 38, 291, 2932.
    assert [sum(1 for _ in G.forests(n)) for n in range(1, 7)] == [1, 2, 7, 38, 291, 2932]
    # Connected unicyclic multigraphs without loops: simple ones (OEIS A057500: 1, 15, 222 for
    # n = 3, 4, 5) plus a tree (n^(n-2) of them, Cayley) with one of its n - 1 edges doubled.
    expected = [(1 if n == 3 else {4: 15, 5: 222}.get(n, 0)) + n ** (n - 2) * (n - 1) for n in range(2, 6)]
    assert [sum(1 for _ in G.unicyclic_graphs(n)) for n in range(2, 6)] == expected == [1, 7, 63, 722]


def test_assignments_and_forcing_by_hand() -> None:
    # Path 0-1-2-3 closed by k = {3, 0}: measuring k into 0 pushes 0-1 to 1, 1-2 to 2, 2-3 to 3.
    square = Multigraph(4, ((0, 1), (1, 2), (2, 3), (3, 0)))
    assert G.assignments(square, 3, 0) == [(1, 2, 3, 0)]
    assert G.assignments(square, 3, 3) == [(0, 1, 2, 3)]
    assert G.propagate(square, 3, 0) == (1, 2, 3, 0)
    # A 2-cycle with a stem 1-2: the stem always goes to 2.
    two = Multigraph(3, ((0, 1), (1, 2), (0, 1)))
    assert G.assignments(two, 2, 0) == [(1, 2, 0)]
    assert G.assignments(two, 2, 1) == [(0, 2, 1)]
    # With "at most two marks a cell" the triangle has more than one outcome.
    triangle = Multigraph(3, ((0, 1), (1, 2), (0, 2)))
    assert len(G.assignments(triangle, 2, 0, lambda counts: max(counts) <= 2)) == 4
    # Forcing on a graph with two cycles hits a contradiction.
    with pytest.raises(ValueError):
        G.propagate(Multigraph(3, ((0, 1), (0, 1), (0, 1))), 0, 0)


def test_breadth_first_labelling_reaches_every_forest() -> None:
    """The reduction's lemma: every forest, relabelled breadth-first from any chosen vertex, has
    at most one smaller neighbour per vertex, and the chosen vertex becomes 0."""
    for n in range(1, 7):
        for forest in G.forests(n):
            for root in range(n):
                label = G.bfs_labelling(n, forest, [root])
                assert sorted(label) == list(range(n)) and label[root] == 0
                relabelled = [(label[a], label[b]) for a, b in forest]
                assert G.has_smaller_neighbour_at_most_once(n, relabelled)


def test_enumerations_hold_on_small_graphs() -> None:
    single = G.enumerate_single_cycle(5)
    collapse = G.enumerate_collapse(5)
    assert single.holds and single.cases == sum(len(G.all_pairs(n)) * sum(1 for _ in G.forests(n))
                                                for n in range(2, 6))
    assert collapse.holds and collapse.cases > 0


# The encodings on pinned graphs ------------------------------------------------------------------


@pytest.mark.slow
def test_shapes_agree_with_union_find_on_every_graph_of_four_cells() -> None:
    for edges in simple_graphs(4):
        g = Z.sym_graph(4)
        forest = G.is_forest(4, edges)
        assert satisfiable(Z.pin(g, edges), Z.ranked_forest(g)) == forest
        labelled = forest and G.has_smaller_neighbour_at_most_once(4, edges)
        assert satisfiable(Z.pin(g, edges), Z.labelled_forest(g)) == labelled
        spanning = forest and len(edges) == 3
        assert satisfiable(Z.pin(g, edges), Z.ranked_tree(g)) == spanning
        assert satisfiable(Z.pin(g, edges), Z.labelled_tree(g)) == (labelled and spanning)


def test_labelled_forest_is_a_reduction_not_a_definition() -> None:
    g = Z.sym_graph(3)
    # 0-2-1 is a forest, but 2 has two smaller neighbours: only its relabelling is a model.
    assert not satisfiable(Z.pin(g, [(0, 2), (1, 2)]), Z.labelled_forest(g))
    label = G.bfs_labelling(3, [(0, 2), (1, 2)])
    assert satisfiable(Z.pin(g, [(label[0], label[2]), (label[1], label[2])]), Z.labelled_forest(g))


@pytest.mark.parametrize(("n", "edges", "extra"), [
    (4, K4, (0, 1)),
    (4, ((0, 1), (1, 2), (2, 3)), (0, 3)),
    (4, ((0, 1), (1, 2), (2, 3)), (1, 2)),
    (5, ((0, 1), (1, 2), (0, 2), (3, 4)), (2, 3)),
    (3, (), (0, 2)),
])
def test_cycle_models_are_the_even_subgraphs(n: int, edges: tuple[Pair, ...], extra: Pair) -> None:
    g = Z.sym_graph(n)
    s = Z.sym_edge_set(g, "s")
    graph = Multigraph(n, (*sorted(edges), extra))
    keys = [s.member[p] for p in sorted(edges)] + [s.extra]
    found = models([Z.pin(g, edges, extra), Z.cycle(s, g), *[z3.Not(s.member[p]) for p in g.edge
                                                             if p not in edges]], keys)
    as_sets = {frozenset(i for i, v in enumerate(values) if v) for values in found}
    assert len(found) == len(as_sets) == len(even_subsets(graph))
    assert as_sets == set(even_subsets(graph))


def test_path_and_cut_witnesses() -> None:
    forest, side = [(0, 1), (1, 2), (3, 4)], [z3.Bool(f"side_{v}") for v in range(5)]
    for extra, joined in (((0, 2), True), ((2, 3), False), ((0, 4), False), ((1, 2), True)):
        assert G.connected(5, forest, *extra) == joined
        g = Z.sym_graph(5)
        p = Z.sym_edge_set(g, "p")
        assert satisfiable(Z.pin(g, forest, extra), Z.path_between_ends(p, g)) == joined
        assert satisfiable(Z.pin(g, forest, extra), Z.cut_between_ends(side, g)) == (not joined)


def test_outcome_models_are_the_enumerated_assignments() -> None:
    # Tree 0-1, 1-2, 1-3 with k = {0, 2}: the cycle is 0-1-2 and 3 is a stem.
    tree, k = [(0, 1), (1, 2), (1, 3)], (0, 2)
    graph = Multigraph(4, (*tree, k))
    for cell in k:
        g = Z.sym_graph(4, "k")
        y = Z.sym_assignment(g, "y")
        keys = [y.high[p] for p in tree]
        found = models([Z.pin(g, tree, k), Z.one_mark_each(y, g), y.extra_at[cell]], keys)
        decoded = landings(tree, found, cell)
        assert decoded == G.assignments(graph, 3, cell)
        assert len(decoded) == 1 and decoded[0][2] == 3  # the stem mark lands in 3 either way


def test_forcing_model_on_a_pinned_component_is_the_hand_forcing() -> None:
    tree, k = [(0, 1), (1, 2), (1, 3), (3, 4)], (0, 4)
    g = Z.sym_graph(5, "k")
    f = Z.sym_forcing(g, "f")
    found = models([Z.pin(g, tree, k), Z.forcing_closed(f, g, 0), *[f.forced[p] for p in tree]],
                   [f.landing.high[p] for p in tree])
    assert len(found) == 1
    landed = (*(b if hi else a for (a, b), hi in zip(tree, found[0], strict=True)), 0)
    assert landed == G.propagate(Multigraph(5, (*tree, k)), 4, 0) == (1, 2, 3, 4, 0)


@pytest.mark.slow
def test_collapse_encodings_agree_with_enumeration_on_every_small_component() -> None:
    """Any labels, any cycle edge as k, either cell: the outcome models are the enumerated
    assignments, and the only forcing-closed set with every mark forced is hand forcing."""
    checked = expected = 0
    for n in range(2, 5):
        for graph in G.unicyclic_graphs(n):
            (cyc,) = G.simple_cycles(graph)
            expected += 2 * len(cyc)
            for k in sorted(cyc):
                tree = [(min(e), max(e)) for i, e in enumerate(graph.edges) if i != k]
                ordered = Multigraph(n, (*tree, graph.edges[k]))
                for cell in graph.edges[k]:
                    g = Z.sym_graph(n, "k")
                    y, f = Z.sym_assignment(g, "y"), Z.sym_forcing(g, "f")
                    fixed = Z.pin(g, tree, graph.edges[k])
                    valid = [fixed, Z.one_mark_each(y, g), y.extra_at[cell]]
                    found = models(valid, [y.high[e] for e in tree])
                    assert landings(tree, found, cell) == G.assignments(ordered, n - 1, cell)
                    closed = [fixed, Z.forcing_closed(f, g, cell)]
                    all_forced = [*closed, *[f.forced[e] for e in tree]]
                    forced = models(all_forced, [f.landing.high[e] for e in tree])
                    assert landings(tree, forced, cell) == [G.propagate(ordered, n - 1, cell)]
                    assert not satisfiable(*closed, z3.Or(*[z3.Not(f.forced[e]) for e in tree]))
                    checked += 1
    assert checked == expected > 0


# The claims -----------------------------------------------------------------------------------------


def test_prove_claim_answers_in_both_directions() -> None:
    x = z3.Bool("x")
    assert isinstance(Z.prove(Z.claim("excluded middle", z3.Or(x, z3.Not(x)))), Z.Proved)
    refuted = Z.prove(Z.claim("x", x))
    assert isinstance(refuted, Z.Counterexample) and refuted.witness == {"x": "False"}


def test_prove_reports_unknown_on_timeout() -> None:
    assert isinstance(Z.prove(Z.single_cycle_query(16), timeout=0.001), Z.Unknown)


@pytest.mark.parametrize("cells", [4, pytest.param(9, marks=pytest.mark.slow)])
def test_every_obligation_is_proved(cells: int) -> None:
    for done in Z.discharge(Z.obligations(cells, quantified_up_to=min(cells, 8))):
        assert isinstance(done.result, Z.Proved), (done.obligation, done.result)


@pytest.mark.slow
def test_every_obligation_is_proved_on_four_by_four() -> None:
    for done in Z.discharge(Z.obligations(16, quantified_up_to=0)):
        assert isinstance(done.result, Z.Proved), (done.obligation, done.result)


@pytest.mark.slow
def test_unreduced_encodings_prove_the_same() -> None:
    for done in Z.discharge(Z.unreduced_obligations(5)):
        assert isinstance(done.result, Z.Proved), (done.obligation, done.result)


# Broken rules give counterexamples the enumerator confirms ------------------------------------------

ANY_GRAPH = Z.Shape("any graph", Z.any_graph, rooted=True)


def two_smaller_neighbours(g: Z.SymGraph) -> z3.BoolRef:
    return z3.And(*[z3.PbLe([(x, 1) for x in Z.smaller_neighbours(g, v)], 2) for v in range(2, g.n)])


def at_most_two(xs: Sequence[z3.BoolRef]) -> z3.BoolRef:
    return z3.PbLe([(x, 1) for x in xs], 2)


def counterexample(query: Z.Query[Z.GraphWitness]) -> Z.GraphWitness:
    result = Z.prove(query)
    assert isinstance(result, Z.Counterexample), result
    return result.witness


def collapse_counterexample(query: Z.Query[Z.CollapseWitness]) -> Z.CollapseWitness:
    result = Z.prove(query)
    assert isinstance(result, Z.Counterexample), result
    return result.witness


@pytest.mark.parametrize("shape", [ANY_GRAPH, Z.Shape("two smaller", two_smaller_neighbours, True)])
def test_non_forest_gives_two_cycles(shape: Z.Shape) -> None:
    witness = counterexample(Z.single_cycle_query(6, shape))
    graph, (c1, c2) = witness.graph, witness.edge_sets
    assert not G.is_forest(graph.vertices, graph.edges[:-1])
    assert len(G.simple_cycles(graph)) >= 2
    assert c1 != c2 and {c1, c2} <= set(even_subsets(graph))


def test_non_forest_gives_a_cycle_without_the_new_edge() -> None:
    witness = counterexample(Z.cycle_through_new_edge_query(5, ANY_GRAPH))
    new = len(witness.graph.edges) - 1
    assert any(new not in c for c in G.simple_cycles(witness.graph))
    assert witness.edge_sets[0] in even_subsets(witness.graph) and new not in witness.edge_sets[0]


def test_non_forest_gives_a_cycle_across_a_cut() -> None:
    witness = counterexample(Z.separated_stays_forest_query(5, ANY_GRAPH))
    graph = witness.graph
    a, b = graph.edges[-1]
    assert not G.connected(graph.vertices, graph.edges[:-1], a, b)
    assert G.simple_cycles(graph) and witness.edge_sets[0] in even_subsets(graph)


def test_joining_path_closes_a_cycle_even_without_acyclicity() -> None:
    # This claim does not rest on the forest: it must stay proved on any graph.
    assert isinstance(Z.prove(Z.joined_closes_cycle_query(6, ANY_GRAPH)), Z.Proved)


@pytest.mark.parametrize("shape", [Z.LABELLED_TREE, Z.RANKED_TREE])
def test_two_marks_per_cell_gives_two_outcomes(shape: Z.Shape) -> None:
    witness = collapse_counterexample(Z.collapse_at_most_one_query(4, shape, at_most_two))
    graph, (y, z) = witness.graph, witness.outcomes
    k = len(graph.edges) - 1
    cell = y[k]
    assert unicyclic_with_k_on_cycle(graph) and y != z and cell is not None and z[k] == cell
    relaxed = G.assignments(graph, k, cell, lambda counts: max(counts) <= 2)
    assert y in relaxed and z in relaxed
    assert len(G.assignments(graph, k, cell)) == 1  # the real rule still has one


def parents_first(y: Z.SymAssignment, g: Z.SymGraph) -> z3.BoolRef:
    return z3.And(y.extra_at[0], *[z3.Not(x) for x in y.extra_at[1:]], *[z3.Not(h) for h in y.high.values()])


def test_wrong_constructive_outcome_is_refuted() -> None:
    witness = collapse_counterexample(Z.collapse_at_least_one_query(3, witness=parents_first))
    graph, (y,) = witness.graph, witness.outcomes
    assert unicyclic_with_k_on_cycle(graph)
    assert y not in G.assignments(graph, len(graph.edges) - 1, 0)


def exactly_two(xs: Sequence[z3.BoolRef]) -> z3.BoolRef:
    return z3.PbEq([(x, 1) for x in xs], 2)


@pytest.mark.parametrize("shape", [Z.LABELLED_TREE, Z.RANKED_TREE])
def test_impossible_rule_has_no_outcome(shape: Z.Shape) -> None:
    witness = collapse_counterexample(Z.collapse_exists_query(4, shape, exactly_two))
    graph, ((*_, cell),) = witness.graph, witness.outcomes
    assert unicyclic_with_k_on_cycle(graph) and cell is not None and cell in graph.edges[-1]
    assert G.assignments(graph, len(graph.edges) - 1, cell, lambda counts: all(c == 2 for c in counts)) == []


def test_loose_rule_breaks_differ_exactly_on_cycle() -> None:
    witness = collapse_counterexample(Z.collapse_outcomes_differ_query(4, Z.RANKED_TREE, at_most_two))
    graph, (y, z) = witness.graph, witness.outcomes
    assert unicyclic_with_k_on_cycle(graph)
    k = len(graph.edges) - 1
    cell_y, cell_z = y[k], z[k]
    assert cell_y is not None and cell_z is not None and cell_y != cell_z
    loose = lambda counts: max(counts) <= 2  # noqa: E731
    assert y in G.assignments(graph, k, cell_y, loose) and z in G.assignments(graph, k, cell_z, loose)
    (only,) = G.simple_cycles(graph)
    # As in the query: a cell "moved" when no mark lands in it in both outcomes.
    moved = {v for v in range(graph.vertices) if not any(a == b == v for a, b in zip(y, z, strict=True))}
    assert moved != G.cycle_cells(graph, only)


def forcing_from_measured_cell_only(f: Z.SymForcing, g: Z.SymGraph, cell: int) -> z3.BoolRef:
    """Broken forcing: only the measured cell pushes its other marks away, nothing further."""
    y = f.landing
    away = [z3.Implies(x, z3.And(f.forced[(u, w)], y.high[(u, w)] if u == cell else z3.Not(y.high[(u, w)])))
            for (u, w), x in g.edge.items() if cell in (u, w)]
    return z3.And(y.extra_at[cell], *[z3.Not(x) for v, x in enumerate(y.extra_at) if v != cell], *away)


def test_one_step_forcing_leaves_marks_open() -> None:
    witness = collapse_counterexample(Z.collapse_forcing_total_query(4, forcing_from_measured_cell_only))
    graph, (landed,) = witness.graph, witness.outcomes
    k = len(graph.edges) - 1
    assert unicyclic_with_k_on_cycle(graph) and None in landed and landed[k] == 0
    for i, edge in enumerate(graph.edges[:-1]):
        if 0 in edge:
            assert landed[i] == G.other_end(edge, 0)  # the broken rule's one step was taken
    assert None not in G.propagate(graph, k, 0)  # while the real rule reaches every mark


def test_a_broken_premise_is_caught_by_the_vacuity_check() -> None:
    """A query whose premises cannot hold proves every claim; the premises check says so, and the
    obligation is then not proved."""
    good = Z.single_cycle_query(4)
    shown = Z.check_premises(good)
    assert shown.verdict == "sat" and "GraphWitness" in shown.model
    never = Z.Shape("no graph", lambda g: z3.BoolVal(False), rooted=True)
    broken = Z.single_cycle_query(4, never)
    assert isinstance(Z.prove(broken), Z.Proved)  # vacuously
    assert Z.check_premises(broken).verdict == "unsat"
    ob = Z.Obligation("single-cycle-per-move", "broken", 4, lambda: broken)
    (done,) = Z.discharge([ob])
    assert done.status == "unknown"
    (fine,) = Z.discharge([Z.Obligation("single-cycle-per-move", "good", 4, lambda: good)])
    assert fine.status == "proved"
