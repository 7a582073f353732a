"""Walks too long for every `qttt check`, run once and published: the 4×4 seed game, walked over the whole game by the compiled core (`check.core_walks`: minutes of
CPU, where the 3×3 walks take seconds). `python -m verify.quantum.published` walks them and writes
results/verification/walks/NAME.json (the walks' counts, members, fields that differed, the
engine's share and every failure found, as games); `qttt check NAME` cites the file (its report
names it and says the walk was not re-run), and replays every failure the file holds under the
real rules before reporting it. tests/verify/test_published_walks.py re-runs each walk to ply
DRIFT_PLY and compares it with the file, so a change of the rules, the core or the checks that
alters the walk fails a test until the walk is published again.

    python -m verify.quantum.published [NAME ...] [--workers N] [--dask ADDRESS|local] [--check]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qttt import Ruleset, action_from_json, load_ruleset
from qttt.notation import action_to_json
from qttt.quantum.engine import Action, Measure, Place
from qttt.spec import spec_dir

from .exhaustive import Walk

NAMES = ("bonus4x4",)
"""The rulesets published: the built-in 4×4 seed game (the 4×4 coverage variant goff-4x4 walks the
same way, `python -m verify.quantum.published goff-4x4`, and is listed here once published)."""
DRIFT_PLY = 10
"""How deep the drift test re-runs each published walk."""
FOLDER = Path("results") / "verification" / "walks"


def results_dir() -> Path:
    """Where published walks are kept (results/verification/walks/ beside spec/)."""
    return spec_dir().parent / FOLDER


def source(name: str) -> str:
    """How `qttt check --all` names a published ruleset: a built-in name, or its coverage file."""
    coverage = spec_dir() / "coverage" / f"{name}.toml"
    return str(coverage) if coverage.is_file() else name


def _walk_data(w: Walk) -> dict[str, Any]:
    return {"ruleset": w.ruleset, "key": w.key, "walker": w.walker, "complete": w.complete,
            "positions_by_ply": w.positions_by_ply, "members_by_ply": w.members_by_ply,
            "engine_by_ply": w.engine_by_ply, "members_per_class": w.relabelled,
            "members_differing_by_field": w.varied, "engine_ply": w.engine_ply,
            "engine_every": w.engine_every, "partition_classes": w.partition_classes,
            "final_positions": w.final_positions,
            "failures": [[prop, message, [action_to_json(a) for a in acts],
                          [action_to_json(a) for a in ref] if ref is not None else None]
                         for prop, kept in sorted(w.failures.items()) for message, acts, ref in kept],
            "key_errors": w.key_errors}


def _actions(items: Sequence[Any]) -> tuple[Action, ...]:
    return tuple(a for a in map(action_from_json, items) if isinstance(a, (Place, Measure)))


def _walk(data: dict[str, Any], where: str) -> Walk:
    w = Walk(data["ruleset"], key=data["key"], positions_by_ply=list(data["positions_by_ply"]),
             partition_classes=data["partition_classes"], final_positions=data["final_positions"],
             complete=data["complete"], relabelled=data["members_per_class"], walker=data["walker"],
             members_by_ply=list(data["members_by_ply"]), engine_by_ply=list(data["engine_by_ply"]),
             engine_ply=data["engine_ply"], engine_every=data["engine_every"],
             varied=dict(data["members_differing_by_field"]), key_errors=list(data["key_errors"]),
             published=where)
    w.members, w.engine_checked = sum(w.members_by_ply), sum(w.engine_by_ply)
    for prop, message, acts, ref in data["failures"]:
        w.fail(prop, message, _actions(acts), _actions(ref) if ref is not None else None)
    return w


def cited(rs: Ruleset) -> tuple[Walk, Walk | None] | None:
    """The published walks of rs (structural, and on its own rules), or None when none is
    published for it."""
    folder = results_dir()
    for name in NAMES:
        path = folder / f"{name}.json"
        if not path.is_file():
            continue
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["canonical"] != rs.canonical:
            continue
        where = (FOLDER / path.name).as_posix()
        own = data["own_rules"]
        return _walk(data["structural"], where), (_walk(own, where) if own is not None else None)
    return None


def publish(name: str, workers: int, mapper: Any = None) -> dict[str, Any]:
    """Walk a ruleset as `qttt check --exhaustive` does and return the file's content."""
    from .check import run_walks

    rs = load_ruleset(source(name))
    start, cpu = time.perf_counter(), time.process_time()
    structural, own = run_walks(rs, source(name), None, workers, None, None, mapper)
    return {"ruleset": name, "canonical": rs.canonical,
            "command": f"python -m verify.quantum.published {name} --workers {workers}",
            "cost": {"wall_seconds": round(time.perf_counter() - start, 1),
                     "cpu_seconds_this_process": round(time.process_time() - cpu, 1), "workers": workers,
                     "load_average": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()},
            "structural": _walk_data(structural), "own_rules": _walk_data(own) if own is not None else None}


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
        if args.dask:
            from qttt.analysis.distributed import dask_mapper

            with dask_mapper(None if args.dask == "local" else args.dask, args.workers) as mapper:
                data = publish(name, args.workers, mapper)
        else:
            data = publish(name, args.workers)
        (folder / f"{name}.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"{FOLDER / (name + '.json')}: {sum(data['structural']['positions_by_ply'])} classes in "
              f"{data['cost']['wall_seconds']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
