"""Building and binding the compiled C cores of the game families: each family's core is one C
file in its package (qttt/quantum/_core.c, qttt/nested/_core.c) with its builds declared beside it
(`_core.toml`). A wheel carries them built at install time (hatch_build.py); otherwise each is
built on first use with the system C compiler into a content-addressed file of the cache, and
every library is checked (`build.check`: size, header, symbols, a self-test in a child process)
before this process loads it. The headers here (`_mt.h`: Python's Mersenne Twister, so a seed
gives the Python engine's games) are on every core's include path."""

from __future__ import annotations

import array
import copy
import ctypes
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any, Self

from ..errors import QtttError
from ..jsonstream import loads
from .build import MANIFEST, PREBUILT, Build, builds, check, compile_build, compiler, digest, shape_problem

HERE = Path(__file__).parent
# ctypes argument types of the cores' functions
I64 = ctypes.POINTER(ctypes.c_int64)
I32 = ctypes.POINTER(ctypes.c_int32)
U32 = ctypes.POINTER(ctypes.c_uint32)
U64 = ctypes.POINTER(ctypes.c_uint64)
I8 = ctypes.POINTER(ctypes.c_int8)
P = ctypes.c_void_p
INT = ctypes.c_int
PREBUILT_DIR = HERE / PREBUILT  # the libraries a wheel carries, built and checked by its build hook
OVERRIDE: dict[str, Path] = {}  # build name: the library to use instead (the self-test's child)
__all__ = ["builds", "compiler"]  # re-exported: the bindings read their builds; tests replace compiler


def scaled(v: Fraction, scale: int) -> int:
    """An exact point value times `scale` (the integer points the cores count in), which must make
    it an integer."""
    x = v * scale
    assert x.denominator == 1, (v, scale)
    return x.numerator


class CoreUnavailable(QtttError):
    """The compiled core cannot be used: no compiler, a failed build, or an unsupported ruleset."""


def cache_dir() -> Path:
    """Where built libraries are kept: $QTTT_CACHE, else ~/.cache/qttt."""
    return Path(os.environ.get("QTTT_CACHE") or Path.home() / ".cache" / "qttt")


_shown: set[str] = set()


def notice(text: str) -> None:
    """One line on standard error, once per process: what the cores' machinery did for the user
    that costs time or speed (a fallback, a rebuild, a build not kept)."""
    if text not in _shown:
        _shown.add(text)
        print(f"qttt: {text}", file=sys.stderr, flush=True)


@cache
def _manifest(folder: Path) -> dict[str, str]:
    """The prebuilt libraries in `folder` (name: SHA-256), checked by the build hook."""
    try:
        data = loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


def _verified(path: Path, sha: str) -> Path:
    """The marker of a passed check: the library's name (its build and source) and its bytes."""
    return cache_dir() / "verified" / f"{path.name}-{sha}"


def _trusted(path: Path) -> bool:
    """Whether the file at `path` is one checked before: a prebuilt library the wheel lists, or a
    cached one whose SHA-256 a passed check recorded."""
    try:
        sha = digest(path)
    except OSError:
        return False
    if path.parent == PREBUILT_DIR:
        return _manifest(PREBUILT_DIR).get(path.name) == sha
    return _verified(path, sha).is_file()


def _record(path: Path) -> None:
    """Record that the library at `path` passed its check (best effort: a cache that cannot be
    written checks it again next time)."""
    try:
        marker = _verified(path, digest(path))
        marker.parent.mkdir(parents=True, exist_ok=True)
        marker.touch()
    except OSError:
        pass


def locate(build: Build) -> tuple[Path, bool]:
    """A checked library of `build` and whether it is a temporary file (to delete once loaded):
    the wheel's prebuilt one, else the cache's when this qttt built and checked it (its marker
    says so), else one built now, replacing whatever file was there; CoreUnavailable naming the
    source and the fix when none can be had. Without a compiler, an unmarked cached library is
    checked (`build.check`) and used if it passes."""
    if build.name in OVERRIDE:
        return OVERRIDE[build.name], False
    name = build.filename()
    prebuilt = PREBUILT_DIR / name
    if _trusted(prebuilt):
        return prebuilt, False
    target = cache_dir() / name
    damage = None
    if os.path.lexists(target):
        if _trusted(target):
            return target, False
        damage = shape_problem(target) or "not a library this qttt built and checked"
        if compiler() is None and check(build, target) is None:
            _record(target)
            return target, False
    return _build(build, target, damage)


def _fix(build: Build) -> str:
    return (f"install a C compiler (cc or gcc) or set CC, or install qttt from a wheel, which "
            f"carries {build.source.name} built")


