"""The players' rulebooks and rules cards: per ruleset, in English and in its source's language.

Three layers are kept apart. The player text (`paragraphs`) comes from spec/i18n/LANG.toml and
spec/rulebook.toml only: the sources' rules, and the project's readings, each marked as ours and
linked to its ambiguity-register point; then the competition rules in a part of their own. The
implementers' layer (`implementer_lines`: each paragraph's rule ids and conformance cases) is
generated apart, onto the ruleset's page under rules/, and never enters a player page. Boards,
the stepped cycle example and the complete game are drawn and narrated from the engine by each
family's `rulebook` tool (a `Book`: qttt.quantum.rulebook, qttt.nested.rulebook).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, Protocol

from ..family import GameState, family_of, tool
from ..jsonstream import loads
from ..narration import frac
from ..ruleset import Ruleset
from ..spec import rules, spec_dir
from ..variant import builtin_names, load_ruleset
from .site import Site, img, load_toml, rule_link, source_link, table

# The articles of the game's rules, in play order (titles in LANG.toml `articles`); then the
# complete game and the competition rules.
ARTICLES = 5
WORKED, COMPETITION_PART = ARTICLES + 1, ARTICLES + 2
# Rules for those who write software, not for players.
IMPLEMENTERS = ("check-order", "record-format", "record-variant", "variant-file", "engine-protocol",
                "solve-fast", "core-compiled", "framework-action")
# Which broken rule a family reports: the software rule of each family's scope (the rule of
# spec/rules.toml whose id ends in check-order, by its scope).
CHECK_ORDER = {r.scope: r.id for r in rules().values() if r.id.endswith("check-order")}
# Rules of refereed play and tournaments.
COMPETITION = ("match-forfeit", "match-clock", "codecup-dialogue", "tour-protocol")
# The rules each player paragraph states: the implementers' map, never shown to players.
PARAGRAPH_RULES: dict[str, tuple[str, ...]] = {
    "board": ("board-cells",), "turns": ("turn-order",), "numbers": ("turn-order", "mark"),
    "move": ("mark", "place-distinct"),
    "open": ("place-open",), "two-cycles": ("place-two-cycle",), "no-two-cycles": ("place-two-cycle",),
    "entangled": ("entanglement",), "cycle": ("cycle-close",),
    "measurer-opponent": ("measure-pending", "measure-by"),
    "measurer-creator": ("measure-pending", "measure-by"),
    "measure-cell": ("measure-cell",), "collapse": ("collapse-component",),
    "keep": ("collapse-untouched",), "vanish": ("collapse-untouched",), "classical": ("classical-fixed",),
    "after": ("turn-after-measure",), "end-line": ("end-line",), "end-goes-on": ("end-line",),
    "last-forced": ("last-square", "place-distinct"), "last-end": ("last-square",),
    "over": ("over-no-action",), "count": ("score-at-end",),
    "sole-line": ("pattern-line", "score-first-line"), "both-max": ("score-first-line",),
    "both-zero": ("score-first-line",), "double": ("score-first-line",), "none-zero": ("score-first-line",),
    "per-line": ("pattern-line", "score-per-pattern"), "per-line-which": ("pattern-line",),
    "rank": ("pattern-line", "score-rank"),
    "bonus-runs": ("pattern-line", "score-per-pattern"), "bonus-runs-which": ("pattern-line",),
    "bonus-squares": ("pattern-square", "score-per-pattern"), "bonus-four": ("score-first-line",),
    "bonus-both": ("score-first-line",), "bonus-equal": ("score-first-line", "score-tie-gap"),
    "bonus-double": ("score-first-line",), "bonus-draw": ("score-first-line",),
    "bonus-total": ("score-at-end",), "winner": ("score-at-end",),
    "referee": ("match-clock", "match-forfeit"), "simulator": ("match-clock", "match-forfeit"),
    "nested-board": ("nested-board",), "nested-turns": ("nested-turn", "nested-bonus"),
    "nested-mark": ("nested-turn", "nested-cell-empty"), "nested-first": ("nested-first-move",),
    "nested-route": ("nested-route",), "nested-free": ("nested-free-move",),
    "nested-block-win": ("nested-patterns", "nested-block-win"), "nested-abandon": ("nested-block-closed",),
    "nested-block-full": ("nested-block-draw",), "nested-game-win": ("nested-patterns", "nested-board-win"),
    "nested-game-end": ("nested-end-closed",), "nested-over": ("over-no-action",),
    "nested-score-win": ("nested-score-win",), "nested-score-blocks": ("nested-score-draw-blocks",),
}
for _end in ("first-line", "full"):
    for _last in ("forced", "end"):
        PARAGRAPH_RULES[f"end-full={_end}:{_last}"] = ("end-full",)
TOUR_RULES = ("tour-protocol",)


def words(lang: str) -> dict[str, Any]:
    """The rulebook words of one language (spec/i18n/LANG.toml)."""
    return _words(lang)


@cache
def _words(lang: str) -> dict[str, Any]:
    return load_toml(spec_dir() / "i18n" / f"{lang}.toml")


def languages() -> dict[str, dict[str, Any]]:
    """Every rulebook language by code, English first."""
    codes = sorted(p.stem for p in (spec_dir() / "i18n").glob("*.toml"))
    return {code: words(code) for code in sorted(codes, key=lambda c: (c != "en", c))}


def editions() -> list[tuple[str, str]]:
    """(ruleset, language) of every rulebook and card: each ruleset in English and in the
    languages that list it."""
    return [(name, code) for code, w in languages().items()
            for name in builtin_names(None) if name in w["rulesets"]]


@cache
def plan() -> dict[str, Any]:
    """spec/rulebook.toml: each ruleset's scoring and competition paragraphs and its readings."""
    return load_toml(spec_dir() / "rulebook.toml")


