"""The build hook of the wheel (hatchling's custom hook, pyproject.toml): compiles every compiled
core (each `qttt/*/_core.c` with the builds of its `_core.toml`) with the system C compiler and
puts the libraries in the wheel under qttt/native/_built/, with a manifest of their SHA-256, so an
installed qttt needs no compiler at run time. Each library passes the same check as a core built
on demand (qttt.native.build.check: its symbols and a self-test in a child process) before it is
shipped. An editable install builds them into the source tree's qttt/native/_built/.

Without a compiler (or when a build fails) the wheel is made without that core and a warning says
so: qttt then builds it on first use, or plays with the Python engine and says so.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from packaging.tags import sys_tags


def _builder(root: Path) -> ModuleType:
    """qttt/native/build.py, loaded by its path (the package itself is not imported here)."""
    spec = importlib.util.spec_from_file_location("_qttt_native_build", root / "qttt" / "native" / "build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class CoresHook(BuildHookInterface):  # type: ignore[misc]
    """Compile the cores into the wheel."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        native = _builder(root)
        editable = version == "editable"
        folder = root / "qttt" / "native" / native.PREBUILT if editable else Path(tempfile.mkdtemp())
        self._temporary = None if editable else folder
        if editable:
            shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True, exist_ok=True)
        cc = native.compiler()
        built: dict[str, str] = {}
        for build in native.every_build(root / "qttt"):
            name = build.filename()
            why = (native.compile_build(build, cc, folder / name, root / "qttt" / "native")
                   if cc is not None else "no C compiler found (set CC, or install cc)")
            why = why or native.check(build, folder / name, root)
            if why is not None:
                (folder / name).unlink(missing_ok=True)
                self.app.display_warning(f"qttt: {build.source.parent.name}/{build.source.name} "
                                         f"({build.name}) is not in the wheel: {why}; qttt builds it "
                                         "on first use where there is a compiler")
                continue
            built[name] = native.digest(folder / name)
        (folder / native.MANIFEST).write_text(json.dumps(built, indent=1, sort_keys=True) + "\n",
                                              encoding="utf-8")
        if not built:
            return
        build_data["pure_python"] = False
        build_data["tag"] = f"py3-none-{next(sys_tags()).platform}"  # loaded by ctypes: any Python 3
        if not editable:
            for name in [*built, native.MANIFEST]:
                build_data["force_include"][str(folder / name)] = f"qttt/native/{native.PREBUILT}/{name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if getattr(self, "_temporary", None) is not None:
            shutil.rmtree(self._temporary, ignore_errors=True)
