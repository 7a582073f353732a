"""The compiled rules core: `_core.c`, the one C implementation of the rules (random playouts,
perft, positions for the engine protocol, an exact solver), built on demand with the system C
compiler (or at install time) and used through ctypes; this module is its only binding.

The source is compiled twice (`BUILDS`, declared in `_core.toml`): for boards of at most 9 cells
(32-bit move masks, solver keys canonical under the board's symmetries) and of at most 16 (64-bit
masks). Random games draw from a `random.Random`'s own Mersenne Twister state, so a seed gives
the same games as `qttt.playout` (the generator is left where the Python engine would leave it).
`supports` says which rulesets it takes; callers fall back to the Python engine, with a notice,
where no core can be had (`available`). Scores are integers scaled by `Game.scale`. The libraries
come built in a wheel, or are built on first use and cached under $QTTT_CACHE (default
~/.cache/qttt) by a hash of the source, headers and flags, each checked before use (qttt.native).

The ruleset reaches C as `config(rs)`, a flat int64 array serialised from `qttt.game.Game`: the
Game fields `CONFIG_FIELDS`; end-line masks (count, masks); the masks whose ownership matters
(count, masks); symmetries (count, then a cell permutation each); scoring components (count, then
each award's `Award.encode`: code, pattern count and masks, its `c_fields`, its list counted).
The C parser reads the same names from `_config.h`, which `config_header` writes from these
declarations; `library` refuses a header that does not match them.
"""

from __future__ import annotations

import ctypes
import json
import random
import threading
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction
from functools import cache, cached_property
from pathlib import Path
from typing import NamedTuple

from ..chance import CHANCE
from ..errors import IllegalAction, QtttError
from ..family import AnyAction, Replayed, Tally
from ..native import (
    I32,
    I64,
    U32,
    U64,
    CoreUnavailable,
    P,
    Position,
    bind,
    builds,
    check_header,
    generator_state,
    scaled,
    unavailable,
    usable,
)
from ..notation import action_to_json
from ..ruleset import Ruleset
from ..vocabulary import c_name
from .analysis.count import board_after, encode
from .engine import STATE, Action, Measure, Outcome, Place, State, mark_name, quantum_action
from .game import COMPILED, Game, compile_game
from .scoring import AWARD_TYPES, CRITERIA_CODES

SOURCE = Path(__file__).with_name("_core.c")
HEADER_PATH = Path(__file__).with_name("_config.h")
# QC_CELLS of the builds: a ruleset uses the smallest that holds its board
BUILDS = tuple(sorted(int(d.removeprefix("QC_CELLS=")) for b in builds(SOURCE).values() for d in b.defines))
MAX_CELLS = BUILDS[-1]
SOLVER_CELLS = BUILDS[0]  # the solver's canonical keys need the small build
# The Game fields serialised, in order: the compiled parameters as their values' codes (a fraction
# as its numerator and denominator, `Parameter.c_fields`), then the score scale.
CONFIG_FIELDS = ("cells", *(f for p in COMPILED for f in p.c_fields), "uses_move_numbers", "scale")
MAX_MOVES = 64  # move numbers a build holds at most (MAXM)
HEADER = 8  # phase, move, pending, to-move, x score, o score, cycle mask, cell named; then cells
PHASES = ("place", "measure", "over", "chance")  # the core's phase codes (engine.PHASES)
TOO_MANY, INCONSISTENT = 9, 12  # the core's status codes beyond the refusals (QC_TOO_MANY, QC_INCONSISTENT)
POSITION = {"cls": ("cls",), "spk": ("spk",), "move": ("move",), "phase": ("phase",), "pending": ("pending",),
            "chosen": ("chosen",)}
"""The C position (`Pos` in _core.c): the members holding each declared field of the position state
(`engine.STATE`), as the engine's Board holds them."""
POSITION_DERIVED = {"ends": ("ea", "eb", "live"), "comp": ("comp",), "xmask": ("x",), "omask": ("o",),
                    "open": ("open",)}
"""The members of `Pos` holding the engine's derived fields."""
POSITION_COVER = STATE.cover("qttt/quantum/_core.c:Pos",
                             kept={f: "as " + ", ".join(m) for f, m in POSITION.items()})
KEY_COVERS = (
    STATE.cover("qttt/quantum/_core.c:pos_key (9-cell build)",
                kept={"cls": "as numbered_key or owner_key keeps it (as the scoring reads move numbers or "
                             "not), minimised over the board's symmetries",
                      "spk": "as live cell pairs, numbered or owner-labelled",
                      "move": "relabelled, or its parity",
                      "phase": "as is", "pending": "relabelled, or as its cell pair and owner",
                      "chosen": "under the same symmetry, at a chance turn"}),
    STATE.cover("qttt/quantum/_core.c:pos_key (16-cell build)",
                kept={"cls": "as is, hashed", "spk": "as is, hashed", "move": "as is, hashed",
                      "phase": "as is, hashed", "pending": "as is, hashed (whatever the phase)",
                      "chosen": "as is, hashed (0 outside a chance turn)"}),
)
"""How the solver's keys in C hold each declared field (the 9-cell build's is the Python keys'
reading: tests/analysis/test_solve_fast.py compares them)."""


