"""The exhaustive walk of verify.quantum.exhaustive: its shape key is a canonical form (isomorphic positions
get equal keys, checked against brute force over every relabelling of the cells) and sound for what
the walk checks (positions with equal keys have the same legal-action count, phase, player parity
and successor keys: a bisimulation), and the walk visits every class."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import load_ruleset, with_params
from qttt.cli import main
from qttt.errors import FileError
from qttt.io import write_checkpoint
from qttt.quantum.engine import State
from verify.quantum.abstract import abstract_of
from verify.quantum.exhaustive import resumable, shape_key, walk, walk_ruleset


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
    assert all("resumed from a checkpoint at ply 2" in f["label"] for f in rows
               if f["property"] in ("collapse-uniqueness", "no-deadlock"))
    assert main(["check", spec, "--exhaustive", "--json-document", *one]) == 0  # the same walk, run whole
    whole = [f for r in json.loads(capsys.readouterr().out)["rulesets"] for f in r["properties"]]
    assert any(f["status"] == "exhaustive" for f in whole)


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
