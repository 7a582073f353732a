"""The page of a nested-classical ruleset (Intelligent Tic-Tac-Toe): its rules in words, its
parameters and variant file, the course's other editions, and a seeded random game the engine
plays and draws."""

from __future__ import annotations

import json
import random

from ..docgen.rulebook import implementer_lines
from ..docgen.site import Site, img, rule_link, source_link, table
from ..notation import action_to_json
from ..ruleset import Ruleset
from ..spec import spec_dir
from ..variant import load_ruleset
from ..vocabulary import PARAMETER_BY_NAME, PARAMETERS, Component, format_value
from .engine import AWARD_RULES, nested_playout
from .svg import nested_svg

WORDS = {"rows": "rows", "columns": "columns", "diagonals": "the two long diagonals",
         "diamonds": "diamonds (the four cells around the centre of each 3×3 square)"}


def statement(rs: Ruleset, name: str) -> str:
    """The reading a nested-classical ruleset's value of one parameter selects, in words."""
    p, n = rs.rules, rs.board
    if name == "board":
        return (f"The board is a {n}×{n} grid of blocks, each {n}×{n} cells: {n ** 4} cells, numbered 0 "
                f"to {n ** 4 - 1} row by row; a move marks one empty cell. X moves first.")
    if name == "route":
        if p.route == "same":
            return ("A move in the cell at position p of its block sends the opponent to block p: "
                    "the block in the same place on the board as the cell in its block.")
        routes = "; ".join(f"{i} → {' or '.join(map(str, r))}" for i, r in enumerate(p.route))
        return f"A move in the cell at position p of its block sends the opponent to these blocks: {routes}."
    if name in ("block_patterns", "board_patterns"):
        kinds = ", ".join(WORDS[k] for k in getattr(p, name))
        return (f"Own marks on {kinds} of a block win it." if name == "block_patterns"
                else f"Won blocks on {kinds} of the board win the game.")
    return PARAMETER_BY_NAME[name].reading(rs.value(name))  # full_block, bonus: as declared


def award_statement(rs: Ruleset, c: Component) -> str:
    """One scoring component of a nested-classical ruleset, in words."""
    if c.award == "win":
        return f"The winner scores {c.get('points')}, the loser 0."
    weights = c.get("weights")
    worth = ("one point per block won" if weights == "equal" else
             "the blocks won, weighted " + ", ".join(format_value(w) for w in weights) + " (row-major)")
    if c.award == "draw-blocks":
        return f"Without a winner each player scores {worth}."
    return (f"Without a winner, comparing {worth}: more gets {c.get('more')}, fewer {c.get('fewer')}, "
            f"equal {c.get('equal')} each.")


def nested_ruleset_page(site: Site, name: str, docs: bool) -> list[str]:
    """A built-in nested-classical ruleset: numbered rules, parameters, variant file, editions and a
    random game drawn by the engine."""
    rs = load_ruleset(name)
    page = f"rules/{name}.md"

    def link(rid: str) -> str:
        return rule_link(rid, page) if docs else f"[`{rid}`](common.md#{rid})"

    out = [f"# {name}: {rs.title}", "", rs.summary, "", f"- Canonical name: `{rs.canonical}`",
           "- Sources: " + ", ".join(source_link(s, page) if docs else f"`{s}`" for s in rs.sources),
           *([f"- The rules as a player reads them: [rulebook](../rulebook/{name}.md)"] if docs else []), "",
           "## Rules", "", "The rules of the nested-classical family in [the catalogue](common.md) hold "
           "(first move free, closed blocks abandoned, the free move). This ruleset selects:", ""]
    letter = name[0].upper()
    params = [p for p in PARAMETERS if rs.game in p.games and p.name != "game"]
    for i, p in enumerate(params, start=1):
        rule = "nested-board" if p.name == "board" else p.rule
        out.append(f"{i}. **{letter}{i}** {statement(rs, p.name)} ({link(rule)})")
    for j, c in enumerate(rs.scoring, start=len(params) + 1):
        out.append(f"{j}. **{letter}{j}** {award_statement(rs, c)} ({link(AWARD_RULES[c.award])})")
    m = rs.match
    out += ["", f"Matches (`[match]`): {format_value(m.move_seconds)} s a move; a forfeit scores "
            f"{format_value(m.forfeit[0])}–{format_value(m.forfeit[1])}.", ""]
    if not docs:
        return out
    rows = [[f"`{p.name}`", format_value(rs.value(p.name)), format_value(p.default), p.description]
            for p in [PARAMETERS[0], *params]]
    out += ["## Parameters", "", *table(["parameter", "value", "default", "description"], rows)]
    text = (spec_dir() / "variants" / f"{name}.toml").read_text(encoding="utf-8")
    out += ["### The variant file", "", f"`spec/variants/{name}.toml`:", "", "```toml", text.rstrip(),
            "```", "", "## The course's other editions", "",
            "Variant files in `spec/editions/`, each with its own conformance suite under "
            "`spec/vectors/nested/`:", ""]
    for edition in sorted((spec_dir() / "editions").glob("*.toml")):
        ed = load_ruleset(str(edition))
        out.append(f"- `spec/editions/{edition.name}`, {ed.title}: {ed.summary}")
    out += ["", "## A random game", "",
            "Seeded uniform random play until someone wins; the engine replays the record and draws the "
            "final board (won blocks tinted, drawn blocks grey).", ""]
    rng = random.Random(2017)
    while True:
        moves, final = nested_playout(rs, rng)
        if final.winner is not None:
            break
    record = {"variant": name, "actions": [action_to_json(a) for a in moves]}
    out += ["```json", json.dumps(record), "```", ""]
    caption = (f"{len(moves)} moves: {final.winner} wins, {format_value(final.scores['x'])}–"
               f"{format_value(final.scores['o'])}")
    board = site.board(f"{name}-random-final", nested_svg(final, caption=caption))
    out += [img(board, page, "the final board"), "", f"**{caption}.**", ""]
    return out + implementer_lines(name, page)