def inconsistent() -> QtttError:
    """The error of a core that met a position the rules cannot produce (a measurement that meets a
    mark or a cell twice, a cycle no path closes, move numbers run out): a bug in the rules, reported
    instead of walking past the end of the core's arrays."""
    return QtttError("core-compiled", "position inconsistent: the compiled core met a position the rules "
                                      "cannot produce (a bug in the rules)")


def config_header() -> str:
    """The text of `_config.h`: the configuration's field names and codes, from the declarations
    `config` serialises (the compiled parameters of qttt.vocabulary and their values' codes, the
    quantum awards with their C fields, criteria)."""
    lines = ["/* The compiled core's configuration fields and codes. Generated by",
             "   qttt.quantum.compiled.config_header() from the Game fields it serialises and the",
             "   declarations of qttt/vocabulary.py (parameter values, awards, criteria); do not edit.",
             "*/", "",
             "#define QC_GAME_FIELDS(X) " + " ".join(f"X({f})" for f in CONFIG_FIELDS), ""]
    lines += [f"#define {name} {code}" for p in COMPILED for name, code in p.c_constants("QC")]
    lines.append("")
    for award in AWARD_TYPES.values():
        name = c_name(award.name)
        lines += [f"#define QC_AWARD_{name} {award.code}",
                  f"#define QC_AWARD_{name}_FIELDS(X) {' '.join(f'X({f})' for f in award.c_fields)}".rstrip()]
    lines += ["#define QC_AWARDS(X) " + " ".join(f"X({c_name(a)})" for a in AWARD_TYPES), ""]
    lines += [f"#define QC_CRITERION_{c_name(k)} {v}" for k, v in CRITERIA_CODES.items()]
    return "\n".join(lines) + "\n"


_SIGNATURES: dict[str, tuple[object, list[object]]] = {
    "qc_new": (P, [I64, ctypes.c_int64]),
    "qc_free": (None, [P]),
    "qc_pos_size": (ctypes.c_int, []),
    "qc_pos_init": (None, [P, P]),
    "qc_apply": (ctypes.c_int, [P, P, ctypes.c_int, ctypes.c_int, ctypes.c_int]),
    "qc_replay": (ctypes.c_int, [P, P, I32, ctypes.c_int]),
    "qc_legal": (ctypes.c_int, [P, P, I32]),
    "qc_export": (ctypes.c_int, [P, P, I64]),
    "qc_chance": (ctypes.c_int, [P, P, I32, I64, I64]),
    "qc_score": (None, [P, P, I64]),
    "qc_perft": (ctypes.c_int, [P, P, ctypes.c_int, U64]),
    "qc_games": (ctypes.c_int64, [P, U32, ctypes.c_int64, I32, ctypes.c_int64, I32, I64,
                                  ctypes.POINTER(ctypes.c_int8), U64]),
    "qc_sample": (ctypes.c_int64, [P, U32, ctypes.c_int64, I64, ctypes.c_int64, I64]),
    "qc_jsonl": (ctypes.c_int64, [P, U32, ctypes.c_int64, ctypes.c_char_p, I32, ctypes.c_char_p,
                                  ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                  ctypes.c_int64]),
    "qc_replay_jsonl": (ctypes.c_int64, [P, ctypes.c_char_p, ctypes.c_int64, ctypes.c_int,
                                         ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_int,
                                         ctypes.c_char_p, I32, ctypes.c_int64, ctypes.c_int64,
                                         ctypes.c_char_p, ctypes.c_int64, I64]),
    "qc_table_new": (P, [ctypes.c_int]),
    "qc_table_free": (None, [P]),
    "qc_table_nodes": (ctypes.c_uint64, [P]),
    "qc_table_stored": (ctypes.c_uint64, [P]),
    "qc_search": (ctypes.c_int64, [P, P, P, ctypes.c_int64, ctypes.c_int64]),
    "qc_etable_new": (P, [ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int]),
    "qc_etable_free": (None, [P]),
    "qc_etable_nodes": (ctypes.c_uint64, [P]),
    "qc_etable_stored": (ctypes.c_uint64, [P]),
    "qc_edegree": (ctypes.c_int, []),
    "qc_evalue": (ctypes.c_int, [P, P, P, I64]),
    "qc_key": (None, [P, P, U64]),
    "qc_shape_key": (ctypes.c_uint64, [P, P]),
    "qc_child_keys": (ctypes.c_int, [P, P, I32, U64]),
    "qc_walk_table": (P, [ctypes.c_int]),
    "qc_walk_table_free": (None, [P]),
    "qc_walk_size": (ctypes.c_int64, [P]),
    "qc_walk_dump": (ctypes.c_int64, [P, ctypes.c_char_p, ctypes.c_int64]),
    "qc_walk_load": (ctypes.c_int64, [P, ctypes.c_char_p, ctypes.c_int64]),
    "qc_walk_process": (ctypes.c_int64, [P, P, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int64,
                                         ctypes.c_int, ctypes.POINTER(P), ctypes.c_int, I32, ctypes.c_int64,
                                         ctypes.POINTER(ctypes.c_uint16), ctypes.c_int64, I64, U64,
                                         ctypes.c_int64]),
}


