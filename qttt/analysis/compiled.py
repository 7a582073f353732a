"""The compiled rules core: `_core.c`, a second implementation of the rules for every quantum
ruleset of at most 16 cells, built on demand with the system C compiler (`fast.build`) and used
through ctypes.

It plays random games drawing from a `random.Random`'s own Mersenne Twister state, so a seed
gives the same games as `qttt.playout` (the generator is left where the Python engine would leave
it); it counts perft, serves positions to the engine protocol (`CorePosition`) and solves positions
near the end. `supports` says which rulesets it takes; callers fall back to the Python engine
where there is no compiler (`available`). Scores are integers scaled by `Game.scale`.
"""

from __future__ import annotations

import ctypes
import random
from collections import Counter
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import NamedTuple

from ..errors import IllegalAction, QtttError
from ..family import AnyAction, Tally
from ..quantum.engine import Action, Measure, Place, quantum_action
from ..quantum.game import compile_game
from ..variant import Ruleset
from .fast import FastUnavailable, build, config

SOURCE = Path(__file__).with_name("_core.c")
MAX_CELLS = 16
HEADER = 7  # phase, move, pending, to-move, x score, o score, cycle mask; then cells
CORES = ("auto", "compiled", "python")
_I64 = ctypes.POINTER(ctypes.c_int64)
_I32 = ctypes.POINTER(ctypes.c_int32)
_U32 = ctypes.POINTER(ctypes.c_uint32)
_U64 = ctypes.POINTER(ctypes.c_uint64)
_P = ctypes.c_void_p


class CoreUnavailable(FastUnavailable):
    """The compiled core cannot be used: no compiler, a failed build, or an unsupported ruleset."""


Signatures = dict[str, tuple[object, list[object]]]


def bind(source: Path, prefix: str, sig: Signatures) -> ctypes.CDLL:
    """The library built from `source` (`fast.build`) with each function's result and argument
    types set from `sig` (name: (result, arguments))."""
    lib = build(source, prefix)
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
        fn.restype = res
        fn.argtypes = args
    return lib


def unavailable(library: Callable[[], ctypes.CDLL]) -> str | None:
    """None when `library()` can be built and loaded here, else the reason it cannot."""
    try:
        library()
    except (FastUnavailable, OSError) as e:
        return str(e)
    return None


def usable(core: str, reason: Callable[[], str | None]) -> bool:
    """Whether to use a compiled core given `core` and `reason()` (why it cannot serve, None when it
    can): never for python, always for compiled (CoreUnavailable if it cannot), and for auto
    whenever it can."""
    if core == "python":
        return False
    why = reason()
    if why is None:
        return True
    if core == "compiled":
        raise CoreUnavailable("core-compiled", why)
    return False


@cache
def library() -> ctypes.CDLL:
    """The built core, compiling it first if no cached build matches the source."""
    return bind(SOURCE, "qttt_core", {
        "qc_new": (_P, [_I64, ctypes.c_int64]),
        "qc_free": (None, [_P]),
        "qc_pos_size": (ctypes.c_int, []),
        "qc_pos_init": (None, [_P, _P]),
        "qc_apply": (ctypes.c_int, [_P, _P, ctypes.c_int, ctypes.c_int, ctypes.c_int]),
        "qc_legal": (ctypes.c_int, [_P, _P, _I32]),
        "qc_export": (None, [_P, _P, _I64]),
        "qc_score": (None, [_P, _P, _I64]),
        "qc_perft": (None, [_P, _P, ctypes.c_int, _U64]),
        "qc_games": (ctypes.c_int64, [_P, _U32, ctypes.c_int64, _I32, ctypes.c_int64, _I32, _I64,
                                      ctypes.POINTER(ctypes.c_int8), _U64]),
        "qc_sample": (ctypes.c_int64, [_P, _U32, ctypes.c_int64, _I64, ctypes.c_int64, _I64]),
        "qc_table_new": (_P, [ctypes.c_int]),
        "qc_table_free": (None, [_P]),
        "qc_table_nodes": (ctypes.c_uint64, [_P]),
        "qc_search": (ctypes.c_int64, [_P, _P, _P, ctypes.c_int64, ctypes.c_int64]),
    })


def available() -> str | None:
    """None when the core can be built and loaded here, else the reason it cannot."""
    return unavailable(library)


def supports(rs: Ruleset) -> str | None:
    """None when the core handles `rs`, else the reason it does not."""
    if rs.rules.game != "quantum":
        return f"the compiled core plays quantum rulesets, not {rs.rules.game}"
    if rs.board ** 2 > MAX_CELLS:
        return f"the compiled core handles boards of at most {MAX_CELLS} cells, not {rs.board}×{rs.board}"
    if len(rs.scoring) > 8:
        return "the compiled core handles at most 8 scoring components"
    return None


