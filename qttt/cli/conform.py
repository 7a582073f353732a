"""`qttt conform`: run the conformance suites (and perft tables) against an engine."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..argtypes import output_file, seconds
from ..conformance.report import LEVELS
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


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("conform", help="run the conformance suites against an engine",
                       description="Replay every case of the suites (and the perft tables) against "
                                   "an engine speaking qttt-engine/1 (spec/protocol.md); print every "
                                   "difference and end with the counts at the core and strict levels. "
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
    p.add_argument("--json", type=output_file, metavar="FILE", help="also write the report as JSON")
    p.add_argument("--junit", type=output_file, metavar="FILE", help="also write the report as JUnit XML")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds per request (default 5)")
    p.add_argument("--perft-timeout", type=seconds, default=60.0,
                   help="seconds per perft request (default 60)")
    p.add_argument("--no-perft", action="store_true", help="skip the perft tables")
    p.set_defaults(run=run)


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

    report = Runner(make, args.timeout, args.perft_timeout,
                    out=lambda line: print(line, flush=True)).run(suites, perft=not args.no_perft)
    if args.json:
        write_atomic(args.json, json.dumps(report.to_json(args.level), indent=1, ensure_ascii=False) + "\n")
    if args.junit:
        write_atomic(args.junit, report.to_junit(args.level))
    if report.could_not_run is None or report.results:
        print(report.summary())
    if report.could_not_run is not None:
        print(f"qttt: could not run: {report.could_not_run}", file=sys.stderr)
    elif not any(report.count(args.level, o) for o in ("passed", "failed", "error")):
        print("qttt: could not run: no item was run (none is supported, or all were skipped)",
              file=sys.stderr)
    return report.status(args.level)
