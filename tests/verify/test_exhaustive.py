"""The exhaustive walk of verify.quantum.exhaustive: its shape key is a canonical form (isomorphic positions
get equal keys, checked against brute force over every relabelling of the cells) and sound for what
the walk checks (positions with equal keys have the same legal-action count, phase, player parity
and successor keys: a bisimulation), and the walk visits every class."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from cores import changed_core, forget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset, with_params
from qttt.analysis.distributed import dask_mapper
from qttt.cli import main
from qttt.errors import FileError
from qttt.io import write_checkpoint
from qttt.processes import Stopwatch
from qttt.quantum import compiled
from qttt.quantum.engine import Measure, Place, State
from verify.built import as_built
from verify.quantum import exhaustive
from verify.quantum.abstract import abstract_of
from verify.quantum.check import check, core_walks
from verify.quantum.exhaustive import Walk, resumable, shape_key, walk, walk_ruleset
from verify.quantum.witness import replay


def brute_shape(state: State) -> tuple[Any, ...]:
    """The least relabelling of the open cells' multigraph with the pending move marked, over every
    permutation of the open cells (independent of shape_key's tree codes)."""
    opens = state.open_cells
    ends = state.edges
    best = None
    for perm in itertools.permutations(range(len(opens))):
        name = dict(zip(opens, perm, strict=True))
        edges = sorted(tuple(sorted((name[a], name[b]))) for a, b in ends.values())
        pend = tuple(sorted(name[c] for c in ends[state.pending])) if state.pending is not None else ()
        cand = (tuple(edges), pend)
        best = cand if best is None or cand < best else best
    return (state.phase, state.move & 1, best)


def every_position(rs_name: str) -> dict[int, list[State]]:
    """Every position of a small ruleset by ply, without merging."""
    rs = load_ruleset(rs_name)
    layers, frontier, ply = {}, [State.initial(rs)], 0
    while frontier:
        layers[ply] = frontier
        frontier = [s.apply(a) for s in frontier if not s.over for a in s.legal_actions()]
        ply += 1
    return layers


SMALL = ["qttt(board=2,end=full)", "qttt(board=2,two_cycles=false,end=full)",
         "qttt(board=2,untouched=vanish,last_square=end,end=full)"]


@pytest.mark.parametrize("name", SMALL)
def test_shape_key_is_the_isomorphism_class_and_the_walk_finds_every_class(name: str) -> None:
    layers = every_position(name)
    per_ply = []
    for states in layers.values():
        keys: dict[Any, Any] = {}
        for s in states:
            assert keys.setdefault(brute_shape(s), shape_key(s)) == shape_key(s)
        assert len(set(keys.values())) == len(keys)  # equal keys only for isomorphic positions
        per_ply.append(len(keys))
    done = walk(load_ruleset(name))
    assert done.complete and not done.failures
    assert done.positions_by_ply == per_ply


def successor_keys(state: State) -> Counter[Any]:
    return Counter(shape_key(state.apply(a)) for a in state.legal_actions())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["russian-unstable", "kumar", "wikipedia(end=full,two_cycles=false)"])
def test_equal_shape_keys_have_the_same_future(name: str) -> None:
    """A bisimulation check on positions of random games: equal keys, equal observations and
    equal successor-key multisets (so one representative per key stands for all)."""
    rs = load_ruleset(name)
    rng = random.Random(7)
    seen: dict[Any, tuple[Any, ...]] = {}
    merged = 0
    for _ in range(150):
        state = State.initial(rs)
        while not state.over and state.legal_actions():
            key = shape_key(state)
            view = (state.phase, state.to_move, len(state.legal_actions()), abstract_of(state),
                    len(state.cycle or ()), successor_keys(state))
            merged += key in seen
            assert seen.setdefault(key, view) == view, (key, state)
            acts = state.legal_actions()
            state = state.apply(acts[rng.randrange(len(acts))])
    assert merged > 100  # the check compared many distinct positions under one key