@cache
def library(cells: int = MAX_CELLS) -> ctypes.CDLL:
    """The core built for boards of at most `cells` cells (one of `BUILDS`), compiling it first if
    no cached build matches the source; CoreUnavailable if `_config.h` does not match the
    declarations it is generated from."""
    check_header(HEADER_PATH, config_header(), "qttt.quantum.compiled.config_header()")
    return bind(SOURCE, f"qttt_core{cells}", _SIGNATURES)


SLOWER = 28  # the Python engine's CPU per random game over the core's (analyze random: 25.8 CPU-s / 0.93)


def available(cells: int | None = None) -> str | None:
    """None when the core (the build for `cells` cells; every build when None) can be had here,
    else the reason it cannot."""
    return unavailable(lambda: [library(c) for c in BUILDS if cells in (None, c)])


def supports(rs: Ruleset, cells: int = MAX_CELLS) -> str | None:
    """None when the core (built for at most `cells` cells) handles `rs`, else the reason it does
    not."""
    if rs.rules.game != "quantum":
        return f"the compiled core plays quantum rulesets, not {rs.rules.game}"
    if rs.board ** 2 > cells:
        return f"the compiled core handles boards of at most {cells} cells, not {rs.board}×{rs.board}"
    if len(rs.scoring) > 8:
        return "the compiled core handles at most 8 scoring components"
    if rs.rules.p.denominator >= 1 << 62:
        return "the compiled core handles a probability p whose denominator is below 2**62"
    return None


def config(rs: Ruleset, symmetries: bool = True, numbered: bool | None = None) -> list[int]:
    """The ruleset's game as the C core reads it (layout in the module docstring), point values in
    units of 1/`Game.scale`. symmetries=False keys positions without board symmetries, numbered=True
    keeps move numbers in keys even when the scoring ignores them: finer keys, for cross-checks."""
    g = compile_game(rs)
    codes: dict[str, int] = {}
    for q in COMPILED:  # a parameter's value as its code, a fraction as two numbers
        codes.update(zip(q.c_fields, q.c_values(getattr(g, q.name)), strict=True))
    fields = {f: codes[f] if f in codes else int(getattr(g, f)) for f in CONFIG_FIELDS}
    if numbered is not None:
        fields["uses_move_numbers"] = int(numbered)
    syms = g.symmetries if symmetries else g.symmetries[:1]  # identity first
    out = [*fields.values(), len(g.end_masks), *g.end_masks, len(g.relevant_masks), *g.relevant_masks,
           len(syms)]
    for p in syms:
        out += list(p)
    out.append(len(g.awards))
    for award in g.awards:
        out += award.encode(g.scale)
    return out


class _Rules:
    """A configuration loaded into one build of the core (freed with it)."""

    def __init__(self, rs: Ruleset, cells: int, cfg: list[int]) -> None:
        self.lib = library(cells)
        handle = self.lib.qc_new((ctypes.c_int64 * len(cfg))(*cfg), len(cfg))
        if not handle:
            raise CoreUnavailable("core-compiled", f"the core refused the configuration of {rs.canonical}")
        self.handle: int = handle

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            self.lib.qc_free(self.handle)
            self.handle = 0


def _build_for(rs: Ruleset) -> int:
    """The smallest build that holds the ruleset's board."""
    return next((c for c in BUILDS if rs.board ** 2 <= c), MAX_CELLS)


def use_compiled(rs: Ruleset, core: str) -> bool:
    """Whether to use the compiled core for `rs`: always for compiled (CoreUnavailable if it
    cannot), never for python, and for auto whenever it can."""
    return usable(core, supports(rs), lambda: available(_build_for(rs)), SLOWER)


