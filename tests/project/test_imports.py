"""The import graph of the product (qttt/, verify/) has no loops, and no module uses another module's
private names (`_name`), read from the source with ast; tests import support modules, never each other."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

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
                found.append((sub, None, node.lineno) if sub in known else (base, a.name, node.lineno))
    return found


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: {m for m, _, _ in imports(name, path, known) if m in known and m != name}
            for name, path in known.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """One cycle through each strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_cycle_finder_finds_a_loop() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_import_graph_has_no_loops() -> None:
    g = graph()
    assert "qttt.quantum.engine" in g
    assert "qttt.notation" in g["qttt.cli.replay"] | g["qttt.conformance.suite"]
    # a package's __init__ re-exports its modules; the loops that matter are between modules
    modules_only = {k: {m for m in v if not is_package(m, modules())} for k, v in g.items()}
    assert cycles(modules_only) == []


def private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@cache
def defined_private_names(tree: ast.AST) -> set[str]:
    """Private names a module defines itself: its functions, classes, attributes and slots."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)  # __slots__ entries
    return {n for n in names if private(n)}


def private_uses(path: Path, name: str, known: dict[str, Path]) -> list[str]:
    """Where the module imports another module's private name, or reads a private attribute that it
    does not define itself but another of our modules does (the standard library's are not ours)."""
    tree = parse(path)
    own = defined_private_names(tree)
    ours = {n for p in known.values() for n in defined_private_names(parse(p))}
    bad = [f"{path.name}:{line}: imports {what} from {mod}"
           for mod, what, line in imports(name, path, known)
           if what is not None and private(what) and mod.split(".")[0] in PACKAGES]
    bad += [f"{path.name}:{node.lineno}: uses .{node.attr} of another module"
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and private(node.attr) and node.attr in ours - own]
    return bad


def test_private_name_checker_catches_both_kinds(tmp_path: Path) -> None:
    src = tmp_path / "m.py"
    other = tmp_path / "e.py"
    other.write_text("def _other() -> None: ...\n", encoding="utf-8")
    src.write_text("from qttt.engine import _hidden\nimport e\ne._other()\n", encoding="utf-8")
    assert private_uses(src, "m", {"m": src, "e": other}) == ["m.py:1: imports _hidden from qttt.engine",
                                                  "m.py:3: uses ._other of another module"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_private_names_across_modules(package: str) -> None:
    known = modules()
    bad = [u for name, path in known.items() if name.split(".")[0] == package
           for u in private_uses(path, name, known)]
    assert bad == []


def test_tests_import_support_modules_not_other_tests() -> None:
    tests = ROOT / "tests"
    test_modules = {p.stem for p in tests.rglob("test_*.py")}
    bad = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(parse(path)):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            bad += [f"{path.relative_to(ROOT)}: imports {n}" for n in names if n in test_modules]
    assert bad == []
