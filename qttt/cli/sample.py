"""`qttt random NAME|FILE -n N`: uniformly random legal games as JSON Lines records.

Games are played in blocks of `RECORD_BLOCK` (qttt.analysis.sample.record_block); block i draws
from `random.Random(f"{seed}:{i}")` (as `qttt analyze random` seeds its chunks), so the output
depends on the seed and the number of games, never on the workers that played the blocks or on the
engine: blocks are written in order, and the compiled core (which writes the records itself,
`compiled.Core.jsonl`) plays the Python engine's games.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

from ..analysis.sample import RECORD_BLOCK, WritesRecords, record_block
from ..argtypes import integer
from ..bounds import SEED, STREAM, WORKERS
from ..family import compiled_core
from ..io import write_atomic
from ..processes import pool_of
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
    p.add_argument("-o", "--output", help="write to this file (atomically, once every game is "
                                          "played) instead of standard output")
    p.add_argument("--core", choices=("auto", "compiled", "python"), default="auto",
                   help="rules engine: the compiled core, the Python engine, or auto (compiled when "
                        "it can; default); same games either way")
    p.add_argument("--workers", type=integer(WORKERS), default=0,
                   help=f"processes playing blocks of {RECORD_BLOCK:,} games (default 0: one per core); "
                        "same output whatever the number")
    p.set_defaults(run=run)


def blocks(rs: Ruleset, count: int, seed: int, core: str, workers: int) -> Iterator[bytes]:
    """The records of `count` games, block by block in order, played by `workers` threads when the
    compiled core writes them (C work, the interpreter released: threads share it without copying
    records between processes, which doubled the CPU per game, 1.17 s against 0.58 s per million
    wikipedia games measured), else by `workers` processes; at most 2 × workers blocks in flight."""
    jobs = ((rs, seed, i, min(RECORD_BLOCK, count - start), core)
            for i, start in enumerate(range(0, count, RECORD_BLOCK)))
    if workers <= 1 or count <= RECORD_BLOCK:
        for job in jobs:
            yield record_block(*job)
        return
    written = isinstance(compiled_core(rs, core), WritesRecords)
    with ThreadPoolExecutor(workers) if written else pool_of(workers) as pool:
        pending: deque[Future[bytes]] = deque()
        for job in jobs:
            pending.append(pool.submit(record_block, *job))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    compiled_core(rs, args.core)  # refuses --core compiled here, before any work, when it cannot serve
    workers = args.workers or os.cpu_count() or 1
    text = blocks(rs, args.games, args.seed, args.core, workers)
    if args.output:
        write_atomic(args.output, text)
        return 0
    sys.stdout.flush()
    for piece in text:  # ASCII JSON: written as bytes, past the terminal escaping of text (qttt.safe)
        sys.stdout.buffer.write(piece)
        sys.stdout.buffer.flush()
    return 0
