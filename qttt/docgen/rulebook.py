"""A rulebook per ruleset, in the manner of the FIDE Laws of Chess: numbered articles in play order,
the game's rules only, each article citing its rule id and the conformance cases that pin it; then
competition rules, a glossary and a notation appendix. Tooling rules (check order, record format,
engine protocol, compiled solver) are the implementers' (`IMPLEMENTERS`)."""

from __future__ import annotations

import json
from typing import Any

from ..quantum.game import compile_game
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


# The English page text; other languages give the same keys in spec/i18n/LANG.toml.
EN: dict[str, Any] = {
    "article": "Article", "articles": [t for t, _ in ARTICLES] + ["Competition rules"],
    "title": "Rulebook: {name}",
    "intro": ("The laws of this ruleset, complete and in the order a game is played. Each article cites "
              "the rule it states (its number and id on the [common mechanics](../rules/common.md) page) "
              "and the conformance cases of `spec/vectors/{name}.json` that pin it. Sources: {sources}."),
    "cases": "conformance cases", "more": "and {k} more",
    "forfeit": ("In a refereed game ({limit}), a player who breaks a rule, runs out of time or stops "
                "answering forfeits: the opponent scores {win}, the player {lose}."),
    "limit": "{s} s an action", "no_limit": "no time limit",
    "glossary": "Appendix A: Glossary", "glossary_head": ["term", "meaning"],
    "notation": "Appendix B: Notation",
    "notation_text": [
        "**Human notation.** A record starts with its ruleset in brackets, `[{name}]`, or with changed "
        "parameters, `[{name}(measurer=creator)]`. Squares are numbered from 1, row by row from the top "
        "left. `X1:1-9` is move 1, X placing spooky marks in squares 1 and 9; `O8@5` is the measurement "
        "of the pending cycle: move 8 collapses into square 5; `X9:5` is a forced placement filling the "
        "last open square 5.",
        "**Records and states.** The JSON record holds the ruleset and the actions with cells from 0: "
        "`{{\"variant\": \"{name}\", \"actions\": [{{\"place\": [0, 8]}}, {{\"measure\": 4}}]}}`; "
        "schemas `spec/schema/record.schema.json` and `spec/schema/state.schema.json`.",
        "**Cells.** The {n}×{n} board: square numbers (notation), cell numbers (records, from 0) and "
        "(row, column) from 0 as in the bonus 4×4 README{letters}."],
    "cell": "square {square}: cell {cell}, ({row}, {col}){letter}", "column": "column {c}",
    "implementers": "For implementers",
    "implementers_text": "These rules bind software, not players: {rules}.",
}


def languages() -> dict[str, dict[str, Any]]:
    """The translated rulebooks' strings (spec/i18n/*.toml) by language code."""
    return {path.stem: load_toml(path) for path in sorted((spec_dir() / "i18n").glob("*.toml"))}


