"""`qttt conform`: run the conformance suites (and perft tables) against an engine."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..conformance.runner import (
    Engine,
    InProcessEngine,
    ProcessEngine,
    Runner,
    load_suites,
    python_factory,
)
from ..conformance.suite import suite_path, vectors_dir
from ..variant import builtin_names
from . import seconds


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("conform", help="run the conformance suites against an engine",
                       description="Replay every case of the suites (and the perft tables) against "
                                   "an engine speaking qttt-engine/1 (spec/protocol.md); print each "
                                   "failure and end with `N passed, N failed`.")
    who = p.add_mutually_exclusive_group(required=True)
    who.add_argument("--engine", metavar="COMMAND", help='engine command line, e.g. "qttt engine"')
    who.add_argument("--python", metavar="MODULE:FACTORY",
                     help="in-process engine: FACTORY() returns an object with handle(request) -> response")
    p.add_argument("--suite", type=Path, action="append", help="suite file (repeatable; default: all)")
    p.add_argument("--ruleset", action="append", choices=builtin_names(),
                   help="only this built-in ruleset's suite (repeatable)")
    p.add_argument("--timeout", type=seconds, default=5.0, help="seconds per request (default 5)")
    p.add_argument("--perft-timeout", type=seconds, default=60.0,
                   help="seconds per perft request (default 60)")
    p.add_argument("--no-perft", action="store_true", help="skip the perft tables")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    paths = list(args.suite or [])
    paths += [suite_path(n) for n in args.ruleset or []]
    if not paths:
        paths = sorted(vectors_dir().glob("*.json"))
    if args.python:
        factory = python_factory(args.python)

        def make() -> Engine:
            return InProcessEngine(factory())
    else:
        command: str = args.engine

        def make() -> Engine:
            return ProcessEngine(command)

    runner = Runner(make, args.timeout, args.perft_timeout, out=lambda line: print(line, flush=True))
    try:
        for suite in load_suites(paths):
            runner.run_suite(suite, perft=not args.no_perft)
    finally:
        runner.close()
    report = runner.report
    if report.skipped:
        print(f"skipped {len(report.skipped)} perft depths the engine cannot count itself and "
              f"that are too deep to walk: {', '.join(report.skipped[:5])}"
              + (" ..." if len(report.skipped) > 5 else ""))
    print(report.summary())
    return 1 if report.failed else 0
