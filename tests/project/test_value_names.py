"""Parameter values named in code are declared values (qttt.vocabulary).

Game and the rules records hold a parameter's declared value (a string), not a Literal type, so mypy
no longer catches `r.bonus == "blok-win"`. This test does: every comparison of an attribute named
after an enumerated parameter with a string literal (==, !=, in, not in) must name one of that
parameter's declared values, in every module of qttt/ and verify/.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from qttt.vocabulary import PARAMETERS

ROOT = Path(__file__).resolve().parents[2]
ENUMERATED = {p.name: set(p.allowed) for p in PARAMETERS if p.type is str and p.allowed}


def _strings(node: ast.expr) -> list[str]:
    """The string literals `node` is or holds (a tuple, list or set of them)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [s for e in node.elts for s in _strings(e)]
    return []


def undeclared(source: str) -> list[tuple[int, str, str]]:
    """(line, parameter, value) of each comparison naming a value its parameter does not declare."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for op, a, b in zip(node.ops, sides[:-1], sides[1:], strict=True):
            if not isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn):
                continue
            for attr, other in ((a, b), (b, a)):
                if isinstance(attr, ast.Attribute) and attr.attr in ENUMERATED:
                    out += [(node.lineno, attr.attr, s) for s in _strings(other)
                            if s not in ENUMERATED[attr.attr]]
    return out


def test_the_check_finds_a_misspelled_value() -> None:
    planted = ('if r.bonus == "blok-win" or rs.rules.measurer in ("creator", "nobody"):\n    pass\n'
               'ok = r.bonus != "chain" and "keep" == s.untouched\n')
    assert undeclared(planted) == [(1, "bonus", "blok-win"), (1, "measurer", "nobody")]


@pytest.mark.parametrize("path", sorted([*ROOT.glob("qttt/**/*.py"), *ROOT.glob("verify/**/*.py")]),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_values_named_in_code_are_declared(path: Path) -> None:
    assert undeclared(path.read_text(encoding="utf-8")) == []
