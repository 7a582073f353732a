"""The page "Use with OpenSpiel and PettingZoo" (docs/frameworks.md): its Python examples run in
order, its commands run (in a temporary directory), and the page is in the site's navigation;
the adapters stay out of the rules core."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from qttt.cli import main

pytestmark = pytest.mark.frameworks

pytest.importorskip("pyspiel", reason="open-spiel is not installed (pip install -e '.[openspiel]')")
pytest.importorskip("pettingzoo", reason="pettingzoo is not installed (pip install -e '.[pettingzoo]')")

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "frameworks.md"


def blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", PAGE.read_text(encoding="utf-8"), flags=re.S)


def run_examples() -> str:
    """Run the page's Python examples in order, in the working directory; what they print."""
    code = blocks("python")
    assert len(code) >= 7
    namespace: dict[str, object] = {}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in code:
            exec(compile(block, str(PAGE), "exec"), namespace)
    return out.getvalue()


def test_python_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    printed = run_examples()
    assert "python_qttt(ruleset_encoded=wikipedia%28double_line%3D2%29)\n" in printed
    assert 'x(1,2) {"place":[0,1]}\nframework-action\n' in printed
    assert "\n0.5\n1.0\n" in printed  # the margin's value, then its sign on the default game
    assert ("True [(0, 0.75), (1, 0.25)] [(0, Fraction(3, 4)), (1, Fraction(1, 4))]\nchance=1\n"
            "Outcome(cell=1)\n") in printed  # a chance node
    assert "game over" in printed or "wins" in printed or "drawn" in printed
    saved = json.loads((tmp_path / "game.json").read_text(encoding="utf-8"))
    assert saved["variant"] == "bonus4x4" and saved["actions"]


def test_commands_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      capsys: pytest.CaptureFixture[str]) -> None:
    """The commands run after the examples (`qttt replay game.json` reads the game they saved)."""
    monkeypatch.chdir(tmp_path)
    run_examples()
    commands = [line for block in blocks("console") for line in block.splitlines()
                if line.startswith("qttt ")]
    assert [c.split()[1] for c in commands] == ["replay", "match", "replay"]
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0, command
    assert "game over" in capsys.readouterr().out


def test_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "Use with OpenSpiel and PettingZoo: frameworks.md" in nav


def test_the_rules_core_imports_no_adapter() -> None:
    """Importing qttt and every module of the rules, players and referee loads neither framework."""
    probe = ("import sys, qttt, qttt.quantum.engine, qttt.nested.engine, qttt.family, qttt.games, "
             "qttt.players, qttt.variant, qttt.competition.match, qttt.cli\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pyspiel', 'open_spiel', "
             "'pettingzoo', 'gymnasium', 'numpy') or m in ('qttt.openspiel', 'qttt.pettingzoo', "
             "'qttt.interop', 'qttt.quantum.frameworks', 'qttt.nested.frameworks')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"
