"""Building and binding the compiled C cores of the game families: each family's core is one C
file in its package (qttt/quantum/_core.c, qttt/nested/_core.c), compiled on demand with the system
C compiler, cached, and used through ctypes. The headers here (`_mt.h`: Python's Mersenne Twister,
so a seed gives the Python engine's games) are on every core's include path."""

from __future__ import annotations

import array
import copy
import ctypes
import hashlib
import os
import random
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any, Self

from ..errors import QtttError

HERE = Path(__file__).parent
CFLAGS = ("-O3", "-shared", "-fPIC", "-std=c11")
# ctypes argument types of the cores' functions
I64 = ctypes.POINTER(ctypes.c_int64)
I32 = ctypes.POINTER(ctypes.c_int32)
U32 = ctypes.POINTER(ctypes.c_uint32)
U64 = ctypes.POINTER(ctypes.c_uint64)
I8 = ctypes.POINTER(ctypes.c_int8)
P = ctypes.c_void_p
INT = ctypes.c_int


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


def compiler() -> str | None:
    """The C compiler to use ($CC, else cc, else gcc), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name and shutil.which(name):
            return name
    return None


def build(source: Path, prefix: str, defines: tuple[str, ...] = ()) -> ctypes.CDLL:
    """The shared library built from `source` with the system compiler and `defines` (-D...), cached
    by a hash of the source, the headers beside it and here, and the flags; CoreUnavailable when there is no
    compiler or the build fails."""
    cc = compiler()
    if cc is None:
        raise CoreUnavailable("core-compiled", "no C compiler found (set CC, or install cc)")
    flags = (*CFLAGS, f"-I{HERE}", *defines)
    headers = (*sorted(source.parent.glob("*.h")), *sorted(HERE.glob("*.h")))
    src = b"".join(p.read_bytes() for p in (source, *headers))
    tag = hashlib.sha256(src + " ".join(flags).encode()).hexdigest()[:16]
    target = cache_dir() / f"{prefix}_{tag}.so"
    if not target.is_file():
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".build.", suffix=".so")
        os.close(fd)
        try:
            run = subprocess.run([cc, *flags, "-o", tmp, str(source)], capture_output=True, text=True)
            if run.returncode != 0:
                first = (run.stderr.strip().splitlines() or ["no message"])[0]
                raise CoreUnavailable("core-compiled", f"building {source.name} with {cc} failed: {first}")
            os.replace(tmp, target)
        finally:
            Path(tmp).unlink(missing_ok=True)
    return ctypes.CDLL(str(target))


Signatures = dict[str, tuple[object, list[object]]]


def bind(source: Path, prefix: str, sig: Signatures, defines: tuple[str, ...] = ()) -> ctypes.CDLL:
    """The library built from `source` (`build`) with each function's result and argument types set
    from `sig` (name: (result, arguments))."""
    lib = build(source, prefix, defines)
    for name, (res, args) in sig.items():
        fn = getattr(lib, name)
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
    """None when `library()` can be built and loaded here, else the reason it cannot."""
    try:
        library()
    except (CoreUnavailable, OSError) as e:
        return str(e)
    return None


def usable(core: str, reason: Callable[[], str | None]) -> bool:
    """Whether to use a compiled core given `core` and `reason()` (why it cannot serve, None when it
    can): never for python, always for compiled (CoreUnavailable if it cannot), and for auto
    whenever it can."""
    if core == "python":
        return False
    why = reason()
    if why is None:
        return True
    if core == "compiled":
        raise CoreUnavailable("core-compiled", why)
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
