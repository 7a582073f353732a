"""`qttt check NAME|FILE ... [--all] [--json]`: the consistency checker on the command line.

`register` plugs the subcommand into the `qttt` parser (qttt/cli/check.py re-exports it);
`python -m verify` runs it alone. Exit status 1 when some property is violated, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from qttt import QtttError, builtin_names, load_ruleset
from qttt.bounds import GAMES, MAX_PLY, SEED, WORKERS
from qttt.cli import integer, seconds
from qttt.family import family_of, tool
from qttt.notation import Record, record_from_json

from .catalogue import LABELS, PROPERTIES

if TYPE_CHECKING:
    from .check import Report

STYLES = {"proved": "green", "exhaustive": "green", "sampled": "cyan", "unknown": "yellow",
          "violated": "bold red"}


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser("check", help="prove or refute the catalogue properties of rulesets",
                       description="Settle every property of the catalogue (single cycle per move, "
                                   "collapse uniqueness and totality, no deadlock, termination, scores "
                                   "well defined, ...) for each ruleset: Z3 proofs, exhaustive abstraction, "
                                   "enumeration, sampled games and, with --exhaustive, a walk of every "
                                   "position with the engine. Each status says how it was settled. "
                                   "Exit status 1 if a property is violated.")
    add_arguments(p)
    p.set_defaults(run=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments of `check`."""
    p.add_argument("rulesets", nargs="*", metavar="NAME|FILE",
                   help="built-in name, canonical name or variant file")
    p.add_argument("--all", action="store_true", help="check every built-in ruleset too")
    p.add_argument("--json", action="store_true", help="one JSON report on standard output")
    p.add_argument("--games", type=integer(GAMES),
                   help="random games to sample per ruleset (default 1000 on 3×3, 200 above)")
    p.add_argument("--seed", type=integer(SEED), default=0,
                   help="seed of the sampled games (default 0)")
    p.add_argument("--timeout", type=seconds, default=60.0, help="seconds per Z3 query (default 60)")
    p.add_argument("--exhaustive", action="store_true",
                   help="also walk every reachable position with the engine (3×3: all; larger: to --max-ply)")
    p.add_argument("--max-ply", type=integer(MAX_PLY), metavar="N",
                   help="depth of the exhaustive walk (default: every position on 3×3, 8 plies above)")
    p.add_argument("--processes", type=integer(WORKERS, 1), default=2, metavar="N",
                   help="processes for the exhaustive walk (default 2)")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="save the exhaustive walk after each ply to FILE and resume from it (one ruleset)")
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.add_argument("--no-timing", action="store_true",
                   help="leave times out of the JSON report, so that it is the same on every run")


def targets(args: argparse.Namespace) -> list[str]:
    """The rulesets to check, in order, without repeats."""
    names = list(args.rulesets) + (list(builtin_names(None)) if args.all else [])
    return list(dict.fromkeys(names))


