"""The compiled rules core (qttt/quantum/_core.c) as a second implementation of the rules: the
same random games as the Python engine from the same seeds (whole games compared, 100,000 per
built-in ruleset in the slow lane), the same perft counts, the conformance suites through the
engine protocol, exact values near the end equal to plain minimax, and the Python fallback
where there is no compiler."""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from unittest import mock

import pytest
from cores import no_core
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt import builtin_names, load_ruleset
from qttt.analysis import sample as random_play
from qttt.analysis.sample import sample_games
from qttt.cli import main
from qttt.cli import sample as sample_cli
from qttt.conformance.core import CompiledEngine
from qttt.conformance.perft import perft_counts
from qttt.conformance.runner import InProcessEngine, Runner, load_suites
from qttt.conformance.suite import vectors_dir
from qttt.native import CoreUnavailable
from qttt.notation import action_to_json
from qttt.quantum import compiled
from qttt.quantum.analysis.count import board_after, encode
from qttt.quantum.analysis.solve import minimax
from qttt.quantum.compiled import core_for, use_compiled
from qttt.quantum.engine import State, playout
from qttt.quantum.game import COMPILED, compile_game
from qttt.ruleset import Ruleset, with_params
from qttt.vocabulary import Component

REASON = compiled.available()
needs_core = pytest.mark.skipif(REASON is not None, reason=f"compiled core unavailable: {REASON}")
MASK = (1 << 64) - 1


def _others() -> list[Ruleset]:
    """Rulesets exercising parameter values the built-ins leave alone, on 2×2, 3×3 and 4×4."""
    bonus, wiki, kumar = load_ruleset("bonus4x4"), load_ruleset("wikipedia"), load_ruleset("kumar")
    ranks3 = Component("rank", "line", 3, (("ranks", "harmonic"),))
    pairs = Component("first-line", "line", 2, (
        ("sole", Fraction(2)), ("first", Fraction(3, 2)), ("second", Fraction(1, 4)),
        ("neither", Fraction(1)), ("tie", Fraction(1, 5)), ("tiebreak", ("min-max",)),
        ("fallback", ("min-sum",))))
    return [
        with_params(bonus, two_cycles=False),  # deadlocks
        with_params(bonus, untouched="vanish", measurer="creator"),
        with_params(bonus, last_square="end", end_line=3),
        with_params(bonus, end="full"),
        replace(bonus, scoring=(ranks3, pairs), name="bonus-ranks", path=None),
        with_params(kumar, measurer="creator", two_cycles=False),
        with_params(wiki, untouched="vanish"),
        with_params(wiki, board=2),
        load_ruleset("wikipedia(double_line=2)"), load_ruleset("wikipedia(double_line=3/2)"),
    ]


RULESETS = [load_ruleset(n) for n in builtin_names()] + _others()
IDS = [rs.name for rs in RULESETS]


def digest(codes: list[int], phase: str, x: Fraction, o: Fraction, scale: int) -> int:
    """FNV-1a over the encoded actions, the final phase and the scaled scores (the core's digest,
    written again from its definition)."""
    h = 0xCBF29CE484222325
    for v in [*codes, ("place", "measure", "over").index(phase), int(x * scale), int(o * scale)]:
        h = ((h ^ (v & MASK)) * 0x100000001B3) & MASK
    return h


def python_games(rs: Ruleset, rng: random.Random,
                 games: int) -> list[tuple[list[int], str, Fraction, Fraction]]:
    n2 = rs.board ** 2
    out = []
    for _ in range(games):
        actions, state = playout(rs, rng)
        out.append(([encode(a, n2) for a in actions], state.phase, state.scores["x"], state.scores["o"]))
    return out


@needs_core
@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_same_seed_same_games_as_the_python_engine(rs: Ruleset) -> None:
    core = core_for(rs)
    r1, r2 = random.Random(7), random.Random(7)
    mine = core.games(r1, 800)
    theirs = python_games(rs, r2, 800)
    assert r1.getstate() == r2.getstate()  # the generator is left where the engine leaves it
    for i, ((codes, x, o, phase, d), (pcodes, pphase, px, po)) in enumerate(zip(mine, theirs, strict=True)):
        assert (codes, phase, Fraction(x, core.scale), Fraction(o, core.scale)) == (pcodes, pphase, px, po), i
        assert d == digest(pcodes, pphase, px, po, core.scale)