def test_symmetric_games_get_equal_keys() -> None:
    rs = load_ruleset("russian")
    rng = random.Random(3)
    flip = [2, 1, 0, 5, 4, 3, 8, 7, 6]
    for _ in range(30):
        a, b = State.initial(rs), State.initial(rs)
        while not a.over:
            acts = a.legal_actions()
            act = acts[rng.randrange(len(acts))]
            mirrored = type(act)(*(flip[c] for c in act))
            if type(act).__name__ == "Place":
                mirrored = type(act)(*sorted(mirrored))
            a, b = a.apply(act), b.apply(mirrored)
            assert shape_key(a) == shape_key(b)


def test_first_line_rulesets_walk_their_full_board_version() -> None:
    rs = load_ruleset("wikipedia")
    assert walk_ruleset(rs) == with_params(rs, end="full")
    assert walk_ruleset(load_ruleset("russian")) is load_ruleset("russian")


def test_walk_to_a_depth_and_resume(tmp_path: Any) -> None:
    rs = load_ruleset("russian")
    whole = walk(rs, max_ply=6)
    assert not whole.complete and whole.positions_by_ply == [1, 1, 3, 8, 20, 49, 127]
    saved = tmp_path / "walk.json"
    first = walk(rs, max_ply=3, checkpoint=saved)
    assert first.positions_by_ply == whole.positions_by_ply[:4]
    resumed = walk(rs, max_ply=6, checkpoint=saved)
    assert resumed.positions_by_ply == whole.positions_by_ply