class Core:
    """The compiled core configured for one ruleset (see `core_for`)."""

    def __init__(self, rs: Ruleset) -> None:
        reason = supports(rs) or available(_build_for(rs))
        if reason is not None:
            raise CoreUnavailable("core-compiled", reason)
        self.rs = rs
        self.game: Game = compile_game(rs)
        self.cells = rs.board ** 2
        self.scale = self.game.scale
        self.rules = _Rules(rs, _build_for(rs), config(rs, symmetries=False))
        self.lib = self.rules.lib
        self.handle = self.rules.handle
        self.pos_size = int(self.lib.qc_pos_size())
        self.lined = any(c.award == "first-line" for c in rs.scoring)
        self._replay_out = threading.local()  # replay_jsonl's output buffer, reused by each thread

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
            raise self._overflow(used, "action buffer")
        finish()
        out, at = [], 0
        for i in range(games):
            n = lens[i]
            out.append((list(codes[at:at + n]), scores[2 * i], scores[2 * i + 1],
                        PHASES[phases[i]], digests[i]))
            at += n
        return out

    def _overflow(self, status: int, what: str) -> QtttError:
        """The error of a core call that returned `status` < 0: -2 a game longer than the build's
        move masks hold (rare: only rulesets whose games can pass 62 placements), -3 an inconsistent
        position, else `what` overflowed."""
        if status == -3:
            return inconsistent()
        if status == -2:
            return QtttError("core-compiled", f"a random game of {self.rs.canonical} outgrew the compiled "
                             "core's move numbers; use --core python")
        return QtttError("core-compiled", f"the compiled core's {what} overflowed")

    def jsonl(self, rng: random.Random, games: int, head: str, tail: str) -> bytes:
        """`games` random games drawn from `rng` as `qttt.playout` draws them, as ASCII: per game
        `head`, the actions' JSON (`notation.action_to_json`, compact) joined by commas, `tail`."""
        frag, offsets = self._fragments
        state, finish = generator_state(rng)
        per_game = len(head) + len(tail) + (2 * self.game.length_bound + 2) * (max(
            offsets[i + 1] - offsets[i] for i in range(len(offsets) - 1)) + 1)
        cap = max(games * per_game, 1)
        out = ctypes.create_string_buffer(cap)
        used = self.lib.qc_jsonl(self.handle, state, games, frag, offsets, head.encode(), len(head),
                                 tail.encode(), len(tail), out, cap)
        if used < 0:
            raise self._overflow(used, "record buffer")
        finish()
        return ctypes.string_at(out, used)

    @cached_property
    def _fragments(self) -> tuple[bytes, ctypes.Array[ctypes.c_int32]]:
        n = self.cells
        texts = [json.dumps(action_to_json(decode(c, n)), separators=(",", ":")).encode("ascii")
                 for c in [*range(n * n), *(-1 - c for c in range(n)), *(-1 - n - c for c in range(n))]]
        offsets = [0]
        for t in texts:
            offsets.append(offsets[-1] + len(t))
        return b"".join(texts), (ctypes.c_int32 * len(offsets))(*offsets)

    def replay_jsonl(self, text: bytes, final: bool, variant: str) -> Replayed:
        """Replay the records of `variant` in JSON Lines `text` (UTF-8) line by line, as far as each
        line is blank or a record written plainly (`{"variant": ..., "actions": [...]}`, actions
        `{"place": [a, b]}`, `{"measure": c}` or `{"outcome": c}`) whose every action is legal
        (rule check-order): the final states as `notation.state_to_json` writes them with
        `json.dumps(..., separators=(", ", ": "))`, one per line (see `Replayed`; the last line is
        read only when `final`)."""
        marks, offsets = self._marks
        name = variant.encode()
        head = json.dumps({"variant": variant, "board": []}, separators=(", ", ": "))
        head_bytes = head[:head.rindex("]")].encode()
        most = len(head_bytes) + 200 + self.cells * (MAX_MOVES * 6 + 4)  # bytes of one state at most
        cap = max(len(text) * 4, 1 << 16) + most
        out = getattr(self._replay_out, "buffer", None)  # one per thread: threads replay at once
        if out is None or len(out) < cap:
            out = self._replay_out.buffer = ctypes.create_string_buffer(cap)
        stats = (ctypes.c_int64 * 4)()
        used = self.lib.qc_replay_jsonl(self.handle, text, len(text), int(final), name, len(name), head_bytes,
                                        len(head_bytes), marks, offsets, self.scale, most, out, cap, stats)
        return Replayed(ctypes.string_at(out, used).decode("ascii"), stats[0], stats[2], stats[1],
                        REPLAY_STOPS[stats[3]])

    @cached_property
    def _marks(self) -> tuple[bytes, ctypes.Array[ctypes.c_int32]]:
        texts = [json.dumps(mark_name(k)).encode("ascii") for k in range(MAX_MOVES + 1)]
        offsets = [0]
        for t in texts:
            offsets.append(offsets[-1] + len(t))
        return b"".join(texts), (ctypes.c_int32 * len(offsets))(*offsets)

    def random_actions(self, rng: random.Random, games: int) -> list[list[Action]]:
        """The actions of `games` random games drawn from `rng` as `qttt.playout` draws them."""
        return [[decode(c, self.cells) for c in game[0]] for game in self.games(rng, games)]

    def sample_scaled(self, rng: random.Random, games: int
                      ) -> tuple[int, Counter[tuple[int, int]], Counter[str]]:
        """As `sample`, the points left as integers: the scale, the histogram of scaled final (x, o)
        and the games by line result."""
        state, finish = generator_state(rng)
        cap = 8192
        hist = (ctypes.c_int64 * (3 * cap))()
        lines = (ctypes.c_int64 * 6)()
        rows = self.lib.qc_sample(self.handle, state, games, hist, cap, lines)
        if rows < 0:
            raise self._overflow(rows, "table of distinct scores")
        finish()
        names = ("none", "x", "o", "neither", "tie", "unfinished")
        by_line = Counter({k: lines[i] for i, k in enumerate(names) if lines[i]}) if self.lined else Counter()
        flat = hist[:3 * rows]
        return self.scale, Counter(dict(zip(zip(flat[0::3], flat[1::3], strict=True), flat[2::3],
                                            strict=True))), by_line

    def sample(self, rng: random.Random, games: int) -> Tally:
        """Histogram of final (x, o) points over `games` random games drawn from `rng`, the games
        by line result (as `sample.play_chunk`; empty without a first-line component), and no
        shapes (a quantum game's length is not tallied)."""
        scale, hist, by_line = self.sample_scaled(rng, games)
        return (Counter({(Fraction(x, scale), Fraction(o, scale)): k for (x, o), k in hist.items()}), by_line,
                Counter())

    def position(self, actions: Iterable[AnyAction] = ()) -> CorePosition:
        """The position after `actions` from the empty board (IllegalAction if one is illegal)."""
        pos = CorePosition(self)
        for act in actions:
            pos.apply(act)
        return pos

    def walk_ply(self, ply: int, pieces: Iterable[bytes], members: int, bound: int | None, shards: int,
                 engine_ply: int = -1, engine_every: int = 0, finals: bool = False) -> WalkPly:
        """Check one shard of a walk's ply in C (`qc_walk_process`): its classes are the union of
        `pieces` (dumps of the same ply), each representative and up to `members` other members
        checked against the checker's reading, the next ply's classes dumped per shard. The
        representatives the engine is to check too: every one up to ply `engine_ply`, those whose
        key hashes to 0 modulo `engine_every`, and with `finals` every finished one."""
        if ply >= WALK_MAXPLY:
            raise QtttError("core-compiled", f"a walk longer than {WALK_MAXPLY} plies")
        lib = self.lib
        table = lib.qc_walk_table(ply)
        outs = [lib.qc_walk_table(ply + 1) for _ in range(shards)]
        try:
            if not table or not all(outs):
                raise MemoryError("the walk's tables")
            for piece in pieces:
                status = lib.qc_walk_load(table, piece, len(piece))
                if status:
                    raise QtttError("core-compiled", "a walk's classes are damaged" if status == -1 else
                                    "out of memory for a walk's classes")
            size = int(lib.qc_walk_size(table))
            fails = (ctypes.c_int32 * (WALK_FAILS * WALK_RECORD))()
            cap = size if engine_every or finals or engine_ply >= ply else 0
            picked = (ctypes.c_uint16 * max(1, cap * ply))()
            stats = (ctypes.c_int64 * 11)()
            abstract = (ctypes.c_uint64 * 65536)()
            out_array = (ctypes.c_void_p * shards)(*outs)
            status = lib.qc_walk_process(self.handle, table, members, -1 if bound is None else bound,
                                         engine_ply, engine_every, int(finals), out_array, shards, fails,
                                         WALK_FAILS, picked, cap, stats, abstract, len(abstract))
            if status:
                raise QtttError("core-compiled", {-1: "out of memory in a walk's ply",
                                                  -2: "a walk's game does not replay to its class",
                                                  -3: "a walk's buffer is too small"}[status])
            dumps = []
            for out in outs:
                need = lib.qc_walk_dump(out, None, 0)
                buf = ctypes.create_string_buffer(max(1, need))
                lib.qc_walk_dump(out, buf, need)
                dumps.append(buf.raw[:need])
        finally:
            for t in (table, *outs):
                if t:
                    lib.qc_walk_table_free(t)
        records = []
        for i in range(stats[8]):
            r = fails[i * WALK_RECORD:(i + 1) * WALK_RECORD]
            n = r[4]
            rep = 5 + WALK_MAXPLY + 1
            records.append(WalkFailure(WALK_PROPS[r[0]], WALK_DETAILS[r[1]], r[2], None if r[3] < 0 else r[3],
                                       tuple(r[5:5 + n]), tuple(r[rep:rep + n])))
        chosen = [tuple(picked[i * ply:(i + 1) * ply]) for i in range(stats[9])]
        return WalkPly(dumps, records, chosen, stats[0], stats[1], stats[2],
                       dict(zip(("cls", "spk", "move", "phase", "pending"), stats[3:8], strict=True)),
                       list(abstract[:stats[10]]))

    def exact_value(self, pos: CorePosition, log2size: int = 20) -> tuple[Fraction, int]:
        """The value x − o of `pos` under perfect play (as `solve.Solver`; a deadlock is scored as
        the board stands) and the positions searched: plain alpha-beta with a table, for
        positions near the end of a game."""
        table = _Table(self.lib, log2size)
        bound = int(self.game.bound * self.scale)
        v = self.lib.qc_search(self.handle, table.handle, pos.buf, -bound - 1, bound + 1)
        return self.points(v), table.nodes