def glossary() -> list[dict[str, Any]]:
    """spec/glossary.toml: the terms a rulebook uses, with their definitions in each language."""
    terms: list[dict[str, Any]] = load_toml(spec_dir() / "glossary.toml")["term"]
    return terms


def page_path(name: str, lang: str) -> str:
    """A rulebook's docs-relative path: rulebook/NAME.md, or rulebook/NAME.LANG.md."""
    return f"rulebook/{name}.md" if lang == "en" else f"rulebook/{name}.{lang}.md"


def language_url(page: str, lang: str, other: str) -> str:
    """The site URL of a page's version in another language, relative to the page's own URL: the
    site builds each language under its code (mkdocs-static-i18n, suffix structure; English at the
    root), pages at directory URLs."""
    def parts(code: str) -> list[str]:
        return ([] if code == "en" else [code]) + page.removesuffix(".md").split("/")
    here = parts(lang)
    return "../" * len(here) + "/".join(parts(other)) + "/"


def card_path(name: str, lang: str) -> str:
    """A rules card's docs-relative path."""
    return f"cards/{name}.{lang}.html"


@dataclass(frozen=True)
class Paragraph:
    """One paragraph of player text: its article (COMPETITION_PART for the competition rules), its key,
    its words, and the ambiguity point when it is the project's reading or choice ("" when a
    source states it)."""

    article: int
    key: str
    text: str
    point: str = ""


def amount(v: Fraction, lang: str) -> str:
    return frac(v) if lang != "de" else frac(v).replace(".", ",")


def values(rs: Ruleset, lang: str = "en") -> dict[str, str]:
    """The numbers player text quotes, from the ruleset's parameters and scoring components."""
    return book(rs).values(rs, lang)


def paragraphs(name: str, lang: str = "en") -> list[Paragraph]:
    """The player text of a ruleset's rulebook, in order: the game's articles, then the
    competition rules (article COMPETITION_PART)."""
    rs, w, mine = load_ruleset(name), words(lang), plan()["ruleset"][name]
    vals = values(rs, lang)
    out = []
    keys = book(rs).keys(rs) + [(5, k) for k in mine["scoring"]]
    for article, key in keys:
        text = (w["player"] if article < 5 or key == "count" else w["scoring"])[key]
        out.append(Paragraph(article, key, text.format(**vals), mine["ours"].get(key, "")))
    m, comp = rs.match, w["competition_text"]
    limit = comp["limit"].format(s=m.move_seconds) if m.move_seconds else comp["no_limit"]
    for key in mine["competition"]:
        win, lose = (amount(f, lang) for f in m.forfeit)
        text = comp[key].format(limit=limit, win=win, lose=lose)
        out.append(Paragraph(COMPETITION_PART, key, text, mine["ours_competition"].get(key, "")))
    return out


def numbered(paras: list[Paragraph]) -> list[tuple[str, Paragraph]]:
    counts: dict[int, int] = {}
    out = []
    for p in paras:
        counts[p.article] = counts.get(p.article, 0) + 1
        out.append((f"{p.article}.{counts[p.article]}", p))
    return out


# -- the engine's games in the reader's words ------------------------------------------------------

