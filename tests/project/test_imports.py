"""The import graph of the product (qttt/, verify/) has no loops, and no module uses another module's
private names (`_name`), read from the source with ast; tests import support modules, never each other.

Two readings of the graph must both find no loop: the source read with ast, where `from P import x`
imports the package P and, when x is a submodule, P.x as well (running it executes P's __init__
first), at any depth (in functions, under TYPE_CHECKING); and, independently, the imports Python
itself performs when every module is loaded, recorded by a hook on `__import__` in a fresh
interpreter and searched for loops by a separate depth-first walk."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest
from importgraph import PACKAGES, ROOT, imports, modules, parse, recorded_imports


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


def test_from_package_import_submodule_imports_both(tmp_path: Path) -> None:
    pkg = tmp_path / "p"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from . import a\n", encoding="utf-8")
    (pkg / "a.py").write_text("from . import b\n", encoding="utf-8")
    (pkg / "b.py").write_text("", encoding="utf-8")
    known = {"p": pkg / "__init__.py", "p.a": pkg / "a.py", "p.b": pkg / "b.py"}
    assert {m for m, _, _ in imports("p.a", known["p.a"], known)} == {"p", "p.b"}
    edges = {name: {m for m, _, _ in imports(name, path, known) if m != name} for name, path in known.items()}
    assert cycles(edges) == [["p", "p.a"]]


def test_verify_does_not_import_the_command_line() -> None:
    """The checker sits beside qttt's command line, which plugs it in (qttt/cli/check.py)."""
    g = graph()
    assert not [(m, d) for m, deps in g.items() if m.startswith("verify") for d in deps
                if d == "qttt.cli" or d.startswith("qttt.cli.")]


def test_import_graph_has_no_loops() -> None:
    g = graph()
    assert "qttt.quantum.engine" in g
    assert "qttt.notation" in g["qttt.cli.replay"] | g["qttt.conformance.suite"]
    assert cycles(g) == []


def runtime_graph() -> dict[str, set[str]]:
    names = sorted(n for n in modules() if not n.endswith("__main__"))  # those run a command
    graph: dict[str, set[str]] = {}
    for a, b in recorded_imports(names):
        if b.split(".")[0] in PACKAGES and a != b:
            graph.setdefault(a, set()).add(b)
    return graph


def first_loop(edges: dict[str, set[str]]) -> list[str] | None:
    """A loop of the graph by iterative depth-first search with three colours, or None."""
    colour: dict[str, int] = {}  # absent: unseen, 1: on the current path, 2: finished
    for root in sorted(edges):
        if root in colour:
            continue
        path, stack = [root], [iter(sorted(edges.get(root, ())))]
        colour[root] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                colour[path.pop()] = 2
                stack.pop()
            elif colour.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            elif nxt not in colour:
                colour[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(edges.get(nxt, ()))))
    return None


def test_runtime_loop_finder_finds_a_loop() -> None:
    assert first_loop({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == ["a", "b", "c", "a"]
    assert first_loop({"a": {"b"}, "b": set()}) is None


def test_imports_python_performs_have_no_loops() -> None:
    g = runtime_graph()
    assert "qttt.quantum.analysis.count" in g["qttt.quantum.compiled"]
    assert "qttt.argtypes" in g["verify.cli"] and "qttt.cli" not in g["verify.cli"]
    # `from . import z3_graph`: both the package and the submodule
    assert {"verify.quantum", "verify.quantum.z3_graph"} <= g["verify.quantum.check"]
    assert first_loop(g) is None


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


def unencodable_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of each string constant in source that is not Unicode text (a lone surrogate)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node.value.encode("utf-8")
            except UnicodeEncodeError:
                found.append((node.lineno, node.value[:60]))
    return found


def test_every_string_in_the_product_is_unicode_text() -> None:
    """A lone surrogate in a docstring (a `\\ud800` meant as text) stops the module loading in the
    browser (Pyodide writes the module's strings as UTF-8): the play page could not start."""
    bad = {name: found for name, path in modules().items()
           if (found := unencodable_strings(path.read_text(encoding="utf-8")))}
    assert bad == {}


def test_a_planted_lone_surrogate_is_found() -> None:
    assert unencodable_strings('"""a \\ud800 b"""\nx = r"\\ud800"\n') == [(1, "a \ud800 b")]
