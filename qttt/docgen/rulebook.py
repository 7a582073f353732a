"""A rulebook per ruleset, in the manner of the FIDE Laws of Chess: numbered articles in play order,
the game's rules only, each article citing its rule id and the conformance cases that pin it; then
competition rules, a glossary and a notation appendix. Tooling rules (check order, record format,
engine protocol, compiled solver) are the implementers' (`IMPLEMENTERS`)."""

from __future__ import annotations

import json
from typing import Any

from ..game import compile_game
from ..spec import rules, spec_dir
from ..variant import Ruleset, load_ruleset
from .prose import parameter_statement
from .site import load_toml, rule_link, source_link, table

# The articles, in play order: title, and the rules each states (a rule selected by a parameter
# is stated in the reading the ruleset selects).
ARTICLES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("The board and the players", ("board-cells", "turn-order", "mark")),
    ("Placing marks", ("place-open", "place-distinct", "place-two-cycle", "entanglement")),
    ("Cycles and measurement", ("cycle-close", "measure-pending", "measure-by", "measure-cell",
                                "collapse-component", "collapse-untouched", "classical-fixed",
                                "turn-after-measure")),
    ("The end of the game", ("last-square", "end-line", "end-full", "over-no-action")),
    ("Scoring", ("pattern-line", "pattern-square", "score-at-end")),
)
# Rules for those who write software, not for players.
IMPLEMENTERS = ("check-order", "record-format", "record-variant", "variant-file", "engine-protocol",
                "solve-fast", "core-compiled")
# Rules of refereed play and tournaments.
COMPETITION = ("match-forfeit", "match-clock", "codecup-dialogue", "tour-protocol")
# Which parameter a rule's reading depends on.
SELECTED_BY = {"place-two-cycle": "two_cycles", "measure-by": "measurer", "collapse-untouched": "untouched",
               "last-square": "last_square", "end-line": "end", "end-full": "end"}
# A ruleset's competition rules, beyond its [match] table.
COMPETITION_OF = {"bonus4x4": ("codecup-dialogue",), "russian": ("tour-protocol",),
                  "russian-unstable": ("tour-protocol",)}

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def cases_by_rule(name: str) -> dict[str, list[str]]:
    """Conformance case ids of spec/vectors/NAME.json by the rule ids they cite."""
    path = spec_dir() / "vectors" / f"{name}.json"
    out: dict[str, list[str]] = {}
    if path.is_file():
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
            for rid in case.get("spec_ref", []):
                out.setdefault(rid, []).append(case["id"])
    return out


def glossary() -> list[dict[str, Any]]:
    """spec/glossary.toml: the terms a rulebook uses."""
    terms: list[dict[str, Any]] = load_toml(spec_dir() / "glossary.toml")["term"]
    return terms


def _statement(rs: Ruleset, rid: str) -> str:
    """A rule as it holds in `rs`: a parameter's rule in the reading the ruleset selects."""
    if rid == "board-cells":
        return parameter_statement(rs, "board") + " " + rules()[rid].statement
    if rid == "end-line" and rs.value("end") == "full":
        return "A completed line does not end the game."
    if rid == "end-full":
        rest = (" (after the forced placement)." if rs.value("last_square") == "forced"
                else " or when one open cell is left.")
        lead = "If no line has ended it, the game" if rs.value("end") == "first-line" else "The game"
        return f"{lead} ends when no open cell is left{rest}"
    if rid in SELECTED_BY:
        return parameter_statement(rs, SELECTED_BY[rid])
    return rules()[rid].statement


def _cite(rid: str, cases: dict[str, list[str]], page: str) -> str:
    found = cases.get(rid, [])
    pinned = ""
    if found:
        shown = ", ".join(f"`{c}`" for c in found[:3])
        more = f" and {len(found) - 3} more" if len(found) > 3 else ""
        pinned = f"; conformance cases {shown}{more}"
    return f"({rule_link(rid, page)}{pinned})"