def use_compiled(rs: Ruleset, core: str) -> bool:
    """Whether to use the compiled core for `rs`: always for compiled (CoreUnavailable if it
    cannot), never for python, and for auto whenever it can."""
    return usable(core, lambda: supports(rs) or available())


class Core:
    """The compiled core configured for one ruleset (see `core_for`)."""

    def __init__(self, rs: Ruleset) -> None:
        reason = supports(rs) or available()
        if reason is not None:
            raise CoreUnavailable("core-compiled", reason)
        self.rs = rs
        self.cells = rs.board ** 2
        self.scale = compile_game(rs).scale
        self.lib = library()
        cfg = config(rs, symmetries=False)
        handle = self.lib.qc_new((ctypes.c_int64 * len(cfg))(*cfg), len(cfg))
        if not handle:
            raise CoreUnavailable("core-compiled", f"the core refused the configuration of {rs.canonical}")
        self.handle: int = handle
        self.pos_size = int(self.lib.qc_pos_size())
        self.lined = any(c.award == "first-line" for c in rs.scoring)

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            self.lib.qc_free(self.handle)
            self.handle = 0

    def points(self, v: int) -> Fraction:
        """A scaled score as points."""
        return Fraction(v, self.scale)

    # -- random games

    def games(self, rng: random.Random, games: int) -> list[tuple[list[int], int, int, str, int]]:
        """`games` random games drawn from `rng` as `qttt.playout` would (rng is advanced the
        same way): per game its encoded actions, scaled x and o (0-0 at a deadlock), the final
        phase and a digest of actions and outcome."""
        state, finish = generator_state(rng)
        cap = games * 2 * (self.cells + 2)
        codes = (ctypes.c_int32 * max(cap, 1))()
        lens = (ctypes.c_int32 * max(games, 1))()
        scores = (ctypes.c_int64 * max(2 * games, 1))()
        phases = (ctypes.c_int8 * max(games, 1))()
        digests = (ctypes.c_uint64 * max(games, 1))()
        used = self.lib.qc_games(self.handle, state, games, codes, cap, lens, scores, phases, digests)
        if used < 0:
            raise QtttError("core-compiled", "the compiled core's action buffer overflowed")
        finish()
        out, at = [], 0
        for i in range(games):
            n = lens[i]
            out.append((list(codes[at:at + n]), scores[2 * i], scores[2 * i + 1],
                        ("place", "measure", "over")[phases[i]], digests[i]))
            at += n
        return out

    def random_actions(self, rng: random.Random, games: int) -> list[list[Action]]:
        """The actions of `games` random games drawn from `rng` as `qttt.playout` draws them."""
        return [[decode(c, self.cells) for c in game[0]] for game in self.games(rng, games)]

    def sample(self, rng: random.Random, games: int) -> Tally:
        """Histogram of final (x, o) points over `games` random games drawn from `rng`, the games
        by line result (as `sample.play_chunk`; empty without a first-line component), and no
        shapes (a quantum game's length is not tallied)."""
        state, finish = generator_state(rng)
        cap = 8192
        hist = (ctypes.c_int64 * (3 * cap))()
        lines = (ctypes.c_int64 * 6)()
        rows = self.lib.qc_sample(self.handle, state, games, hist, cap, lines)
        if rows < 0:
            raise QtttError("core-compiled", "more distinct scores than the compiled core can tally")
        finish()
        names = ("none", "x", "o", "neither", "tie", "unfinished")
        by_line = Counter({k: lines[i] for i, k in enumerate(names) if lines[i]}) if self.lined else Counter()
        return (Counter({(self.points(hist[3 * i]), self.points(hist[3 * i + 1])): hist[3 * i + 2]
                         for i in range(rows)}), by_line, Counter())

    def position(self, actions: Iterable[AnyAction] = ()) -> CorePosition:
        """The position after `actions` from the empty board (IllegalAction if one is illegal)."""
        pos = CorePosition(self)
        for act in actions:
            pos.apply(act)
        return pos

    def exact_value(self, pos: CorePosition, log2size: int = 20) -> tuple[Fraction, int]:
        """The value x − o of `pos` under perfect play (as `solve.Solver`; a deadlock is scored as
        the board stands) and the positions searched: plain alpha-beta with a table, for
        positions near the end of a game."""
        table = self.lib.qc_table_new(log2size)
        if not table:
            raise CoreUnavailable("core-compiled", f"cannot allocate a table of 2**{log2size} entries")
        try:
            bound = int(compile_game(self.rs).bound * self.scale)
            v = self.lib.qc_search(self.handle, table, pos.buf, -bound - 1, bound + 1)
            return self.points(v), int(self.lib.qc_table_nodes(table))
        finally:
            self.lib.qc_table_free(table)


