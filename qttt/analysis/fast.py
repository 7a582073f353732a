"""The compiled solver core: `_solve.c`, built on demand with the system C compiler, via ctypes.

Same values as `solve.Solver` (x − o under perfect play, scaled to integers by `Game.scale`)
for boards of at most 9 cells; `available()` says whether it can be used here (it needs `cc`, or
the compiler named by $CC). The shared library is cached under $QTTT_CACHE (default
~/.cache/qttt) by a hash of the source, so a changed source is rebuilt. `FastSolver.perft` counts
action sequences with the core's own move generator, so the committed perft tables check it at
every position of their trees.

Ruleset layout passed to C (int64 array): cells, creator measures, two-cycles, forced last,
vanish, numbered key; end-line masks (count, masks); relevant masks for dead cells (count, masks);
symmetries (count, then cells entries each); components (count, then each: type 0 per-pattern,
1 first-line, 2 rank; pattern count and masks; per-pattern: points; first-line: sole, first,
second, neither, tie, double (sole when unstated), criteria count and codes (0 min-max,
1 min-sum); rank: worth count and worths), every point value scaled.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import tempfile
from fractions import Fraction
from functools import cache
from pathlib import Path

from ..errors import QtttError
from ..quantum.engine import Action, State
from ..quantum.game import compile_game
from ..quantum.scoring import scaled
from ..variant import Ruleset
from .count import board_after, encode

SOURCE = Path(__file__).with_name("_solve.c")
CFLAGS = ("-O2", "-shared", "-fPIC", "-std=c11")


class FastUnavailable(QtttError):
    """The compiled core cannot be used: no compiler, a failed build, or an unsupported ruleset."""


def cache_dir() -> Path:
    """Where built libraries are kept: $QTTT_CACHE, else ~/.cache/qttt."""
    return Path(os.environ.get("QTTT_CACHE") or Path.home() / ".cache" / "qttt")


def compiler() -> str | None:
    """The C compiler to use ($CC, else cc, else gcc), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name and shutil.which(name):
            return name
    return None


def build(source: Path, prefix: str) -> ctypes.CDLL:
    """The shared library built from `source` with the system compiler, cached by a hash of the
    source, the headers beside it and the flags; FastUnavailable when there is no compiler or the
    build fails."""
    cc = compiler()
    if cc is None:
        raise FastUnavailable("solve-fast", "no C compiler found (set CC, or install cc)")
    src = b"".join(p.read_bytes() for p in (source, *sorted(source.parent.glob("*.h"))))
    tag = hashlib.sha256(src + " ".join(CFLAGS).encode()).hexdigest()[:16]
    target = cache_dir() / f"{prefix}_{tag}.so"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".build.", suffix=".so")
        os.close(fd)
        try:
            run = subprocess.run([cc, *CFLAGS, "-o", tmp, str(source)], capture_output=True, text=True)
            if run.returncode != 0:
                first = (run.stderr.strip().splitlines() or ["no message"])[0]
                raise FastUnavailable("solve-fast", f"building {source.name} with {cc} failed: {first}")
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
    return ctypes.CDLL(str(target))


@cache
def library() -> ctypes.CDLL:
    """The built solver core, compiling it first if no cached build matches the source."""
    lib = build(SOURCE, "qttt_solve")
    lib.qs_new.restype = ctypes.c_void_p
    lib.qs_new.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_int64, ctypes.c_int]
    lib.qs_free.restype = None
    lib.qs_free.argtypes = [ctypes.c_void_p]
    for name in ("qs_nodes", "qs_stored"):
        getattr(lib, name).restype = ctypes.c_uint64
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    lib.qs_search.restype = ctypes.c_int64
    lib.qs_search.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int,
                              ctypes.c_int64, ctypes.c_int64, ctypes.POINTER(ctypes.c_int)]
    lib.qs_perft.restype = ctypes.c_int
    lib.qs_perft.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int, ctypes.c_int,
                             ctypes.POINTER(ctypes.c_uint64)]
    lib.qs_score.restype = ctypes.c_int64
    lib.qs_score.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int32), ctypes.c_int,
                             ctypes.POINTER(ctypes.c_int)]
    return lib


def available() -> str | None:
    """None when the core can be built and loaded here, else the reason it cannot."""
    try:
        library()
    except (FastUnavailable, OSError) as e:
        return str(e)
    return None


def supports(rs: Ruleset) -> str | None:
    """None when the core handles `rs`, else the reason it does not."""
    if rs.board ** 2 > 9:
        return f"the compiled solver handles boards of at most 9 cells, not {rs.board}×{rs.board}"
    if len(rs.scoring) > 8:
        return "the compiled solver handles at most 8 scoring components"
    return None


def config(rs: Ruleset, symmetries: bool = True, numbered: bool | None = None) -> list[int]:
    """The ruleset's game as the C cores read it (layout in the module docstring), point values in
    units of 1/`Game.scale`. symmetries=False keys positions without board symmetries, numbered=True
    keeps move numbers in keys even when the scoring ignores them: finer keys, for cross-checks."""
    g = compile_game(rs)
    keep_numbers = g.uses_move_numbers if numbered is None else numbered
    out = [g.cells, int(g.creator_measures), int(g.two_cycles), int(g.forced_last), int(g.vanish),
           int(keep_numbers)]
    syms = g.symmetries if symmetries else g.symmetries[:1]  # identity first
    out += [len(g.end_masks), *g.end_masks, len(g.relevant_masks), *g.relevant_masks, len(syms)]
    for p in syms:
        out += list(p)
    out.append(len(g.awards))
    for award in g.awards:
        out += award.encode(g.scale)
    return out


