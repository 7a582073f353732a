"""MkDocs hook: ships the play page's runtime with the site.

After a build it writes `play/qttt.zip` (the `qttt` package and the spec data it reads), copies the
Pyodide runtime from `node_modules/pyodide` (`npm ci` installs it) into `play/pyodide/`, and writes
`play/runtime.json` saying whether the runtime is there, so the page explains its absence instead
of failing.
"""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path
from typing import Any

RUNTIME_FILES = ("pyodide.js", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")


def _package(root: Path, out: Path) -> None:
    """The engine's sources and the spec data, laid out as in the source tree."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted((root / "qttt").rglob("*.py")):
            z.write(path, path.relative_to(root).as_posix())
        for path in sorted((root / "spec").rglob("*.toml")):
            z.write(path, path.relative_to(root).as_posix())


def on_post_build(config: Any, **kwargs: Any) -> None:
    """Write play/qttt.zip, play/pyodide/ (when installed) and play/runtime.json into the site.
    A build of another language (mkdocs-static-i18n, under site/LANG/) gets only a runtime.json
    pointing at the default build's runtime, so the runtime ships once."""
    root = Path(config["config_file_path"]).parent
    i18n = config["plugins"].get("i18n")
    if i18n is not None and not i18n.is_default_language_build:  # its pages are under site/LANG/
        default = json.loads((Path(config["site_dir"]) / "play" / "runtime.json").read_text(encoding="utf-8"))
        other = Path(config["site_dir"]) / i18n.current_language / "play"
        other.mkdir(parents=True, exist_ok=True)
        (other / "runtime.json").write_text(json.dumps({**default, "base": "../../play/"}) + "\n",
                                            encoding="utf-8")
        return
    play = Path(config["site_dir"]) / "play"
    play.mkdir(parents=True, exist_ok=True)
    _package(root, play / "qttt.zip")
    runtime = root / "node_modules" / "pyodide"
    bundled = all((runtime / f).is_file() for f in RUNTIME_FILES)
    version = None
    if bundled:
        (play / "pyodide").mkdir(exist_ok=True)
        for f in RUNTIME_FILES:
            shutil.copyfile(runtime / f, play / "pyodide" / f)
        version = json.loads((runtime / "package.json").read_text(encoding="utf-8"))["version"]
    (play / "runtime.json").write_text(json.dumps({"bundled": bundled, "pyodide": version}) + "\n",
                                       encoding="utf-8")
