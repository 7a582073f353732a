"""A compiled core as its source builds it, even where its load-time self-test refuses it: the
commands then play the Python engine (`qttt.native.build.check`), but the checker compares the core
itself, in child processes, and finds the game that shows what is wrong. Shared by the families'
checkers (verify.quantum.check, verify.nested.check)."""

from __future__ import annotations

import contextlib
import importlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from qttt.native import OVERRIDE, builds, compiler
from qttt.native.build import compile_build

CORES = ("qttt.quantum.compiled", "qttt.nested.compiled")
"""The families' compiled modules (`every_core_as_built`)."""

_HELD: dict[str, str | None] = {}  # cores an outer block holds as built: why their self-test refused them


@contextlib.contextmanager
def as_built(core: ModuleType) -> Iterator[str | None]:
    """For the block, `core` (a family's compiled module: SOURCE, available, library) loads the
    libraries its source builds, with no self-test. Yields why the self-test refused the core, or
    None when nothing was refused (or it cannot be built: then there is nothing to compare). A
    block inside another for the same core uses the outer one's build and says the same."""
    if core.__name__ in _HELD:
        yield _HELD[core.__name__]
        return
    why: str | None = core.available()
    cc = compiler()
    if why is None or cc is None:
        yield None
        return
    folder = Path(tempfile.mkdtemp(prefix="qttt-as-built-"))
    saved = dict(OVERRIDE)
    try:
        for build in builds(core.SOURCE).values():
            out = folder / build.filename()
            if compile_build(build, cc, out) is not None:  # it does not build: nothing to compare
                yield None
                return
            OVERRIDE[build.name] = out
        core.library.cache_clear()
        _HELD[core.__name__] = why
        yield why
    finally:
        _HELD.pop(core.__name__, None)
        OVERRIDE.clear()
        OVERRIDE.update(saved)
        core.library.cache_clear()
        shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def every_core_as_built() -> Iterator[None]:
    """Every family's compiled core as built (`as_built`) for the block, so that the workers of a
    pool forked in it compare the cores as the checker's own process does (a worker forked before
    would load a core its self-test refuses as no core at all, and compare nothing)."""
    with contextlib.ExitStack() as stack:
        for name in CORES:
            stack.enter_context(as_built(importlib.import_module(name)))
        yield
