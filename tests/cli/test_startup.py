"""Start-up imports only what the command uses: `qttt --version` none of the library, a command
only its own module (`qttt.cli.COMMANDS`), and the lazily built parser answers exactly as the
parser with every command registered. Timings are bench/bench_startup.py's, not a test's."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys

import pytest

import qttt
from qttt.cli import COMMANDS, build_parser, command_modules, main

PROBE = """
import runpy, sys
sys.argv = ["qttt", *ARGV]
try:
    runpy.run_module("qttt", run_name="__main__")
except SystemExit:
    pass
sys.stdout = sys.__stdout__
print("modules:", *sorted(sys.modules))
"""


def imported(argv: list[str]) -> set[str]:
    """The modules a fresh `python -m qttt ARGV` has imported when it ends."""
    proc = subprocess.run([sys.executable, "-c", PROBE.replace("ARGV", repr(argv))], capture_output=True,
                          text=True, timeout=120, check=True)
    return set(proc.stdout.splitlines()[-1].split()[1:])


def test_version_imports_none_of_the_library() -> None:
    found = imported(["--version"])
    ours = {m for m in found if m.split(".")[0] in ("qttt", "verify")}
    assert ours == {"qttt", "qttt.cli", "qttt.errors", "qttt.safe", "qttt.stops"}  # stops: signals at entry
    assert not {m for m in found if m.split(".")[0] in ("rich", "multiprocessing", "concurrent", "ctypes",
                                                          "pathlib", "json", "dataclasses", "tomllib")}


def test_a_command_imports_its_own_module_only() -> None:
    found = imported(["show", "wikipedia"])
    commands = {m for m in found if m.startswith("qttt.cli.")}
    assert commands == {"qttt.cli.variants"}
    assert not {m for m in found if m.split(".")[0] in ("verify", "multiprocessing", "concurrent")}
    assert "qttt.processes" not in found and "qttt.conformance" not in found


def test_every_command_module_registers_the_commands_the_table_gives_it() -> None:
    registered: dict[str, str] = {}

    class Recorder:
        module = ""

        def add_parser(self, name: str, **kwargs: object) -> argparse.ArgumentParser:
            registered[name] = self.module
            return argparse.ArgumentParser(prog=name)

    recorder = Recorder()
    for module in command_modules():
        recorder.module = module
        importlib.import_module(f"qttt.cli.{module}").register(recorder)
    assert registered == COMMANDS
    assert set(COMMANDS.values()) == set(command_modules())


@pytest.mark.parametrize("argv", [[name, "--help"] for name in COMMANDS]
                         + [["--help"], ["no-such-command"], [], ["analyze", "random", "--help"],
                            ["random", "wikipedia", "--workers", "x"]])
def test_the_lazy_parser_answers_as_the_full_one(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    answers = []
    for lazy in (False, True):
        with pytest.raises(SystemExit) as stop:
            build_parser(lazy).parse_args(argv)
        out = capsys.readouterr()
        answers.append((stop.value.code, out.out, out.err))
    assert answers[0] == answers[1]


def test_version_and_the_package_names(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out == f"qttt {qttt.__version__}\n"
    for name in qttt.__all__:  # each public name is loaded from its module on first use
        home = next(m for m in ("errors", "family", "games", "notation", "ruleset", "variant", "vocabulary")
                    if hasattr(importlib.import_module(f"qttt.{m}"), name))
        assert getattr(qttt, name) is getattr(importlib.import_module(f"qttt.{home}"), name)
    assert sorted(qttt.__all__) == sorted(set(dir(qttt)) & set(qttt.__all__))
    with pytest.raises(AttributeError):
        qttt.no_such_name  # noqa: B018