@needs_core
@pytest.mark.slow
@pytest.mark.parametrize("name", builtin_names())
def test_100000_games_agree_with_the_python_engine(name: str) -> None:
    rs = load_ruleset(name)
    core = core_for(rs)
    scale = compile_game(rs).scale
    r1, r2 = random.Random(f"differential:{name}"), random.Random(f"differential:{name}")
    mine = [g[4] for g in core.games(r1, 100_000)]
    n2 = rs.board ** 2
    for i, d in enumerate(mine):
        actions, state = playout(rs, r2)
        s = state.scores
        assert d == digest([encode(a, n2) for a in actions], state.phase, s["x"], s["o"], scale), i
    assert r1.getstate() == r2.getstate()


@needs_core
@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_perft_equals_the_engine(rs: Ruleset) -> None:
    core = core_for(rs)
    rng = random.Random(3)
    depth = 3 if rs.board <= 3 else 2
    for _ in range(4):
        actions, _ = playout(rs, rng)
        cut = rng.randrange(len(actions) + 1)
        state = State.initial(rs)
        for a in actions[:cut]:
            state = state.apply(a)
        assert core.position(actions[:cut]).perft(depth) == perft_counts(state, depth)


@needs_core
@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_positions_and_refusals_equal_the_engine(rs: Ruleset) -> None:
    core = core_for(rs)
    rng = random.Random(5)
    n2 = rs.board ** 2
    for _ in range(30):
        state, pos = State.initial(rs), core.position()
        while True:
            v = pos.view()
            assert (v.phase, v.move, v.pending, v.to_move, v.cycle) == (
                state.phase, state.move, state.pending, state.to_move, state.cycle)
            assert v.classical == state.classical and v.spooky == state.spooky
            assert v.scores == (state.scores["x"], state.scores["o"])
            assert pos.legal() == list(state.legal_actions())
            probe = compiled.decode(rng.randrange(-n2 - 1, n2 * n2 + 1), n2)
            try:
                state.apply(probe)
                expected = None
            except Exception as e:  # the engine's refusal names a rule
                expected = getattr(e, "rule", None)
            trial = pos.copy()
            try:
                trial.apply(probe)
                got = None
            except Exception as e:
                got = getattr(e, "rule", None)
            assert got == expected, probe
            legal = state.legal_actions()
            if not legal:
                break
            act = legal[rng.randrange(len(legal))]
            state = state.apply(act)
            pos.apply(act)


def _conform(engine: type[CompiledEngine], pattern: str = "*.json") -> tuple[int, int]:
    """Items passed at the strict level, and items not passed, over the suites."""
    report = Runner(lambda: InProcessEngine(engine()), 20.0, 60.0).run(
        load_suites(sorted(vectors_dir().glob(pattern))))
    passed = report.count("strict", "passed")
    return passed, len(report.results) - passed


@pytest.mark.slow
@needs_core
def test_compiled_engine_passes_every_conformance_suite() -> None:
    served = []

    class Watched(CompiledEngine):
        def handle(self, request: dict[str, object]) -> dict[str, object]:
            out = super().handle(request)
            if request.get("cmd") == "new" and out["ok"]:
                served.append(self.pos is not None)
            return out

    passed, failed = _conform(Watched)
    assert failed == 0 and passed > 100
    assert served and all(served)  # every suite's games were played by the core


@needs_core
def test_a_core_that_lies_fails_conformance() -> None:
    class Lying(CompiledEngine):
        def handle(self, request: dict[str, object]) -> dict[str, object]:
            out = super().handle(request)
            if request.get("cmd") == "legal" and out.get("legal"):
                return {**out, "legal": out["legal"][1:]}
            return out

    _, failed = _conform(Lying, "wikipedia.json")
    assert failed > 0


@needs_core
@pytest.mark.parametrize("name", ["bonus4x4", "kumar"])
def test_exact_values_near_the_end_equal_minimax(name: str) -> None:
    rs = load_ruleset(name)
    core = core_for(rs)
    rng = random.Random(9)
    n2 = rs.board ** 2
    done = 0
    while done < 5:
        actions, _ = playout(rs, rng)
        state = State.initial(rs)
        for i, a in enumerate(actions):
            if state.phase == "place" and len(state.open_cells) <= 4:
                codes = [encode(b, n2) for b in actions[:i]]
                value, nodes = core.exact_value(core.position(actions[:i]))
                assert value == minimax(board_after(rs, codes)) and nodes > 0
                done += 1
                break
            state = state.apply(a)


