"""Analysis: game counts, solved values and random-play statistics, each checked by a second method."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from functools import cache
from math import comb
from pathlib import Path
from typing import Any

import pytest
from positions import THREE, midgame

from qttt import load_ruleset
from qttt.analysis.sample import sample_games
from qttt.cli import main
from qttt.errors import QtttError
from qttt.geometry import board_symmetries
from qttt.io import write_checkpoint
from qttt.processes import local_mapper
from qttt.quantum.analysis.count import board_after, brute_force_nodes, count_games, encode
from qttt.quantum.analysis.keys import numbered_key, owner_key, relabel
from qttt.quantum.analysis.solve import Solver, minimax, solve
from qttt.quantum.engine import Measure, Place, State, playout
from qttt.quantum.game import compile_game


@cache
def partitions_count(sizes: tuple[int, ...], forced_last: bool, vanish: bool) -> int:
    """Complete games under end = full, by combinatorics alone (no engine): any pair of open cells
    is a placement; inside a component of s cells it closes a cycle (2 measurement choices, then
    the component is classical); across components it merges them."""
    left = sum(sizes)
    if left == 0 or (left == 1 and not forced_last):
        return 1
    if left == 1:
        return 1
    total = 0
    for i, s in enumerate(sizes):
        rest = sizes[:i] + sizes[i + 1:]
        after = tuple(1 for _ in range(sum(rest))) if vanish else rest
        total += comb(s, 2) * 2 * partitions_count(tuple(sorted(after)), forced_last, vanish)
        for j in range(i + 1, len(sizes)):
            merged = tuple(sorted(sizes[:i] + sizes[i + 1:j] + sizes[j + 1:] + (s + sizes[j],)))
            total += s * sizes[j] * partitions_count(merged, forced_last, vanish)
    return total


def test_kumar_count_matches_combinatorics_and_paper() -> None:
    res = count_games(load_ruleset("kumar"))
    assert res.complete
    assert res.games == partitions_count((1,) * 9, True, False)
    assert res.games == 18_539_269_580_160  # Kumar et al.: "about 18 trillion"
    assert res.nodes_by_ply[:4] == [1, 36, 36 * 36, 45432]


@pytest.mark.parametrize("name", ["russian", "russian-unstable"])
def test_full_board_counts_match_combinatorics(name: str) -> None:
    rs = load_ruleset(name)
    expected = partitions_count((1,) * 9, rs.rules.last_square == "forced", rs.rules.untouched == "vanish")
    assert count_games(rs).games == expected


@pytest.mark.parametrize("name", THREE)
def test_count_matches_engine_enumeration_at_small_depth(name: str) -> None:
    rs = load_ruleset(name)
    nodes, _ = brute_force_nodes(rs, 2)
    assert count_games(rs, max_ply=2).nodes_by_ply == nodes
    if rs.rules.end == "full":  # the owner key must agree with the partition key
        assert (count_games(rs, kind="owner", max_ply=3).nodes_by_ply
                == count_games(rs, kind="partition", max_ply=3).nodes_by_ply)


@pytest.mark.parametrize("name", THREE)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_complete_count_from_midgame_matches_engine(name: str, seed: int) -> None:
    rs = load_ruleset(name)
    start = midgame(name, seed, 300)
    res = count_games(rs, start=start)
    nodes, ended = brute_force_nodes(rs, 40, start)
    assert res.games == ended
    assert res.nodes_by_ply == nodes[:len(res.nodes_by_ply)]


@pytest.mark.parametrize("name", THREE)
@pytest.mark.parametrize("seed", [4, 5])
def test_solver_matches_plain_minimax(name: str, seed: int) -> None:
    rs = load_ruleset(name)
    b = board_after(rs, midgame(name, seed, 2000))
    expected = minimax(b)
    assert Solver(rs).exact_value(b) == expected
    assert Solver(rs, memo=False).exact_value(b) == expected
    assert abs(expected) <= compile_game(rs).bound


def test_principal_variation_reaches_the_value() -> None:
    rs = load_ruleset("kumar")
    start = midgame("kumar", 6, 2000)
    res = solve(rs, start=start)
    state = State.initial(rs)
    for code in start + tuple(encode(a, 9) for a in res.pv):
        state = state.apply(Measure(-code - 1) if code < 0 else Place(*divmod(code, 9)))
    assert state.over
    assert state.scores["x"] - state.scores["o"] == res.value
    assert res.value == minimax(board_after(rs, start))


@pytest.mark.parametrize("name", THREE)
def test_keys_are_invariant_under_board_symmetries(name: str) -> None:
    rs = load_ruleset(name)
    assert len(compile_game(rs).symmetries) == 8
    actions, _ = playout(rs, random.Random(7))
    for p in board_symmetries(3):
        moved = [Place(p[a.a], p[a.b]) if isinstance(a, Place) else Measure(p[a.cell]) for a in actions]
        for cut in range(len(actions)):
            b1 = board_after(rs, [encode(a, 9) for a in actions[:cut]])
            b2 = board_after(rs, [encode(Place(min(a), max(a)) if isinstance(a, Place) else a, 9)
                                  for a in moved[:cut]])
            assert owner_key(rs, b1) == owner_key(rs, b2)
            assert numbered_key(rs, b1) == numbered_key(rs, b2)


def test_relabel_keeps_order_and_parity() -> None:
    assert relabel([1, 2, 5, 8]) == {1: 1, 2: 2, 5: 3, 8: 4}
    assert relabel([3, 7, 9]) == {3: 1, 7: 3, 9: 5}
    assert relabel([4, 6, 7]) == {4: 2, 6: 4, 7: 5}


def test_sampling_is_independent_of_workers_and_resumes(tmp_path: Path) -> None:
    rs = load_ruleset("kumar")
    alone = sample_games(rs, 300, seed=3, chunk=50)
    mapper, stop = local_mapper(2)
    try:
        pooled = sample_games(rs, 300, seed=3, chunk=50, mapper=mapper)
    finally:
        stop()
    assert pooled.histogram == alone.histogram
    cp = tmp_path / "cp.json"
    sample_games(rs, 100, seed=3, chunk=50, checkpoint=cp)  # a first run that did 2 of 6 chunks
    data = json.loads(cp.read_text())
    del data["digest"]
    data["chunks"], data["games"] = 6, 300  # as a run of 300 games saves it after 2 chunks
    write_checkpoint(cp, data)
    resumed = sample_games(rs, 300, seed=3, chunk=50, checkpoint=cp)
    assert resumed.histogram == alone.histogram
    # the mean is the mean of the replayed games, recomputed here from the engine
    rng = random.Random("3:0")
    diffs = []
    for _ in range(50):
        _, st = playout(rs, rng)
        diffs.append(st.scores["x"] - st.scores["o"])
    first = sample_games(rs, 50, seed=3, chunk=50)
    assert first.mean("diff") == pytest.approx(float(sum(diffs, Fraction(0)) / 50))
    lo, hi = first.interval("diff")
    assert lo < first.mean("diff") < hi


def test_cli_count_and_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "count", "kumar", "--quiet"]) == 0
    assert "18,539,269,580,160" in capsys.readouterr().out
    assert main(["analyze", "count", "no-such-ruleset"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "record-variant" in err


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_answers() -> None:
    pytest.importorskip("distributed")
    from qttt.analysis.distributed import dask_mapper
    rs = load_ruleset("kumar")
    with dask_mapper(None, 2) as m:
        sampled = sample_games(rs, 200, seed=1, chunk=50, mapper=m)
        counted = count_games(rs, kind="owner", max_ply=3, chunk=20, mapper=m)
    assert sampled.histogram == sample_games(rs, 200, seed=1, chunk=50).histogram
    assert counted.nodes_by_ply == count_games(rs, kind="owner", max_ply=3).nodes_by_ply
    assert counted.positions_by_ply == count_games(rs, kind="owner", max_ply=3).positions_by_ply


def _forged(data: dict[str, Any], field: str, value: Any) -> dict[str, Any]:
    return {**data, field: value}


@pytest.mark.parametrize(("field", "value", "words"), [
    ("histogram", [["0", "1", 10 ** 18]], "$.histogram: 1,000,000,000,000,000,000 games tallied, but"),
    ("histogram", [["5", "0", 100]], "$.histogram[0]: 5 - 0 is no score a game of wikipedia ends with"),
    ("histogram", [["0", "3/2", 100]], "$.histogram[0]: 0 - 3/2 is no score"),
    ("histogram", [["0", "1", 0], ["1", "0", 100]], "$.histogram[0]: 0 games"),
    ("histogram", [["0", "1", 50], ["0", "1", 50]], "listed twice"),
    ("histogram", [], "0 games tallied, but the 2 chunks done hold 100"),
    ("done", [0, 0], "$.done names a chunk twice"),
    ("done", [0, 2], "beyond the run's 2 chunks"),
    ("lines", {"x": 10 ** 6}, "$.lines: 1,000,000 games tallied"),
    ("lines", {}, "$.lines: 0 games tallied, but the chunks done hold 100"),  # wikipedia's are tallied
    ("shapes", [[5, 0, 100]], "$.shapes: 100 games tallied, but games of wikipedia are not tallied by shape"),
])
def test_a_checkpoint_forged_with_a_valid_digest_is_damaged(tmp_path: Path, field: str, value: Any,
                                                            words: str) -> None:
    """A checkpoint's digest is a checksum anyone can recompute: what it holds is checked for
    sense (issue 32 item 2), never printed as a result the rules cannot produce."""
    rs = load_ruleset("wikipedia")
    cp = tmp_path / "cp.json"
    honest = sample_games(rs, 100, seed=1, chunk=50, checkpoint=cp)
    data = json.loads(cp.read_text())
    del data["digest"]
    write_checkpoint(cp, data)
    assert sample_games(rs, 100, seed=1, chunk=50, checkpoint=cp).histogram == honest.histogram
    write_checkpoint(cp, _forged(data, field, value))
    with pytest.raises(QtttError, match="damaged") as refused:
        sample_games(rs, 100, seed=1, chunk=50, checkpoint=cp)
    assert words in str(refused.value)


def test_a_checkpoint_is_bound_to_its_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cp = tmp_path / "cp.json"
    args = ["analyze", "random", "wikipedia", "--seed", "1", "--chunk", "50", "--checkpoint", str(cp),
            "--quiet"]
    assert main([*args, "-n", "100"]) == 0
    capsys.readouterr()
    assert main([*args, "-n", "4000"]) == 2
    err = capsys.readouterr().err
    assert "is of another run (chunks 2 there, 80 now; games 100 there, 4000 now)" in err, err
    assert err.count("\n") == 1


def test_a_solve_checkpoint_holds_only_values_the_rules_can_give(tmp_path: Path) -> None:
    """A first action's saved value, its digest valid, is a score difference a game can end with,
    and the checkpoint is of this very run (ruleset, start)."""
    rs = load_ruleset("qttt(board=2)")
    cp = tmp_path / "cp.json"
    honest = solve(rs, checkpoint=cp, core="python")
    data = json.loads(cp.read_text())
    del data["digest"]
    code = next(iter(data["values"]))
    write_checkpoint(cp, {**data, "values": {**data["values"], code: "1000"}})
    with pytest.raises(QtttError, match=rf"values\.{code}: 1000 is no score difference a game of "):
        solve(rs, checkpoint=cp, core="python")
    write_checkpoint(cp, {**data, "ruleset": "kumar"})
    with pytest.raises(QtttError, match=r'is of another run \("kumar" from \[\], not "qttt\(board=2\)" from'):
        solve(rs, checkpoint=cp, core="python")
    write_checkpoint(cp, data)
    assert solve(rs, checkpoint=cp, core="python").value == honest.value


@pytest.fixture(scope="module")
def count_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The content of a wikipedia count's checkpoint after two plies, checked to resume to the
    count of three plies once saved again with its digest."""
    rs = load_ruleset("wikipedia")
    cp = tmp_path_factory.mktemp("count") / "cp.json"
    count_games(rs, max_ply=2, checkpoint=cp)
    data: dict[str, Any] = json.loads(cp.read_text())
    del data["digest"]
    write_checkpoint(cp, data)
    assert count_games(rs, max_ply=3, checkpoint=cp).nodes_by_ply == count_games(rs, max_ply=3).nodes_by_ply
    return data


@pytest.mark.parametrize(("field", "value", "words"), [
    ("games_by_ply", [10 ** 18, 0], "ply 0: 1 nodes, 1,000,000,000,000,000,000 games"),
    ("nodes_by_ply", [2, 36], "a count starts from one position"),
    ("nodes_by_ply", [1, 10 ** 6], "ply 1: 1,000,000 nodes, 0 games and 8 positions cannot follow 1"),
    ("positions_by_ply", [1, 0], "ply 1: 36 nodes, 0 games and 0 positions"),
    ("deadlocks", 5, "5 deadlocks among 0 games"),
])
def test_a_count_checkpoint_forged_with_a_valid_digest_is_damaged(
        tmp_path: Path, count_checkpoint: dict[str, Any], field: str, value: Any, words: str) -> None:
    """Counts a count cannot reach (more games than nodes, a second start, more children than a
    position has actions, ...) are refused though the digest is valid."""
    rs = load_ruleset("wikipedia")
    cp = tmp_path / "cp.json"
    write_checkpoint(cp, {**count_checkpoint, field: value})
    with pytest.raises(QtttError, match="damaged") as refused:
        count_games(rs, max_ply=3, checkpoint=cp)
    assert words in str(refused.value), refused.value
