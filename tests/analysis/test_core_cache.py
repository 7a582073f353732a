"""The compiled cores' libraries are checked, never trusted (issue 32 item 1): a cached library that
is damaged, cut, foreign or unreadable is rebuilt; a build that yields no working library is never
cached; a cache that cannot be written builds for the run only; a wheel carries its cores built,
so an installed qttt needs no compiler. Each case is one class of file; tests/cli/test_fuzz_files.py
draws the files with Hypothesis."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cores import forget, library_bytes

from qttt import native
from qttt.native import CoreUnavailable, build
from qttt.nested import compiled as nested_compiled
from qttt.quantum import compiled

ROOT = Path(__file__).resolve().parents[2]
QUANTUM9 = build.builds(compiled.SOURCE)["qttt_core9"]
REASON = compiled.available()
pytestmark = pytest.mark.skipif(REASON is not None, reason=f"no compiled core here: {REASON}")


@pytest.fixture(scope="module")
def good() -> bytes:
    return library_bytes(QUANTUM9)


@pytest.fixture(scope="module")
def foreign() -> bytes:
    """A valid library of another core: the nested one, which exports none of the quantum symbols."""
    return library_bytes(build.builds(nested_compiled.SOURCE)["qttt_nested"])


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache and no prebuilt library; the notices of this process forgotten."""
    monkeypatch.setenv("QTTT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(native, "PREBUILT_DIR", tmp_path / "prebuilt")
    forget()
    yield tmp_path / "cache"
    forget()


def copying(data: bytes, calls: list[Path]) -> Callable[..., str | None]:
    """A compiler that writes `data` (a build without the cost of compiling)."""
    def compile_build(b: build.Build, cc: str, out: Path, include: Path = build.NATIVE) -> str | None:
        calls.append(out)
        out.write_bytes(data)
        return None
    return compile_build


DAMAGE: dict[str, Callable[[bytes, bytes], bytes]] = {
    "empty": lambda good, other: b"",
    "cut at 100 bytes": lambda good, other: good[:100],
    "cut in half": lambda good, other: good[:len(good) // 2],
    "cut one byte short": lambda good, other: good[:-1],
    "random bytes": lambda good, other: os.urandom(5000),
    "an ELF header, then noise": lambda good, other: b"\x7fELF" + os.urandom(5000),
    "another core's library": lambda good, other: other,
}


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_cached_library_is_rebuilt(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str], good: bytes, foreign: bytes,
                                             kind: str) -> None:
    target = cache / QUANTUM9.filename()
    cache.mkdir()
    target.write_bytes(DAMAGE[kind](good, foreign))
    calls: list[Path] = []
    monkeypatch.setattr(native, "compile_build", copying(good, calls))
    monkeypatch.setattr(native, "compiler", lambda: "cc")
    path, temporary = native.locate(QUANTUM9)
    assert (path, temporary) == (target, False) and path.read_bytes() == good
    assert len(calls) == 1 and not calls[0].exists()  # built in a fresh folder, moved into place
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"the cached compiled core {target} was not usable (" in err, err
    assert "Errno" not in err and ".build-" not in err
    assert sorted(p.name for p in cache.iterdir()) == [target.name, "verified"]  # nothing left behind
    lib = native.bind(compiled.SOURCE, QUANTUM9.name, compiled._SIGNATURES)
    assert lib.qc_pos_size() > 0
    assert native.locate(QUANTUM9) == (target, False)  # checked once: its marker says so


def test_an_unreadable_cached_library_is_rebuilt(cache: Path, monkeypatch: pytest.MonkeyPatch,
                                                 good: bytes) -> None:
    target = cache / QUANTUM9.filename()
    cache.mkdir()
    target.write_bytes(good[:2000])
    target.chmod(0)
    monkeypatch.setattr(native, "compile_build", copying(good, []))
    monkeypatch.setattr(native, "compiler", lambda: "cc")
    assert native.locate(QUANTUM9) == (target, False) and target.read_bytes() == good


@pytest.mark.parametrize("cc", ["cc", None])
def test_a_library_this_qttt_did_not_check_is_replaced_or_checked(
        cache: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], good: bytes,
        cc: str | None) -> None:
    """A cached library without the marker of a passed check (an older cache, a copied file) is
    rebuilt where there is a compiler; without one it is checked and used if it passes."""
    cache.mkdir()
    target = cache / QUANTUM9.filename()
    target.write_bytes(good)
    calls: list[Path] = []
    monkeypatch.setattr(native, "compile_build", copying(good, calls))
    monkeypatch.setattr(native, "compiler", lambda: cc)
    assert native.locate(QUANTUM9) == (target, False)
    err = capsys.readouterr().err
    if cc is None:
        assert calls == [] and err == ""
    else:
        assert len(calls) == 1 and "not a library this qttt built and checked" in err
    assert native.locate(QUANTUM9) == (target, False) and len(calls) <= 1