def _v(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def statement_in(words: dict[str, Any], rs: Ruleset, rid: str) -> str:
    """A rule as it holds in `rs`, in the language of `words` (English when `words` is EN)."""
    if words is EN:
        return _statement(rs, rid)
    text: str
    readings, n = words["readings"], rs.board
    if rid == "board-cells":
        text = readings["board"].format(n=n, last=n * n - 1, squares=n * n) + " " + words["rules"][rid]
        return text
    if rid == "end-line":
        key = "end-line=full" if rs.value("end") == "full" else "end=first-line"
    elif rid == "end-full":
        key = f"end-full={rs.value('end')}:{rs.value('last_square')}"
    elif rid in SELECTED_BY:
        key = f"{SELECTED_BY[rid]}={_v(rs.value(SELECTED_BY[rid]))}"
    else:
        return str(words["rules"][rid])
    text = readings[key]
    return text


def _cite(rid: str, cases: dict[str, list[str]], page: str, words: dict[str, Any] = EN) -> str:
    found = cases.get(rid, [])
    pinned = ""
    if found:
        shown = ", ".join(f"`{c}`" for c in found[:3])
        more = " " + words["more"].format(k=len(found) - 3) if len(found) > 3 else ""
        pinned = f"; {words['cases']} {shown}{more}"
    return f"({rule_link(rid, page)}{pinned})"


def cell_map(n: int, words: dict[str, Any] = EN) -> list[str]:
    """The board's cells as squares, cells, (row, column) and, on 4×4, CodeCup letters."""
    rows = []
    for r in range(n):
        rows.append([words["cell"].format(square=r * n + c + 1, cell=r * n + c, row=r, col=c,
                                          letter=f", {LETTERS[r * n + c]}" if n == 4 else "")
                     for c in range(n)])
    return table([words["column"].format(c=c) for c in range(n)], rows)


def rulebook_page(name: str, lang: str = "en") -> list[str]:
    """The rulebook of one built-in ruleset, in English or in a language of spec/i18n/."""
    words = EN if lang == "en" else languages()[lang]
    rs = load_ruleset(name)
    page = f"rulebook/{name}.md"
    cases = cases_by_rule(name)
    game = compile_game(rs)
    titles = words["articles"]
    out = [f"# {words['title'].format(name=name)}", ""]
    if lang == "en":
        out += [f"*{rs.title}.* {rs.summary}", ""]
    sources = ", ".join(source_link(s, page) for s in rs.sources)
    out += [words["intro"].format(name=name, sources=sources), ""]
    others = [f"[{w['language']}]({name}.{code}.md)" for code, w in languages().items()
              if name in w["rulesets"]]
    if lang == "en" and others:
        out += ["In the source's language: " + ", ".join(others) + ".", ""]
    number = 0
    for (title, rids), local in zip(ARTICLES, titles, strict=False):
        number += 1
        out += [f"## {words['article']} {number}: {local}", ""]
        sub = 0
        for rid in rids:
            if rid not in rules():
                continue
            sub += 1
            out += [f"**{number}.{sub}** {statement_in(words, rs, rid)} {_cite(rid, cases, page, words)}", ""]
        if title == "Scoring":
            for k, award in enumerate(game.awards):
                sub += 1
                text = award.describe() if lang == "en" else words["awards"][name][k]
                out += [f"**{number}.{sub}** {text} {_cite(award.rule, cases, page, words)}", ""]
    number += 1
    out += [f"## {words['article']} {number}: {titles[len(ARTICLES)]}", ""]
    m = rs.match
    limit = words["limit"].format(s=m.move_seconds) if m.move_seconds else words["no_limit"]
    out += [f"**{number}.1** " + words["forfeit"].format(limit=limit, win=m.forfeit[0], lose=m.forfeit[1])
            + f" {_cite('match-forfeit', cases, page, words)}", ""]
    sub = 1
    for rid in COMPETITION_OF.get(name, ()):
        if rid in rules():
            sub += 1
            text = rules()[rid].statement if lang == "en" else words["rules"][rid]
            out += [f"**{number}.{sub}** {text} {_cite(rid, cases, page, words)}", ""]
    out += [f"## {words['glossary']}", ""]
    if lang == "en":
        out += table(words["glossary_head"], [[f"**{t['term']}**", t["meaning"]] for t in glossary()])
    else:
        out += table(words["glossary_head"], [[t["term"], t[lang]] for t in glossary() if t.get(lang)])
    out += [f"## {words['notation']}", ""]
    letters = ", and the letters A–P of the CodeCup 2012 dialogue" if rs.board == 4 else ""
    out += [x for text in words["notation_text"]
            for x in (text.format(name=name, n=rs.board, letters=letters), "")]
    out += cell_map(rs.board, words)
    links = ", ".join(rule_link(r, page) for r in IMPLEMENTERS if r in rules())
    out += [f"## {words['implementers']}", "", words["implementers_text"].format(rules=links), ""]
    return out
