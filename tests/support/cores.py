"""A machine without a compiled core, for the tests of what qttt does then: no compiler, an empty
cache, no prebuilt library, nothing loaded yet in this process."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from qttt import native
from qttt.native.build import Build
from qttt.nested import compiled as nested_compiled
from qttt.quantum import compiled


def forget() -> None:
    """Forget every core loaded or made in this process, and the notices shown."""
    for module in (compiled, nested_compiled):
        module.library.cache_clear()
        module._cores.cache_clear()
    native._shown.clear()


@contextmanager
def no_core(monkeypatch: pytest.MonkeyPatch, folder: Path) -> Iterator[None]:
    """No C compiler, an empty cache in `folder`, no prebuilt library; restored after."""
    monkeypatch.setattr(native, "compiler", lambda: None)
    monkeypatch.setenv("QTTT_CACHE", str(folder / "cache"))
    monkeypatch.setattr(native, "PREBUILT_DIR", folder / "prebuilt")
    forget()
    try:
        yield
    finally:
        monkeypatch.undo()
        forget()


def library_bytes(build: Build) -> bytes:
    """The bytes of a good library of `build` (the default cache's, built if need be)."""
    path, temporary = native.locate(build)
    data = path.read_bytes()
    if temporary:
        shutil.rmtree(path.parent, ignore_errors=True)
    return data


def changed_core(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    """The quantum core built from a copy of _core.c with `old` replaced by `new` (once), its headers
    and build declaration copied unchanged; call `forget` after."""
    source = compiled.SOURCE.read_text(encoding="utf-8")
    assert old in source
    folder = Path(tempfile.mkdtemp())
    for kept in (*compiled.SOURCE.parent.glob("*.h"), *compiled.SOURCE.parent.glob("*.toml")):
        shutil.copy(kept, folder / kept.name)
    copy = folder / compiled.SOURCE.name
    copy.write_text(source.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr(compiled, "SOURCE", copy)
    forget()