@pytest.mark.parametrize("made", ["nothing", "an empty file", "a cut library", "another core's library"])
def test_a_failed_build_is_never_cached(cache: Path, monkeypatch: pytest.MonkeyPatch, good: bytes,
                                        foreign: bytes, made: str) -> None:
    """A compiler that exits 0 but writes no working library (CC=true, a broken toolchain): one
    line naming the source and the fix, and nothing in the cache to fail on next time."""
    data = {"an empty file": b"", "a cut library": good[:3000], "another core's library": foreign}.get(made)

    def compile_build(b: build.Build, cc: str, out: Path, include: Path = build.NATIVE) -> str | None:
        if data is not None:
            out.write_bytes(data)
        return None
    monkeypatch.setattr(native, "compile_build", compile_build)
    monkeypatch.setattr(native, "compiler", lambda: "true")
    with pytest.raises(CoreUnavailable) as e:
        native.locate(QUANTUM9)
    message = str(e.value)
    assert message.startswith("building quantum/_core.c with true gave no usable library: "), message
    assert "set CC" in message and message.count("(rule core-compiled)") == 1, message
    assert "Errno" not in message and ".build-" not in message and str(cache) not in message
    assert not cache.exists() or [p.name for p in cache.iterdir()] in ([], ["verified"])


def test_cc_true_leaves_nothing_and_the_fallback_says_so(tmp_path: Path) -> None:
    """The issue's case end to end: CC=true, an empty cache, no prebuilt library (a source tree
    copy without one): the Python engine plays after one notice, twice, and nothing is cached."""
    env = {**os.environ, "CC": "true", "QTTT_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    code = ("import sys; from pathlib import Path; from qttt import native; "
            "native.PREBUILT_DIR = Path(sys.argv[1]); from qttt.cli import main; "
            "sys.exit(main(sys.argv[2:]))")
    for _ in range(2):
        run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "none"), "random", "wikipedia",
                              "-n", "2", "--seed", "4"], capture_output=True, text=True, env=env, timeout=300)
        assert run.returncode == 0 and len(run.stdout.splitlines()) == 2, run.stderr
        assert run.stderr == ("qttt: compiled core unavailable (building quantum/_core.c with true gave no "
                              "usable library: true wrote no library); using the Python engine, about 28× "
                              "slower\n"), run.stderr
        assert not any(p.suffix == ".so" for p in (tmp_path / "cache").rglob("*"))
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "none"), "perft", "wikipedia",
                          "--core", "compiled"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "quantum/_core.c" in run.stderr and "set CC" in run.stderr


def test_a_cache_that_cannot_be_written_builds_for_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str],
                                                          good: bytes) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    monkeypatch.setenv("QTTT_CACHE", str(blocker / "cache"))  # below a file: no folder can be made
    monkeypatch.setattr(native, "PREBUILT_DIR", tmp_path / "prebuilt")
    monkeypatch.setattr(native, "compile_build", copying(good, []))
    forget()
    before = set(Path(tempfile.gettempdir()).glob("qttt-core-*"))
    lib = native.bind(compiled.SOURCE, QUANTUM9.name, compiled._SIGNATURES)
    assert lib.qc_pos_size() > 0
    assert set(Path(tempfile.gettempdir()).glob("qttt-core-*")) == before  # loaded, then removed
    err = capsys.readouterr().err
    assert err == (f"qttt: the cache {blocker / 'cache'} cannot be written; the compiled core qttt_core9 was "
                   "built for this run only (set QTTT_CACHE to a writable folder to keep it)\n"), err
    forget()