@needs_core
@pytest.mark.parametrize("rs", [load_ruleset("bonus4x4"),
                                with_params(load_ruleset("bonus4x4"), two_cycles=False)],
                         ids=["bonus4x4", "deadlocks"])
def test_sampling_gives_the_same_table_with_either_core(rs: Ruleset) -> None:
    a = sample_games(rs, 1200, seed=4, chunk=500, core="compiled")
    b = sample_games(rs, 1200, seed=4, chunk=500, core="python")
    assert a.to_json() == b.to_json() and a.games == 1200
    assert sum(a.lines.values()) == 1200 and a.lines["x"] and a.lines["neither"]


@needs_core
def test_line_results_are_the_score_outcomes_where_the_line_award_is_the_score() -> None:
    res = sample_games(load_ruleset("wikipedia"), 5000, seed=8, chunk=1000)  # 1 / 1 and 1/2 / 0
    out = res.outcomes()
    assert (res.lines["x"], res.lines["o"], res.lines["neither"]) == (out["x"], out["o"], out["draw"])


@needs_core
def test_cli_random_is_the_same_with_either_core(capsys: pytest.CaptureFixture[str]) -> None:
    out = []
    for core in ("compiled", "python"):
        assert main(["random", "bonus4x4", "-n", "40", "--seed", "2", "--core", core]) == 0
        out.append(capsys.readouterr().out)
    assert out[0] == out[1] and out[0].count("\n") == 40


@needs_core
@settings(max_examples=examples(25), deadline=None)
@given(rs=st.sampled_from(RULESETS), seed=st.integers(-(2 ** 40), 2 ** 40), games=st.integers(1, 40),
       size=st.integers(1, 13))
def test_random_records_are_the_python_engines_whatever_the_blocks(rs: Ruleset, seed: int, games: int,
                                                                  size: int) -> None:
    """`qttt random`'s records from the compiled core (written in C) are the Python engine's,
    byte for byte, block by block."""
    with mock.patch.object(random_play, "RECORD_BLOCK", size):
        mine = b"".join(sample_cli.blocks(rs, games, seed, "compiled"))
        theirs = b"".join(sample_cli.blocks(rs, games, seed, "python"))
    assert mine == theirs and mine.count(b"\n") == games
    assert [json.loads(line)["variant"] for line in mine.splitlines()] == [rs.canonical] * games


@needs_core
@settings(max_examples=examples(20), deadline=None)
@given(rs=st.sampled_from(RULESETS), seed=st.integers(0, 2 ** 32), games=st.integers(1, 120),
       chunk=st.integers(1, 50))
def test_analyze_random_tallies_in_integers_what_the_engine_plays(rs: Ruleset, seed: int, games: int,
                                                                  chunk: int) -> None:
    """The compiled core's scaled integer tallies, summed as integers, give the Python engine's exact
    table; so do the engine's own chunks, whose scales differ from chunk to chunk."""
    mine = sample_games(rs, games, seed=seed, chunk=chunk, core="compiled")
    theirs = sample_games(rs, games, seed=seed, chunk=chunk, core="python")
    assert mine.to_json() == theirs.to_json()
    expected: Counter[tuple[Fraction, Fraction]] = Counter()
    for i, start in enumerate(range(0, games, chunk)):
        rng = random.Random(f"{seed}:{i}")
        for _ in range(min(chunk, games - start)):
            s = playout(rs, rng)[1].scores
            expected[(s["x"], s["o"])] += 1
    assert +mine.histogram == expected


@needs_core
def test_random_output_is_the_same_on_any_number_of_workers(capsys: pytest.CaptureFixture[str]) -> None:
    out = []
    with mock.patch.object(random_play, "RECORD_BLOCK", 7):
        for workers in ("1", "2", "3"):
            assert main(["random", "wikipedia", "-n", "40", "--seed", "5", "--workers", workers]) == 0
            out.append(capsys.readouterr().out)
    assert out[0] == out[1] == out[2] and out[0].count("\n") == 40
    rng = random.Random("5:1")  # block 1: games 7..13
    expected = [action_to_json(a) for a in playout(load_ruleset("wikipedia"), rng)[0]]
    assert [json.loads(line) for line in out[0].splitlines()][7]["actions"] == expected


@needs_core
@pytest.mark.parametrize("argv", [["bonus4x4"], ["wikipedia", "--depth", "3", "--divide", "--actions",
                                                  '[{"place": [0, 1]}, {"place": [1, 0]}]']])
