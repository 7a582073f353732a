"""File output that never leaves a half-written file behind, and the generate-or-check loop of every
generated file (schema, vectors, docs)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path


def write_atomic(path: str | Path, text: str) -> None:
    """Write `text` to `path` via a temporary file in the same directory and a rename."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_or_check(files: Mapping[Path, str], check: bool, command: str, remove: Iterable[Path] = ()) -> int:
    """Write each file whose text differs and delete the files in `remove`; with `check`, change
    nothing and name each file that differs or should not exist, with the `command` that
    regenerates it. Returns 1 when a check found a difference, else 0."""
    differ = [p for p, text in files.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    stale = [p for p in remove if p.is_file()]
    if check:
        for p in differ + stale:
            print(f"{p} is out of date; run {command}", file=sys.stderr)
        return 1 if differ or stale else 0
    for p in stale:
        p.unlink()
    for p in differ:
        write_atomic(p, files[p])
    return 0