WALK_MAXPLY = 60  # the longest game a walk ply in C holds (WALK_MAXPLY)
WALK_RECORD = 5 + 2 * (WALK_MAXPLY + 1)  # int32s of one failure record (WALK_RECORD)
WALK_FAILS = 4096  # failure records one shard keeps at most (8 per property and member kind)


class WalkFailure(NamedTuple):
    """A failure `qc_walk_process` found: the property (`WALK_PROPS`), what failed (`WALK_DETAILS`),
    the member (0: the representative), the action showing it (an internal code, or None), the
    member's and the representative's games (internal action codes)."""

    prop: str
    detail: str
    member: int
    probe: int | None
    path: tuple[int, ...]
    rep: tuple[int, ...]


class WalkPly(NamedTuple):
    """What checking one shard of a walk's ply in C gave (`Core.walk_ply`)."""

    pieces: list[bytes]  # the next ply's classes, one dump per shard
    failures: list[WalkFailure]
    picked: list[tuple[int, ...]]  # representatives for the engine (internal codes)
    classes: int
    members: int
    finals: int
    varied: dict[str, int]  # members differing from their representative, by declared field
    abstract: list[int]  # the abstraction's classes met (as the core keys them)


WALK_PROPS = ("single-cycle-per-move", "collapse-uniqueness", "collapse-totality", "no-deadlock",
              "termination", "turn-order", "legal-actions")
