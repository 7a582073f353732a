"""The compiled nested core (qttt/nested/_core.c) as a second implementation of the rules of the
nested-classical family: the same random games as the Python engine for a seed (built-in ruleset,
editions, coverage variant, and generated rulesets over every parameter), the same positions,
legal sets and refusals step by step, the committed perft tables, the conformance suites served
through `qttt engine --core compiled`, the same search-player rollouts, and the commands falling
back to the Python engine when there is no compiler."""

from __future__ import annotations

import ctypes
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cores import no_core
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.analysis.sample import sample_games
from qttt.cli import main
from qttt.conformance.core import CompiledEngine
from qttt.conformance.perft import perft_counts
from qttt.conformance.runner import InProcessEngine, Runner, load_suites
from qttt.conformance.suite import coverage_vectors_dir, nested_vectors_dir
from qttt.errors import IllegalAction, RecordError
from qttt.family import Mark
from qttt.native import CoreUnavailable
from qttt.nested import compiled as nested_core
from qttt.nested.engine import NestedState, compile_nested, nested_playout
from qttt.nested.strategies import nested_rulesets
from qttt.notation import action_from_json
from qttt.players import SearchPlayer
from qttt.quantum import compiled
from qttt.ruleset import Ruleset
from qttt.spec import spec_dir
from qttt.variant import load_ruleset

REASON = nested_core.available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"compiled nested core unavailable: {REASON}")
NAMES = ["intelligent", str(spec_dir() / "editions" / "intelligent-2016.toml"),
         str(spec_dir() / "editions" / "intelligent-2018.toml"),
         str(spec_dir() / "coverage" / "nested-weighted-majority.toml")]
IDS = [Path(n).stem for n in NAMES]


def assert_same_games(rs: Ruleset, seed: int, games: int) -> None:
    """The core's games from `seed` are the engine's, move by move, with the same points, and
    leave the generator where the engine leaves it."""
    core = nested_core.core_for(rs)
    fast, slow = random.Random(seed), random.Random(seed)
    cells, lengths, points = core.games(fast, games)
    for i in range(games):
        moves, final = nested_playout(rs, slow)
        assert [m.cell for m in moves] == cells[i] and lengths[i] == len(moves), (rs.name, seed, i)
        assert (core.points(points[i][0]), core.points(points[i][1])) == (
            final.scores["x"], final.scores["o"]), (rs.name, seed, i)
    assert fast.getstate() == slow.getstate()


@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_the_same_random_games_as_the_engine(name: str) -> None:
    assert_same_games(load_ruleset(name), 7, 150)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_the_same_random_games_as_the_engine_at_length(name: str) -> None:
    # 5,000 games per ruleset here; bench/bench_nested.py --agree 100000 runs the 100,000-game check
    assert_same_games(load_ruleset(name), 2025, 5000)


@settings(max_examples=examples(60), deadline=None)
@given(rs=nested_rulesets(), seed=st.integers(0, 2 ** 32))
def test_any_nested_ruleset_and_seed_gives_the_engines_games(rs: Ruleset, seed: int) -> None:
    assert_same_games(rs, seed, 3)


@settings(max_examples=examples(25), deadline=None)
@given(seed=st.integers(0, 2 ** 32), name=st.sampled_from(NAMES))
def test_any_seed_gives_the_engines_games(seed: int, name: str) -> None:
    assert_same_games(load_ruleset(name), seed, 5)


def assert_same_positions(rs: Ruleset, seed: int) -> None:
    """Along a random game: the same view, legal set and refusals (rule and message) as the engine,
    and a position loaded from the engine's state equals the one reached by moves."""
    rng = random.Random(seed)
    core = nested_core.core_for(rs)
    pos, state = core.position(), NestedState.initial(rs)
    while True:
        v = pos.view()
        assert (v.over, v.to_move, v.move, v.last, v.bonus, v.winner, v.blocks, v.target) == (
            state.over, state.to_move, state.move, state.last, state.bonus, state.winner,
            state.blocks, state.target)
        assert (v.x, v.o) == state.cell_masks
        assert {"x": v.scores[0], "o": v.scores[1]} == state.scores
        assert core.load(state).view() == v
        assert tuple(pos.legal()) == state.legal_actions()
        for probe in [Mark(rng.randrange(-2, core.cells + 2)) for _ in range(4)]:
            assert _refusal(pos.copy().apply, probe) == _refusal(state.apply, probe), probe
        if state.over:
            assert _refusal(pos.apply, Mark(0)) == ("over-no-action", "the game is over; no action is legal")
            return
        act = state.legal_actions()[rng.randrange(len(state.legal_actions()))]
        state = state.apply(act)
        pos.apply(act)