def winner_text(state: GameState, w: dict[str, Any]) -> str:
    """Who won a finished game (more points), in the language of `w`."""
    s = state.scores
    who = "x" if s["x"] > s["o"] else "o" if s["o"] > s["x"] else "draw"
    return str(w["narrate"]["win"][who])


# -- the rulebook page -------------------------------------------------------------------------------

def _paragraph_lines(number: str, p: Paragraph, w: dict[str, Any], page: str,
                     choice: bool = False) -> list[str]:
    if not p.point:
        return [f"**{number}** {p.text}", ""]
    label, why = (w["our_choice"], w["why_choice"]) if choice else (w["our_reading"], w["why"])
    target = "../" * page.count("/") + f"ambiguities.md#{p.point}"
    return [f'!!! note "{label}"', "", f"    **{number}** {p.text} ([{why}]({target}))", ""]


def title(rs: Ruleset, w: dict[str, Any]) -> str:
    """A rulebook's title: the ruleset's title, in the language of `w`."""
    return str(w["title"].format(title=w.get("titles", {}).get(rs.name, rs.title)))


def summary_readings(rs: Ruleset) -> tuple[list[list[str]], list[list[str]]]:
    """The project's readings each line of the quick start and each row of the summary card sums
    up: the ambiguity points of the paragraphs it summarises (spec/rulebook.toml `ours`)."""
    ours = plan()["ruleset"][rs.name]["ours"]
    quick, card = book(rs).summary_keys(rs)

    def points(keys: tuple[str, ...]) -> list[str]:
        return list(dict.fromkeys(ours[k] for k in keys if k in ours))
    return [points(k) for k in quick], [points(k) for k in card]


def reading_mark(points: list[str], w: dict[str, Any], page: str) -> str:
    """The mark a summary line gets when it states the project's readings: the label, and a link to
    each reading's register point."""
    if not points:
        return ""
    base = "../" * page.count("/") + "ambiguities.md"
    return f" (*{w['our_reading']}*: " + ", ".join(f"[{p}]({base}#{p})" for p in points) + ")"


def quick_start(rs: Ruleset, w: dict[str, Any], page: str = "") -> list[str]:
    """The one-screen quick start: five bullets, each marked where it states our reading, then where
    to learn more."""
    marks = summary_readings(rs)[0]
    lines = book(rs).quick(rs, w)
    return [*(f"- {line}{reading_mark(p, w, page)}" for line, p in zip(lines, marks, strict=True)), "",
            w["quick"]["learn"], ""]


def card_rows(rs: Ruleset, w: dict[str, Any]) -> list[tuple[str, str]]:
    """The summary card: five rows from a turn to the scoring."""
    return book(rs).card_rows(rs, w)


def rulebook_page(site: Site, name: str, lang: str = "en") -> list[str]:
    """The players' rulebook of one built-in ruleset in one language."""
    rs, w = load_ruleset(name), words(lang)
    b = book(rs)
    page = page_path(name, lang)
    paras = numbered(paragraphs(name, lang))
    out = [f"# {title(rs, w)}", "", w["lead"][name], ""]
    other = plan()["ruleset"][name].get("see_also")
    if other:  # a variant the ruleset's own source offers
        out += [w["see_also"][name].format(link=f"{other}.md"), ""]
    # raw links: the other language's build is another site, which MkDocs does not check
    base = page_path(name, "en")
    others = [f'<a href="{language_url(base, lang, code)}" hreflang="{code}">{v["language"]}</a>'
              for code, v in languages().items() if code != lang and name in v["rulesets"]]
    if others:
        out += [w["other_languages"].format(links=", ".join(others)), ""]
    out += [w["card_link"].format(name=name, card="../" + card_path(name, lang)), ""]
    # what the Our reading mark means, before the quick start first uses it
    sources = ", ".join(source_link(s, page) for s in rs.sources)
    out += [w["reading_intro"].format(sources=sources), ""]
    legend = site.board(f"legend-{rs.game}-{lang}", b.legend(w))
    key = img(legend, page, b.legend_title(w), b.legend_title(w))
    out += [f"## {w['quick_start']}", "", *quick_start(rs, w, page),
            '<div class="qttt-figures" markdown>', "", *b.hero(site, rs, w, page), key, "", "</div>", ""]
    card_marks = summary_readings(rs)[1]
    rows = [[f"**{a}**", b + reading_mark(p, w, page)]
            for (a, b), p in zip(card_rows(rs, w), card_marks, strict=True)]
    out += [f"## {w['summary_card']}", "", *table(w["card_head"], rows)]
    for k in range(1, ARTICLES + 1):
        out += [f"## {w['article'].format(k=k)}: {b.articles(w)[k - 1]}", ""]
        out += [x for number, p in paras if p.article == k for x in _paragraph_lines(number, p, w, page)]
        out += b.pictures(site, rs, k, w, page)
    out += [f"## {w['article'].format(k=WORKED)}: {w['worked_game']}", "", *b.worked(site, rs, w, page, lang)]
    out += [f"## {w['article'].format(k=COMPETITION_PART)}: {w['competition']}", "",
            w["competition_intro"], ""]
    out += [x for number, p in paras if p.article == COMPETITION_PART
            for x in _paragraph_lines(number, p, w, page, choice=True)]
    out += [f"## {w['glossary']}", "", *table(w["glossary_head"], glossary_rows(name, lang))]
    out += ["---", "", w["implementers"].format(page=f"../rules/{name}.md"), ""]
    return out