def generator_state(rng: random.Random) -> tuple[ctypes.Array[ctypes.c_uint32], Callable[[], None]]:
    """The Mersenne Twister state of `rng` as C words, and a callback storing it back."""
    version, words, gauss = rng.getstate()
    state = (ctypes.c_uint32 * 625)(*words)

    def finish() -> None:
        rng.setstate((version, tuple(state), gauss))
    return state, finish


@cache
def _cores(key: object, rs: Ruleset) -> Core:
    return Core(rs)


def core_for(rs: Ruleset) -> Core:
    """The compiled core of `rs`, made once per process and ruleset."""
    return _cores(rs.key(), rs)


def decode(code: int, cells: int) -> Action:
    """An encoded action (`count.encode`) as an action."""
    if code < 0:
        return Measure(-code - 1)
    return Place(*divmod(code, cells))


class CoreView(NamedTuple):
    """A position as the core holds it: the fields of the v1 state, scores as (x, o) points (0-0
    until the game is over), classical move numbers and spooky move numbers per cell."""

    phase: str
    move: int
    pending: int | None
    to_move: str | None
    scores: tuple[Fraction, Fraction]
    cycle: tuple[int, ...] | None
    classical: tuple[int, ...]
    spooky: tuple[tuple[int, ...], ...]


# The rule a refusal of qc_apply names (its codes, in the engine's check order).
_REFUSALS = {
    1: ("over-no-action", "the game is over; no action is legal"),
    2: ("measure-pending", "a cycle is pending: it must be measured before any placement"),
    3: ("measure-pending", "no cycle is pending; there is nothing to measure"),
    4: ("board-cells", "a cell is not on the board"),
    5: ("place-open", "a cell of the placement is classical"),
    6: ("place-distinct", "both marks in one cell: a placement needs two different cells unless it "
                          "fills the last open cell"),
    7: ("place-two-cycle", "the two cells already hold a spooky move and this ruleset forbids 2-cycles"),
    8: ("measure-cell", "the cell is not a cell of the cycle-closing move"),
}


class CorePosition:
    """A mutable position held by the compiled core: actions applied in place after the core's own
    legality check, views read back from it."""

    def __init__(self, core: Core) -> None:
        self.core = core
        self.buf = ctypes.create_string_buffer(core.pos_size)
        core.lib.qc_pos_init(core.handle, self.buf)

    def copy(self) -> CorePosition:
        """An independent copy."""
        out = CorePosition.__new__(CorePosition)
        out.core = self.core
        out.buf = ctypes.create_string_buffer(self.buf.raw, self.core.pos_size)
        return out

    def apply(self, action: AnyAction) -> None:
        """Apply `action`; IllegalAction naming the first rule it breaks (rule check-order), and
        RecordError (record-format) for an action of another family."""
        action = quantum_action(action)
        c = self.core
        if isinstance(action, Measure):
            got = c.lib.qc_apply(c.handle, self.buf, 1, action.cell, 0)
        else:
            got = c.lib.qc_apply(c.handle, self.buf, 0, action.a, action.b)
        if got == 9:
            raise QtttError("core-compiled", "more moves than the compiled core holds")
        if got:
            rule, message = _REFUSALS[got]
            raise IllegalAction(rule, message)

    def legal(self) -> list[Action]:
        """Legal actions in the engine's order."""
        c = self.core
        out = (ctypes.c_int32 * (c.cells * c.cells + 2))()
        n = c.lib.qc_legal(c.handle, self.buf, out)
        return [decode(out[i], c.cells) for i in range(n)]

    def view(self) -> CoreView:
        """What the core holds about the position."""
        c = self.core
        n = c.cells
        out = (ctypes.c_int64 * (HEADER + 2 * n))()
        c.lib.qc_export(c.handle, self.buf, out)
        return CoreView(
            phase=("place", "measure", "over")[out[0]], move=out[1],
            pending=out[2] if out[0] == 1 else None,
            to_move=None if out[3] < 0 else "xo"[out[3]],
            scores=(c.points(out[4]), c.points(out[5])),
            cycle=tuple(k for k in range(n) if out[6] >> k & 1) if out[0] == 1 else None,
            classical=tuple(out[HEADER + k] for k in range(n)),
            spooky=tuple(tuple(m for m in range(64) if out[HEADER + n + k] >> m & 1) for k in range(n)),
        )

    def perft(self, depth: int) -> list[int]:
        """The number of action sequences of length 1..depth from here."""
        c = self.core
        counts = (ctypes.c_uint64 * max(depth, 1))()
        c.lib.qc_perft(c.handle, self.buf, depth, counts)
        return [counts[i] for i in range(depth)]

