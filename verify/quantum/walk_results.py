"""The published walks (results/verification/walks/NAME.json, written by `python -m
verify.quantum.published`): where they are kept, which rulesets have one, and a file read back as
the walks it holds (`cited`), for `qttt check` to cite instead of walking again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from qttt import Ruleset, action_from_json
from qttt.notation import action_to_json
from qttt.quantum.engine import Action, Measure, Outcome, Place
from qttt.spec import spec_dir

from .exhaustive import Walk

NAMES = ("bonus4x4",)
"""The rulesets published: the built-in 4×4 seed game (the 4×4 coverage variant goff-4x4 walks the
same way, `python -m verify.quantum.published goff-4x4`, and is listed here once published)."""
DRIFT_PLY = 11
"""How deep the drift test re-runs each published walk."""
FOLDER = Path("results") / "verification" / "walks"


def results_dir() -> Path:
    """Where published walks are kept (results/verification/walks/ beside spec/)."""
    return spec_dir().parent / FOLDER


def source(name: str) -> str:
    """How `qttt check --all` names a published ruleset: a built-in name, or its coverage file."""
    coverage = spec_dir() / "coverage" / f"{name}.toml"
    return str(coverage) if coverage.is_file() else name


def walk_data(w: Walk) -> dict[str, Any]:
    """A walk as a published file holds it."""
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


def _played(items: Sequence[Any]) -> tuple[Action, ...]:
    return tuple(a for a in map(action_from_json, items) if isinstance(a, (Place, Measure, Outcome)))


def read_walk(data: dict[str, Any], where: str) -> Walk:
    """A walk read back from a published file (`where`, as its report names it)."""
    w = Walk(data["ruleset"], key=data["key"], positions_by_ply=list(data["positions_by_ply"]),
             partition_classes=data["partition_classes"], final_positions=data["final_positions"],
             complete=data["complete"], relabelled=data["members_per_class"], walker=data["walker"],
             members_by_ply=list(data["members_by_ply"]), engine_by_ply=list(data["engine_by_ply"]),
             engine_ply=data["engine_ply"], engine_every=data["engine_every"],
             varied=dict(data["members_differing_by_field"]), key_errors=list(data["key_errors"]),
             published=where)
    w.members, w.engine_checked = sum(w.members_by_ply), sum(w.engine_by_ply)
    for prop, message, acts, ref in data["failures"]:
        w.fail(prop, message, _played(acts), _played(ref) if ref is not None else None)
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
        return read_walk(data["structural"], where), (read_walk(own, where) if own is not None else None)
    return None