def _refusal(apply: Callable[[Mark], object], action: Mark) -> tuple[str, str] | None:
    """The rule and message of `apply(action)`'s refusal, or None when it is legal."""
    try:
        apply(action)
    except IllegalAction as e:
        return str(e.rule), e.message
    return None


@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_positions_legal_sets_and_refusals_equal_the_engines(name: str) -> None:
    assert_same_positions(load_ruleset(name), 3)


@settings(max_examples=examples(30), deadline=None)
@given(rs=nested_rulesets(max_board=4), seed=st.integers(0, 2 ** 32))
def test_positions_of_any_nested_ruleset_equal_the_engines(rs: Ruleset, seed: int) -> None:
    assert_same_positions(rs, seed)


def test_another_familys_action_is_a_record_error() -> None:
    pos = nested_core.core_for(load_ruleset("intelligent")).position()
    with pytest.raises(RecordError) as e:
        pos.apply(action_from_json({"place": [0, 1]}))
    assert e.value.rule == "record-format"


def _suites() -> list[Path]:
    return [*sorted(nested_vectors_dir().glob("*.json")),
            coverage_vectors_dir() / "nested-weighted-majority.json"]


def test_perft_equals_every_committed_nested_table() -> None:
    checked = 0
    for path in _suites():
        suite = json.loads(path.read_text(encoding="utf-8"))
        for entry in suite["perft"]:
            start = entry["start"]
            rs = load_ruleset(start["variant"])
            pos = nested_core.core_for(rs).position(action_from_json(a) for a in start["actions"])
            assert pos.perft(len(entry["counts"])) == entry["counts"], entry["id"]
            for d in entry["divide"]:
                child = pos.copy()
                child.apply(action_from_json(d["action"]))
                depth = len(entry["counts"]) - 1
                assert (child.perft(depth)[-1] if depth else 1) == d["nodes"], entry["id"]
            checked += 1
    assert checked >= 8


@settings(max_examples=examples(20), deadline=None)
@given(rs=nested_rulesets(max_board=3), seed=st.integers(0, 2 ** 32), plies=st.integers(0, 30))
def test_perft_equals_the_engines_anywhere(rs: Ruleset, seed: int, plies: int) -> None:
    rng = random.Random(seed)
    state = NestedState.initial(rs)
    pos = nested_core.core_for(rs).position()
    for _ in range(plies):
        if state.over:
            break
        act = state.legal_actions()[rng.randrange(len(state.legal_actions()))]
        state = state.apply(act)
        pos.apply(act)
    assert pos.perft(3) == perft_counts(state, 3)


def test_the_compiled_engine_passes_every_nested_suite() -> None:
    served = []

    class Watched(CompiledEngine):
        def handle(self, request: dict[str, object]) -> dict[str, object]:
            out = super().handle(request)
            if request.get("cmd") == "new" and out["ok"]:
                served.append(isinstance(self.pos, nested_core.NestedPosition))
            return out

    report = Runner(lambda: InProcessEngine(Watched()), 20.0, 60.0).run(load_suites(_suites()))
    passed = report.count("strict", "passed")
    assert passed == len(report.results) and passed > 30
    assert served and all(served)  # every suite's games were played by the nested core


def test_a_core_that_lies_fails_a_nested_suite() -> None:
    class Lying(CompiledEngine):
        def handle(self, request: dict[str, object]) -> dict[str, object]:
            out = super().handle(request)
            if request.get("cmd") == "state" and isinstance(out.get("state"), dict):
                state = dict(out["state"])
                state["blocks"] = ["open"] * len(state["blocks"])
                return {**out, "state": state}
            return out

    report = Runner(lambda: InProcessEngine(Lying()), 20.0, 60.0).run(load_suites(_suites()[:1]))
    assert report.count("strict", "passed") < len(report.results)


