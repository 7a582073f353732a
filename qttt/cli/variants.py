"""`qttt variants` and `qttt show NAME|FILE`: the rulesets and their resolved parameters."""

from __future__ import annotations

import argparse
import json
from typing import Any

from rich.table import Column, Table
from rich.text import Text

from ..canonical import SCORING_KEYS
from ..family import family_of
from ..variant import builtin_names, load_ruleset
from ..vocabulary import AWARD_DECLARATIONS, PARAMETERS, format_value
from . import add_json
from . import console as make_console


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("variants", help="list the built-in rulesets, one line each")
    add_json(p, "the list as JSON: each ruleset's name, canonical name, family, board side, title "
                "and summary")
    p.set_defaults(run=run_variants)
    s = sub.add_parser("show", help="show a ruleset's parameters, resolved")
    s.add_argument("ruleset", help="built-in name, canonical name or variant file")
    add_json(s, "the resolved parameters as JSON")
    s.set_defaults(run=run_show)


def run_variants(args: argparse.Namespace) -> int:
    names = builtin_names(None)
    rulesets = [load_ruleset(name) for name in names]
    if args.json:
        print(json.dumps([{"name": rs.name, "canonical": rs.canonical, "family": rs.game,
                           "side": family_of(rs).side(rs), "title": rs.title, "summary": rs.summary}
                          for rs in rulesets], indent=1, ensure_ascii=False))
        return 0
    width = max(len(n) for n in names)
    for name, rs in zip(names, rulesets, strict=True):
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
    heads = ("parameter", "value", "default", "allowed", "description")
    table = Table(*(Column(h, overflow="fold") for h in heads))  # folded, never cut: values whole
    for p in PARAMETERS:
        if rs.game not in p.games:
            continue
        value = rs.value(p.name)
        allowed = ", ".join(format_value(v) for v in p.allowed) if p.allowed else "see description"
        allowed += " (any of them, as a list)" if p.type is tuple and p.allowed else ""
        table.add_row(p.name, _shown(value), _shown(p.default), allowed, p.description)
    console.print(table)
    heads = ("award", "field", "value", "default", "description")
    scoring = Table(*(Column(h, overflow="fold") for h in heads), title="scoring")
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