def cell_map(n: int) -> list[str]:
    """The board's cells as squares, cells, (row, column) and, on 4×4, CodeCup letters."""
    rows = []
    for r in range(n):
        row = []
        for c in range(n):
            k = r * n + c
            letter = f", {LETTERS[k]}" if n == 4 else ""
            row.append(f"square {k + 1}: cell {k}, ({r}, {c}){letter}")
        rows.append(row)
    return table([f"column {c}" for c in range(n)], rows)


def rulebook_page(name: str) -> list[str]:
    """The rulebook of one built-in ruleset."""
    rs = load_ruleset(name)
    page = f"rulebook/{name}.md"
    cases = cases_by_rule(name)
    game = compile_game(rs)
    out = [f"# Rulebook: {name}", "", f"*{rs.title}.* {rs.summary}", "",
           "The laws of this ruleset, complete and in the order a game is played. Each article cites "
           "the rule it states (its number and id on the [common mechanics](../rules/common.md) page) "
           "and the conformance cases of `spec/vectors/" + name + ".json` that pin it. Sources: "
           + ", ".join(source_link(s, page) for s in rs.sources) + ".", ""]
    number = 0
    for title, rids in ARTICLES:
        number += 1
        out += [f"## Article {number}: {title}", ""]
        sub = 0
        for rid in rids:
            if rid not in rules():
                continue
            sub += 1
            out += [f"**{number}.{sub}** {_statement(rs, rid)} {_cite(rid, cases, page)}", ""]
        if title == "Scoring":
            for award in game.awards:
                sub += 1
                out += [f"**{number}.{sub}** {award.describe()} {_cite(award.rule, cases, page)}", ""]
    number += 1
    out += [f"## Article {number}: Competition rules", ""]
    sub = 0
    m = rs.match
    limit = f"{m.move_seconds} s an action" if m.move_seconds else "no time limit an action"
    total = f", {m.game_seconds} s a game in all" if m.game_seconds else ""
    sub += 1
    out += [f"**{number}.{sub}** In a refereed game ({limit}{total}), a player who breaks a rule, "
            f"runs out of time or stops answering forfeits: the opponent scores {m.forfeit[0]}, the "
            f"player {m.forfeit[1]}. {_cite('match-forfeit', cases, page)}", ""]
    for rid in COMPETITION_OF.get(name, ()):
        if rid in rules():
            sub += 1
            out += [f"**{number}.{sub}** {rules()[rid].statement} {_cite(rid, cases, page)}", ""]
    out += ["## Appendix A: Glossary", ""]
    out += table(["term", "meaning"], [[f"**{t['term']}**", t["meaning"]] for t in glossary()])
    out += ["## Appendix B: Notation", "",
            "**Human notation.** A record starts with its ruleset in brackets, `[" + name + "]`, or "
            "with changed parameters, `[" + name + "(measurer=creator)]`. Squares are numbered from 1, "
            "row by row from the top left. `X1:1-9` is move 1, X placing spooky marks in squares 1 and "
            "9; `O8@5` is the measurement of the pending cycle: move 8 collapses into square 5; `X9:5` "
            "is a forced placement filling the last open square 5.", "",
            "**Records and states.** The JSON record holds the ruleset and the actions with cells "
            "from 0: `{\"variant\": \"" + name + "\", \"actions\": [{\"place\": [0, 8]}, "
            "{\"measure\": 4}]}`; schemas `spec/schema/record.schema.json` and "
            "`spec/schema/state.schema.json`.", "",
            f"**Cells.** The {rs.board}×{rs.board} board: square numbers (notation), cell numbers "
            "(records, from 0), (row, column) from 0 as in the bonus 4×4 README"
            + (", and the letters A–P of the CodeCup 2012 dialogue" if rs.board == 4 else "") + ".", ""]
    out += cell_map(rs.board)
    out += ["## For implementers", "",
            "These rules bind software, not players: "
            + ", ".join(rule_link(r, page) for r in IMPLEMENTERS if r in rules()) + ".", ""]
    return out