def test_a_prebuilt_library_is_used_only_as_its_manifest_lists_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, good: bytes) -> None:
    prebuilt = tmp_path / "prebuilt"
    prebuilt.mkdir()
    library = prebuilt / QUANTUM9.filename()
    library.write_bytes(good)
    (prebuilt / build.MANIFEST).write_text(json.dumps({library.name: build.digest(library)}))
    monkeypatch.setattr(native, "PREBUILT_DIR", prebuilt)
    monkeypatch.setattr(native, "compiler", lambda: None)
    monkeypatch.setenv("QTTT_CACHE", str(tmp_path / "cache"))
    native._manifest.cache_clear()
    assert native.locate(QUANTUM9) == (prebuilt / QUANTUM9.filename(), False)
    (prebuilt / QUANTUM9.filename()).write_bytes(good[:5000])  # changed since the wheel was made
    with pytest.raises(CoreUnavailable, match=r"no C compiler found to build quantum/_core\.c"):
        native.locate(QUANTUM9)
    native._manifest.cache_clear()


def test_every_build_is_declared_and_bound() -> None:
    """The builds of `_core.toml` are the ones the bindings ask for: the quantum BUILDS and the
    nested core, each self-testing a ruleset of its own family."""
    names = {b.name for b in build.every_build()}
    assert names == {*(f"qttt_core{c}" for c in compiled.BUILDS), "qttt_nested"}
    assert [b.module for b in build.every_build()].count("qttt.nested.compiled") == 1
    assert len({b.filename() for b in build.every_build()}) == len(names)


@pytest.mark.slow
def test_concurrent_first_runs_share_one_cache(tmp_path: Path) -> None:
    """Two processes building the same core at once into an empty cache: both play, one library
    is kept, no temporary file is left."""
    env = {**os.environ, "QTTT_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    code = ("import sys; from pathlib import Path; from qttt import native; "
            "native.PREBUILT_DIR = Path(sys.argv[1]); from qttt.cli import main; "
            "sys.exit(main(sys.argv[2:]))")
    argv = [sys.executable, "-c", code, str(tmp_path / "none"), "perft", "wikipedia", "--depth", "2",
            "--core", "compiled"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for _ in range(2)]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0 and out == "depth 1: 36\ndepth 2: 1296\n" and err == "", err
    left = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert left == [QUANTUM9.filename(), "verified"], left


@pytest.mark.slow
def test_a_wheel_carries_its_cores_and_needs_no_compiler(tmp_path: Path) -> None:
    """`pip wheel .` builds every core into the wheel (the build hook), and the installed qttt
    plays with them where there is no compiler on PATH and nothing in the cache."""
    pytest.importorskip("hatchling")
    source = tmp_path / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(".git", ".venv", "_built", "__pycache__",
                                                                 "node_modules", "site", "artifacts",
                                                                 ".mypy_cache", ".hypothesis"))
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q",
                          "-w", str(tmp_path / "wheel"), str(source)], capture_output=True, text=True,
                         timeout=900)
    assert run.returncode == 0, run.stderr
    (wheel,) = (tmp_path / "wheel").glob("qttt-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for b in build.every_build():
        assert f"qttt/native/_built/{b.filename()}" in names
    assert "qttt/native/_built/manifest.json" in names and "-none-" in wheel.name
    target = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as z:
        z.extractall(target)
    env = {"PATH": str(tmp_path / "no-compilers-here"), "HOME": str(tmp_path / "home"),
           "QTTT_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(target)}
    games = subprocess.run([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", "3", "--seed", "2",
                            "--core", "compiled"], capture_output=True, text=True, env=env, cwd=tmp_path,
                           timeout=300)
    assert games.returncode == 0 and games.stderr == "", games.stderr
    expected = subprocess.run([sys.executable, "-m", "qttt", "random", "wikipedia", "-n", "3", "--seed", "2",
                               "--core", "python"], capture_output=True, text=True,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert games.stdout == expected.stdout
    assert not (tmp_path / "cache").exists()
