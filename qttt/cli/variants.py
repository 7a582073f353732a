"""`qttt variants` and `qttt show NAME|FILE`: the rulesets and their resolved parameters."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Table
from rich.text import Text

from ..canonical import SCORING_KEYS
from ..family import family_of
from ..variant import builtin_names, load_ruleset
from ..vocabulary import AWARD_DECLARATIONS, PARAMETERS, format_value
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
        side = family_of(rs).side(rs)
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
        table.add_row(p.name, _shown(value), _shown(p.default), p.description)
    console.print(table)
    scoring = Table("award", "field", "value", "default", "description", title="scoring")
    for c in rs.scoring:
        for name, (_, default, description) in AWARD_DECLARATIONS[c.award].fields.items():
            value = getattr(c, name) if name in ("award", "pattern", "length") else c.get(name)
            scoring.add_row(c.award, name, _shown(value), _shown(default), description)
    console.print(scoring)
    awards = {c.award for c in rs.scoring}
    keys = [f"{key} (sets {field} of every {award} component, e.g. {example})"
            for key, (award, field, example) in SCORING_KEYS.items() if award in awards]
    keys.append("scoring=JSON (the whole scoring)")
    console.print("canonical names may also set: " + ", ".join(keys))
    if rs.sources:
        console.print("sources: " + ", ".join(rs.sources))
    return 0


def _shown(value: Any) -> str:
    """A parameter or scoring value for the table: as variant files write it; unset: `unstated`."""
    if value is None:
        return "unstated"
    if isinstance(value, tuple) and not value:
        return "[]"
    return format_value(value)
