"""Planted rules bugs of the nested-classical family, for tests/verify/test_nested_mutants.py: each
a realistic slip in the Python engine (patched in for one test) or in the compiled core (a copy
of _core.c with one line changed, built in the checker's child process, where the core runs).

`MutatedIsolated` is `verify.isolated.Isolated` whose calls first point the child's compiled core
at the mutated source named by the environment variable SOURCE_VARIABLE (set by the test, inherited
by the child), so that the core the checker probes out of process is the mutant."""

from __future__ import annotations

import dataclasses
import functools
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from views import forget_views

from qttt.native import OVERRIDE, builds, compiler
from qttt.native.build import compile_build
from qttt.nested import compiled, engine
from qttt.nested.engine import Scores
from verify.isolated import Isolated

SOURCE_VARIABLE = "QTTT_TEST_NESTED_CORE_SOURCE"
Patch = Callable[[pytest.MonkeyPatch], None]


def use_source(path: str) -> None:
    """In the child: the compiled nested core as `path` builds it (once per path), with no
    self-test, as the checker compares a core (verify.built.as_built)."""
    if str(compiled.SOURCE) != path:
        compiled.SOURCE = Path(path)
        cc = compiler()
        assert cc is not None, "the core mutants need a C compiler"
        for build in builds(compiled.SOURCE).values():
            out = compiled.SOURCE.with_name(build.filename())
            if not out.exists():
                assert compile_build(build, cc, out) is None, f"{path} does not build"
            OVERRIDE[build.name] = out
        compiled.library.cache_clear()
        compiled._cores.cache_clear()


def mutated(path: str, fn: Callable[..., Any], *args: Any) -> Any:
    use_source(path)
    return fn(*args)


class MutatedIsolated(Isolated):
    """Calls run against the compiled core built from the source SOURCE_VARIABLE names, if any."""

    def call(self, fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
        path = os.environ.get(SOURCE_VARIABLE)
        if path:
            return super().call(functools.partial(mutated, path, fn), *args, timeout=timeout)
        return super().call(fn, *args, timeout=timeout)


def changed_copy(old: str, new: str) -> Path:
    """A copy of _core.c with `old` (its first occurrence) replaced, beside the headers it includes
    and its build declaration (_core.toml)."""
    source = compiled.SOURCE.read_text(encoding="utf-8")
    assert old in source, old
    folder = Path(tempfile.mkdtemp())
    for kept in (*compiled.SOURCE.parent.glob("*.h"), *compiled.SOURCE.parent.glob("*.toml")):
        shutil.copy(kept, folder / kept.name)
    shutil.copy(compiled.SOURCE.parents[1] / "native" / "_mt.h", folder / "_mt.h")
    copy = folder / compiled.SOURCE.name
    copy.write_text(source.replace(old, new, 1), encoding="utf-8")
    return copy


def core_line(old: str, new: str) -> Patch:
    """The compiled core built, in the checker's child, from a copy of _core.c with `old` replaced."""
    def patch(mp: pytest.MonkeyPatch) -> None:
        mp.setenv(SOURCE_VARIABLE, str(changed_copy(old, new)))
        mp.setattr("verify.nested.check.Isolated", MutatedIsolated)
    return patch


def source_line(old: str, new: str) -> Patch:
    """The compiled core built from a copy of _core.c with `old` replaced, in the checker's own
    process too (a slip in the source the checker runs from: the core's load-time self-test sees
    it, so the commands play the Python engine)."""
    def patch(mp: pytest.MonkeyPatch) -> None:
        mp.setattr(compiled, "SOURCE", changed_copy(old, new))
        compiled.library.cache_clear()
        compiled._cores.cache_clear()
    return patch


def fresh(mp: pytest.MonkeyPatch) -> None:
    """Forget the engine's compiled rulesets, so that a patched compile step is used."""
    forget_views(mp, engine.compile_nested)


# The engine's slips -------------------------------------------------------------------------------


def engine_routes_by_block(mp: pytest.MonkeyPatch) -> None:
    """The correspondence rule read as "the block of the previous cell" instead of its position."""
    def allowed(self: Any) -> int:
        if self.over:
            return 0
        if self.last >= 0:
            routed = self.avail & self.r.route_mask[self.r.block_of[self.last]]
            if routed:
                return int(routed)
        return int(self.avail)
    mp.setattr(engine._NestedBoard, "allowed", allowed)


def engine_drawn_first(mp: pytest.MonkeyPatch) -> None:
    """pattern-first lost: a move that fills a block is checked for the draw before the pattern."""
    original = engine._NestedBoard.mark

    def mark(self: Any, c: int) -> None:
        r = self.r
        bm = r.block_mask[r.block_of[c]]
        if (self.masks[0] | self.masks[1] | 1 << c) & bm == bm:
            self.r = dataclasses.replace(r, full_block="drawn-first")
            try:
                original(self, c)
            finally:
                self.r = r
            return
        original(self, c)
    mp.setattr(engine._NestedBoard, "mark", mark)


def engine_majority_inverted(mp: pytest.MonkeyPatch) -> None:
    """draw-majority gives `more` to the player whose won blocks weigh less."""
    fresh(mp)
    original = engine.compile_nested_scoring

    def compile_scoring(scoring: Any, blocks: int) -> Callable[[int, tuple[int, ...]], Scores]:
        def inverted(c: Any) -> Any:
            kept = tuple((k, v) for k, v in c.settings if k not in ("more", "fewer"))
            swapped = (("more", c.get("fewer")), ("fewer", c.get("more")))
            return dataclasses.replace(c, settings=(*kept, *swapped))
        return original(tuple(inverted(c) if c.award == "draw-majority" else c for c in scoring), blocks)
    mp.setattr(engine, "compile_nested_scoring", compile_scoring)


def engine_chain_stops(mp: pytest.MonkeyPatch) -> None:
    """bonus = chain read as block-win: a block won by a bonus move gives no further bonus."""
    original = engine._NestedBoard.mark

    def mark(self: Any, c: int) -> None:
        r = self.r
        if r.bonus == "chain":
            self.r = dataclasses.replace(r, bonus="block-win")
            try:
                original(self, c)
            finally:
                self.r = r
            return
        original(self, c)
    mp.setattr(engine._NestedBoard, "mark", mark)


# The compiled core's slips -------------------------------------------------------------------------

core_routes_by_block = core_line("r->route_mask[r->pos_of[s->last]]", "r->route_mask[r->block_of[s->last]]")
core_drawn_first = core_line("if (full && r->full_block == QN_FULL_BLOCK_DRAWN_FIRST) {", "if (full) {")
core_majority_inverted = core_line("int more = worth[0] > worth[1] ? 0 : 1;",
                                   "int more = worth[0] > worth[1] ? 1 : 0;")
core_chain_stops = core_line("r->bonus == QN_BONUS_CHAIN || ", "")
core_crashes = core_line("    s->last = c;\n    s->move++;",
                         "    s->last = c;\n    if (s->move == 5) *(volatile int *)0 = 0;\n    s->move++;")
core_hangs = core_line("    s->last = c;\n    s->move++;",
                       "    s->last = c;\n    while (s->move == 5) {}\n    s->move++;")


def both(*patches: Patch) -> Patch:
    def patch(mp: pytest.MonkeyPatch) -> None:
        for p in patches:
            p(mp)
    return patch
