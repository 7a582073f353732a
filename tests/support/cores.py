"""A machine without a compiled core, for the tests of what qttt does then: no compiler, an empty
cache, no prebuilt library, nothing loaded yet in this process."""

from __future__ import annotations

import shutil
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