"""The properties of the C walk's checks, by their codes (WP_...)."""
WALK_DETAILS = ("", "a spooky mark in a classical cell", "the graph between measurements is not a forest",
                "the pending component has not as many moves as cells",
                "the pending component's core is not the cycle",
                "the next move is not the placements played + 1",
                "the pending move is not the last placement (0 outside a measurement)",
                "the last placement's marks are not where it put them",
                "the measured cell does not hold the closing move", "the player to act is not the rules'",
                "over, where the end rules say otherwise", "more actions than the bound",
                "a measurement leaves a mark of the component outside its cells",
                "a measurement changes a cell outside the component",
                "the measured outcome is not the only valid one", "the two outcomes differ off the cycle",
                "an action the rules refuse is listed", "an action the rules allow is not listed",
                "an action is refused under another rule", "an action the rules refuse is accepted",
                "no legal action and the game is not over",
                "a member's phase differs from its representative's",
                "a member's player to act differs from its representative's",
                "a member has another number of legal actions than its representative",
                "a member's actions lead to other classes than its representative's",
                "a game does not replay")
"""What each detail code of a failure says (WD_...)."""


@cache
def _cores(key: object, rs: Ruleset) -> Core:
    return Core(rs)


def core_for(rs: Ruleset) -> Core:
    """The compiled core of `rs`, made once per process and ruleset."""
    return _cores(rs.key(), rs)


def decode(code: int, cells: int) -> Action:
    """An encoded action (`count.encode`) as an action."""
    if code < -cells:
        return Outcome(-code - cells - 1)
    if code < 0:
        return Measure(-code - 1)
    return Place(*divmod(code, cells))


REPLAY_STOPS = ("end", "line", "full")  # qc_replay_jsonl's stats[3]


class CoreView(NamedTuple):
    """A position as the core holds it: the fields of the v1 state, scores as (x, o) points (0-0
    until the game is over), classical move numbers and spooky move numbers per cell."""

    phase: str
    move: int
    pending: int | None
    chosen: int | None  # during a chance turn, the cell the measurement named
    to_move: str | None
    scores: tuple[Fraction, Fraction]
    cycle: tuple[int, ...] | None
    classical: tuple[int, ...]
    spooky: tuple[tuple[int, ...], ...]


ODD_KEY = (1 << 64) - 1  # qc_shape_key of a graph of a shape the rules never make


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
    10: ("collapse-chance", "during a chance turn only its outcome is legal, and an outcome only then"),
    11: ("collapse-chance", "the cell is not an outcome of this chance turn"),
}


