"""Fuzzing the files qttt wrote itself and reads back (issue 32): the compiled cores' cache (damaged,
foreign, unreadable), `analyze random` checkpoints forged with valid digests, and match records
edited anywhere. Whatever the file, the result is what the rules give or a one-line refusal naming
the file; never a crash, never a number the rules cannot produce. (The other classes of issue 32
have their own tests over the class: tests/analysis/test_core_cache.py for a concurrent or
read-only cache, tests/cli/test_outputs.py for output targets, signals and resource limits,
tests/cli/test_strict_json.py for duplicate keys with Hypothesis over documents.)

Budget: QTTT_FUZZ_EXAMPLES as in test_fuzz.py (each cache example starts one or two child
processes, so this target takes a quarter of it).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cores import forget, library_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qttt import load_ruleset, native, record_from_json
from qttt.analysis.sample import LINE_RESULTS, sample_games
from qttt.cli import main
from qttt.competition.match import Store, manifest, plan
from qttt.competition.tour import load_tour
from qttt.errors import FileError, MatchError, QtttError
from qttt.interop import rules_of
from qttt.io import write_checkpoint
from qttt.native import build
from qttt.nested import compiled as nested_compiled
from qttt.quantum import compiled

EXAMPLES = int(os.environ.get("QTTT_FUZZ_EXAMPLES", "40"))
SETTINGS = settings(deadline=None, max_examples=max(EXAMPLES // 4, 5),
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
pytestmark = pytest.mark.slow
QUANTUM9 = build.builds(compiled.SOURCE)["qttt_core9"]
REASON = compiled.available() or nested_compiled.available()


@st.composite
def damaged(draw: st.DrawFn, good: bytes, others: list[bytes]) -> tuple[bytes, int]:
    """A file in a library's place, and its permissions: cut at any length, random bytes, an ELF
    header and noise, another valid library, the good one with a few bytes changed."""
    kind = draw(st.sampled_from(["cut", "random", "elf", "other", "flipped"]))
    if kind == "cut":
        data = good[:draw(st.integers(0, len(good)))]
    elif kind == "random":
        data = draw(st.binary(max_size=4096))
    elif kind == "elf":
        data = b"\x7fELF" + draw(st.binary(min_size=60, max_size=4096))
    elif kind == "other":
        data = draw(st.sampled_from(others))
    else:
        flipped = bytearray(good)
        for _ in range(draw(st.integers(1, 8))):
            flipped[draw(st.integers(0, len(good) - 1))] = draw(st.integers(0, 255))
        data = bytes(flipped)
    return data, draw(st.sampled_from([0o644, 0o000, 0o200, 0o444]))


@pytest.mark.skipif(REASON is not None, reason=f"no compiled core here: {REASON}")
def test_any_file_in_the_cache_gives_a_working_core(monkeypatch: pytest.MonkeyPatch) -> None:
    good = library_bytes(QUANTUM9)
    others = [library_bytes(b) for b in build.every_build() if b.name != QUANTUM9.name]

    @SETTINGS
    @given(file=damaged(good, others))
    def check(file: tuple[bytes, int]) -> None:
        data, mode = file
        with tempfile.TemporaryDirectory() as folder:
            cache = Path(folder) / "cache"
            cache.mkdir()
            target = cache / QUANTUM9.filename()
            target.write_bytes(data)
            target.chmod(mode)
            monkeypatch.setenv("QTTT_CACHE", str(cache))
            monkeypatch.setattr(native, "PREBUILT_DIR", Path(folder) / "prebuilt")

            def compile_build(b: build.Build, cc: str, out: Path, include: Path = build.NATIVE) -> str | None:
                out.write_bytes(good)
                return None
            monkeypatch.setattr(native, "compile_build", compile_build)
            monkeypatch.setattr(native, "compiler", lambda: "cc")
            forget()
            path, temporary = native.locate(QUANTUM9)
            assert (path, temporary) == (target, False)
            assert path.read_bytes() == good  # replaced: never a file this qttt did not build and check
            lib = native.bind(compiled.SOURCE, QUANTUM9.name, compiled._SIGNATURES)
            assert lib.qc_pos_size() > 0
            assert sorted(p.name for p in cache.iterdir()) == [target.name, "verified"]
    try:
        check()
    finally:
        forget()


# -- checkpoints forged with a valid digest --------------------------------------------------------

POINTS = st.sampled_from(["0", "1/2", "1", "3/2", "2", "1/3", "7"])


@st.composite
def tallied(draw: st.DrawFn) -> list[list[Any]]:
    """Histogram rows whose games add up to a run's (50 or 100), so that the other checks are met."""
    scores = draw(st.lists(st.tuples(POINTS, POINTS), min_size=1, max_size=4, unique=True))
    total = draw(st.sampled_from([50, 100]))
    cuts = sorted(draw(st.lists(st.integers(1, total - 1), min_size=len(scores) - 1,
                                max_size=len(scores) - 1, unique=True)))
    counts = [b - a for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
    return [[x, o, c] for (x, o), c in zip(scores, counts, strict=True)]


COUNTS = st.fixed_dictionaries({}, optional={  # what the run has counted, its binding kept
    "done": st.lists(st.integers(0, 3), max_size=3),
    "histogram": tallied() | st.lists(st.tuples(POINTS, POINTS, st.integers(0, 120)).map(list), max_size=4),
    "lines": st.dictionaries(st.sampled_from(LINE_RESULTS), st.integers(0, 120), max_size=3),
    "shapes": st.lists(st.tuples(st.integers(0, 300), st.integers(0, 300), st.integers(0, 120)).map(list),
                       max_size=2)})
BINDING = st.fixed_dictionaries({}, optional={  # the command it is of
    "games": st.integers(1, 200), "chunks": st.integers(1, 4), "chunk": st.integers(1, 60),
    "seed": st.integers(0, 2), "ruleset": st.sampled_from(["kumar", "wikipedia(board=4)"])})
FORGED = st.one_of(COUNTS, st.builds(lambda a, b: {**a, **b}, COUNTS, BINDING))


@settings(deadline=None, max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
@given(forged=FORGED)
def test_a_forged_sample_checkpoint_is_refused_or_gives_a_possible_result(forged: dict[str, Any]) -> None:
    """Anyone can recompute the digest: a checkpoint changed anywhere, and saved with a valid one,
    is refused as damaged or of another run, or resumed to a result the rules can give (every game
    counted once, every score in the ruleset's range)."""
    rs = load_ruleset("wikipedia")
    x_lo, x_hi, o_lo, o_hi = rules_of(rs).score_range
    with tempfile.TemporaryDirectory() as folder:
        cp = Path(folder) / "cp.json"
        honest = sample_games(rs, 100, seed=1, chunk=50, checkpoint=cp)
        data = json.loads(cp.read_text())
        del data["digest"]
        write_checkpoint(cp, {**data, **forged})
        try:
            res = sample_games(rs, 100, seed=1, chunk=50, checkpoint=cp)
        except QtttError as e:
            assert str(cp) in str(e) and ("damaged" in str(e) or "another run" in str(e)), e
            return
    assert sum(res.histogram.values()) == 100
    assert all(x_lo <= x <= x_hi and o_lo <= o <= o_hi for x, o in res.histogram)
    assert sum(res.lines.values()) in (0, 100) and sum(res.shapes.values()) in (0, 100)
    if {**data, **forged} == data:
        assert res.histogram == honest.histogram


# -- match records edited anywhere ------------------------------------------------------------------

MATCH = ["wikipedia", "random", "greedy", "--games", "2", "--seed", "1"]


@pytest.fixture(scope="module")
def match_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("match") / "m"
    assert main(["match", *MATCH, "--out", str(out), "--quiet"]) == 0
    return out


def _paths(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (keys and indices), the value itself first."""
    found = [at]
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*at, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += _paths(v, (*at, i))
    return found


VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 12), st.floats(-1, 20), st.text(max_size=6),
                   st.lists(st.integers(-1, 9), max_size=3),
                   st.dictionaries(st.sampled_from("xo"), st.integers(0, 1)))
POINTS_TEXT = st.sampled_from(["0", "1/2", "1", "2", "1000"])
# What a hand or a forger changes to win: each a path and the values it is given.
FORGERIES: list[tuple[tuple[str, ...], st.SearchStrategy[Any]]] = [
    (("result", "scores", "x"), POINTS_TEXT), (("result", "scores", "o"), POINTS_TEXT),
    (("result", "end"), st.sampled_from(["over", "deadlock", "forfeit", "won"])),
    (("result", "forfeit"), st.fixed_dictionaries({"side": st.sampled_from("xo"), "kind": st.just("crash"),
                                                    "message": st.just("gone")})),
    (("players", "x"), st.sampled_from(["random", "greedy", "search", "a1", "b1", "b2"])),
    (("players", "o"), st.sampled_from(["random", "greedy", "search", "a1", "b1", "b2"])),
    (("tour", "board"), st.integers(0, 5)), (("tour", "x"), st.sampled_from("AB")),
    (("tour", "stage"), st.sampled_from(["individual", "team"])),
    (("game",), st.integers(0, 3) | st.booleans()),
    (("variant",), st.sampled_from(["wikipedia", "kumar", "wikipedia(board=4)"])),
    (("clock", "move_seconds"), st.sampled_from([None, 0.0, 10.0, 5]))]


@st.composite
def edits(draw: st.DrawFn, rec: dict[str, Any]) -> dict[str, Any]:
    """`rec` with one to three changes: a forgery (FORGERIES, or its actions cut), or any part
    replaced by another value or removed."""
    rec = json.loads(json.dumps(rec))
    for _ in range(draw(st.sampled_from([1, 1, 2, 3]))):
        kind = draw(st.sampled_from(["forgery", "forgery", "cut", "anywhere"]))
        if kind == "cut" and isinstance(rec.get("actions"), list):
            rec["actions"] = rec["actions"][:draw(st.integers(0, len(rec["actions"])))]
            continue
        path, values = draw(st.sampled_from(FORGERIES)) if kind == "forgery" else (
            draw(st.sampled_from(_paths(rec)[1:])), VALUES)
        parent: Any = rec
        for key in path[:-1]:
            if not isinstance(parent, dict | list):
                break
            parent = parent[key] if isinstance(parent, list) or key in parent else parent.setdefault(key, {})
        else:
            if isinstance(parent, dict) and draw(st.integers(0, 4)) == 0:
                parent.pop(path[-1], None)
            elif isinstance(parent, dict | list):
                parent[path[-1]] = draw(values)
    return rec


def test_an_edited_match_record_is_refused_or_is_the_rules_game(match_folder: Path) -> None:
    """A match record changed anywhere is refused on resume as damaged, naming the file, or is
    still a game the referee can have written for that game of the schedule: the same game
    number, ruleset, players and clock, and a result that replaying its actions gives."""
    honest = json.loads((match_folder / "game-0001.json").read_text())
    jobs = plan("wikipedia", ["random", "greedy"], 2, 1)

    @settings(deadline=None, max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(rec=edits(honest))
    def check(rec: dict[str, Any]) -> None:
        with tempfile.TemporaryDirectory() as folder:
            out = Path(folder) / "m"
            shutil.copytree(match_folder, out)
            (out / "game-0001.json").write_text(json.dumps(rec))
            try:
                done = Store(str(out)).open(manifest("match", jobs, ["random", "greedy"], 2), jobs)
            except FileError as e:
                assert f"{out}: game-0001.json is damaged (" in e.message and "\n" not in e.message
                return
        got = done[1]
        for key in ("game", "variant", "players", "clock"):
            assert got[key] == honest[key], key
        state = record_from_json(got).replay()
        result = got["result"]
        if result["end"] == "forfeit":
            lost = rs.match.forfeit[1]
            assert not state.over
            assert result["scores"][result["forfeit"]["side"]] == str(lost)
        else:
            assert {p: Fraction(v) for p, v in result["scores"].items()} == state.scores
    rs = load_ruleset("wikipedia")
    check()


TOUR = ("".join(f'[[team]]\nname = "{t}"\nmain = {json.dumps([t.lower() + str(i) for i in range(1, 5)])}\n'
                for t in "AB") + "[players]\n"
        + "".join(f'{t.lower()}{i} = "random"\n' for t in "AB" for i in range(1, 5))
        + 'A = "random"\nB = "greedy"\n')


@pytest.fixture(scope="module")
def tour_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tour")
    (folder / "t.toml").write_text(TOUR)
    assert main(["tour", str(folder / "t.toml"), "--play", "--quiet"]) == 0
    return folder


def test_an_edited_tour_record_is_refused_or_is_the_rules_game(tour_folder: Path) -> None:
    """The same for the records `qttt tour --play` saves: refused as damaged, naming the tour file
    and the record, or the game of its slot (players, clock, tour fields) with the points the
    rules give its actions."""
    tour = load_tour(tour_folder / "t.toml")
    slot = tour.slots[0]
    name = f"t-records/{slot.key()}.json"
    honest = json.loads((tour_folder / name).read_text())
    assert honest["tour"] == slot.to_json()

    @settings(deadline=None, max_examples=EXAMPLES, suppress_health_check=[HealthCheck.too_slow])
    @given(rec=edits(honest))
    def check(rec: dict[str, Any]) -> None:
        with tempfile.TemporaryDirectory() as folder:
            shutil.copytree(tour_folder, folder, dirs_exist_ok=True)
            (Path(folder) / name).write_text(json.dumps(rec))
            try:
                outcome = load_tour(Path(folder) / "t.toml").outcomes[slot]
            except MatchError as e:
                assert e.message.startswith(f"{folder}/t.toml: records: {folder}/{name} is damaged (")
                assert "\n" not in e.message
                return
        for key in ("variant", "players", "clock", "tour"):  # (a game number is no part of a tour's record)
            assert rec.get(key) == honest.get(key), key
        state = record_from_json(rec).replay()
        if outcome.forfeit is None:
            assert outcome.points == {slot.x: state.scores["x"], slot.o: state.scores["o"]}
        else:
            assert not state.over and outcome.points[outcome.forfeit] == tour.ruleset.match.forfeit[1]
    check()