@pytest.mark.slow
def test_a_resumed_walk_is_never_labelled_exhaustive(tmp_path: Any,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Plies read from a checkpoint were not walked by this run: the engine part of a resumed
    check says so and is labelled sampled, never exhaustive (a file cannot buy that label)."""
    saved = tmp_path / "walk.json"
    spec = "qttt(board=2)"
    one = ["--workers", "1", "--games", "20"]  # the shared work (Z3, enumerations) once, in this process
    assert main(["check", spec, "--exhaustive", "--max-ply", "2", "--checkpoint", str(saved), "--quiet",
                 *one]) == 0
    capsys.readouterr()
    assert main(["check", spec, "--exhaustive", "--checkpoint", str(saved), "--json-document", *one]) == 0
    report = json.loads(capsys.readouterr().out)
    rows = [f for r in report["rulesets"] for f in r["properties"]]
    assert rows and all(f["status"] != "exhaustive" for f in rows)
    assert all("resumed from a checkpoint at ply 3" in f["label"] for f in rows
               if f["property"] in ("collapse-uniqueness", "no-deadlock"))
    assert main(["check", spec, "--exhaustive", "--json-document", *one]) == 0  # the same walk, run whole
    whole = [f for r in json.loads(capsys.readouterr().out)["rulesets"] for f in r["properties"]]
    assert any(f["status"] == "exhaustive" for f in whole)


def _result(w: Walk) -> dict[str, Any]:
    """A walk's result: everything but its time, its number of workers and where it resumed."""
    out = dataclasses.asdict(w)
    for name in ("seconds", "workers", "resumed_at"):
        out.pop(name)
    return out


@pytest.mark.slow
def test_the_walk_is_the_same_on_any_number_of_workers_and_on_dask(tmp_path: Any) -> None:
    """Positions per ply, classes, members, fields that differed and findings (this ruleset's walk
    finds deadlocks) are the same on 1 worker, 3 local processes and a local Dask cluster of 3
    worker processes, and after resuming on 3 workers a checkpoint that 2 wrote."""
    rs = load_ruleset("wikipedia(two_cycles=false,end=full)")
    one = walk(rs, members=1, max_ply=10)
    assert one.failures.get("no-deadlock") and one.positions_by_ply[-1] == 44
    assert _result(walk(rs, members=1, max_ply=10, processes=3)) == _result(one)
    with dask_mapper(None, 3) as mapper:
        assert getattr(mapper, "client", None) is not None  # the shards stay on the cluster between plies
        assert _result(walk(rs, members=1, max_ply=10, mapper=mapper, workers=3)) == _result(one)
        watched = Stopwatch(mapper)  # as qttt check --dask walks: its shards stay on the cluster too
        plies = exhaustive.Plies(watched, exhaustive.Spec(rs.canonical), 3)
        assert plies.client is watched.client is not None
        assert _result(walk(rs, members=1, max_ply=10, mapper=watched, workers=3)) == _result(one)
        assert watched.seconds > 0  # the shards' CPU seconds, told by the cluster
    saved = tmp_path / "walk.json"
    first = walk(rs, members=1, max_ply=6, processes=2, checkpoint=saved)
    assert first.positions_by_ply == one.positions_by_ply[:7]
    resumed = walk(rs, members=1, max_ply=10, processes=3, checkpoint=saved)
    assert resumed.resumed_at == 7 and _result(resumed) == _result(one)


@pytest.mark.slow  # two check runs
@pytest.mark.parametrize("cores", [True, False])
def test_a_key_that_merges_other_shapes_is_a_checker_error(cores: bool,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The plant: the shape key forgets the pending cycle's structure (its component's code kept
    only as a size). The merged games are told apart by a search for an isomorphism that shares
    nothing with the key, whether the compiled paths are compared or not: the walk reports a key
    error, and the check labels every walked property a checker error, never shape classes."""
    original = exhaustive._cycle_code

    def planted(adj: Any, cells: Any, ends: Any, pending: int) -> str | None:
        code = original(adj, cells, ends, pending)
        return None if code is None else "()" * (len(code) // 2)
    monkeypatch.setattr(exhaustive, "_cycle_code", planted)
    done = walk(load_ruleset("wikipedia(end=full)"), members=4, max_ply=4, cores=cores)
    assert done.key_errors, done
    report = check("russian", games=2, exhaustive=True, max_ply=4, cores=cores)
    turn = next(f for f in report.findings if f.property == "turn-order")
    assert turn.status == "error" and "merged positions that are not one shape class" in turn.label


# Where shape_key's tuple (phase, parity, pending component's code, trees) holds each field of the
# position state it keeps; "chosen" is kept only at a chance turn, where the key is the whole position.
KEY_PARTS = {"phase": (0, "place"), "move": (1, 0), "pending": (2, ""), "spk": (3, ())}


@pytest.mark.parametrize("field", sorted(KEY_PARTS))
def test_a_shape_key_that_forgets_a_field_never_merges_unnoticed(field: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """For every field the shape key holds, a planted key that forgets what it holds of it: the walk
    either finds the classes of the real key (the rest of the key determines the field: phase by the
    pending component, the parity by the graph) or reports a key error (its members differ from
    their representative in a way the rules can tell apart); it never merges positions silently."""
    assert set(KEY_PARTS) == set(exhaustive.SHAPE_COVER.kept) - {"chosen"}
    rs = load_ruleset("wikipedia(end=full)")
    real = walk(rs, members=4, max_ply=4, cores=False)
    at, blank = KEY_PARTS[field]
    original = exhaustive.shape_key

    def planted(state: State) -> tuple[Any, ...]:
        key = original(state)
        return key if key[0] in ("odd", "chance") else (*key[:at], blank, *key[at + 1:])
    monkeypatch.setattr(exhaustive, "shape_key", planted)
    done = walk(rs, members=4, max_ply=4, cores=False)
    assert done.positions_by_ply == real.positions_by_ply or done.key_errors, field
    if field in ("pending", "spk"):  # these the rest of the key does not determine
        assert done.key_errors, field


def test_members_differ_from_their_representative_in_every_field_the_key_forgets() -> None:
    """The key's argument is checked on members, not assumed: the walk's members differ from their
    representative in every field the shape key forgets (cls) or holds only as a shape (spk)."""
    done = walk(load_ruleset("wikipedia(end=full)"), members=4, max_ply=5, cores=False)
    for f in (*exhaustive.SHAPE_COVER.forgotten, "spk"):
        assert done.varied[f] > 0, (f, done.varied)


def test_chance_turns_are_never_merged_and_their_members_agree() -> None:
    """A chance turn is keyed by its position (rule collapse-chance: which cell was named matters),
    never by the code the compiled core gives every chance turn; a member whose measurement leads
    to a chance turn has its representative's future, the chance turn counted as its outcomes'
    classes; and the compiled core never walks a ruleset with chance."""
    name = "wikipedia(collapse=chance-measurer,end=full)"
    rs = load_ruleset(name)
    pair = State.initial(rs).apply(Place(0, 1)).apply(Place(0, 1))
    one, two = pair.apply(Measure(0)), pair.apply(Measure(1))
    assert one.phase == two.phase == "chance"
    assert exhaustive.shape_class(one) != exhaustive.shape_class(two)
    for cores in (True, False):
        done = walk(rs, members=4, max_ply=5, cores=cores)
        assert not done.failures and not done.key_errors, (cores, done.failures)
    assert core_walks(load_ruleset("bonus4x4"))
    assert not core_walks(load_ruleset("bonus4x4(collapse=chance-measurer)"))


def test_the_checkpoint_is_bound_to_its_ruleset_key_and_ply(tmp_path: Any) -> None:
    rs = load_ruleset("russian")
    saved = tmp_path / "walk.json"
    walk(rs, max_ply=3, checkpoint=saved)
    with pytest.raises(FileError, match="not 'kumar'"):
        walk(load_ruleset("kumar"), max_ply=4, checkpoint=saved)
    with pytest.raises(FileError, match="key concrete"):
        walk(rs, max_ply=4, checkpoint=saved, key="concrete")
    data = json.loads(saved.read_text())
    data["ply"] = 5
    saved.write_text(json.dumps(data))
    with pytest.raises(FileError, match="damaged"):
        walk(rs, max_ply=4, checkpoint=saved)


@pytest.mark.slow  # the whole 3×3 game walked twice
def test_the_compiled_core_walks_the_classes_the_engine_walks() -> None:
    """Where the compiled core walks (4×4), it finds the classes the engine's walk finds, ply by
    ply, with the same partition classes and nothing failing; on 3×3 too, the whole game."""
    for name, depth in (("wikipedia(end=full)", None), ("qttt(board=4,end=full)", 7)):
        rs = load_ruleset(name)
        engine = walk(rs, max_ply=depth)
        core = walk(rs, max_ply=depth, members=4, walker="core", engine_ply=3, engine_every=16)
        assert core.positions_by_ply == engine.positions_by_ply
        assert core.partition_classes == engine.partition_classes
        assert core.final_positions == engine.final_positions
        assert not core.failures and not core.key_errors and core.members > 2 * core.positions
        assert 0 < core.engine_checked < core.positions


def test_a_compiled_walk_that_crashes_is_a_violation_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled core, walking 4×4, dies of a segmentation fault measuring a cycle that move 3
    closes: its walk runs in a child process, so the walk goes on without it: the engine checks
    that ply's classes instead, the core's registered path fails cores-agree there with a game
    that replays, and the walk stops incomplete, saying why (never complete, never a crash)."""
    start = "    uint16_t component = p->comp[cell];\n"
    changed_core(monkeypatch, start, start + "    if (p->pending == 3) *(volatile int *)0 = 0;\n")
    rs = load_ruleset("qttt(board=4,end=full)")
    try:
        with as_built(compiled):
            done = walk(rs, max_ply=5, walker="core", engine_ply=2, engine_every=16)
    finally:
        forget()
    assert done.lost is not None and "SIGSEGV" in done.lost and not done.complete, done.lost
    assert len(done.positions_by_ply) == 4  # the ply it crashed on (3) checked by the engine, then stopped
    crashed = done.failures.get("cores-agree", [])
    assert crashed and all("SIGSEGV" in message for message, _, _ in crashed), crashed
    for _, actions, _ in crashed:
        assert replay(rs, actions[:-1]) is not None  # a game the rules allow, up to the action tried


@pytest.mark.slow
def test_a_bug_of_the_compiled_core_alone_is_found_by_its_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled core, walking 4×4, measures a cycle that move 4 closes on cells 0 and 1 into the
    other cell (the engine is right; the core's self-test of three random games does not meet it):
    its own checks flag the position, the engine replays the game and sees the two cores differ
    there."""
    changed_core(monkeypatch, "sm[sp] = p->pending; sc[sp] = cell; sp++;",
                 "sm[sp] = p->pending; sc[sp] = p->pending == 4 && p->ea[4] == 0 && p->eb[4] == 1"
                 " ? 1 - cell : cell; sp++;")
    try:
        report = check("qttt(board=4,end=full)", games=1, exhaustive=True, max_ply=9)
    finally:
        forget()
    cores = next(f for f in report.findings if f.property == "cores-agree")
    assert cores.status == "violated" and cores.witness is not None
    assert report.walk is not None and report.walk["walker"] == "compiled core"


def test_a_walk_by_the_compiled_core_resumes_on_other_workers(tmp_path: Any) -> None:
    rs = load_ruleset("qttt(board=4,end=full)")
    one = walk(rs, max_ply=8, members=2, walker="core", engine_ply=2, engine_every=32)
    saved = tmp_path / "walk.json"
    walk(rs, max_ply=5, members=2, walker="core", engine_ply=2, engine_every=32, processes=2,
         checkpoint=saved)
    assert exhaustive.classes_file(saved).is_file()
    resumed = walk(rs, max_ply=8, members=2, walker="core", engine_ply=2, engine_every=32, processes=3,
                   checkpoint=saved)
    assert resumed.resumed_at == 6 and _result(resumed) == _result(one)
    exhaustive.classes_file(saved).write_bytes(exhaustive.classes_file(saved).read_bytes()[:-3])
    with pytest.raises(FileError, match="cut or changed"):
        walk(rs, max_ply=8, members=2, walker="core", checkpoint=saved)


@pytest.fixture(scope="module")
def russian_walk(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real walk checkpoint of russian after 4 plies (positions 1, 1, 3, 8; 20 to walk)."""
    saved = tmp_path_factory.mktemp("walk") / "walk.json"
    walk(load_ruleset("russian"), max_ply=3, checkpoint=saved)
    data: dict[str, Any] = json.loads(saved.read_text())
    del data["digest"]
    return data


def impossible(data: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    """The checkpoint with one field forged to what no walk of russian can reach: a start of more
    or fewer than one position, a ply of none or more than the previous ply's positions times 36
    (the placements of 9 cells, two at a time), more final positions than positions after the
    start, a position saved twice, a partition class no position has, more partition classes than
    positions."""
    positions, frontier = data["positions_by_ply"], data["frontier"]

    def at(k: int, value: int) -> dict[str, Any]:
        return {**data, "positions_by_ply": [*positions[:k], value, *positions[k + 1:]]}

    plies = st.integers(1, len(positions) - 1)
    return st.one_of(
        st.integers(0, 10 ** 6).filter(lambda n: n != 1).map(lambda n: at(0, n)),
        plies.flatmap(lambda k: st.sampled_from([0, positions[k - 1] * 36 + 1, 10 ** 12]).map(
            lambda n: at(k, n))),
        st.integers(sum(positions[1:]) + 1, 10 ** 12).map(lambda n: {**data, "final_positions": n}),
        st.integers(0, len(frontier) - 1).map(lambda i: {**data, "frontier": [*frontier, frontier[i]]}),
        st.sampled_from([["place", [10], 0], ["over", [0], 0], ["measure", [2, -1], 2], ["chance", [], None],
                         ["spooky", [1], 0], ["place", [9], 1], "place", ["place", [1]]]).map(
            lambda p: {**data, "partitions": [*data["partitions"], p]}),
        st.just({**data, "partitions": [["place", [1] * k, 0] for k in range(1, 10)] * 2
                 + [["measure", [1] * k, 1] for k in range(9)]}),
    )


@given(data=st.data())
@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_forged_walk_checkpoint_with_a_valid_digest_is_damaged(russian_walk: dict[str, Any],
                                                                tmp_path: Any, data: st.DataObject) -> None:
    """The digest is a checksum against accidents, not a seal: a walk checkpoint forged with its
    digest recomputed is still refused (rule io-checkpoint: damaged, the file named) when what it
    says no walk can reach, so that no file makes `qttt check` print an impossible count."""
    forged = data.draw(impossible(russian_walk))
    path = tmp_path / "forged.json"
    write_checkpoint(path, forged)
    with pytest.raises(FileError, match="damaged") as e:
        resumable(load_ruleset("russian"), path)
    assert str(path) in str(e.value) and "\n" not in str(e.value)


def test_the_real_walk_checkpoint_resumes(russian_walk: dict[str, Any], tmp_path: Any) -> None:
    path = tmp_path / "real.json"
    write_checkpoint(path, russian_walk)
    resumable(load_ruleset("russian"), path)
    assert walk(load_ruleset("russian"), max_ply=5, checkpoint=path).positions_by_ply == [1, 1, 3, 8, 20, 49]
