"""One set of flag names and defaults across the commands: every subcommand's parser, walked by
argparse introspection (qttt.cli.build_parser registers them all), is held to RULES; the commands'
kinds say which flags each must have; an old spelling still works, with one line on standard error."""

from __future__ import annotations

import argparse
from collections.abc import Iterator

import pytest

from qttt.argtypes import Deprecated
from qttt.cli import COMMANDS, JsonFlag, build_parser
from qttt.family import CORES

# The rule, flag by flag.
RULES = {
    "--core": f"the rules engine: choices among {', '.join(CORES)}; default auto where auto is one",
    "--workers": "processes or threads: an integer, 0 meaning one per core, 0 by default",
    "--json": "a flag: the command's report as JSON on standard output",
    "--quiet": "a flag: no progress display",
}
# Other spellings of the same choices: not allowed (an old one stays only as a Deprecated alias).
ODD = {"--engine": "--core", "--solver": "--core", "--processes": "--workers", "--jobs": "--workers",
       "-j": "--workers", "--threads": "--workers", "--silent": "--quiet", "--no-progress": "--quiet",
       "--format": "--json"}
# What each command does, and so which flags it must have: a report (--json), progress output
# (--quiet), long work spread over processes (--workers).
KINDS: dict[str, set[str]] = {
    "analyze count": {"report", "progress", "long"}, "analyze solve": {"report", "progress", "long"},
    "analyze curve": {"report", "progress", "long"},
    "analyze random": {"report", "progress", "long"}, "analyze fairness": {"report", "progress", "long"},
    "check": {"report", "progress", "long"}, "conform": {"report", "progress"}, "engine": set(),
    "match": {"report", "progress", "long"}, "tournament": {"report", "progress", "long"},
    "perft": {"report"}, "play": set(), "random": {"long"}, "replay": {"report", "long"},
    "show": {"report"}, "tour": {"report", "progress"}, "variants": {"report"},
    "vectors generate": {"report"}, "vectors check": {"report"},
}
NEEDS = {"report": "--json", "progress": "--quiet", "long": "--workers"}
# Each departure from the rule, with its reason; the test fails on any other and on one listed here
# that no longer happens (remove it then).
EXCEPTIONS = {
    "conform: --engine is not --core": "conform --engine COMMAND names the engine under test (a command "
                                       "line), not a rules core",
    "engine: --core defaults to python, not auto": "the engine served by default is the Python engine, the "
                                                   "rules as the spec states them; compiled on request",
    "match: --workers defaults to 1, not 0": "games under clocks: one at a time, so that each program "
                                             "thinks alone, unless asked",
    "tournament: --workers defaults to 1, not 0": "as match",
}


