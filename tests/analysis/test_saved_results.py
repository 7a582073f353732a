"""Computed results a user keeps: `--save` writes to the user's data directory ($QTTT_DATA, else the
platform's), never into the checkout; `analyze fairness` reads what is saved (the user's over the
project's) and computes what is missing, or names the one command that would."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from contract import run

from qttt import load_ruleset
from qttt.analysis.results import known_results, saved_dir, saved_path
from qttt.analysis.sample import sample_games
from qttt.quantum.analysis.solve import solve

ROOT = Path(__file__).resolve().parents[2]
SMALL = "qttt(board=2)"


def tree(path: Path) -> dict[str, int]:
    """Every file under `path`, with its modification time."""
    return {p.relative_to(path).as_posix(): p.stat().st_mtime_ns for p in path.rglob("*") if p.is_file()}


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("QTTT_DATA", str(tmp_path / "data"))
    return tmp_path / "data"


def test_fairness_computes_what_is_missing(data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rs = load_ruleset(SMALL)
    status, out, err = run(["analyze", "fairness", SMALL, "--json", "--workers", "1"], capsys)
    assert status == 0, err
    report = json.loads(out)
    assert report["perfect"] == str(solve(rs).value)
    assert report["random_mean"] == sample_games(rs, 10_000, seed=0, chunk=2000).to_json()["mean"]["diff"]
    assert "sampling 10,000 games" in err and "solving now" in err and "--save keeps" in err
    assert not data.exists()  # computed, not saved unless asked


def test_a_board_beyond_an_exact_search_names_the_command(data: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    name = "wikipedia(board=4)"
    status, out, _ = run(["analyze", "fairness", name, "--workers", "1"], capsys)
    assert status == 1
    assert "random play mean x − o = " in out and "perfect play x − o = unknown" in out
    assert "qttt analyze solve 'wikipedia(board=4)' --force --save would try it" in out
    assert "not solved" not in out and "not sampled" not in out


def test_save_writes_to_the_data_directory_and_fairness_reads_it(
        data: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(ROOT / "results")
    assert run(["analyze", "random", SMALL, "-n", "300", "--seed", "3", "--save", "--quiet"], capsys)[0] == 0
    assert run(["analyze", "solve", SMALL, "--save", "--quiet"], capsys)[0] == 0
    rs = load_ruleset(SMALL)
    assert saved_path(rs).parent == data / "analysis" == saved_dir()
    assert set(known_results(rs)) == {"random", "solve"} and known_results(rs)["random"]["games"] == 300
    status, _, err = run(["analyze", "fairness", SMALL, "--save"], capsys)
    assert status == 0 and "sampling" not in err and "solving" not in err
    assert set(known_results(rs)) == {"random", "solve", "fairness"}
    assert tree(ROOT / "results") == before  # the checkout is untouched (the layout test stays green)


def test_the_platform_directory_without_qttt_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("QTTT_DATA", raising=False)
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr("sys.platform", "linux")
    assert saved_dir() == tmp_path / ".local" / "share" / "qttt" / "analysis"
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert saved_dir() == tmp_path / "xdg" / "qttt" / "analysis"


def test_a_variant_of_the_same_name_keeps_apart(data: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    variant = tmp_path / "v.toml"
    variant.write_text('[variant]\nname = "qttt(board=2)"\nextends = "qttt(board=2)"\n'
                       '[rules]\nmeasurer = "creator"\n')
    for name in (SMALL, str(variant)):
        assert run(["analyze", "random", name, "-n", "100", "--save", "--quiet"], capsys)[0] == 0
    files = sorted(p.name for p in (data / "analysis").iterdir())
    assert len(files) == 2
    mine, other = load_ruleset(str(variant)), load_ruleset(SMALL)
    assert known_results(mine)["random"]["ruleset"] == mine.canonical != other.canonical
    assert known_results(other)["random"]["ruleset"] == other.canonical