class CorePosition(Position):
    """A mutable position held by the compiled core: actions applied in place after the core's own
    legality check, views read back from it."""

    core: Core

    def __init__(self, core: Core) -> None:
        super().__init__(core, core.pos_size)
        core.lib.qc_pos_init(core.handle, self.buf)

    def apply(self, action: AnyAction) -> None:
        """Apply `action`; IllegalAction naming the first rule it breaks (rule check-order), and
        RecordError (record-format) for an action of another family."""
        action = quantum_action(action)
        c = self.core
        if isinstance(action, Measure | Outcome):
            got = c.lib.qc_apply(c.handle, self.buf, 1 if isinstance(action, Measure) else 2, action.cell, 0)
        else:
            got = c.lib.qc_apply(c.handle, self.buf, 0, action.a, action.b)
        if got == TOO_MANY:
            raise QtttError("core-compiled", "more moves than the compiled core holds")
        if got == INCONSISTENT:
            raise inconsistent()
        if got:
            rule, message = _REFUSALS[got]
            raise IllegalAction(rule, message)

    def legal(self) -> list[Action]:
        """Legal actions in the engine's order."""
        c = self.core
        out = (ctypes.c_int32 * (c.cells * c.cells + 2))()
        n = c.lib.qc_legal(c.handle, self.buf, out)
        return [decode(out[i], c.cells) for i in range(n)]

    def chance_outcomes(self) -> tuple[tuple[Action, Fraction], ...]:
        """During a chance turn, its outcomes with their exact probabilities, as the core lists
        them (rule collapse-chance); otherwise empty."""
        c = self.core
        codes, num, den = (ctypes.c_int32 * 2)(), (ctypes.c_int64 * 2)(), (ctypes.c_int64 * 2)()
        n = c.lib.qc_chance(c.handle, self.buf, codes, num, den)
        return tuple((decode(codes[i], c.cells), Fraction(num[i], den[i])) for i in range(n))

    def view(self) -> CoreView:
        """What the core holds about the position."""
        c = self.core
        n = c.cells
        out = (ctypes.c_int64 * (HEADER + 2 * n))()
        if c.lib.qc_export(c.handle, self.buf, out):
            raise inconsistent()
        phase = PHASES[out[0]]
        pending = phase in ("measure", "chance")
        return CoreView(
            phase=phase, move=out[1],
            pending=out[2] if pending else None,
            chosen=out[7] if out[7] >= 0 else None,
            to_move=None if out[3] < 0 else ("x", "o", CHANCE)[out[3]],
            scores=(c.points(out[4]), c.points(out[5])),
            cycle=tuple(k for k in range(n) if out[6] >> k & 1) if pending else None,
            classical=tuple(out[HEADER + k] for k in range(n)),
            spooky=tuple(tuple(m for m in range(v.bit_length()) if v >> m & 1)
                         for v in out[HEADER + n:HEADER + 2 * n]),
        )

    def fields(self) -> dict[str, object]:
        """The declared position state (`engine.STATE`) as the core holds it: `POSITION`'s members."""
        c = self.core
        n = c.cells
        out = (ctypes.c_int64 * (HEADER + 2 * n))()
        c.lib.qc_export(c.handle, self.buf, out)
        return {"cls": tuple(out[HEADER:HEADER + n]), "spk": tuple(out[HEADER + n:HEADER + 2 * n]),
                "move": out[1], "phase": out[0], "pending": out[2], "chosen": out[7]}

    def key(self) -> tuple[int, int]:
        """The solver's key of this position in this core's build (`KEY_COVERS`)."""
        c = self.core
        out = (ctypes.c_uint64 * 2)()
        c.lib.qc_key(c.handle, self.buf, out)
        return out[0], out[1]

    def shape_key(self) -> int:
        """The walk's shape key (verify.quantum.exhaustive.shape_code of shape_key; ODD_KEY for a
        graph the rules never make)."""
        c = self.core
        return int(c.lib.qc_shape_key(c.handle, self.buf))

    def child_keys(self) -> list[tuple[Action, int]]:
        """Each legal action, in the engine's order, with the shape key of the position it leads to."""
        c = self.core
        codes = (ctypes.c_int32 * (c.cells * c.cells + 2))()
        keys = (ctypes.c_uint64 * (c.cells * c.cells + 2))()
        n = c.lib.qc_child_keys(c.handle, self.buf, codes, keys)
        return [(decode(codes[i], c.cells), int(keys[i])) for i in range(n)]

    def perft(self, depth: int) -> list[int]:
        """The number of action sequences of length 1..depth from here."""
        c = self.core
        counts = (ctypes.c_uint64 * max(depth, 1))()
        if c.lib.qc_perft(c.handle, self.buf, depth, counts):
            raise inconsistent()
        return [counts[i] for i in range(depth)]


class _Table:
    """A solver table of 2**log2size entries (with its move-ordering history), freed with it."""

    def __init__(self, lib: ctypes.CDLL, log2size: int) -> None:
        self.lib = lib
        handle = lib.qc_table_new(log2size)
        if not handle:
            raise CoreUnavailable("solve-fast", f"cannot allocate a table of 2**{log2size} entries")
        self.handle: int = handle

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.lib.qc_table_nodes(self.handle))

    @property
    def stored(self) -> int:
        """Table entries in use."""
        return int(self.lib.qc_table_stored(self.handle))

    def close(self) -> None:
        """Free the table."""
        if self.handle:
            self.lib.qc_table_free(self.handle)
            self.handle = 0

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            self.close()


def solver_supports(rs: Ruleset) -> str | None:
    """None when the solver (`FastSolver`) handles `rs`, else the reason it does not."""
    if rs.rules.collapse != "choice":
        return "the compiled solver searches two players' choices; a chance collapse needs expectimax"
    return supports(rs, SOLVER_CELLS)


class FastSolver:
    """The core's exact solver for one ruleset of at most 9 cells, with its own transposition table
    (2**log2size entries of 32 bytes) keyed on canonical positions; positions are given as encoded
    actions from the start (`count.encode`). Values are those of `solve.Solver` (x − o under
    perfect play), scaled to integers by `Game.scale`."""

    def __init__(self, rs: Ruleset, log2size: int = 22, symmetries: bool = True,
                 numbered: bool | None = None) -> None:
        reason = solver_supports(rs)
        if reason is not None:
            raise CoreUnavailable("solve-fast", reason)
        self.rs = rs
        game = compile_game(rs)
        self.scale = game.scale
        self.bound = int(game.bound * self.scale)
        self.rules = _Rules(rs, SOLVER_CELLS, config(rs, symmetries, numbered))
        self.lib = self.rules.lib
        self.table = _Table(self.lib, log2size)
        self.pos = ctypes.create_string_buffer(int(self.lib.qc_pos_size()))

    def close(self) -> None:
        """Free the table."""
        self.table.close()

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return self.table.nodes

    @property
    def stored(self) -> int:
        """Table entries in use."""
        return self.table.stored

    def _replay(self, codes: tuple[int, ...] | list[int]) -> None:
        arr = (ctypes.c_int32 * max(1, len(codes)))(*codes)
        status = self.lib.qc_replay(self.rules.handle, self.pos, arr, len(codes))
        if status < 0:
            raise inconsistent()
        if status:
            raise QtttError("solve-fast", f"action {status - 1} of {list(codes)} is not legal")

    def search(self, codes: tuple[int, ...] | list[int], alpha: int, beta: int) -> int:
        """Fail-soft alpha-beta value (scaled) of the position after `codes`, within (alpha, beta)."""
        self._replay(codes)
        return int(self.lib.qc_search(self.rules.handle, self.table.handle, self.pos, alpha, beta))

    def score(self, codes: tuple[int, ...] | list[int]) -> tuple[str, int]:
        """The phase (place, measure, over) after `codes` and the scaled x − o of the board as it
        stands (the final score once over)."""
        self._replay(codes)
        view = (ctypes.c_int64 * (HEADER + 2 * self.rs.board ** 2))()
        if self.lib.qc_export(self.rules.handle, self.pos, view):
            raise inconsistent()
        xo = (ctypes.c_int64 * 2)()
        self.lib.qc_score(self.rules.handle, self.pos, xo)
        return PHASES[view[0]], xo[0] - xo[1]

    def perft(self, codes: tuple[int, ...] | list[int], depth: int) -> list[int]:
        """Action sequences of each length 1..depth from the position after `codes`, counted by the
        core's own move generator (as `conformance.perft.perft_counts` counts them)."""
        self._replay(codes)
        counts = (ctypes.c_uint64 * max(1, depth))()
        if self.lib.qc_perft(self.rules.handle, self.pos, depth, counts):
            raise inconsistent()
        return [int(c) for c in counts[:depth]]

    def key(self, codes: tuple[int, ...] | list[int]) -> tuple[int, int]:
        """The solver's key of the position after `codes` (`KEY_COVERS`: the 9-cell build's)."""
        self._replay(codes)
        out = (ctypes.c_uint64 * 2)()
        self.lib.qc_key(self.rules.handle, self.pos, out)
        return out[0], out[1]

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