def commands(parser: argparse.ArgumentParser,
             path: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every leaf subcommand's parser, by its words (`analyze count`)."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield path, parser
        return
    for name, sub in subs[0].choices.items():
        yield from commands(sub, f"{path} {name}".strip())


def options_of(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """A command's options by flag, old spellings (Deprecated aliases, tested below) left out."""
    return {flag: a for a in parser._actions if not isinstance(a, Deprecated) for flag in a.option_strings}


def flag_problems(name: str, options: dict[str, argparse.Action]) -> set[str]:
    """Each way a command's options depart from RULES and ODD."""
    out = {f"{name}: {flag} is not {new}" for flag, new in ODD.items() if flag in options}
    core = options.get("--core")
    if core is not None:
        choices = tuple(core.choices or ())
        if not choices or not set(choices) <= set(CORES):
            out.add(f"{name}: --core chooses {choices}, not among {CORES}")
        if core.default != "auto":
            out.add(f"{name}: --core defaults to {core.default}, not auto")
    workers = options.get("--workers")
    if workers is not None:
        if workers.default != 0:
            out.add(f"{name}: --workers defaults to {workers.default}, not 0")
        parse = workers.type
        if not callable(parse) or parse("0") != 0 or "one per core" not in (workers.help or ""):
            out.add(f"{name}: --workers does not take 0 for one per core")
    for flag in ("--json", "--quiet"):
        action = options.get(flag)
        if action is not None and not isinstance(action, argparse._StoreTrueAction | JsonFlag):
            out.add(f"{name}: {flag} is not a flag")
    return out


def problems(parser: argparse.ArgumentParser, kinds: dict[str, set[str]]) -> set[str]:
    """Each way a command departs from RULES and from what its KINDS need."""
    out = set()
    for name, p in commands(parser):
        if name not in kinds:
            out.add(f"{name}: not in KINDS (say what it does)")
            continue
        options = options_of(p)
        out |= flag_problems(name, options)
        for kind in kinds[name]:
            if NEEDS[kind] not in options:
                what = {"report": "a report", "progress": "progress output", "long": "a long command"}[kind]
                out.add(f"{name}: {what} without {NEEDS[kind]}")
    return out


def test_every_command_holds_to_the_rules() -> None:
    found = problems(build_parser(), KINDS)
    assert found - set(EXCEPTIONS) == set(), "\n".join(sorted(found - set(EXCEPTIONS)))
    stale = set(EXCEPTIONS) - found
    assert not stale, f"no longer needed, remove from EXCEPTIONS: {sorted(stale)}"


def test_every_command_is_walked() -> None:
    walked = {name.split()[0] for name, _ in commands(build_parser())}
    assert walked == set(COMMANDS) and {n.split()[0] for n in KINDS} == walked


def test_a_planted_odd_flag_is_found() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    planted = sub.add_parser("planted")
    planted.add_argument("--engine", choices=("auto", "c", "python"), default="auto")
    planted.add_argument("--workers", type=int, default=1, help="processes")
    planted.add_argument("--quiet", type=int)
    planted.add_argument("--core", choices=("auto", "c"), default="python")
    found = problems(parser, {**KINDS, "planted": {"report", "progress", "long"}}) - set(EXCEPTIONS)
    assert found == {"planted: --engine is not --core", "planted: --workers defaults to 1, not 0",
                     "planted: --workers does not take 0 for one per core", "planted: --quiet is not a flag",
                     "planted: --core chooses ('auto', 'c'), not among ('auto', 'compiled', 'python')",
                     "planted: --core defaults to python, not auto", "planted: a report without --json"}
    other = build_parser()
    next(a for a in other._actions if isinstance(a, argparse._SubParsersAction)).add_parser("unknown")
    assert "unknown: not in KINDS (say what it does)" in problems(other, KINDS)


OLD_ENGINE = "--engine is deprecated; use --core"


@pytest.mark.parametrize(("argv", "attribute", "value", "note"), [
    (["analyze", "solve", "kumar", "--engine", "c"], "core", "compiled", OLD_ENGINE),
    (["analyze", "solve", "kumar", "--engine", "python"], "core", "python", OLD_ENGINE),
    (["analyze", "fairness", "kumar", "--engine", "auto"], "core", "auto", OLD_ENGINE),
    (["conform", "--engine", "x", "--json", "r.json"], "output", "r.json",
     "--json FILE is deprecated; use --output"),
    (["check", "wikipedia", "--processes", "3"], "workers", "3", "--processes is deprecated; use --workers"),
])
def test_an_old_spelling_works_with_a_one_line_note(argv: list[str], attribute: str, value: str, note: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(argv)
    assert str(getattr(args, attribute)) == value
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and note in err


def test_the_new_spellings_parse_without_a_note(capsys: pytest.CaptureFixture[str]) -> None:
    args = build_parser().parse_args(["conform", "--engine", "x", "--json"])
    assert args.json is True and args.output is None
    args = build_parser().parse_args(["analyze", "solve", "kumar", "--core", "compiled"])
    assert args.core == "compiled" and args.workers == 0
    assert capsys.readouterr().err == ""
