"""`qttt variants` and `qttt show NAME|FILE`: the rulesets and their resolved parameters."""

from __future__ import annotations

import argparse
import json

from rich.table import Table
from rich.text import Text

from ..variant import NESTED, PARAMETERS, builtin_names, load_ruleset
from . import console as make_console


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("variants", help="list the built-in rulesets, one line each")
    p.set_defaults(run=run_variants)
    s = sub.add_parser("show", help="show a ruleset's parameters, resolved")
    s.add_argument("ruleset", help="built-in name, canonical name or variant file")
    s.add_argument("--json", action="store_true", help="the resolved parameters as JSON")
    s.set_defaults(run=run_show)


def run_variants(args: argparse.Namespace) -> int:
    names = builtin_names(None)
    width = max(len(n) for n in names)
    for name in names:
        rs = load_ruleset(name)
        side = rs.board * rs.board if rs.game == NESTED else rs.board
        print(f"{name:<{width}}  {side}×{side}  {rs.summary}")
    return 0


def run_show(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    if args.json:
        print(json.dumps({"name": rs.name, "canonical": rs.canonical, "title": rs.title,
                          "sources": list(rs.sources), "params": rs.to_dict()}, indent=2))
        return 0
    console = make_console()
    console.print(Text.assemble((f"{rs.name}", "bold"), f"  {rs.title}"))
    console.print(f"canonical: {rs.canonical}")
    if rs.summary:
        console.print(rs.summary)
    table = Table("parameter", "value", "default", "description")
    for p in PARAMETERS:
        if rs.game not in p.games:
            continue
        value = rs.value(p.name)
        table.add_row(p.name, json.dumps(value), json.dumps(p.default), p.description)
    console.print(table)
    scoring = Table("award", "pattern", "length", "settings", title="scoring")
    for c in rs.scoring:
        settings = ", ".join(f"{k}={json.dumps(v)}" for k, v in c.to_dict().items()
                             if k not in ("award", "pattern", "length"))
        quantum = rs.game != NESTED
        scoring.add_row(c.award, c.pattern if quantum else "-", str(c.length or rs.board) if quantum else "-",
                        settings)
    console.print(scoring)
    if rs.sources:
        console.print("sources: " + ", ".join(rs.sources))
    return 0
