"""Random-play statistics: score distribution of uniformly random games, with confidence intervals.

Games are played in chunks; chunk i uses `random.Random(f"{seed}:{i}")`, so the result depends on
the seed, the number of games and the chunk size, never on how many processes ran the chunks.
Aggregates are exact: a histogram of final (x, o) scores, from which means and variances follow.
Chunks report scores as integers in units of 1/scale (the compiled core tallies them so in C) and
are summed as integers; exact fractions are made once, at the end. `qttt random` seeds its blocks of
records the same way (`record_block`).
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from math import lcm
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ..bounds import CHUNK, COUNT, GAMES, SEED
from ..errors import FileError, UsageError
from ..family import Tally, compiled_core, family_of, tool
from ..games import random_game
from ..interop import rules_of
from ..io import FRACTION, read_checkpoint, write_checkpoint
from ..notation import Record, record_to_json
from ..processes import Mapper
from ..ruleset import Ruleset

Histogram = Counter[tuple[Fraction, Fraction]]
Z95 = 1.959963984540054
# Units of work when the compiled core plays: about UNIT_GAMES games each (a chunk of 2,000 games is
# about 2 ms of the core's work, less than what a process pool or Dask spends per task), and at least
# UNITS of them when there are chunks enough, so that workers share the work evenly.
UNIT_GAMES = 200_000
UNITS = 16
# A checkpoint is saved at most this often, at the end, and when the run stops: saving the done
# chunks of a 10^9-game run took up to 70 ms (500,000 chunks; 34 ms measured for 250,000), once a
# unit of work 5,000 times over.
CHECKPOINT_SECONDS = 10.0
# Line results of random games: who owns the better best line of the first first-line component.
LINE_RESULTS = ("x", "o", "neither", "tie", "unfinished")


# scale; histogram rows (x, o, games) with x and o in units of 1/scale; line results; shapes
Chunk = tuple[int, list[tuple[int, int, int]], list[tuple[str, int]], list[tuple[int, int, int]]]


RECORD_BLOCK = 10_000
"""Games per block of `qttt random`: the unit of seeding, of work for a process and of output."""


@runtime_checkable
class WritesRecords(Protocol):
    """A compiled core that writes random games as JSON Lines itself (`compiled.Core.jsonl`)."""

    def jsonl(self, rng: random.Random, games: int, head: str, tail: str) -> bytes: ...


def record_block(rs: Ruleset, seed: int, index: int, games: int, core: str) -> bytes:
    """The JSON Lines records of `qttt random`'s block `index`, ASCII (JSON escapes the rest): `games`
    random games drawn from `random.Random(f"{seed}:{index}")`."""
    rng = random.Random(f"{seed}:{index}")
    name = rs.canonical  # a name that replays anywhere, whatever spelling or file was given
    fast = compiled_core(rs, core)
    if isinstance(fast, WritesRecords):
        empty = json.dumps(record_to_json(Record(name, ())), separators=(",", ":"))
        cut = empty.rindex("[]") + 1  # the actions come last; a canonical name may hold "[]" too
        return fast.jsonl(rng, games, empty[:cut], empty[cut:] + "\n")
    if fast is not None:
        played = fast.random_actions(rng, games)
    else:
        played = [random_game(rs, rng)[0] for _ in range(games)]
    return "".join(json.dumps(record_to_json(Record(name, tuple(actions))), separators=(",", ":")) + "\n"
                   for actions in played).encode("ascii")


@runtime_checkable
class TalliesScaled(Protocol):
    """A compiled core that tallies scores as integers (`compiled.Core.sample_scaled`)."""

    def sample_scaled(self, rng: random.Random, games: int
                      ) -> tuple[int, Counter[tuple[int, int]], Counter[str]]: ...


def play_chunk(rs: Ruleset, seed: int, index: int, games: int, core: str = "auto") -> Chunk:
    """Histogram of (x score, o score) over `games` random games of chunk `index` (scores as
    integers in units of 1/scale), the games by line result and by (moves, cells left empty) where
    the family tallies them (`engine_tally`), as plain data. The family's compiled core plays the
    same games as the Python engine (`family.compiled_core`)."""
    rng = random.Random(f"{seed}:{index}")
    fast = compiled_core(rs, core)
    if isinstance(fast, TalliesScaled):
        scale, scaled_hist, lines = fast.sample_scaled(rng, games)
        return (scale, sorted((x, o, k) for (x, o), k in scaled_hist.items()), sorted(lines.items()), [])
    hist, lines, shapes = fast.sample(rng, games) if fast is not None else engine_tally(rs, rng, games)
    scale = lcm(1, *(v.denominator for key in hist for v in key))
    return (scale, [(int(x * scale), int(o * scale), k) for (x, o), k in sorted(hist.items())],
            sorted(lines.items()), [(m, e, k) for (m, e), k in sorted(shapes.items())])


def play_chunks(rs: Ruleset, seed: int, chunks: list[tuple[int, int]], core: str = "auto") -> Chunk:
    """`play_chunk` over several chunks (index, games), summed: one unit of work for a process."""
    tally = _Scaled()
    lines: Counter[str] = Counter()
    shapes: Counter[tuple[int, int]] = Counter()
    for index, games in chunks:
        scale, rows, chunk_lines, chunk_shapes = play_chunk(rs, seed, index, games, core)
        tally.add_rows(scale, rows)
        lines.update(dict(chunk_lines))
        shapes.update({(m, e): k for m, e, k in chunk_shapes})
    return (tally.scale, sorted((x, o, k) for (x, o), k in tally.counts.items()), sorted(lines.items()),
            [(m, e, k) for (m, e), k in sorted(shapes.items())])


def _units(todo: list[int], sizes: list[int], fast: bool) -> list[list[tuple[int, int]]]:
    """The chunks to play grouped into units of work: one chunk each for the Python engine; for the
    compiled core about UNIT_GAMES games each, at least UNITS units when there are chunks enough."""
    per = 1
    if fast and todo:
        per = max(1, min(-(-UNIT_GAMES // sizes[0]), -(-len(todo) // UNITS)))
    return [[(i, sizes[i]) for i in todo[k:k + per]] for k in range(0, len(todo), per)]


def engine_tally(rs: Ruleset, rng: random.Random, games: int) -> Tally:
    """Over `games` random games drawn from `rng` in the Python engine: the family's `tally` tool
    (final points, games by line result, games by shape), or for a family without one the final
    points of its `playout`s alone."""
    family = family_of(rs)
    if "tally" in family.tools:
        found: Tally = tool(rs, "tally")(rs, rng, games)
        return found
    hist: Histogram = Counter()
    for _ in range(games):
        _, final = family.playout(rs, rng)
        hist[(final.scores["x"], final.scores["o"])] += 1
    return hist, Counter(), Counter()


@dataclass
class SampleResult:
    """Outcome of N random games: the score histogram and what follows from it."""

    ruleset: str
    seed: int
    chunk: int
    histogram: Histogram = field(default_factory=Counter)
    lines: Counter[str] = field(default_factory=Counter)
    shapes: Counter[tuple[int, int]] = field(default_factory=Counter)  # (moves, cells left empty)

    @property
    def games(self) -> int:
        return sum(self.histogram.values())

    def mean(self, which: str) -> float:
        """Mean of x, o or the difference d = x − o."""
        return float(sum(self._value(which, k) * n for k, n in self.histogram.items()) / self.games)

    def interval(self, which: str, z: float = Z95) -> tuple[float, float]:
        """Normal-approximation confidence interval for the mean (95% by default)."""
        n = self.games
        mu = sum(self._value(which, k) * c for k, c in self.histogram.items()) / n
        var = sum((self._value(which, k) - mu) ** 2 * c for k, c in self.histogram.items())
        half = z * math.sqrt(float(var) / max(n - 1, 1) / n)
        return float(mu) - half, float(mu) + half

    @staticmethod
    def _value(which: str, k: tuple[Fraction, Fraction]) -> Fraction:
        return k[0] if which == "x" else k[1] if which == "o" else k[0] - k[1]

    def shape(self) -> dict[str, Any]:
        """Game length in moves (min, mean, max) and cells left empty (mean), from `shapes`."""
        n = sum(self.shapes.values())
        moves = [m for m, _ in self.shapes]
        mean_moves = sum(m * c for (m, _), c in self.shapes.items()) / n
        mean_empty = sum(e * c for (_, e), c in self.shapes.items()) / n
        return {"moves": {"min": min(moves), "mean": round(mean_moves, 6), "max": max(moves)},
                "empty_cells": {"mean": round(mean_empty, 6)}}

    def outcomes(self) -> dict[str, int]:
        """Games X won (higher score), O won, and drawn (equal scores)."""
        out = {"x": 0, "o": 0, "draw": 0}
        for (x, o), c in self.histogram.items():
            out["x" if x > o else "o" if o > x else "draw"] += c
        return out

    def to_json(self) -> dict[str, Any]:
        """Plain data: figures rounded to 6 places, the exact histogram with fractions as strings."""
        def r(v: float) -> float:
            return round(v, 6)
        return {
            "ruleset": self.ruleset, "games": self.games, "seed": self.seed, "chunk": self.chunk,
            "mean": {w: r(self.mean(w)) for w in ("x", "o", "diff")},
            "ci95": {w: [r(v) for v in self.interval(w)] for w in ("x", "o", "diff")},
            "outcomes": self.outcomes(),
            **({"line_outcomes": {k: self.lines.get(k, 0) for k in LINE_RESULTS}} if self.lines else {}),
            **(self.shape() if self.shapes else {}),
            "histogram": [{"x": str(x), "o": str(o), "games": c}
                          for (x, o), c in sorted(self.histogram.items())],
        }


def sample_games(rs: Ruleset, games: int, *, seed: int = 0, chunk: int = 2000,
                 mapper: Mapper | None = None, checkpoint: str | Path | None = None,
                 progress: Callable[[int, int], None] | None = None,
                 core: str = "auto") -> SampleResult:
    """Play `games` uniformly random games of `rs` in chunks; `mapper` runs chunks on processes or a
    cluster; `checkpoint` is saved (atomically) at most every CHECKPOINT_SECONDS as units of work
    finish, at the end and when the run stops, and resumed from; `core` chooses
    the compiled core or the Python engine (auto: compiled where it can; same games either way)."""
    fast = compiled_core(rs, core) is not None  # refuses compiled here, before any work, if it cannot serve
    core = core if fast else "python"  # decided once: workers neither try again nor repeat the notice
    if games < 1 or chunk < 1:
        raise UsageError(None, f"need at least one game and a positive chunk size "
                        f"(got {games} games, chunk {chunk})")
    res = SampleResult(ruleset=rs.canonical, seed=seed, chunk=chunk)
    sizes = [min(chunk, games - i) for i in range(0, games, chunk)]
    done: set[int] = set()
    cp = Path(checkpoint) if checkpoint is not None else None
    if cp is not None and cp.is_file():
        done = _resume(cp, rs, res, sizes)
    left = [i for i in range(len(sizes)) if i not in done]
    todo = [(rs, seed, unit, core) for unit in _units(left, sizes, fast)]
    played = sum(sizes[i] for i in done)
    results = (mapper(play_chunks, todo) if mapper is not None
               else (play_chunks(*args) for args in todo))
    tally = _Scaled()
    tally.add(res.histogram)  # resumed chunks
    res.histogram = Counter()
    due = time.monotonic() + CHECKPOINT_SECONDS

    def save() -> None:
        if cp is not None:
            res.histogram = tally.points()
            _save(cp, res, done, len(sizes), games)
    try:
        for args, (scale, rows, lines, shapes) in zip(todo, results, strict=True):
            tally.add_rows(scale, rows)
            for k, c in lines:
                res.lines[k] += c
            for m, e, c in shapes:
                res.shapes[(m, e)] += c
            done.update(i for i, _ in args[2])
            played += sum(n for _, n in args[2])
            if time.monotonic() >= due:
                save()
                due = time.monotonic() + CHECKPOINT_SECONDS
            if progress:
                progress(played, games)
    finally:  # at the end, and when stopped (an interrupt, a worker's error): what is done is kept
        save()
    res.histogram = tally.points()
    return res


class _Scaled:
    """A histogram of (x, o) scores kept as integers in units of 1/scale (the scale grows to the
    least common multiple of every chunk's)."""

    def __init__(self) -> None:
        self.scale = 1
        self.counts: Counter[tuple[int, int]] = Counter()

    def rescale(self, scale: int) -> None:
        new = lcm(self.scale, scale)
        if new != self.scale:
            f = new // self.scale
            self.counts = Counter({(x * f, o * f): k for (x, o), k in self.counts.items()})
            self.scale = new

    def add_rows(self, scale: int, rows: list[tuple[int, int, int]]) -> None:
        self.rescale(scale)
        f = self.scale // scale
        counts = self.counts
        for x, o, k in rows:
            counts[(x * f, o * f)] += k

    def add(self, hist: Histogram) -> None:
        self.rescale(lcm(1, *(v.denominator for key in hist for v in key)))
        for (x, o), k in hist.items():
            self.counts[(int(x * self.scale), int(o * self.scale))] += k

    def points(self) -> Histogram:
        """The histogram in exact points."""
        s = self.scale
        return Counter({(Fraction(x, s), Fraction(o, s)): k for (x, o), k in self.counts.items()})


def _save(path: Path, res: SampleResult, done: set[int], chunks: int, games: int) -> None:
    data = {"ruleset": res.ruleset, "seed": res.seed, "chunk": res.chunk, "chunks": chunks, "games": games,
            "done": sorted(done), "histogram": [[str(x), str(o), c] for (x, o), c in res.histogram.items()],
            "lines": dict(res.lines), "shapes": [[m, e, c] for (m, e), c in res.shapes.items()]}
    write_checkpoint(path, data)


CHECKPOINT = {"ruleset": str, "seed": SEED, "chunk": CHUNK, "chunks": GAMES, "games": GAMES,
              "done": [COUNT], "histogram": [(FRACTION, FRACTION, COUNT)],
              "?lines": {f"?{k}": COUNT for k in LINE_RESULTS},
              "?shapes": [(COUNT, COUNT, COUNT)]}


def _resume(path: Path, rs: Ruleset, res: SampleResult, sizes: list[int]) -> set[int]:
    """The chunks a checkpoint of this very run (ruleset, seed, chunk size, number of games) has
    played, its tallies added to `res`; FileError (`damaged`) when it is of another run, or when
    its counts are not ones those chunks can give: every chunk named once, as many games tallied
    as those chunks hold (in the histogram, and in the line results and shapes where the ruleset's
    games are tallied so: `_kept`), each score and shape one a game of the ruleset can have
    (`_histogram`, `_shapes`). The digest is only a checksum against accidents; these checks are
    what keeps a file, written by anyone, from making the command print a result the rules
    cannot produce."""
    mine = {"ruleset": res.ruleset, "seed": res.seed, "chunk": res.chunk, "chunks": len(sizes),
            "games": sum(sizes)}

    def parse(data: dict[str, Any]) -> tuple[dict[str, Any], Counter[tuple[Fraction, Fraction]],
                                             Counter[str], Counter[tuple[int, int]], set[int]]:
        theirs = {k: data.get(k) for k in mine}
        if theirs != mine:  # checked before its counts, which are only meaningful for this run
            return theirs, Counter(), Counter(), Counter(), set()
        done = set(data["done"])
        if len(done) != len(data["done"]):
            raise ValueError("$.done names a chunk twice")
        if any(i >= len(sizes) for i in done):
            raise ValueError(f"$.done names a chunk beyond the run's {len(sizes)} chunks")
        played = sum(sizes[i] for i in done)
        histogram = _histogram(data["histogram"], rs)
        if sum(histogram.values()) != played:
            raise ValueError(f"$.histogram: {sum(histogram.values()):,} games tallied, but the "
                             f"{len(done):,} chunks done hold {played:,}")
        lines = Counter({str(k): int(c) for k, c in data.get("lines", {}).items() if c})
        shapes = _shapes(data.get("shapes", []), rs)
        kept = _kept(rs) if played else {"lines": False, "shapes": False}
        for name, tally in (("lines", lines.values()), ("shapes", shapes.values())):
            if sum(tally) != (played if kept[name] else 0):
                raise ValueError(f"$.{name}: {sum(tally):,} games tallied, but " + (
                    f"the chunks done hold {played:,}" if kept[name]
                    else f"games of {rs.canonical} are not tallied by {name[:-1]}"))
        return theirs, histogram, lines, shapes, done

    theirs, histogram, lines, shapes, done = read_checkpoint(path, CHECKPOINT, parse)
    if theirs != mine:
        differ = "; ".join(f"{k} {json.dumps(v)} there, {json.dumps(mine[k])} now"
                           for k, v in theirs.items() if v != mine[k])
        raise FileError(None, f"checkpoint {path} is of another run ({differ}); run with its arguments, "
                        "or delete it to start afresh")
    res.histogram.update(histogram)
    res.lines.update(lines)
    res.shapes.update(shapes)
    return done


def _kept(rs: Ruleset) -> dict[str, bool]:
    """Whether the games of `rs` are tallied by line result and by shape (whatever the core: one
    game's tally tells)."""
    _, lines, shapes = engine_tally(rs, random.Random(0), 1)
    return {"lines": bool(lines), "shapes": bool(shapes)}


def _histogram(rows: list[list[Any]], rs: Ruleset) -> Counter[tuple[Fraction, Fraction]]:
    """A checkpoint's histogram rows (x, o, games), once each score is listed once, with games,
    and is one a game of `rs` can end with (its score range and sums); else ValueError."""
    rules = rules_of(rs)
    codec = rules.codec
    x_lo, x_hi, o_lo, o_hi = rules.score_range
    histogram: Counter[tuple[Fraction, Fraction]] = Counter()
    for i, (x, o, c) in enumerate(rows):
        score = (Fraction(x), Fraction(o))
        if score in histogram:
            raise ValueError(f"$.histogram[{i}]: the scores {x} - {o} are listed twice")
        if c < 1:
            raise ValueError(f"$.histogram[{i}]: {c} games with the scores {x} - {o}")
        if not (x_lo <= score[0] <= x_hi and o_lo <= score[1] <= o_hi) or (
                codec.sums is not None and sum(score) not in codec.sums):
            raise ValueError(f"$.histogram[{i}]: {x} - {o} is no score a game of {rs.canonical} ends with "
                             f"(x {x_lo} to {x_hi}, o {o_lo} to {o_hi})")
        histogram[score] = c
    return histogram


def _shapes(rows: list[list[int]], rs: Ruleset) -> Counter[tuple[int, int]]:
    """A checkpoint's shape rows (moves, cells left empty, games), once each is listed once, with
    games, and fits a game of `rs` (its longest game, its cells); else ValueError."""
    codec = rules_of(rs).codec
    longest, cells = codec.max_length, codec.shape[-2] * codec.shape[-1]
    shapes: Counter[tuple[int, int]] = Counter()
    for i, (m, e, c) in enumerate(rows):
        if (m, e) in shapes or c < 1 or m > longest or e > cells:
            raise ValueError(f"$.shapes[{i}]: {c} games of {m} moves with {e} cells left empty (a game of "
                             f"{rs.canonical} has at most {longest} moves and {cells} cells, each shape "
                             "listed once)")
        shapes[(m, e)] = c
    return shapes
