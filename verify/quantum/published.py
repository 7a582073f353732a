"""Walks too long for every `qttt check`, run once and published: the 4×4 seed game, walked over the
whole game by the compiled core (`check.core_walks`: an hour on a two-core machine, where the 3×3
walks take seconds). `python -m verify.quantum.published` walks them and writes
results/verification/walks/NAME.json (the walks' counts, members, fields that differed, the engine's
share and every failure found, as games); `qttt check NAME` cites the file (its report names it and
says the walk was not re-run), and replays every failure the file holds under the real rules before
reporting it. tests/verify/test_published_walks.py re-runs each walk to ply DRIFT_PLY and compares
it with the file, so a change of the rules, the core or the checks that alters the walk fails a test
until the walk is published again.

    python -m verify.quantum.published [NAME ...] [--workers N] [--dask ADDRESS|local] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from collections.abc import Sequence
from typing import Any

from qttt import load_ruleset
from qttt.analysis.distributed import executor
from qttt.processes import Mapper, serial_mapper

from .check import run_walks
from .walk_results import FOLDER, NAMES, results_dir, source, walk_data


def publish(name: str, workers: int, mapper: Mapper = serial_mapper) -> dict[str, Any]:
    """Walk a ruleset as `qttt check --exhaustive` does, one shard per worker of `mapper`, and
    return the file's content."""
    rs = load_ruleset(source(name))
    start, cpu = time.perf_counter(), time.process_time()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    structural, own = run_walks(rs, source(name), None, mapper, shards=workers)
    return {"ruleset": name, "canonical": rs.canonical,
            "command": f"python -m verify.quantum.published {name} --workers {workers}",
            "cost": {"wall_seconds": round(time.perf_counter() - start, 1),
                     "cpu_seconds_this_process": round(time.process_time() - cpu, 1),
                     "cpu_seconds_local_workers": round(_cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
                                                        - _cpu(children), 1), "workers": workers,
                     "load_average": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()},
            "structural": walk_data(structural), "own_rules": walk_data(own) if own is not None else None}


def _cpu(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def main(argv: Sequence[str] | None = None) -> int:
    """Walk and write the published walks (or, with --check, say which files are missing)."""
    parser = argparse.ArgumentParser(prog="python -m verify.quantum.published",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", default=list(NAMES), metavar="NAME")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--dask", metavar="ADDRESS", help="walk on a Dask cluster (an address, or local)")
    parser.add_argument("--check", action="store_true", help="only say which published walks are missing")
    args = parser.parse_args(argv)
    folder = results_dir()
    if args.check:
        missing = [n for n in args.names if not (folder / f"{n}.json").is_file()]
        for n in missing:
            print(f"{FOLDER / (n + '.json')} is missing; run python -m verify.quantum.published {n}",
                  file=sys.stderr)
        return 1 if missing else 0
    folder.mkdir(parents=True, exist_ok=True)
    for name in args.names:
        with executor(args.workers, args.dask) as mapper:
            data = publish(name, args.workers, mapper)
        (folder / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"{FOLDER / (name + '.json')}: {sum(data['structural']['positions_by_ply'])} classes in "
              f"{data['cost']['wall_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
