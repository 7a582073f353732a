"""Building the compiled cores: what each build is (declared in `_core.toml` beside its `_core.c`),
compiling one with the system C compiler, and checking a built library before anything loads it.

Standard library only and no package-relative import: the install-time build hook
(hatch_build.py) loads this file by its path, so a wheel and the on-demand build of
`qttt.native` compile the same builds with the same flags into files of the same names. A name
is the build's name and a hash of its source, the headers it includes and its flags (never of
where the files lie), so a prebuilt library is found again wherever qttt is installed.

`check` is the one check of a library, wherever it comes from: its size and ELF header here, then
in a child process (so a truncated or foreign library can crash only the child) the binding of
every symbol its module declares and a self-test through its own entry points against the Python
engine (`qttt.native.selftest`).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import struct
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

NATIVE = Path(__file__).parent  # qttt/native: the headers every core includes (_mt.h)
PACKAGE = NATIVE.parent  # qttt
CFLAGS = ("-O3", "-shared", "-fPIC", "-std=c11")
PREBUILT = "_built"  # the folder of qttt/native where the build hook puts the libraries
MANIFEST = "manifest.json"  # in it: each library's name and SHA-256, checked when it was built
SMALLEST = 1024  # bytes: a library smaller than this is no core (an empty or cut file)
SELFTEST_SECONDS = 120  # the child's self-test; seconds, on a loaded machine


@dataclass(frozen=True)
class Build:
    """One build of a core: its C source, name (the library's file name starts with it), the
    macros it defines, the module that binds it (`core_for(ruleset)`) and the ruleset its
    self-test plays."""

    source: Path
    name: str
    defines: tuple[str, ...]
    module: str
    selftest: str

    def flags(self, include: Path) -> list[str]:
        """The compiler's flags, headers searched in `include` (qttt/native)."""
        return [*CFLAGS, f"-I{include}", *(f"-D{d}" for d in self.defines)]

    def tag(self) -> str:
        """A hash of what the library is made from: the source, the headers beside it and in
        qttt/native, and the flags (with the include folder written as a name, not a path)."""
        headers = (*sorted(self.source.parent.glob("*.h")), *sorted(NATIVE.glob("*.h")))
        text = b"".join(p.read_bytes() for p in (self.source, *headers))
        flags = " ".join(self.flags(Path("native"))).encode()
        return hashlib.sha256(text + flags).hexdigest()[:16]

    def filename(self) -> str:
        """The library's file name: `NAME_TAG.so`."""
        return f"{self.name}_{self.tag()}.so"


def builds(source: Path) -> dict[str, Build]:
    """The builds `_core.toml` beside `source` declares, by name."""
    data = tomllib.loads(source.with_name("_core.toml").read_text(encoding="utf-8"))
    return {b["name"]: Build(source, b["name"], tuple(b.get("defines", ())), data["module"], b["selftest"])
            for b in data["build"]}


def every_build(package: Path = PACKAGE) -> list[Build]:
    """Every build of every core under `package` (each `*/_core.c` with its `_core.toml`)."""
    return [b for source in sorted(package.glob("*/_core.c")) for b in builds(source).values()]


def digest(path: Path) -> str:
    """The SHA-256 of a file's bytes (OSError when it cannot be read)."""
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def compile_build(build: Build, cc: str, out: Path, include: Path = NATIVE) -> str | None:
    """Compile `build` with `cc` into `out`; None, or why the compiler failed (its first line)."""
    try:
        run = subprocess.run([cc, *build.flags(include), "-o", str(out), str(build.source)],
                             capture_output=True, text=True, errors="replace", timeout=600)
    except OSError as e:
        return f"{cc} cannot be run: {e.strerror or e}"
    except subprocess.TimeoutExpired:
        return f"{cc} did not finish within 600 s"
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        first = next((line for line in lines if "error" in line), lines[0] if lines else "no message")
        return f"{cc} failed: {first.strip()}"
    return None


def shape_problem(path: Path) -> str | None:
    """Why the file at `path` is no shared library (None when it may be one): unreadable, empty,
    too short, not ELF, or shorter than the extent its own ELF header declares (program headers,
    the segments they load, section headers). Read with plain file calls: nothing is mapped."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 24)
            size = os.fstat(f.fileno()).st_size
    except OSError as e:
        return f"it cannot be read: {e.strerror or e}"
    if size == 0:
        return "it is empty"
    if size < SMALLEST:
        return f"it is too short to be a library: {size} bytes"
    if data[:4] != b"\x7fELF":
        return "it is not a shared library: no ELF header"
    extent = elf_extent(data)
    if extent is None:
        return "it is not a shared library: its ELF header is damaged"
    if size < extent:
        return f"it is cut short: {size} bytes of the {extent} its header declares"
    return None


def elf_extent(data: bytes) -> int | None:
    """The bytes an ELF file must have by its own headers (None when they cannot be read)."""
    if len(data) < 64 or data[4] not in (1, 2) or data[5] not in (1, 2):
        return None
    wide, order = data[4] == 2, "<" if data[5] == 1 else ">"
    head = struct.Struct(order + ("HHIQQQIHHHHHH" if wide else "HHIIIIIHHHHHH"))
    (_, _, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, _) = head.unpack_from(data, 16)
    extent: int = max(phoff + phentsize * phnum, shoff + shentsize * shnum)
    segment = struct.Struct(order + ("IIQQQQQQ" if wide else "IIIIIIII"))
    for i in range(phnum):
        at = phoff + i * phentsize
        if phentsize < segment.size or at + segment.size > len(data):
            return None
        fields = segment.unpack_from(data, at)
        offset, filesz = (fields[2], fields[5]) if wide else (fields[1], fields[4])
        extent = max(extent, int(offset + filesz))
    return int(extent)


CHILD = "import sys; from qttt.native.selftest import main; sys.exit(main(sys.argv[1:]))"


def check(build: Build, path: Path, pythonpath: Path = PACKAGE.parent) -> str | None:
    """None when the library at `path` is `build` as it should be, else why not (one clause, no
    path): `shape_problem`, then in a child process (qttt imported from `pythonpath`) every
    declared symbol bound and the self-test run through the library's own entry points."""
    problem = shape_problem(path)
    if problem is not None:
        return problem
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(pythonpath), *filter(None, [os.environ.get("PYTHONPATH")])]), "QTTT_DEBUG": ""}
    try:
        run = subprocess.run([sys.executable, "-c", CHILD, str(build.source), build.name, str(path)],
                             capture_output=True, text=True, errors="replace", env=env,
                             timeout=SELFTEST_SECONDS, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return f"its self-test did not finish within {SELFTEST_SECONDS} s"
    except OSError as e:
        return f"its self-test cannot be started: {e.strerror or e}"
    if run.returncode < 0:
        try:
            name = signal.Signals(-run.returncode).name
        except ValueError:
            name = f"signal {-run.returncode}"
        return f"it crashed its self-test with {name}"
    if run.returncode != 0:
        said = [line for line in run.stdout.splitlines() if line.strip()]
        return said[-1].strip() if said else f"its self-test failed with exit status {run.returncode}"
    return None


def compiler() -> str | None:
    """The C compiler to use ($CC, else cc, else gcc), or None."""
    for name in (os.environ.get("CC"), "cc", "gcc"):
        if name and shutil.which(name):
            return name
    return None
