"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records.

Games are played in blocks of `BLOCK`; block i draws from `random.Random(f"{seed}:{i}")` (as
`qttt analyze random` seeds its chunks), so the output depends on the seed and the number of games,
never on the workers that played the blocks or on the engine: blocks are written in order, and the
compiled core (which writes the records itself, `compiled.Core.jsonl`) plays the Python engine's
games. Each worker process writes the blocks it plays itself, in turn (`processes.write_pieces`):
to a file (-o, or standard output redirected to one) at their places side by side, to a pipe
one after another; no block passes through the parent.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..argtypes import integer, output_file
from ..bounds import SEED, STREAM, WORKERS
from ..family import compiled_core
from ..games import random_game
from ..io import atomic_output
from ..notation import Record, record_to_json
from ..processes import seekable_output, write_pieces
from ..ruleset import Ruleset
from ..variant import load_ruleset

BLOCK = 10_000  # games per block: the unit of seeding, of work for a process and of output


@runtime_checkable
class WritesRecords(Protocol):
    """A compiled core that writes random games as JSON Lines itself (`compiled.Core.jsonl`)."""

    def jsonl(self, rng: random.Random, games: int, head: str, tail: str) -> bytes: ...


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
                   help=f"processes playing blocks of {BLOCK:,} games (default 0: one per core); "
                        "same output whatever the number")
    p.set_defaults(run=run)


def block(rs: Ruleset, seed: int, index: int, games: int, core: str) -> bytes:
    """The JSON Lines records of block `index`, ASCII (JSON escapes the rest): `games` random games
    drawn from `random.Random(f"{seed}:{index}")`."""
    rng = random.Random(f"{seed}:{index}")
    name = rs.canonical  # a name that replays anywhere, whatever spelling or file was given
    fast = compiled_core(rs, core)
    if isinstance(fast, WritesRecords):
        empty = json.dumps(record_to_json(Record(name, ())), separators=(",", ":"))
        cut = empty.index("[]") + 1
        return fast.jsonl(rng, games, empty[:cut], empty[cut:] + "\n")
    if fast is not None:
        played = fast.random_actions(rng, games)
    else:
        played = [random_game(rs, rng)[0] for _ in range(games)]
    return "".join(json.dumps(record_to_json(Record(name, tuple(actions))), separators=(",", ":")) + "\n"
                   for actions in played).encode("ascii")


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
        return block(self.rs, self.seed, index, min(self.size, self.count - index * self.size), self.core)


def blocks(rs: Ruleset, count: int, seed: int, core: str) -> Iterator[bytes]:
    """The records of `count` games, block by block in order, played here."""
    made = Blocks(rs, seed, count, core, BLOCK)
    return (made(i) for i in range(len(made)))


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    # refuses --core compiled here, before any work, when it cannot serve; decided once for the workers
    core = args.core if compiled_core(rs, args.core) is not None else "python"
    workers = args.workers or os.cpu_count() or 1
    made = Blocks(rs, args.seed, args.games, core, BLOCK)
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

