"""Result files under results/analysis/: one JSON object per ruleset, one section per analysis.

The shape is documented in results/analysis/README.md. Content is deterministic (no timings, sorted
keys), so a fresh run can be compared with the committed file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..errors import FileError, UsageError
from ..io import read_json, write_atomic
from ..ruleset import Ruleset
from ..spec import results_dir as results_root

SECTIONS = ("count", "solve", "random", "fairness")


def results_dir() -> Path:
    """results/analysis/."""
    return results_root() / "analysis"


def result_path(rs: Ruleset, directory: Path | None = None) -> Path:
    """The result file of a ruleset: its name with anything but letters, digits, - and _ replaced."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", rs.name).strip("_") or "ruleset"
    return (directory or results_dir()) / f"{safe}.json"


def load_results(path: Path) -> dict[str, Any]:
    """A result file's object, or an empty one when the file does not exist."""
    if not path.is_file():
        return {}
    data = read_json(path, own=True)  # read to be updated
    if not isinstance(data, dict):
        raise FileError(None, f"{path}: not a JSON object")
    return data


def dumps(data: dict[str, Any]) -> str:
    """The canonical text of a result file."""
    return json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"


def save_section(rs: Ruleset, section: str, payload: dict[str, Any], path: Path | None = None) -> Path:
    """Replace one section of a ruleset's result file (atomically), keeping the others."""
    if section not in SECTIONS:
        raise UsageError(None, f"unknown result section {section!r}; allowed: "
                        + ", ".join(SECTIONS))
    target = path or result_path(rs)
    data = load_results(target)
    data["ruleset"] = rs.canonical
    data[section] = payload
    write_atomic(target, dumps(data))
    return target
