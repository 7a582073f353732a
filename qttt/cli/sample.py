"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records.

Games are played in blocks of `RECORD_BLOCK` (qttt.analysis.sample.record_block); block i draws
from `random.Random(f"{seed}:{i}")` (as `qttt analyze random` seeds its chunks), so the output
depends on the seed and the number of games, never on the workers that played the blocks or on the
engine: blocks are written in order, and the compiled core (which writes the records itself,
`compiled.Core.jsonl`) plays the Python engine's games. Each worker process writes the blocks it
plays itself, in turn (`processes.write_pieces`): to a file (-o, or standard output redirected to
one) at their places side by side, to a pipe one after another; no block passes through the parent.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from ..analysis import sample as random_play
from ..argtypes import integer, output_file
from ..bounds import SEED, STREAM, WORKERS
from ..family import compiled_core
from ..io import atomic_output
from ..processes import seekable_output, write_pieces
from ..ruleset import Ruleset
from ..variant import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("random", help="N random legal games as JSON Lines records",
                       description="Play N games choosing each action uniformly among the legal "
                                   "ones; print one JSON record per line as the games are played. "
                                   "Same seed, same games, whatever the workers or the engine.")
    p.add_argument("ruleset", help="built-in name, canonical name or variant file")
    p.add_argument("-n", "--games", type=integer(STREAM), default=1,
                   help="number of games (default 1)")
    p.add_argument("--seed", type=integer(SEED), default=0,
                   help="random seed (default 0)")
    p.add_argument("-o", "--output", type=output_file, metavar="FILE",
                   help="write to this file (atomically, once every game is played) instead of "
                        "standard output")
    p.add_argument("--core", choices=("auto", "compiled", "python"), default="auto",
                   help="rules engine: the compiled core, the Python engine, or auto (compiled when "
                        "it can; default); same games either way")
    p.add_argument("--workers", type=integer(WORKERS), default=0,
                   help=f"processes playing blocks of {random_play.RECORD_BLOCK:,} games (default 0: one "
                        "per core); same output whatever the number")
    p.set_defaults(run=run)


@dataclass(frozen=True)
class Blocks:
    """The blocks of `count` games of a run, by index (a callable that pickles: `write_pieces`)."""

    rs: Ruleset
    seed: int
    count: int
    core: str
    size: int  # games per block, the last one's excepted

    def __len__(self) -> int:
        return -(-self.count // self.size)

    def __call__(self, index: int, before: int = 0) -> bytes:
        games = min(self.size, self.count - index * self.size)
        return random_play.record_block(self.rs, self.seed, index, games, self.core)


def blocks(rs: Ruleset, count: int, seed: int, core: str) -> Iterator[bytes]:
    """The records of `count` games, block by block in order, played here."""
    made = Blocks(rs, seed, count, core, random_play.RECORD_BLOCK)
    return (made(i) for i in range(len(made)))


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    # refuses --core compiled here, before any work, when it cannot serve; decided once for the workers
    core = args.core if compiled_core(rs, args.core) is not None else "python"
    workers = args.workers or os.cpu_count() or 1
    made = Blocks(rs, args.seed, args.games, core, random_play.RECORD_BLOCK)
    if args.output:
        with atomic_output(args.output) as f:
            write_pieces([f.fileno()], len(made), made, workers, positioned=True)
        return 0
    sys.stdout.flush()
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError, AttributeError):  # not a file (captured, or an embedding's stream)
        write_pieces([sys.stdout.buffer.write], len(made), made, workers)
        return 0
    # ASCII JSON, written as bytes past the terminal escaping of text (qttt.safe)
    write_pieces([fd], len(made), made, workers, positioned=seekable_output(fd))
    return 0