def glossary_rows(name: str, lang: str) -> list[list[str]]:
    """The glossary terms that apply to the ruleset, with their definitions in `lang`."""
    term, meaning = ("term", "meaning") if lang == "en" else (lang, f"meaning_{lang}")
    rs = load_ruleset(name)
    vals = values(rs, lang)
    return [[f"**{t[term]}**", t[meaning].format(**vals)] for t in glossary()
            if t["game"] == rs.game and name in t.get("rulesets", [name]) and t.get(term)]


# -- the implementers' layer ----------------------------------------------------------------------

def cases_by_rule(name: str) -> dict[str, list[str]]:
    """Conformance case ids of spec/vectors/NAME.json by the rule ids they cite."""
    path = spec_dir() / "vectors" / family_of(load_ruleset(name)).vectors / f"{name}.json"
    out: dict[str, list[str]] = {}
    if path.is_file():
        for case in loads(path.read_text(encoding="utf-8"))["cases"]:
            for rid in case.get("spec_ref", []):
                out.setdefault(rid, []).append(case["id"])
    return out


def paragraph_rules(p: Paragraph) -> tuple[str, ...]:
    """The rule ids a player paragraph states."""
    return TOUR_RULES if p.key.startswith("tour-") else PARAGRAPH_RULES[p.key]


def implementers(name: str) -> list[str]:
    """The rules that bind software only, of those that apply to a ruleset."""
    order = CHECK_ORDER[family_of(load_ruleset(name)).scope]
    return [order, *(r for r in IMPLEMENTERS if r in rules() and r not in CHECK_ORDER.values())]


def implementer_lines(name: str, page: str) -> list[str]:
    """The rulebook's paragraphs by number with the rules each states and the conformance cases
    that pin them: the implementers' layer, on the ruleset's page."""
    cases = cases_by_rule(name)
    family = family_of(load_ruleset(name))
    vectors = "/".join(x for x in ("spec/vectors", family.vectors, f"{name}.json") if x)
    rows = []
    for number, p in numbered(paragraphs(name)):
        rids = [r for r in paragraph_rules(p) if r in rules()]
        pinned = sorted({c for r in rids for c in cases.get(r, [])})
        more = f" and {len(pinned) - 4} more" if len(pinned) > 4 else ""
        shown = ", ".join(f"`{c}`" for c in pinned[:4]) + more
        ours = f"our reading ([{p.point}](../ambiguities.md#{p.point}))" if p.point else "the sources"
        rows.append([number, ", ".join(rule_link(r, page) for r in rids), ours, shown or "none"])
    rs = load_ruleset(name)
    notation = [x for text in book(rs).notation(rs, words("en")) for x in (text, "")]
    return ["## Records {#records}", "",
            f"How games of `{name}` are recorded, and the records of the games its "
            f"[players' rulebook](../rulebook/{name}.md) plays through (the players' pages narrate "
            "them in words).", "", *notation,
            "## Rulebook paragraphs {#rulebook-paragraphs}", "",
            f"The [players' rulebook](../rulebook/{name}.md) states these rules in words, without ids; "
            "each numbered paragraph, the rules it states, whose statement it is and the conformance "
            f"cases of `{vectors}` that pin those rules. Rules that bind software only: "
            + ", ".join(rule_link(r, page) for r in implementers(name)) + ".", "",
            *table(["paragraph", "rules", "stated by", "conformance cases"], rows)]


# -- the printable card ---------------------------------------------------------------------------

