"""Random play at scale (results/analysis/scale/): each committed table is whole and consistent with
its histogram, its command names it, the competitor's published statistics are reproduced under
the variant of his reading, and a replayed chunk agrees with the table."""

from __future__ import annotations

import json
import math
import shlex
import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from qttt import load_ruleset
from qttt.analysis.sample import sample_games

ROOT = Path(__file__).resolve().parents[2]
FOLDER = ROOT / "results" / "analysis" / "scale"
INDEX = tomllib.loads((FOLDER / "runs.toml").read_text(encoding="utf-8"))
RUNS = INDEX["run"]


def _result(run: dict[str, Any]) -> dict[str, Any]:
    return json.loads((FOLDER / run["result"]).read_text(encoding="utf-8"))["random"]  # type: ignore[no-any-return]


def _option(argv: list[str], name: str, default: str) -> str:
    return argv[argv.index(name) + 1] if name in argv else default


@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["result"])
def test_table_is_whole_and_matches_its_command(run: dict[str, Any]) -> None:
    res = _result(run)
    argv = shlex.split(run["command"])
    assert argv[:3] == ["qttt", "analyze", "random"]
    rs = load_ruleset(str(ROOT / argv[3]) if argv[3].endswith(".toml") else argv[3])
    assert res["ruleset"] == rs.canonical
    assert res["games"] == int(_option(argv, "-n", "10000"))
    assert res["chunk"] == int(_option(argv, "--chunk", "2000"))
    assert res["seed"] == int(_option(argv, "--seed", "0"))
    hist = [(Fraction(h["x"]), Fraction(h["o"]), h["games"]) for h in res["histogram"]]
    assert sum(n for _, _, n in hist) == res["games"] == sum(res["line_outcomes"].values())
    means = {"x": sum(x * n for x, _, n in hist), "o": sum(o * n for _, o, n in hist)}
    means["diff"] = means["x"] - means["o"]
    for key, total in means.items():
        assert math.isclose(res["mean"][key], float(total / res["games"]), abs_tol=1e-6)
    by_score = {"x": sum(n for x, o, n in hist if x > o), "o": sum(n for x, o, n in hist if o > x)}
    assert by_score == {k: res["outcomes"][k] for k in ("x", "o")}


def test_the_competitors_statistics_are_reproduced_under_his_reading() -> None:
    pub = INDEX["published"]
    run = next(r for r in RUNS if r["reading"] == "published")
    res = _result(run)
    n = res["games"]
    for key in ("x", "o", "neither"):  # published to 0.1 percentage point
        assert abs(res["line_outcomes"][key] / n - pub[key]) <= 0.001, key
    for key in ("x", "o"):  # published to 0.1 point
        assert abs(res["mean"][key] - pub["mean_" + key]) <= 0.05, key


def test_tables_of_one_ruleset_and_seed_agree() -> None:
    """Two tables of one ruleset, seed and chunk size share their first chunks (chunk i draws from
    Random(f"{seed}:{i}")): the larger one's first chunks are the smaller one's games, so their means
    differ by less than five standard errors of the smaller table."""
    groups: dict[tuple[str, int, int], list[dict[str, Any]]] = {}
    for run in RUNS:
        res = _result(run)
        groups.setdefault((res["ruleset"], res["seed"], res["chunk"]), []).append(res)
    pairs = [sorted(g, key=lambda r: r["games"]) for g in groups.values() if len(g) > 1]
    assert pairs, "no ruleset has tables of two sizes"
    for small, *larger in pairs:
        for big in larger:
            assert big["games"] > small["games"]
            for key in ("x", "o", "diff"):
                lo, hi = small["ci95"][key]
                assert abs(big["mean"][key] - small["mean"][key]) <= 5 * (hi - lo) / (2 * 1.96), key


@pytest.mark.slow
@pytest.mark.parametrize("run", RUNS, ids=lambda r: r["result"])
def test_a_replayed_chunk_agrees_with_the_table(run: dict[str, Any]) -> None:
    """The table's first chunk, replayed, is a sample of the same distribution: its mean x − o
    lies within five standard errors of the table's."""
    res = _result(run)
    argv = shlex.split(run["command"])
    spec = argv[3]
    rs = load_ruleset(str(ROOT / spec) if spec.endswith(".toml") else spec)
    part = sample_games(rs, res["chunk"], seed=res["seed"], chunk=res["chunk"])
    lo, hi = part.interval("diff", z=1.0)
    assert abs(part.mean("diff") - res["mean"]["diff"]) <= 5 * (hi - lo) / 2