def test_cli_perft_is_the_same_with_either_core(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    out = []
    for core in ("compiled", "python"):
        assert main(["perft", *argv, "--core", core]) == 0
        out.append(capsys.readouterr().out)
    assert out[0] == out[1] and "depth" in out[0]


def test_rulesets_beyond_the_core_fall_back_to_python() -> None:
    big = with_params(load_ruleset("wikipedia"), board=5)
    assert compiled.supports(big) is not None
    assert not use_compiled(big, "auto")
    with pytest.raises(CoreUnavailable, match="at most 16 cells"):
        use_compiled(big, "compiled")
    res = sample_games(big, 20, seed=1, chunk=10)
    assert res.games == 20


def test_without_a_compiler_everything_falls_back(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """No compiler, no cached and no prebuilt library: every command plays with the Python engine
    after one notice saying why and what it costs; --core compiled is one line naming the fix."""
    with no_core(monkeypatch, tmp_path):
        assert "no C compiler" in (compiled.available() or "")
        rs = load_ruleset("wikipedia")
        assert not use_compiled(rs, "auto")
        res = sample_games(rs, 500, seed=3, chunk=100)
        expected: Counter[tuple[Fraction, Fraction]] = Counter()
        for i in range(5):
            rng = random.Random(f"3:{i}")
            for _ in range(100):
                s = playout(rs, rng)[1].scores
                expected[(s["x"], s["o"])] += 1
        assert res.histogram == expected
        err = capsys.readouterr().err
        assert err == ("qttt: compiled core unavailable (no C compiler found to build quantum/_core.c); "
                       "using the Python engine, about 28× slower\n"), err
        assert main(["random", "wikipedia", "-n", "3"]) == 0
        assert len(capsys.readouterr().out.splitlines()) == 3
        assert main(["perft", "wikipedia", "--depth", "2"]) == 0
        assert capsys.readouterr().out == "depth 1: 36\ndepth 2: 1296\n"
        out = tmp_path / "r.json"
        assert main(["analyze", "random", "wikipedia", "-n", "100", "--quiet", "-o", str(out)]) == 0
        assert json.loads(out.read_text())["random"]["games"] == 100
        capsys.readouterr()
        for argv in (["random", "wikipedia", "--core", "compiled"], ["engine", "--core", "compiled"],
                     ["analyze", "random", "wikipedia", "--core", "compiled"],
                     ["perft", "wikipedia", "--core", "compiled"]):
            assert main(argv) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and "no C compiler" in err, err
            assert "_core.c" in err and "set CC" in err and err.count("(rule ") == 1, err


@needs_core
@pytest.mark.slow
def test_compiled_core_on_dask_gives_the_python_engines_table() -> None:
    pytest.importorskip("distributed")
    from qttt.analysis.distributed import dask_mapper
    rs = load_ruleset("bonus4x4")
    with dask_mapper(None, 2) as m:
        on_dask = sample_games(rs, 2000, seed=5, chunk=500, mapper=m, core="compiled")
    assert on_dask.to_json() == sample_games(rs, 2000, seed=5, chunk=500, core="python").to_json()


def test_the_configuration_header_is_generated_from_the_declarations() -> None:
    """_config.h, which the C parser reads its field names from, is what Python writes from the Game
    fields and Award classes it serialises (build() refuses a stale one)."""
    assert compiled.HEADER_PATH.read_text(encoding="utf-8") == compiled.config_header()
    game = compile_game(load_ruleset("wikipedia"))
    parts = {f: q.name for q in COMPILED for f in q.c_fields}  # a fraction: its numerator and denominator
    assert all(hasattr(game, parts.get(f, f)) for f in compiled.CONFIG_FIELDS)
    for rs in RULESETS:
        for award in compile_game(rs).awards:
            assert all(hasattr(award, f) for f in award.c_fields)


@needs_core
@pytest.mark.parametrize("rs", RULESETS, ids=IDS)
def test_the_core_refuses_a_configuration_of_another_length(rs: Ruleset) -> None:
    cfg = compiled.config(rs)
    build = compiled.BUILDS[-1]
    compiled._Rules(rs, build, cfg)  # accepted
    for bad in (cfg[:-1], [*cfg, 0]):
        with pytest.raises(CoreUnavailable, match="refused the configuration"):
            compiled._Rules(rs, build, bad)