CARD_CSS = """
@page { size: A4; margin: 12mm; }
* { box-sizing: border-box; }
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; font-size: 10pt; line-height: 1.3;
       color: #212121; margin: 0 auto; max-width: 186mm; }
h1 { font-size: 16pt; margin: 0 0 2mm; }
h2 { font-size: 12pt; margin: 4mm 0 1.5mm; }
p, ul { margin: 0 0 2mm; }
ul { padding-left: 5mm; }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid #9e9e9e; padding: 1.2mm 2mm; vertical-align: top; text-align: left; }
th { width: 28mm; background: #f5f5f5; }
.boards { display: flex; gap: 4mm; align-items: flex-start; justify-content: space-between; margin: 2mm 0; }
.boards figure { margin: 0; text-align: center; font-size: 9pt; }
.boards svg { width: 46mm; height: auto; display: block; }
.ours { color: #6a1b9a; font-style: italic; white-space: nowrap; }
.foot { font-size: 8.5pt; color: #616161; margin-top: 3mm; }
"""


def card_html(name: str, lang: str) -> str:
    """A one-page A4 rules card: the lead, the quick start, the summary card and the stepped
    cycle with its two outcomes drawn by the engine."""
    rs, w = load_ruleset(name), words(lang)
    heading, sentence, figures = book(rs).card_figures(rs, w)
    boards = "".join(f"<figure>{svg}<figcaption>{escape(cap)}</figcaption></figure>" for svg, cap in figures)
    quick_marks, card_marks = summary_readings(rs)
    ours = f' <em class="ours">({escape(w["our_reading"])})</em>'
    quick = "".join(f"<li>{escape(line)}{ours if p else ''}</li>"
                    for line, p in zip(book(rs).quick(rs, w), quick_marks, strict=True))
    rows = "".join(f"<tr><th>{escape(a_)}</th><td>{escape(b_)}{ours if p else ''}</td></tr>"
                   for (a_, b_), p in zip(card_rows(rs, w), card_marks, strict=True))
    title_ = escape(title(rs, w))
    return "\n".join([
        "<!DOCTYPE html>", GENERATED_HTML, f'<html lang="{w["lang"]}">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{title_}</title>", f"<style>{CARD_CSS}</style>", "</head>", "<body>",
        f"<h1>{title_}</h1>", f"<p>{escape(w['lead'][name])}</p>",
        f"<h2>{escape(w['quick_start'])}</h2>", f"<ul>{quick}</ul>",
        f"<h2>{escape(w['summary_card'])}</h2>", f"<table>{rows}</table>",
        f"<h2>{escape(heading)}</h2>",
        f"<p>{escape(sentence)}</p>",
        f'<div class="boards">{boards}</div>',
        f'<p class="foot">{escape(w["card_foot"])}</p>',
        "</body>", "</html>", ""])


class Book(Protocol):
    """A family's part of the rulebooks (its `rulebook` tool): the paragraphs its rulesets
    state, the numbers they quote, and the boards and narration of each part."""

    def articles(self, w: dict[str, Any]) -> list[str]: ...
    def keys(self, rs: Ruleset) -> list[tuple[int, str]]: ...
    def values(self, rs: Ruleset, lang: str = "en") -> dict[str, str]: ...
    def quick(self, rs: Ruleset, w: dict[str, Any]) -> list[str]: ...
    def card_rows(self, rs: Ruleset, w: dict[str, Any]) -> list[tuple[str, str]]: ...
    def hero(self, site: Site, rs: Ruleset, w: dict[str, Any], page: str) -> list[str]: ...
    def pictures(self, site: Site, rs: Ruleset, k: int, w: dict[str, Any], page: str) -> list[str]: ...
    def worked(self, site: Site, rs: Ruleset, w: dict[str, Any], page: str, lang: str) -> list[str]: ...
    def card_figures(self, rs: Ruleset, w: dict[str, Any]) -> tuple[str, str, list[tuple[str, str]]]: ...
    def notation(self, rs: Ruleset, w: dict[str, Any]) -> list[str]: ...
    def legend(self, w: dict[str, Any]) -> str: ...
    def summary_keys(self, rs: Ruleset) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]: ...
    def legend_title(self, w: dict[str, Any]) -> str: ...


def book(rs: Ruleset) -> Book:
    """The rulebook parts of a ruleset's family."""
    found: Book = tool(rs, "rulebook")
    return found


GENERATED_HTML = "<!-- Generated by `python -m qttt.docgen` from spec/ and the engine: do not edit. -->"