@pytest.mark.parametrize("name", NAMES[:2], ids=IDS[:2])
def test_search_rollouts_are_the_engines(name: str) -> None:
    rs = load_ruleset(name)
    state = NestedState.initial(rs)
    rng = random.Random(11)
    for _ in range(20):
        state = state.apply(state.legal_actions()[rng.randrange(len(state.legal_actions()))])
    core = nested_core.core_for(rs)
    for seed in range(20):
        a, b = random.Random(seed), random.Random(seed)
        _, final = _engine_rollout(state, b)
        assert core.rollout(state, a) == final.scores and a.getstate() == b.getstate()
    picks = {c: SearchPlayer(seed=5, seconds=None, playouts=300, core=c).choose(state)
             for c in ("compiled", "python")}
    assert picks["compiled"] == picks["python"]


def _engine_rollout(state: NestedState, rng: random.Random) -> tuple[int, NestedState]:
    moves = 0
    while not state.over:
        legal = state.legal_actions()
        state = state.apply(legal[int(rng.random() * len(legal))])
        moves += 1
    return moves, state


def test_commands_use_the_core_and_say_the_same(capsys: pytest.CaptureFixture[str]) -> None:
    outputs = {}
    for core in ("compiled", "python"):
        assert main(["random", "intelligent", "-n", "3", "--seed", "8", "--core", core]) == 0
        games = capsys.readouterr().out
        assert main(["perft", "intelligent", "--depth", "3", "--divide", "--core", core]) == 0
        perft = capsys.readouterr().out
        outputs[core] = (games, perft)
    assert outputs["compiled"] == outputs["python"]
    rs = load_ruleset("intelligent")
    a = sample_games(rs, 300, seed=3, chunk=100, core="compiled")
    b = sample_games(rs, 300, seed=3, chunk=100, core="python")
    assert a.histogram == b.histogram and a.shapes == b.shapes


def test_without_a_compiler_commands_fall_back_or_refuse(capsys: pytest.CaptureFixture[str],
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         tmp_path: Path) -> None:
    rs = load_ruleset("intelligent")
    with no_core(monkeypatch, tmp_path):
        assert "no C compiler" in (nested_core.available() or "")
        assert not nested_core.use_compiled(rs, "auto")
        with pytest.raises(CoreUnavailable):
            nested_core.use_compiled(rs, "compiled")
        assert main(["random", "intelligent", "-n", "2", "--seed", "8"]) == 0
        out = capsys.readouterr()
        assert len(out.out.splitlines()) == 2
        assert out.err.startswith("qttt: compiled core unavailable (no C compiler found to build "
                                  "nested/_core.c); using the Python engine, about "), out.err
        assert main(["perft", "intelligent", "--depth", "2"]) == 0
        assert "depth 2:" in capsys.readouterr().out
        assert main(["random", "intelligent", "--core", "compiled"]) == 2
        assert "no C compiler" in capsys.readouterr().err
        player = SearchPlayer(seed=1, seconds=None, playouts=20)
        assert player.choose(NestedState.initial(rs)) in NestedState.initial(rs).legal_actions()


@pytest.mark.parametrize("core", [nested_core, compiled], ids=["nested", "quantum"])
def test_a_stale_configuration_header_is_refused(core: Any, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A core's _config.h that differs from what Python writes from the declarations (a field
    dropped) is refused before any build."""
    stale = tmp_path / "_config.h"
    stale.write_text(core.config_header().replace(f"X({core.CONFIG_FIELDS[-1]})", ""), encoding="utf-8")
    monkeypatch.setattr(core, "HEADER_PATH", stale)
    core.library.cache_clear()
    try:
        with pytest.raises(CoreUnavailable, match=r"_config\.h does not match the declarations"):
            core.library()
    finally:
        core.library.cache_clear()


@pytest.mark.parametrize("name", NAMES, ids=IDS)
def test_the_nested_core_reads_the_fields_python_declares(name: str) -> None:
    """The core refuses a configuration a value short or long, and an award code the declarations
    do not name."""
    rs = load_ruleset(name)
    rules = compile_nested(rs)
    cfg, _ = nested_core.config(rs)
    lib = nested_core.library()

    def accepted(values: list[int]) -> bool:
        handle = lib.qn_new((ctypes.c_int64 * len(values))(*values), len(values))
        if handle:
            lib.qn_free(handle)
        return bool(handle)

    assert accepted(cfg)
    assert not accepted(cfg[:-1]) and not accepted([*cfg, 0])
    first = len(cfg) - len(rs.scoring) * (1 + len(nested_core.POINT_FIELDS) + rules.side)  # first award code
    assert cfg[first] in nested_core.AWARD_CODES.values()
    assert not accepted([*cfg[:first], max(nested_core.AWARD_CODES.values()) + 1, *cfg[first + 1:]])
