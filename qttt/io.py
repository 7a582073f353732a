"""Files in and out: UTF-8 text read with one-line errors, JSON parsed with bounded nesting,
streams decoded piece by piece, output that never leaves a half-written file behind, and the
generate-or-check loop of every generated file (schema, vectors, docs).

Every problem is a `FileError` naming the user's path (and the rule, when a rule applies).
"""

from __future__ import annotations

import codecs
import errno
import hashlib
import json
import os
import re
import stat
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO, TypeVar

from .bounds import MAX_DIGITS, Bound
from .errors import FileError, QtttError
from .jsonstream import loads

CHUNK = 1 << 16  # bytes decoded at a time when streaming
MAX_READ = 64 << 20  # bytes of a file read whole (a variant, suite, tour, checkpoint, --actions)


def _name(source: str | Path) -> str:
    return "standard input" if str(source) == "-" else str(source)


_KINDS = ((stat.S_ISDIR, "is a directory"), (stat.S_ISCHR, "is a device, not a file"),
          (stat.S_ISBLK, "is a device, not a file"), (stat.S_ISSOCK, "is a socket, not a file"),
          (stat.S_ISFIFO, "is a pipe (FIFO), not a file"))


def _why(e: OSError) -> str:
    """An open or stat failure as the words after a file name."""
    reasons = {errno.ENOENT: "does not exist", errno.ELOOP: "is a symbolic link loop",
               errno.EACCES: "cannot be read: permission denied",
               errno.EPERM: "cannot be read: permission denied",
               errno.ENOTDIR: "does not exist (a part of its path is not a directory)",
               errno.ENAMETOOLONG: "does not exist (its name is too long for the system)",
               errno.EISDIR: "is a directory"}
    return reasons.get(e.errno or 0, f"cannot be read: {e.strerror or e}")


