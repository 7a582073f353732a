"""The product's import graph as the project tests read it (tests/project): every module of qttt/
and verify/, the imports each makes read from its source with ast, and the imports Python itself
performs while modules load, recorded in a fresh interpreter."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("qttt", "verify")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def parse(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def modules() -> dict[str, Path]:
    return {module_name(p): p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


def is_package(name: str, known: dict[str, Path]) -> bool:
    return known.get(name, Path()).name == "__init__.py"


def imports(name: str, path: Path, known: dict[str, Path]) -> list[tuple[str, str | None, int]]:
    """(module imported, name taken from it or None, line) for every import in the file, at any depth."""
    package = name if is_package(name, known) else name.rpartition(".")[0]
    found: list[tuple[str, str | None, int]] = []
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Import):
            found += [(a.name, None, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            for a in node.names:
                sub = f"{base}.{a.name}"
                found.append((base, None if sub in known else a.name, node.lineno))
                if sub in known:  # `from P import x`, x a submodule: P and P.x are both imported
                    found.append((sub, None, node.lineno))
    return found


# Python's own imports, recorded while every module of the product loads.
RECORDER = """
import builtins, importlib, importlib.util, json, sys
edges = set()
real = builtins.__import__
def hook(name, globals=None, locals=None, fromlist=(), level=0):
    module = real(name, globals, locals, fromlist, level)
    importer = (globals or {}).get("__name__", "")
    if importer.split(".")[0] in PACKAGES:
        target = importlib.util.resolve_name("." * level + name, globals["__package__"]) if level else name
        edges.add((importer, target))
        for item in fromlist or ():
            if importlib.util.find_spec(target) is not None and f"{target}.{item}" in sys.modules:
                edges.add((importer, f"{target}.{item}"))
    return module
builtins.__import__ = hook
for name in NAMES:
    try:
        importlib.import_module(name)
    except ModuleNotFoundError as e:  # an optional dependency that is not installed
        if e.name.split(".")[0] in PACKAGES:
            raise
print(json.dumps(sorted(edges)))
"""




def recorded_imports(names: list[str], root: Path = ROOT) -> list[tuple[str, str]]:
    """(importer, module imported) for every import Python performs, made by a module of ours,
    while `names` load one after the other in a fresh interpreter started in `root`."""
    script = f"PACKAGES = {PACKAGES!r}\nNAMES = {names!r}\n" + RECORDER
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         cwd=root).stdout
    return [(a, b) for a, b in json.loads(out)]
