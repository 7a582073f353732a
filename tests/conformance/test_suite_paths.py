"""Where a suite lives: one mechanism (qttt.conformance.suite.shipped_suites) gives the committed
path of every shipped ruleset's suite, and `qttt vectors generate NAME` writes and checks there
whichever way NAME is written."""

from __future__ import annotations

import contextlib
from pathlib import Path

import pytest

from qttt.cli import main
from qttt.conformance.suite import (
    committed_suite,
    committed_suites,
    shipped_suites,
    suite_file,
    suite_path,
    vectors_dir,
)
from qttt.errors import FileError
from qttt.family import family_of
from qttt.variant import builtin_names, load_ruleset

SHIPPED = shipped_suites()


def spellings(name: str) -> list[str]:
    """The ways a user names a shipped ruleset: a built-in's name; a file's path as given, absolute,
    relative to the working directory (when it is below it) and with a `./` or `..` detour."""
    if not name.endswith(".toml"):
        return [name]
    path = Path(name).resolve()
    out = [name, str(path), str(path.parent / ".." / path.parent.name / path.name)]
    with contextlib.suppress(ValueError):  # not below the working directory
        out.append("./" + str(path.relative_to(Path.cwd())))
    return out


def test_every_committed_suite_belongs_to_one_shipped_ruleset() -> None:
    paths = [p for _, p in SHIPPED]
    assert len(set(paths)) == len(paths)
    assert sorted(paths) == committed_suites()
    assert {n for n, _ in SHIPPED} >= set(builtin_names(None))


@pytest.mark.parametrize(("name", "path"), SHIPPED, ids=[Path(n).stem for n, _ in SHIPPED])
def test_a_shipped_suite_is_found_however_its_ruleset_is_named(name: str, path: Path) -> None:
    rs = load_ruleset(name)
    assert path.name == f"{rs.name}.json"
    folder = "coverage" if "/coverage/" in name else family_of(rs).vectors
    assert path.parent == vectors_dir() / folder
    for spelling in spellings(name):
        assert committed_suite(spelling) == path
        assert suite_path(spelling) == path
        assert suite_file(spelling) == path
        assert suite_file(spelling, Path("/out")) == Path("/out") / path.relative_to(vectors_dir())


def test_another_ruleset_has_no_committed_suite() -> None:
    name = "wikipedia(double_line=2)"
    assert committed_suite(name) is None
    assert suite_file(name).parent == vectors_dir()
    assert suite_file(name, Path("/out")).parent == Path("/out")
    with pytest.raises(FileError, match="not a ruleset the project ships"):
        suite_path(name)


@pytest.mark.parametrize("name", ["intelligent", "spec/coverage/goff-4x4.toml"])
def test_generate_check_of_one_shipped_ruleset_passes_on_the_committed_tree(
        name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The bug: `qttt vectors generate --check intelligent` compared with spec/vectors/intelligent.json,
    which does not exist (the suite is under spec/vectors/nested/)."""
    monkeypatch.chdir(Path(__file__).resolve().parents[2])
    assert main(["vectors", "generate", "--check", name]) == 0
    assert "out of date" not in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.parametrize(("name", "path"), SHIPPED, ids=[Path(n).stem for n, _ in SHIPPED])
def test_generate_check_passes_for_every_shipped_ruleset(name: str, path: Path, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "generate", "--check", name]) == 0
    assert main(["vectors", "generate", name, "-o", str(tmp_path)]) == 0
    written = tmp_path / path.relative_to(vectors_dir())
    assert written.read_text(encoding="utf-8") == path.read_text(encoding="utf-8")
    capsys.readouterr()