def input_problem(path: str | Path, stream: bool = False) -> str | None:
    """Why `path` cannot be read as an input file (None when it can): it does not exist, is a
    symbolic link loop, a directory, a device, a socket, a FIFO (unless `stream`), unreadable."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return _why(e)
    except ValueError:  # a NUL byte in the name
        return "cannot be opened: its name holds a NUL character"
    for test, why in _KINDS:
        if test(mode) and not (stream and stat.S_ISFIFO(mode)):
            return why
    if not os.access(path, os.R_OK):
        return "cannot be read: permission denied"
    return None


# The files this command reads as input ((device, inode): the name given) and the output files its
# command line names (`start_command`): an output is never one of the inputs (`output_problem`).
_INPUTS: dict[tuple[int, int], tuple[str, str]] = {}  # key: (name given, absolute path)
_OUTPUTS: list[str] = []


def start_command(outputs: Iterable[str] = ()) -> None:
    """Begin a command: no input read yet, and `outputs` the files its command line names to write
    (each checked by `output_problem`, and no two the same file); FileError otherwise."""
    _INPUTS.clear()
    _OUTPUTS.clear()
    for out in outputs:
        check_writable(out)
        twice = next((o for o in _OUTPUTS if _same_file(o, out)), None)
        if twice is not None:
            raise FileError(None, f"cannot write {out}: the command writes {twice} already, the same file")
        _OUTPUTS.append(out)


def _file_id(path: str | Path) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _same_file(a: str, b: str) -> bool:
    key = _file_id(a)
    return (key is not None and key == _file_id(b)) or os.path.abspath(a) == os.path.abspath(b)


def _note_input(f: IO[bytes], name: str) -> None:
    """Record a file opened as input; FileError at once when it is an output the command line
    names (before any work is done and anything written)."""
    st = os.fstat(f.fileno())
    key = (st.st_dev, st.st_ino)
    for out in _OUTPUTS:
        if _file_id(out) == key:
            f.close()
            raise FileError(None, f"cannot write {out}: it is {name}, which this command reads; "
                            "give the output another name")
    _INPUTS[key] = (name, os.path.abspath(f.name))


def open_input(source: str | Path, rule: str | None = None, stream: bool = False,
               own: bool = False) -> IO[bytes]:
    """The one way input is opened: a regular file (a FIFO too when `stream`), or standard input
    for `-`; FileError naming the file and the real problem otherwise. The file is recorded as an
    input of the command (never to be written over), unless `own`: a file the command reads to
    update it (a checkpoint, a result file, its match folder's manifest)."""
    if str(source) == "-":
        if sys.stdin is None:
            raise FileError(rule, "standard input is closed")
        return sys.stdin.buffer
    problem = input_problem(source, stream)
    if problem is not None:
        raise FileError(rule, f"{_name(source)} {problem}")
    try:
        f = open(source, "rb")  # noqa: SIM115
    except OSError as e:
        raise FileError(rule, f"{_name(source)} {_why(e)}") from None
    if not own:
        _note_input(f, _name(source))
    return f


def text_chunks(source: str | Path, rule: str | None = None, cap: int | None = None,
                start: int = 0, end: int | None = None, own: bool = False) -> Iterator[str]:
    """The UTF-8 text of a file or standard input (`-`), decoded CHUNK bytes at a time; the text
    before the first byte that is not UTF-8 comes, then a FileError naming that byte's offset; a
    FileError too when more than `cap` bytes come. Files read whole are capped and must be
    regular files; a stream read record by record (no cap) may be a FIFO. `own`: see open_input.

    A regular file is read at the multiples of CHUNK from its start, so that any stretch of it
    comes in the same pieces however much was read before; `start` and `end` read bytes
    [start, end) of it alone (a line start to a line start: a character is never cut)."""
    stream = open_input(source, rule, stream=cap is None, own=own)
    regular = str(source) != "-" and stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    raw = getattr(stream, "raw", stream) if regular else stream
    read = raw.read if regular else getattr(stream, "read1", stream.read)  # a pipe: what is there
    if start:
        raw.seek(start)
    decoder = codecs.getincrementaldecoder("utf-8")()
    offset = start
    try:
        while True:
            want = CHUNK - offset % CHUNK if regular else CHUNK
            if end is not None:
                want = min(want, end - offset)
            try:
                data = read(want) if want > 0 else b""
            except OSError as e:
                raise FileError(rule, f"{_name(source)} {_why(e)}") from None
            try:
                text = decoder.decode(data, final=not data)
            except UnicodeDecodeError as e:  # e.object: the bytes held from the last read, then data
                if e.start:
                    yield codecs.decode(e.object[:e.start], "utf-8")  # what comes before it
                at = offset + len(data) - len(e.object) + e.start
                raise FileError(rule, f"{_name(source)}: not UTF-8 text (byte {at} is "
                                f"0x{e.object[e.start]:02x})") from None
            offset += len(data)
            if cap is not None and offset > cap:
                raise FileError(rule, f"{_name(source)} is larger than {cap >> 20} MiB, the most "
                                "read from one file")
            if text:
                yield text
            if not data:
                return
    finally:
        if str(source) != "-":
            stream.close()


def read_text(source: str | Path, rule: str | None = None, own: bool = False) -> str:
    """The whole UTF-8 text of a file (or of standard input for `-`), at most MAX_READ bytes."""
    return "".join(text_chunks(source, rule, MAX_READ, own=own))


def parse_json(text: str, where: str, rule: str | None = None) -> Any:
    """JSON through the strict decoder (jsonstream.loads), with one-line FileErrors for text that
    is not JSON, not strict JSON (a key twice, a number that is not finite, a lone surrogate, an
    integer too long), or nested too deeply."""
    try:
        return loads(text)
    except json.JSONDecodeError as e:
        raise FileError(rule, f"{where}: not JSON: {e.msg.removesuffix(' at')} at line {e.lineno} "
                        f"column {e.colno}") from None
    except RecursionError:
        raise FileError(rule, f"{where}: JSON nested too deeply (arrays and objects within each "
                        "other, about 1,000 levels at most)") from None


def read_json(source: str | Path, rule: str | None = None, own: bool = False) -> Any:
    """A JSON file (or standard input for `-`), parsed (`own`: see open_input)."""
    return parse_json(read_text(source, rule, own), _name(source), rule)


def parse_toml(text: str, where: str, error: Callable[[str], Exception]) -> dict[str, Any]:
    """TOML text parsed; `error(reason)` for text that is not TOML, nested too deeply or holding
    an integer longer than MAX_DIGITS digits (never Python's own integer-string limit)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise error(f"{where}: not valid TOML: {e}") from None
    except RecursionError:
        raise error(f"{where}: not valid TOML: arrays or tables nested too deeply") from None
    except ValueError:  # int() past its limit inside tomllib
        raise error(f"{where}: not valid TOML: an integer longer than {MAX_DIGITS} "
                    "digits") from None


def write_atomic(path: str | Path, text: str | bytes | Iterable[str] | Iterable[bytes],
                 make_dirs: bool = False) -> None:
    """Write `text` (or its pieces, as they come; str as UTF-8, bytes as they are) to `path` via a
    temporary file in the same directory and a rename (`atomic_output`).

    The directory must exist unless `make_dirs` (for generators writing the project's own tree);
    the file gets the permissions the umask allows, as `open` would.
    """
    with atomic_output(path, make_dirs) as f:
        for piece in [text] if isinstance(text, str | bytes) else text:
            f.write(piece.encode("utf-8") if isinstance(piece, str) else piece)


@contextmanager
def atomic_output(path: str | Path, make_dirs: bool = False) -> Iterator[BinaryIO]:
    """A new temporary file in the directory of `path`, open for writing, once `output_problem`
    finds nothing against the target (never a file this command read as input); when the block
    ends normally it becomes `path` (a rename: a reader sees the old file or the whole new one),
    else it is removed, whatever stopped the block: an error, Ctrl-C, or any signal that ends the
    command (the command line turns SIGHUP, SIGQUIT, SIGUSR1/2 and SIGTERM into an exception,
    qttt.stops). A failure to write is a FileError naming `path`."""
    if make_dirs:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    check_writable(path)  # the name as given: Path() drops a trailing /
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as e:
        raise FileError(None, f"cannot write {path}: {e.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise FileError(None, f"cannot write {path}: {e.strerror}") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def output_problem(path: str | Path, inputs: bool = True) -> str | None:
    """Why a file cannot be written at `path` (None when it can), the one rule of every output:
    the name is empty; it ends in `/` (a name ending in / names a directory, and an output is a
    file: refused, never taken as a file inside it); the target is a directory or not a regular
    file; its directory does not exist or cannot be written; it is a file this command reads as
    input (by device and inode, so a link or another spelling is the same file; unless not
    `inputs`, for the command line's check while it is parsed, before any input is read)."""
    name = str(path)
    if name == "":
        return "the name is empty"
    if name.endswith(os.sep) or (os.altsep is not None and name.endswith(os.altsep)):
        return "a name ending in / names a directory, not a file"
    target = Path(path)
    parent = target.parent
    if os.path.isdir(target):
        return "it is a directory"
    if os.path.lexists(target) and not os.path.isfile(target):
        return "it is not a regular file"
    if not parent.is_dir():
        return f"directory {parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"directory {parent} cannot be written: permission denied"
    key = _file_id(target) if inputs else None
    if key is not None and key in _INPUTS and _file_id(_INPUTS[key][1]) == key:  # (an inode reused: not)
        return f"it is {_INPUTS[key][0]}, which this command reads; give the output another name"
    return None


def check_writable(path: str | Path) -> None:
    """FileError unless a file can be written at `path` (see output_problem)."""
    problem = output_problem(path)
    if problem is not None:
        raise FileError(None, f"cannot write {path}: {problem}")


def save_or_show(path: str | Path, text: str, say: Callable[[str], object], saved: str) -> bool:
    """Write `text` to `path` and `say` the `saved` line; when writing fails, `say` why and then
    the text itself, so that nothing a person did is lost. Whether it was written."""
    try:
        write_atomic(path, text)
    except FileError as e:
        say(f"qttt: {e}; here it is instead:\n{text}")
        return False
    say(saved)
    return True


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

FRACTION = re.compile(r"-?[0-9]{1,20}(/[1-9][0-9]{0,19})?")


def shape_problem(value: Any, shape: Any, at: str = "$") -> str | None:
    """Where `value` (parsed JSON) departs from `shape`, or None. A shape is a `Bound` (an
    integer in range), `str`, `bool`, `FRACTION` (an exact number as text), `object` (anything),
    `[S]` (a list of S), `(S1, S2, ...)` (a list of exactly those) or `{key: S}` (an object with
    those keys; a key written `?key` may be missing)."""
    if isinstance(shape, Bound):
        try:
            shape.check(value)
        except ValueError as e:
            return f"{at}: {e}"
        return None
    if shape is object:
        return None
    if shape in (str, bool):
        what = "string" if shape is str else "boolean"
        return None if isinstance(value, shape) else f"{at}: expected a {what}"
    if shape is FRACTION:
        ok = isinstance(value, str) and FRACTION.fullmatch(value) and not value.endswith("/0")
        return None if ok else f"{at}: expected an exact number such as \"1/2\""
    if isinstance(shape, (list, tuple)):
        return _list_problem(value, shape, at)
    return _object_problem(value, shape, at)


def _list_problem(value: Any, shape: list[Any] | tuple[Any, ...], at: str) -> str | None:
    if not isinstance(value, list) or (isinstance(shape, tuple) and len(value) != len(shape)):
        return f"{at}: expected a list" + (f" of {len(shape)}" if isinstance(shape, tuple) else "")
    shapes = shape if isinstance(shape, tuple) else [shape[0]] * len(value)
    return next((p for i, (v, s) in enumerate(zip(value, shapes, strict=True))
                 if (p := shape_problem(v, s, f"{at}[{i}]"))), None)


def _object_problem(value: Any, shape: dict[str, Any], at: str) -> str | None:
    if not isinstance(value, dict):
        return f"{at}: expected an object"
    keys = {k.lstrip("?"): k for k in shape}
    for key in value:
        if key not in keys:
            return f"{at}: unexpected key {json.dumps(key)[:40]}"
    for key, full in keys.items():
        if key not in value:
            if not full.startswith("?"):
                return f"{at}.{key} is missing"
            continue
        if (p := shape_problem(value[key], shape[full], f"{at}.{key}")) is not None:
            return p
    return None


def damaged(path: Path, why: str) -> FileError:
    """The one answer to a checkpoint that cannot be used as it is."""
    return FileError(None, f"checkpoint {path} is damaged or not a checkpoint ({why}); "
                     "delete it to start afresh")


def _digest(data: dict[str, Any]) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=list)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_checkpoint(path: Path, data: dict[str, Any]) -> None:
    """Save a checkpoint: `data` and the digest of its content. The digest is a checksum against
    accidents (a file cut or changed by mistake), not a seal: anyone can recompute it, so each
    reader's `parse` checks what it resumes for sense (docs/hostile-input.md)."""
    write_atomic(path, json.dumps({"digest": _digest(data), **data}, separators=(",", ":"), default=list))


def read_checkpoint(path: Path, schema: dict[str, Any], parse: Callable[[Any], T]) -> T:
    """`parse` applied to a checkpoint file's JSON once its digest matches and it has the
    `schema` (see shape_problem); `damaged` when the file is not JSON, changed since it was
    written, not of the schema, or `parse` finds it inconsistent (a ValueError naming why)."""
    try:
        data = read_json(path, own=True)
    except FileError as e:
        raise damaged(path, e.message.removeprefix(f"{path}: ")) from None
    if not isinstance(data, dict) or "digest" not in data:
        raise damaged(path, "no digest: not written by this version of qttt")
    digest = data.pop("digest")
    if digest != _digest(data):
        raise damaged(path, "its digest does not match its content: cut or changed since it was written")
    problem = shape_problem(data, schema)
    if problem is not None:
        raise damaged(path, problem)
    try:
        return parse(data)
    except (KeyError, TypeError, ValueError, AttributeError, ZeroDivisionError, LookupError,
            AssertionError) as e:
        why = f"missing {e}" if isinstance(e, KeyError) else str(e)
        raise damaged(path, why) from None
    except QtttError as e:
        raise damaged(path, f"a saved position cannot be reached: {e.message}") from None
