"""Files in and out: UTF-8 text read with one-line errors, JSON parsed with bounded nesting,
streams decoded piece by piece, output that never leaves a half-written file behind, and the
generate-or-check loop of every generated file (schema, vectors, docs).

Every problem is a `FileError` naming the user's path (and the rule, when a rule applies).
"""

from __future__ import annotations

import codecs
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any, TypeVar

from .errors import FileError

CHUNK = 1 << 16  # bytes decoded at a time when streaming


def _name(source: str | Path) -> str:
    return "standard input" if str(source) == "-" else str(source)


def _open_error(source: str | Path, e: OSError) -> FileError:
    why = "is a directory" if isinstance(e, IsADirectoryError) else (
        "does not exist" if isinstance(e, FileNotFoundError) else f"cannot be read: {e.strerror}")
    return FileError(None, f"{_name(source)} {why}")


def text_chunks(source: str | Path, rule: str | None = None) -> Iterator[str]:
    """The UTF-8 text of a file (or of standard input for `-`), decoded CHUNK bytes at a time;
    FileError naming the byte offset of the first byte that is not UTF-8."""
    try:
        stream: IO[bytes] = sys.stdin.buffer if str(source) == "-" else open(source, "rb")  # noqa: SIM115
    except OSError as e:
        raise _open_error(source, e) from None
    read = getattr(stream, "read1", stream.read)  # what is there: a pipe is read as it is written
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = 0
    try:
        while True:
            try:
                data = read(CHUNK)
            except OSError as e:
                raise _open_error(source, e) from None
            try:
                text = decoder.decode(data, final=not data)
            except UnicodeDecodeError as e:
                raise FileError(rule, f"{_name(source)}: not UTF-8 text (byte {offset + e.start} is "
                                f"0x{e.object[e.start]:02x})") from None
            offset += len(data)
            if text:
                yield text
            if not data:
                return
    finally:
        if str(source) != "-":
            stream.close()


def read_text(source: str | Path, rule: str | None = None) -> str:
    """The whole UTF-8 text of a file (or of standard input for `-`)."""
    return "".join(text_chunks(source, rule))


def parse_json(text: str, where: str, rule: str | None = None) -> Any:
    """`json.loads`, with one-line FileErrors for text that is not JSON or is nested too deeply."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise FileError(rule, f"{where}: not JSON: {e.msg} at line {e.lineno} column {e.colno}") from None
    except RecursionError:
        raise FileError(rule, f"{where}: JSON nested too deeply (arrays and objects within each "
                        "other, about 1,000 levels at most)") from None


def read_json(source: str | Path, rule: str | None = None) -> Any:
    """A JSON file (or standard input for `-`), parsed."""
    return parse_json(read_text(source, rule), _name(source), rule)


def write_atomic(path: str | Path, text: str | Iterable[str], make_dirs: bool = False) -> None:
    """Write `text` (or its pieces, as they come) to `path` via a temporary file in the same
    directory and a rename.

    The directory must exist unless `make_dirs` (for generators writing the project's own tree);
    the file gets the permissions the umask allows, as `open` would.
    """
    target = Path(path)
    parent = target.parent
    if make_dirs:
        parent.mkdir(parents=True, exist_ok=True)
    if target.is_dir():
        raise FileError(None, f"cannot write {target}: it is a directory")
    if not parent.is_dir():
        raise FileError(None, f"cannot write {target}: directory {parent} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise FileError(None, f"cannot write {target}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            if isinstance(text, str):
                f.write(text)
            else:
                for piece in text:
                    f.write(piece)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise FileError(None, f"cannot write {target}: {e.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
        write_atomic(p, files[p], make_dirs=True)
    return 0


T = TypeVar("T")


def read_checkpoint(path: Path, parse: Callable[[Any], T]) -> T:
    """`parse` applied to a checkpoint file's JSON; FileError when the file is not JSON or not
    of the shape `parse` expects (a checkpoint damaged or from something else)."""
    data = read_json(path)
    try:
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        return parse(data)
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError) as e:
        why = f"missing {e}" if isinstance(e, KeyError) else str(e)
        raise FileError(None, f"checkpoint {path} is damaged or not a checkpoint ({why}); "
                        "delete it to start afresh") from None