def expectimax_supports(rs: Ruleset) -> str | None:
    """None when the compiled expectimax (`FastExpectimax`) handles `rs`, else the reason it does not."""
    if rs.rules.collapse == "choice":
        return "the compiled expectimax searches chance collapses; collapse = choice is solved by minimax"
    return supports(rs, SOLVER_CELLS)


class FastExpectimax:
    """The core's exact expectimax for one chance ruleset of at most 9 cells: the value of a position
    as a polynomial in p (integer coefficients of p**0, p**1, ..., scaled by `Game.scale`), compared
    just right (side +1) or just left (-1) of `point` (default the ruleset's p), so the polynomial is
    that of the piece of the value next to the point (`expectimax.Expectimax` in Python, the same
    definition). Its own table of 2**log2size entries of 64 bytes, keyed as `FastSolver`'s."""

    def __init__(self, rs: Ruleset, point: Fraction | None = None, side: int = 0,
                 log2size: int = 22) -> None:
        reason = expectimax_supports(rs)
        if reason is not None:
            raise CoreUnavailable("solve-fast", reason)
        self.rs = rs
        self.point = rs.rules.p if point is None else point
        self.side = side or (-1 if self.point == 1 else 1)
        if not 0 <= self.point <= 1 or self.point.denominator >= 1 << 62:
            raise QtttError("collapse-chance", f"the compiled expectimax takes a point p from 0 to 1 with a "
                            f"denominator below 2**62, not {self.point}")
        self.scale = compile_game(rs).scale
        self.rules = _Rules(rs, SOLVER_CELLS, config(rs))
        self.lib = self.rules.lib
        self.degree = compile_game(rs).cells // 2  # the most chance turns a game has
        self.width = int(self.lib.qc_edegree()) + 1
        handle = self.lib.qc_etable_new(log2size, self.point.numerator, self.point.denominator, self.side)
        if not handle:
            raise CoreUnavailable("solve-fast", f"cannot allocate an expectimax table of 2**{log2size} "
                                  f"entries at p = {self.point} (side {self.side})")
        self.handle: int = handle
        self.pos = ctypes.create_string_buffer(int(self.lib.qc_pos_size()))

    def close(self) -> None:
        """Free the table."""
        if self.handle:
            self.lib.qc_etable_free(self.handle)
            self.handle = 0

    def __del__(self) -> None:
        if getattr(self, "handle", 0):
            self.close()

    @property
    def nodes(self) -> int:
        """Positions searched so far."""
        return int(self.lib.qc_etable_nodes(self.handle))

    @property
    def stored(self) -> int:
        """Table entries in use."""
        return int(self.lib.qc_etable_stored(self.handle))

    def value(self, codes: tuple[int, ...] | list[int]) -> tuple[int, ...]:
        """The exact value of the position after `codes` (encoded actions from the start), as the
        scaled integer coefficients of its polynomial in p beside the point."""
        arr = (ctypes.c_int32 * max(1, len(codes)))(*codes)
        status = self.lib.qc_replay(self.rules.handle, self.pos, arr, len(codes))
        if status:
            raise QtttError("solve-fast", f"action {status - 1} of {list(codes)} is not legal")
        out = (ctypes.c_int64 * self.width)()
        if self.lib.qc_evalue(self.rules.handle, self.handle, self.pos, out) or any(out[self.degree + 1:]):
            raise QtttError("solve-fast", f"{self.rs.canonical}: a value's coefficients went beyond the "
                            "compiled expectimax's limits (2**29 score units, degree cells/2)")
        return tuple(int(c) for c in out[:self.degree + 1])


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
