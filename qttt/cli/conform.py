"""`qttt conform`: run the conformance suites (and perft tables) against an engine."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..argtypes import output_file, seconds
from ..conformance.report import LEVELS, Result
from ..conformance.runner import (
    Engine,
    InProcessEngine,
    ProcessEngine,
    Runner,
    load_suites,
    python_factory,
)
from ..conformance.suite import committed_suites, suite_for
from ..io import write_atomic
from . import JsonFlag, add_quiet, console


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("conform", help="run the conformance suites against an engine",
                       description="Replay every case of the suites (and the perft tables) against "
                                   "an engine speaking qttt-engine/1 (spec/protocol.md). The report "
                                   "begins with the counts and what to fix first: the failures grouped "
                                   "by the rule their first difference fails, the smallest case of each "
                                   "with its record; then every failure, each difference with its rule; "
                                   "it ends with the counts at the core and strict levels. "
                                   "Exit 0: passed at --level; 1: failed; 2: could not run (the engine "
                                   "cannot start, nothing it supports was run, or bad usage).")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--engine", metavar="COMMAND", help='engine command line, e.g. "qttt engine"')
    who.add_argument("--python", metavar="MODULE:FACTORY",
                     help="in-process engine: FACTORY() returns an object with handle(request) -> response")
    p.add_argument("--suite", type=Path, action="append",
                   help="suite file (repeatable; default: every committed suite)")
    p.add_argument("--ruleset", action="append", metavar="RULESET",
                   help="only this ruleset's suite (repeatable): a built-in name (its committed suite), "
                        'a canonical name such as "wikipedia(double_line=2)" or a variant file (a suite '
                        "generated for it)")
    p.add_argument("--level", choices=LEVELS, default="strict",
                   help="the level the exit status reports (default strict; both are always printed)")
    p.add_argument("--json", nargs="?", const=True, default=False, metavar="",
                   action=JsonFlag, help="the report as JSON on standard output instead of text")
    p.add_argument("-o", "--output", type=output_file, metavar="FILE",
                   help="also write the report as JSON to FILE")
    p.add_argument("--junit", type=output_file, metavar="FILE", help="also write the report as JUnit XML")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds per request (default 5)")
    p.add_argument("--perft-timeout", type=seconds, default=60.0,
                   help="seconds per perft request (default 60)")
    p.add_argument("--no-perft", action="store_true", help="skip the perft tables")
    add_quiet(p, "no progress on standard error (the items run and failed so far)")
    p.set_defaults(run=run)


@contextmanager
def _progress(quiet: bool) -> Iterator[Callable[[Result], None]]:
    """A callback per item run, showing on a terminal's standard error the items run and failed."""
    err = console(stderr=True)
    if quiet or not err.is_terminal:
        yield lambda result: None
        return
    tally = {"run": 0, "failed": 0}
    with err.status("conform: starting the engine") as status:

        def seen(result: Result) -> None:
            tally["run"] += 1
            tally["failed"] += result.outcome("core") in ("failed", "error")
            status.update(f"conform: {result.suite}: {tally['run']} items run, {tally['failed']} failed")
        yield seen


def run(args: argparse.Namespace) -> int:
    named = [suite_for(n) for n in args.ruleset or []]
    paths = list(args.suite or ([] if named else committed_suites()))
    suites = load_suites(paths) + named
    if args.python:
        factory = python_factory(args.python)

        def make() -> Engine:
            return InProcessEngine(factory())
    else:
        command: str = args.engine

        def make() -> Engine:
            return ProcessEngine(command)

    header: list[str] = []
    with _progress(args.quiet) as progress:
        report = Runner(make, args.timeout, args.perft_timeout, out=lambda line: header.append(line),
                        on_result=progress).run(suites, perft=not args.no_perft)
    data = json.dumps(report.to_json(args.level), indent=1, ensure_ascii=False) + "\n"
    if args.output:
        write_atomic(args.output, data)
    if args.junit:
        write_atomic(args.junit, report.to_junit(args.level))
    if args.json:
        sys.stdout.write(data)
    elif report.could_not_run is None or report.results:
        print("\n".join([*header[:1], *report.text(args.level)]))
    if report.could_not_run is not None:
        print(f"qttt: could not run: {report.could_not_run}", file=sys.stderr)
    elif not any(report.count(args.level, o) for o in ("passed", "failed", "error")):
        print("qttt: could not run: no item was run (none is supported, or all were skipped)",
              file=sys.stderr)
    return report.status(args.level)
