"""Result files: one JSON object per ruleset, one section per analysis (results/analysis/README.md).

Two places hold them: the results the project ships (results/analysis/ of the checkout, or of the
installed package), and the user's own (`--save`: the analysis/ folder of `data_dir()`, never the
checkout). Reading a ruleset's results takes the user's sections over the shipped ones. Content is
deterministic (no timings, sorted keys), so a fresh run can be compared with the committed file.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

from ..errors import FileError, UsageError
from ..io import read_json, write_atomic
from ..ruleset import Ruleset
from ..spec import results_dir as results_root

SECTIONS = ("count", "solve", "curve", "random", "fairness")


DATA_ENV = "QTTT_DATA"  # the variable naming the user's data directory


def results_dir() -> Path:
    """results/analysis/: the results the project ships."""
    return results_root() / "analysis"


def data_dir() -> Path:
    """The user's data directory: $QTTT_DATA, else the platform's (Linux and other Unix:
    $XDG_DATA_HOME/qttt, by default ~/.local/share/qttt; macOS: ~/Library/Application Support/qttt;
    Windows: %LOCALAPPDATA%\\qttt)."""
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    home = Path.home()
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or home / "AppData" / "Local") / "qttt"
    if sys.platform == "darwin":
        return home / "Library" / "Application Support" / "qttt"
    return Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share") / "qttt"


def saved_dir() -> Path:
    """Where `--save` writes: the analysis/ folder of the user's data directory."""
    return data_dir() / "analysis"


def result_path(rs: Ruleset, directory: Path | None = None) -> Path:
    """The result file of a ruleset: its name with anything but letters, digits, - and _ replaced."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", rs.name).strip("_") or "ruleset"
    return (directory or results_dir()) / f"{safe}.json"


def saved_path(rs: Ruleset) -> Path:
    """The user's result file of a ruleset: as `result_path` in `saved_dir()`, with a digest of the
    canonical name added where it is not the name (two variant files of one name keep apart)."""
    path = result_path(rs, saved_dir())
    if rs.canonical == rs.name:
        return path
    digest = hashlib.sha256(rs.canonical.encode()).hexdigest()[:12]
    return path.with_name(f"{path.stem}-{digest}.json")


def known_results(rs: Ruleset) -> dict[str, Any]:
    """The sections known for `rs`: the shipped results, then the user's saved ones over them; a
    file written for another ruleset of the same name (another canonical name) is not read."""
    known: dict[str, Any] = {}
    for path in (result_path(rs), saved_path(rs)):
        data = load_results(path)
        if data.get("ruleset") == rs.canonical:
            known.update({k: v for k, v in data.items() if k in SECTIONS})
    return known


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
    """Replace one section of a ruleset's result file (atomically), keeping the others: `path`, or
    the user's saved file (created with its folders)."""
    if section not in SECTIONS:
        raise UsageError(None, f"unknown result section {section!r}; allowed: "
                        + ", ".join(SECTIONS))
    target = path or saved_path(rs)
    data = load_results(target)
    data["ruleset"] = rs.canonical
    data[section] = payload
    write_atomic(target, dumps(data), make_dirs=path is None)
    return target
