"""No module outside the family packages mentions a family's types (issue #23): family code is
reached only through the registry (qttt.family), never imported or branched on.

The family packages are the folders named after a family's implementation package (qttt/quantum,
qttt/nested, qttt/classical and their verify/ counterparts), found from qttt.gametype. Two
readings must agree:

- the source read with ast: no other module of qttt/ or verify/ imports a module of a family
  package (at any depth, under TYPE_CHECKING too; relative imports resolved), and none compares a
  value with a family's name ("quantum", "nested-classical", …) or with a flag holding one
  (`rs.game == QUANTUM`);
- Python's own imports, recorded by a hook on `__import__` in a fresh interpreter while every
  other module loads: none of them imports a family module itself.

Re-exports cannot hide a family type: a module that re-exports one must import it, which the first
rule forbids (so `from qttt import State` would fail at qttt/__init__.py).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

from importgraph import PACKAGES, ROOT, imports, module_name, modules, parse, recorded_imports

from qttt.gametype import GAME_TYPES


@cache
def family_dirs() -> frozenset[str]:
    """The folder of each family's implementation package: quantum, nested, classical."""
    return frozenset(t.implementation.split(":")[0].split(".")[1] for t in GAME_TYPES.values())


def in_family(module: str) -> bool:
    """Whether a module belongs to a family package (qttt.quantum.engine, verify.nested.check)."""
    parts = module.split(".")
    return len(parts) > 1 and parts[0] in PACKAGES and parts[1] in family_dirs()


def outside() -> dict[str, Path]:
    return {name: path for name, path in modules().items() if not in_family(name)}


def family_values() -> frozenset[str]:
    return frozenset(GAME_TYPES)


@cache
def flags() -> frozenset[str]:
    """Module-level names outside the family packages that hold a family's name (QUANTUM, NESTED)."""
    found = set()
    for path in outside().values():
        for node in parse(path).body:
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                    and node.value.value in family_values()):
                found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return frozenset(found)


def _names_a_family(node: ast.expr, flag_names: frozenset[str]) -> bool:
    """An operand that is a family's name, a flag holding one, or a collection of those."""
    if isinstance(node, ast.Constant):
        return node.value in family_values()
    if isinstance(node, ast.Name):
        return node.id in flag_names
    if isinstance(node, ast.Attribute):
        return node.attr in flag_names
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return any(_names_a_family(e, flag_names) for e in node.elts)
    return False


def mentions(name: str, path: Path, known: dict[str, Path], flag_names: frozenset[str] | None = None
             ) -> list[str]:
    """What ties one module to a family: family modules it imports, comparisons with a family."""
    held = flags() if flag_names is None else flag_names
    found = [f"imports {m} (line {line})" for m, _, line in imports(name, path, known) if in_family(m)]
    for node in ast.walk(parse(path)):
        if isinstance(node, ast.Compare) and any(_names_a_family(x, held)
                                                 for x in [node.left, *node.comparators]):
            found.append(f"compares with a family (line {node.lineno})")
    return sorted(set(found))


def source_reading() -> dict[str, list[str]]:
    known = modules()
    return {name: found for name, path in outside().items() if (found := mentions(name, path, known))}


def runtime_reading(names: list[str] | None = None, root: Path = ROOT) -> dict[str, list[str]]:
    """Family modules each module outside the family packages imports itself while they load."""
    if names is None:
        names = sorted(n for n in outside() if not n.endswith("__main__"))  # those run a command
    found: dict[str, list[str]] = {}
    for importer, target in recorded_imports(names, root):
        if not in_family(importer) and in_family(target):
            found.setdefault(importer, []).append(target)
    return found


def test_the_family_packages_are_the_registered_families() -> None:
    assert family_dirs() == {"quantum", "nested", "classical"}
    assert in_family("qttt.quantum.engine") and in_family("verify.nested.check")
    assert not in_family("qttt.family") and not in_family("qttt.players") and not in_family("qttt")
    assert {"qttt.family", "qttt.webplay", "qttt.docgen.build"} <= set(outside())


def test_the_source_reading_finds_what_it_looks_for(tmp_path: Path) -> None:
    """Each kind of tie, planted in a module outside the family packages, is found."""
    pkg = tmp_path / "qttt"
    (pkg / "quantum").mkdir(parents=True)
    for f in ("__init__.py", "quantum/__init__.py", "quantum/engine.py"):
        (pkg / f).write_text("", encoding="utf-8")
    (pkg / "mod.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from .quantum import engine\n"
        "if TYPE_CHECKING:\n    from qttt.quantum.engine import State\n"
        "def f(rs):\n    from . import quantum\n"
        "    return rs.game == 'nested-classical' or rs.game in ('x', 'quantum')\n"
        "def g(rs):\n    return rs.game != QUANTUM\n"
        "def h(rs):\n    return {'quantum': 1}[rs.game] == len('nested-classical')\n",
        encoding="utf-8")
    known = {".".join(p.relative_to(tmp_path).with_suffix("").parts).removesuffix(".__init__"): p
             for p in pkg.rglob("*.py")}
    found = mentions("qttt.mod", pkg / "mod.py", known, frozenset({"QUANTUM"}))
    assert "imports qttt.quantum.engine (line 2)" in found  # from a package, its submodule
    assert "imports qttt.quantum.engine (line 4)" in found  # under TYPE_CHECKING
    assert "imports qttt.quantum (line 6)" in found  # in a function
    assert "compares with a family (line 7)" in found  # a name, and a name in a tuple
    assert "compares with a family (line 9)" in found  # a flag holding a family's name
    assert "compares with a family (line 11)" not in found  # a family's name used, not compared with
    assert len(found) == 6  # and line 2 imports the package qttt.quantum as well
    assert mentions("qttt.mod", pkg / "quantum" / "engine.py", known) == []


def test_the_runtime_reading_finds_what_it_looks_for(tmp_path: Path) -> None:
    """A module that imports a family module when it loads is found; one that reaches it through
    a registry (importlib), or only in a function it does not call, is not."""
    pkg = tmp_path / "qttt"
    (pkg / "quantum").mkdir(parents=True)
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "quantum" / "engine.py").write_text("from .. import helper\n", encoding="utf-8")
    (pkg / "helper.py").write_text("", encoding="utf-8")
    (pkg / "direct.py").write_text("from .quantum.engine import *\n", encoding="utf-8")
    (pkg / "registry.py").write_text("import importlib\nimportlib.import_module('qttt.quantum.engine')\n"
                                     "def later():\n    from .quantum import engine\n", encoding="utf-8")
    found = runtime_reading(["qttt.direct", "qttt.registry"], tmp_path)
    assert found == {"qttt.direct": ["qttt.quantum.engine"]}


def test_no_module_outside_the_family_packages_mentions_a_family() -> None:
    found = source_reading()
    assert found == {}, "\n".join(f"{m}: {'; '.join(why)}" for m, why in sorted(found.items()))


def test_no_module_outside_the_family_packages_imports_one_at_run_time() -> None:
    """Loading every other module imports family code only through the registry, and the runtime
    reading agrees with the source reading (which also sees imports in functions)."""
    found = runtime_reading()
    source = source_reading()
    assert set(found) <= set(source), f"imports the source reading missed: {set(found) - set(source)}"
    assert found == {}, found


def test_module_name_agrees_with_the_import_reading() -> None:
    assert module_name(ROOT / "qttt" / "quantum" / "__init__.py") == "qttt.quantum"