def run(args: argparse.Namespace) -> int:
    """Check each ruleset; print a table per ruleset, or one JSON report."""
    names = targets(args)
    if not names:
        print("qttt check: name a ruleset or give --all", file=sys.stderr)
        return 2
    if args.checkpoint and len(names) > 1:
        print("qttt check: --checkpoint needs exactly one ruleset", file=sys.stderr)
        return 2
    for name in names:  # every name resolves before any is checked
        load_ruleset(name)
    try:  # each family's checker (its `check` tool); the quantum one needs z3
        checkers = {name: tool(load_ruleset(name), "check") for name in names}
    except ModuleNotFoundError as e:
        print(f"qttt check: {e.name} is not installed (pip install 'qttt[verify]')", file=sys.stderr)
        return 2

    def check(name: str, progress: Callable[[str], None] | None = None, **kw: Any) -> Report:
        report: Report = checkers[name](name, progress=progress, **kw)
        return report

    err = Console(stderr=True, highlight=False)
    show = not args.quiet and err.is_terminal
    reports = []
    start = time.perf_counter()
    for name in names:
        if show:
            with err.status(f"checking {name}") as status:

                def progress(text: str, name: str = name) -> None:
                    status.update(f"checking {name}: {text}")

                reports.append(check(name, progress=progress, **options(args)))
            err.print(f"[dim]checked {name}[/dim]")
        else:
            reports.append(check(name, **options(args)))
    if args.json:
        data = report_json(reports, None if args.no_timing else time.perf_counter() - start)
        print(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        out = Console(highlight=False, width=max(120, Console().width))
        for report in reports:
            print_report(out, report)
    violated = [r.spec for r in reports if r.violated]
    if violated and not args.json:
        print(f"{len(reports)} rulesets checked; exit status 1: a property is violated in "
              + ", ".join(violated), file=sys.stderr)
    return 1 if violated else 0


def options(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of `check` from the command line."""
    return {"games": args.games, "seed": args.seed, "timeout": args.timeout, "exhaustive": args.exhaustive,
            "max_ply": args.max_ply, "processes": args.processes, "checkpoint": args.checkpoint}


def report_json(reports: list[Report], seconds: float | None) -> dict[str, Any]:
    """The whole run as plain data: the catalogue, then each ruleset's findings (times unless
    seconds is None)."""
    out: dict[str, Any] = {"version": 1}
    if seconds is not None:
        out["seconds"] = round(seconds, 3)
    out["statuses"] = LABELS
    out["catalogue"] = [{"id": p.id, "title": p.title, "statement": p.statement, "rules": list(p.rules),
                         "applies_to": p.applies_to, "method": p.method} for p in PROPERTIES]
    out["rulesets"] = [r.to_json(seconds is not None) for r in reports]
    return out


def short_witness(record: dict[str, Any]) -> str:
    """A game record in its family's human notation (its JSON actions for a family without one)."""
    rec: Record = record_from_json(record)
    text = family_of(rec.ruleset()).notation(rec.variant, rec.actions)
    return text if text is not None else json.dumps(record["actions"])


def print_report(out: Console, report: Report) -> None:
    """One ruleset's table, then the witnesses of its violated properties."""
    table = Table("property", "status", "how it was settled", "time", "witness",
                  title=f"{report.spec}  ({report.canonical}, {report.board}×{report.board})",
                  title_justify="left")
    for f in report.findings:
        witness = f"{len(f.witness.record['actions'])} actions" if f.witness else ""
        table.add_row(f.property, f"[{STYLES[f.status]}]{LABELS[f.status]}[/]", escape(f.label),
                      f"{f.seconds:.2f} s", witness)
    out.print(table)
    for f in report.findings:
        if f.witness:
            out.print(f"[bold]{f.property}[/bold]: {escape(f.witness.shows)}")
            out.print(f"  {short_witness(f.witness.record)}", markup=False)
            out.print(f"  {json.dumps(f.witness.record)}", markup=False)
    walk = report.walk
    if walk is not None:
        extent = "every reachable position" if walk["complete"] else f"to ply {walk.get('max_ply')}"
        out.print(f"[dim]exhaustive walk of {escape(walk['ruleset'])}: {extent}, {walk['positions']} "
                  f"positions under the {walk['key']} key in {walk['seconds']:.1f} s[/dim]")
    out.print(f"[dim]{report.games} games sampled in {report.sampling_seconds:.1f} s[/dim]\n")


def main(argv: list[str] | None = None) -> int:
    """Run `check` without the rest of the `qttt` command line."""
    parser = argparse.ArgumentParser(prog="python -m verify", description="The qttt consistency checker.")
    add_arguments(parser)
    try:
        return run(parser.parse_args(argv))
    except QtttError as e:
        print(f"qttt check: {e}", file=sys.stderr)
        return 2


def markdown(data: dict[str, Any]) -> list[str]:
    """A JSON report (`report_json`) as Markdown lines: the catalogue, then a table per ruleset and
    the witnesses of its violated properties (for the documentation's verification page)."""
    out = ["## Properties", "", "| id | statement | rules | applies to | method |", "|---|---|---|---|---|"]
    for p in data["catalogue"]:
        rules = ", ".join(f"`{r}`" for r in p["rules"])
        out.append(f"| `{p['id']}` | {p['statement']} | {rules} | {p['applies_to']} | {p['method']} |")
    out.append("")
    for rep in data["rulesets"]:
        n = rep["board"]
        out += [f"## {rep['ruleset']}", "",
                f"Canonical name `{rep['canonical']}`, {n}×{n}, {rep['sampled_games']} sampled games.", "",
                "| property | status | how it was settled | method |", "|---|---|---|---|"]
        for p in rep["properties"]:
            out.append(f"| `{p['property']}` | {data['statuses'][p['status']]} | {p['label']} | "
                       f"{p['method']} |")
        out.append("")
        for p in rep["properties"]:
            if "witness" in p:
                out += [f"Witness for `{p['property']}`: {p['witness']['shows']}", "",
                        f"    {short_witness(p['witness']['record'])}", ""]
    return out
