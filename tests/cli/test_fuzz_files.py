"""Fuzzing the files qttt wrote itself and reads back (issue 32): the compiled cores' cache (damaged,
foreign, unreadable), and, with the lane's budget, every other file that comes back. Whatever the
file, the result is what the rules give or a one-line refusal; never a crash, never a number the
rules cannot produce.

Budget: QTTT_FUZZ_EXAMPLES as in test_fuzz.py (each cache example starts one or two child
processes, so this target takes a quarter of it).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from cores import forget, library_bytes
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qttt import native
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