class FastSolver:
    """A compiled solver for one ruleset, with its own transposition table (2**log2size entries of
    32 bytes); positions are given as encoded actions from the start (`count.encode`)."""

    def __init__(self, rs: Ruleset, log2size: int = 22, symmetries: bool = True,
                 numbered: bool | None = None) -> None:
        reason = supports(rs)
        if reason is not None:
            raise FastUnavailable("solve-fast", reason)
        self.rs = rs
        game = compile_game(rs)
        self.scale = game.scale
        self.bound = int(game.bound * self.scale)
        self.lib = library()
        cfg = config(rs, symmetries, numbered)
        arr = (ctypes.c_int64 * len(cfg))(*cfg)
        handle = self.lib.qs_new(arr, len(cfg), log2size)
        if not handle:
            raise FastUnavailable("solve-fast", f"cannot allocate a table of 2**{log2size} entries")
        self.handle: int = handle

    def close(self) -> None:
        """Free the table."""
        if self.handle:
            self.lib.qs_free(self.handle)
            self.handle = 0

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            self.close()

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.lib.qs_nodes(self.handle))

    @property
    def stored(self) -> int:
        """Table entries in use."""
        return int(self.lib.qs_stored(self.handle))

    def search(self, codes: tuple[int, ...] | list[int], alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta value (scaled) of the position after `codes`, within (alpha, beta)."""
        arr = (ctypes.c_int32 * max(1, len(codes)))(*codes)
        status = ctypes.c_int(0)
        v = self.lib.qs_search(self.handle, arr, len(codes), alpha, beta, ctypes.byref(status))
        if status.value:
            raise QtttError("solve-fast", f"action {status.value - 1} of {list(codes)} is not legal")
        return int(v)

    def score(self, codes: tuple[int, ...] | list[int]) -> tuple[str, int]:
        """The phase (place, measure, over) after `codes` and the scaled x − o of the board as it
        stands (the final score once over)."""
        arr = (ctypes.c_int32 * max(1, len(codes)))(*codes)
        phase = ctypes.c_int(0)
        v = self.lib.qs_score(self.handle, arr, len(codes), ctypes.byref(phase))
        if phase.value < 0:
            raise QtttError("solve-fast", f"{list(codes)} is not a legal sequence of actions")
        return ("place", "measure", "over")[phase.value], int(v)

    def perft(self, codes: tuple[int, ...] | list[int], depth: int) -> list[int]:
        """Action sequences of each length 1..depth from the position after `codes`, counted by the
        core's own move generator (as `conformance.perft.perft_counts` counts them)."""
        arr = (ctypes.c_int32 * max(1, len(codes)))(*codes)
        counts = (ctypes.c_uint64 * max(1, depth))()
        status = self.lib.qs_perft(self.handle, arr, len(codes), depth, counts)
        if status:
            raise QtttError("solve-fast", f"action {status - 1} of {list(codes)} is not legal")
        return [int(c) for c in counts[:depth]]

    def exact(self, codes: tuple[int, ...] | list[int], guess: int = 0) -> int:
        """The exact scaled value: MTD(f) null-window searches from `guess`, sharing the table."""
        lo, hi = -self.bound - 1, self.bound + 1
        g = guess
        while lo < hi:
            beta = g + 1 if g == lo else g
            g = self.search(codes, beta - 1, beta)
            if g < beta:
                hi = g
            else:
                lo = g
        return g

    def exact_value(self, codes: tuple[int, ...] | list[int]) -> Fraction:
        """The exact value of the position after `codes`, as a fraction."""
        return Fraction(self.exact(codes), self.scale)


DEFAULT_LOG2 = 24  # 2**24 entries of 32 bytes: 512 MiB per solver


def first_value(rs: Ruleset, start: tuple[int, ...], code: int) -> tuple[str, int, int]:
    """Exact value (as a string) after one encoded action from `start`, with nodes searched and table
    entries used: a unit of work for another process (`solve.first_value` with the compiled core)."""
    fs = FastSolver(rs, DEFAULT_LOG2)
    try:
        v = fs.exact_value((*start, code))
        return str(v), fs.nodes, fs.stored
    finally:
        fs.close()


def principal_variation(fs: FastSolver, start: tuple[int, ...], value: Fraction) -> list[Action]:
    """Actions of a perfect game from the position after `start`, replayed with the engine: at each
    step the first legal action (in the engine's order) whose position keeps `value`. Raises
    QtttError if no action keeps it (the table and the engine disagree)."""
    rs = fs.rs
    n2 = rs.board ** 2
    codes = list(start)
    b = board_after(rs, codes)
    target = scaled(value, fs.scale)
    pv: list[Action] = []
    state = State(b)
    while not state.over:
        legal = state.legal_actions()
        if not legal:
            break  # deadlock: scored as the board stands
        for act in legal:
            code = encode(act, n2)
            if fs.search([*codes, code], target - 1, target + 1) == target:
                state = state.apply(act)  # the engine's own check of the action
                codes.append(code)
                pv.append(act)
                break
        else:
            raise QtttError("solve-fast", f"no action keeps the value {value} after {codes}")
    end = board_after(rs, codes).score_difference()
    if end != value:
        raise QtttError("solve-fast", f"the principal variation ends at {end}, not {value}")
    return pv