def _build(build: Build, target: Path, damage: str | None) -> tuple[Path, bool]:
    """Compile `build` in a fresh folder, check it, and move it to `target` (the cache); a cache
    that cannot be written keeps the checked library in a temporary folder for this run only."""
    where = f"{build.source.parent.name}/{build.source.name}"
    cc = compiler()
    if cc is None:
        raise CoreUnavailable("core-compiled", f"no C compiler found to build {where}; {_fix(build)}")
    keep = True
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(dir=target.parent, prefix=".build-"))
    except OSError:
        keep = False
        folder = Path(tempfile.mkdtemp(prefix="qttt-core-"))
    out = folder / target.name
    loaded_from_folder = False
    try:
        why = compile_build(build, cc, out) or (None if out.exists() else f"{cc} wrote no library")
        why = why or check(build, out)
        if why is not None:
            raise CoreUnavailable("core-compiled", f"building {where} with {cc} gave no usable library: "
                                  f"{why}; {_fix(build)}")
        if keep:
            try:
                _record(out)
                os.replace(out, target)
            except OSError:
                keep = False
        if keep:
            if damage is not None:
                notice(f"the cached compiled core {target} was not usable ({damage}); rebuilt it")
            return target, False
        notice(f"the cache {target.parent} cannot be written; the compiled core {build.name} was built "
               "for this run only (set QTTT_CACHE to a writable folder to keep it)")
        loaded_from_folder = True
        return out, True
    finally:
        if not loaded_from_folder:
            shutil.rmtree(folder, ignore_errors=True)


Signatures = dict[str, tuple[object, list[object]]]


def bind(source: Path, name: str, sig: Signatures) -> ctypes.CDLL:
    """The checked library of build `name` of `source` (`locate`), loaded, with each function's
    result and argument types set from `sig` (name: (result, arguments)); CoreUnavailable when
    it exports no such function."""
    build = builds(source).get(name)
    if build is None:
        raise CoreUnavailable("core-compiled", f"{source.name} has no build {name} (see _core.toml)")
    path, temporary = locate(build)
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as e:
        if "failed to map segment" in str(e) or "Cannot allocate memory" in str(e):
            raise MemoryError from None  # the environment's limit, not a damaged file
        if name in OVERRIDE:  # the self-test's child: the check's words
            raise CoreUnavailable("core-compiled", "it cannot be loaded: "
                                  + str(e).removeprefix(f"{path}: ")) from None
        raise CoreUnavailable("core-compiled", f"the compiled core {path} cannot be loaded; delete it "
                              "and run again to rebuild it") from None
    finally:
        if temporary:
            shutil.rmtree(path.parent, ignore_errors=True)  # loaded: the mapping outlives the file
    for fn_name, (res, args) in sig.items():
        try:
            fn = getattr(lib, fn_name)
        except AttributeError:
            said = "it" if name in OVERRIDE else f"the compiled core {path}"
            raise CoreUnavailable("core-compiled", f"{said} does not export {fn_name}") from None
        fn.restype = res
        fn.argtypes = args
    return lib


class Position:
    """A mutable position a compiled core holds in a buffer of `size` bytes: the families' core
    positions apply actions to it and read views from it through their core's functions."""

    def __init__(self, core: Any, size: int) -> None:
        self.core = core
        self.buf = ctypes.create_string_buffer(size)

    def copy(self) -> Self:
        """An independent copy (the same core, its own buffer)."""
        out = copy.copy(self)
        out.buf = ctypes.create_string_buffer(self.buf.raw, len(self.buf))
        return out


def check_header(path: Path, text: str, generator: str) -> None:
    """CoreUnavailable unless the generated header `path` holds `text`, what `generator` writes
    from the declarations (a stale header would build a core that misreads its configuration)."""
    if path.read_text(encoding="utf-8") != text:
        raise CoreUnavailable("core-compiled", f"{path.name} does not match the declarations; "
                              f"regenerate it with {generator}")


def unavailable(library: Callable[[], object]) -> str | None:
    """None when `library()` can be built and loaded here, else the reason it cannot (without
    its rule: the caller names one)."""
    try:
        library()
    except CoreUnavailable as e:
        return e.message
    return None


def usable(core: str, unsupported: str | None, available: Callable[[], str | None], slower: int) -> bool:
    """Whether to use a compiled core given `core`, why it does not take the ruleset
    (`unsupported`, None when it does) and `available()` (why it cannot be had here): never for
    python, always for compiled (CoreUnavailable if it cannot), and for auto whenever it can. When
    auto falls back for want of a core, a notice says why and that the Python engine is about
    `slower` times slower (measured by the benchmarks)."""
    if core == "python":
        return False
    if unsupported is not None:
        if core == "compiled":
            raise CoreUnavailable("core-compiled", unsupported)
        return False
    why = available()
    if why is None:
        return True
    if core == "compiled":
        raise CoreUnavailable("core-compiled", why)
    notice(f"compiled core unavailable ({why.split('; ')[0]}); using the Python engine, about "
           f"{slower}× slower")
    return False


def generator_state(rng: random.Random) -> tuple[ctypes.Array[ctypes.c_uint32], Callable[[], None]]:
    """The Mersenne Twister state of `rng` as C words, and a callback storing it back (through an
    array of machine words: converting word by word through ctypes cost more than a short game)."""
    version, words, gauss = rng.getstate()
    buffer = array.array("I", words)
    assert buffer.itemsize == 4
    state = (ctypes.c_uint32 * 625).from_buffer(buffer)

    def finish() -> None:
        rng.setstate((version, tuple(buffer), gauss))
    return state, finish
