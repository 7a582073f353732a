"""The players' rulebooks and rules cards: per ruleset, in English and in its source's language.

Three layers are kept apart. The player text (`paragraphs`) comes from spec/i18n/LANG.toml and
spec/rulebook.toml only: the sources' rules, and the project's readings, each marked as ours and
linked to its ambiguity-register point; then the competition rules in a part of their own. The
implementers' layer (`implementer_lines`: each paragraph's rule ids and conformance cases) is
generated apart, onto the ruleset's page under rules/, and never enters a player page. Boards,
the stepped cycle example and the complete game are drawn and narrated from the engine.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from html import escape
from typing import Any, Protocol

from ..family import GameState, family_of, tool
from ..geometry import patterns
from ..narration import frac
from ..notation import Record
from ..quantum.engine import Measure, Place, State, mark_name, player_of, playout, quantum_state
from ..quantum.notation import from_notation, to_notation
from ..ruleset import Ruleset
from ..spec import rules, spec_dir
from ..svg import board_svg
from ..variant import builtin_names, load_ruleset
from .examples import EXAMPLES, Example
from .site import Site, img, load_toml, rule_link, source_link, table

# The articles of the game's rules, in play order (titles in LANG.toml `articles`); then the
# complete game and the competition rules.
ARTICLES = 5
WORKED, COMPETITION_PART = ARTICLES + 1, ARTICLES + 2
# Rules for those who write software, not for players.
IMPLEMENTERS = ("check-order", "record-format", "record-variant", "variant-file", "engine-protocol",
                "solve-fast", "core-compiled")
# Which broken rule a family reports: the software rule of each family's scope.
CHECK_ORDER = {"common": "check-order", "nested-classical": "nested-check-order"}
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


def _amount(v: Fraction, lang: str) -> str:
    return frac(v) if lang != "de" else frac(v).replace(".", ",")


def values(rs: Ruleset, lang: str = "en") -> dict[str, str]:
    """The numbers player text quotes, from the ruleset's parameters and scoring components."""
    return book(rs).values(rs, lang)


def _quantum_values(rs: Ruleset, lang: str = "en") -> dict[str, str]:
    n = rs.board
    line = rs.rules.end_line or n
    out = {"n": str(n), "squares": str(n * n), "line": str(line)}
    for comp in rs.scoring:
        length = comp.length or n
        if comp.award == "first-line":
            for k in ("sole", "first", "second", "neither"):
                out[k] = _amount(comp.get(k), lang)
        elif comp.award == "per-pattern":
            out["run" if comp.pattern == "line" else "square"] = _amount(comp.get("points"), lang)
        if comp.pattern == "line" and (length == 3 or "lines" not in out):
            out["lines"] = str(len(patterns(n, "line", length)))
    return out


def _keys(rs: Ruleset) -> list[tuple[int, str]]:
    """The paragraphs of the game's articles that the ruleset's parameters select, in order."""
    end, last = rs.value("end"), rs.value("last_square")
    sel: list[tuple[int, str]] = [(1, "board"), (1, "turns"), (1, "numbers"), (2, "move"), (2, "open"),
                                  (2, "two-cycles" if rs.value("two_cycles") else "no-two-cycles"),
                                  (2, "entangled"), (3, "cycle"), (3, f"measurer-{rs.value('measurer')}"),
                                  (3, "measure-cell"), (3, "collapse"),
                                  (3, "keep" if rs.value("untouched") == "keep" else "vanish"),
                                  (3, "classical"), (3, "after"),
                                  (4, "end-line" if end == "first-line" else "end-goes-on"),
                                  (4, f"end-full={end}:{last}"),
                                  (4, "last-forced" if last == "forced" else "last-end"), (4, "over"),
                                  (5, "count")]
    return sel


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
        win, lose = (_amount(f, lang) for f in m.forfeit)
        text = comp[key].format(limit=limit, win=win, lose=lose)
        out.append(Paragraph(COMPETITION_PART, key, text, mine["ours_competition"].get(key, "")))
    return out


def _numbered(paras: list[Paragraph]) -> list[tuple[str, Paragraph]]:
    counts: dict[int, int] = {}
    out = []
    for p in paras:
        counts[p.article] = counts.get(p.article, 0) + 1
        out.append((f"{p.article}.{counts[p.article]}", p))
    return out


# -- the engine's games in the reader's words ------------------------------------------------------

def _join(items: list[str], w: dict[str, Any]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {w['narrate']['and']} " + items[-1]


def narrate(before: State, action: Place | Measure, after: State, w: dict[str, Any]) -> str:
    """What an action does, in the language of `w`, with every mark a collapse makes classical."""
    t = w["narrate"]
    who = t[player_of(before.move)] if isinstance(action, Place) else t[before.to_move or "x"]
    if isinstance(action, Place):
        m = mark_name(before.move)
        if action.a == action.b:
            text = t["forced"].format(P=who, m=m, a=action.a + 1)
        else:
            text = t["place"].format(P=who, m=m, a=action.a + 1, b=action.b + 1)
        if after.phase == "measure":
            text += " " + t["cycle"].format(cycle=_join([str(c + 1) for c in after.cycle or ()], w),
                                            q=t["mid"][after.to_move or "x"])
    else:
        k = before.pending
        assert k is not None
        text = t["measure"].format(P=who, m=mark_name(k), c=action.cell + 1)
        text += _consequences(before, after, k, w)
    if after.over:
        s = after.scores
        text += " " + t["over"].format(x=frac(s["x"]), o=frac(s["o"]))
    return str(text)


def _consequences(before: State, after: State, k: int, w: dict[str, Any]) -> str:
    """The marks a measurement forced, and the spooky marks it swept away."""
    t = w["narrate"]
    forced = [t["item"].format(m=mark_name(after.classical[c]), c=c + 1) for c in range(len(after.classical))
              if after.classical[c] and not before.classical[c] and after.classical[c] != k]
    text = " " + t["forces"].format(list=_join(forced, w)) if forced else ""
    gone = [str(c + 1) for c in range(len(after.classical))
            if not after.classical[c] and before.spooky[c] and not after.spooky[c]]
    if gone:
        text += " " + t["vanish"].format(list=_join(gone, w))
    return text


def winner_text(state: GameState, w: dict[str, Any]) -> str:
    """Who won a finished game (more points), in the language of `w`."""
    s = state.scores
    who = "x" if s["x"] > s["o"] else "o" if s["o"] > s["x"] else "draw"
    return str(w["narrate"]["win"][who])


def quantum_states(record: Record) -> list[State]:
    """The states of a quantum game's record, from the start."""
    return [quantum_state(s) for s in record.states()]


def _cycle_record(rs: Ruleset) -> Record:
    return from_notation(f"[{rs.name}] " + plan()["cycle"][str(rs.board)])


def _worked(name: str) -> Example:
    """The ruleset's complete worked game: its first example that is played to the end."""
    for ex in EXAMPLES.get(name, ()):
        if from_notation(ex.notation).replay().over:
            return ex
    raise LookupError(f"spec/examples.toml has no complete game of {name}")


def end_position(rs: Ruleset) -> State:
    """A position showing the ruleset's last-square rule, from the first seeded random game that
    reaches one: a single open square to be filled (forced), or a game over with one left (end)."""
    for seed in range(1000):
        actions, _ = playout(rs, random.Random(seed))
        states = quantum_states(Record(rs.name, tuple(actions)))
        for st in states:
            one_left = sum(1 for c in st.classical if not c) == 1
            if rs.value("last_square") == "forced" and one_left and not st.over and st.phase == "place":
                return st
            if rs.value("last_square") == "end" and one_left and st.over:
                return st
    raise LookupError(f"no random game of {rs.name} in 1000 reaches its last-square rule")


def _alt(w: dict[str, Any], key: str, **kw: Any) -> str:
    """A picture's alternative text: the board, and what it shows."""
    return str(w["alt_board"].format(what=w[key].format(**kw)))


def choice_text(pending: State, w: dict[str, Any]) -> str:
    """Who must measure a pending cycle, and the two squares they choose between."""
    k = pending.pending or 0
    a, b = pending.edges[k]
    who = pending.to_move or "x"
    return str(w["example_choice"].format(Q=w["narrate"][who], q=w["narrate"]["mid"][who], m=mark_name(k),
                                          a=a + 1, b=b + 1))


def _small(state: State) -> str:
    return board_svg(state, size=48.0 * state.ruleset.board)


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


def quick_start(rs: Ruleset, w: dict[str, Any]) -> list[str]:
    """The one-screen quick start: five bullets, then where to learn more."""
    return [*(f"- {line}" for line in book(rs).quick(rs, w)), "", w["quick"]["learn"], ""]


def _quantum_quick(rs: Ruleset, w: dict[str, Any]) -> list[str]:
    vals = values(rs)
    card = card_rows(rs, w)
    q = w["quick"]
    return [q["players"].format(**vals), q["move"], q["cycle"], card[3][1], card[4][1]]


def card_rows(rs: Ruleset, w: dict[str, Any]) -> list[tuple[str, str]]:
    """The summary card: five rows from a turn to the scoring."""
    return book(rs).card_rows(rs, w)


def _quantum_card_rows(rs: Ruleset, w: dict[str, Any]) -> list[tuple[str, str]]:
    c, vals = w["card"], values(rs)
    measure = c[f"measure-{rs.value('measurer')}"]
    if rs.value("untouched") == "vanish":
        measure += " " + c["vanish"]
    end = c[f"end={rs.value('end')}:{rs.value('last_square')}"].format(**vals)
    texts = [c["turn"], c["cycle"], measure, end, c[rs.name]]
    return list(zip(w["card_rows"], texts, strict=True))


def rulebook_page(site: Site, name: str, lang: str = "en") -> list[str]:
    """The players' rulebook of one built-in ruleset in one language."""
    rs, w = load_ruleset(name), words(lang)
    b = book(rs)
    page = page_path(name, lang)
    paras = _numbered(paragraphs(name, lang))
    out = [f"# {title(rs, w)}", "", w["lead"][name], ""]
    # raw links: the other language's build is another site, which MkDocs does not check
    base = page_path(name, "en")
    others = [f'<a href="{language_url(base, lang, code)}" hreflang="{code}">{v["language"]}</a>'
              for code, v in languages().items() if code != lang and name in v["rulesets"]]
    if others:
        out += [w["other_languages"].format(links=", ".join(others)), ""]
    out += [w["card_link"].format(name=name, card="../" + card_path(name, lang)), ""]
    out += [f"## {w['quick_start']}", "", *quick_start(rs, w), *b.hero(site, rs, w, page)]
    rows = [[f"**{a}**", b] for a, b in card_rows(rs, w)]
    out += [f"## {w['summary_card']}", "", *table(w["card_head"], rows)]
    sources = ", ".join(source_link(s, page) for s in rs.sources)
    out += [w["reading_intro"].format(sources=sources), ""]
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
    out += [f"## {w['notation']}", ""]
    out += [x for text in b.notation(rs, w) for x in (text, "")]
    out += ["---", "", w["implementers"].format(page=f"../rules/{name}.md#rulebook-paragraphs"), ""]
    return out


def glossary_rows(name: str, lang: str) -> list[list[str]]:
    """The glossary terms that apply to the ruleset, with their definitions in `lang`."""
    term, meaning = ("term", "meaning") if lang == "en" else (lang, f"meaning_{lang}")
    rs = load_ruleset(name)
    vals = values(rs)
    return [[f"**{t[term]}**", t[meaning].format(**vals)] for t in glossary()
            if t["game"] == rs.game and name in t.get("rulesets", [name]) and t.get(term)]


def _article_pictures(site: Site, rs: Ruleset, k: int, w: dict[str, Any], page: str) -> list[str]:
    """Each article's pictures: the numbered board, marks placed, the stepped cycle and its two
    outcomes, the scored lines of a finished game."""
    name = rs.name
    cyc = _cycle_record(rs)
    states = quantum_states(cyc)
    if k == 1:
        path = site.board(f"rulebook-{name}-empty", board_svg(states[0], size=48.0 * rs.board))
        return [img(path, page, _alt(w, "caption_start", squares=rs.board ** 2)), ""]
    if k == 2:
        path = site.board(f"rulebook-{name}-placed", _small(states[3]))
        return [img(path, page, w["alt_board"].format(what=w["caption_step"].format(k=3))), ""]
    if k == 3:
        out = [w["example_intro"].format(record=to_notation(cyc)), ""]
        for i, action in enumerate(cyc.actions):
            assert isinstance(action, Place)
            path = site.board(f"rulebook-{name}-step-{i + 1}", _small(states[i + 1]))
            out += [f"{i + 1}. {narrate(states[i], action, states[i + 1], w)}", "",
                    "    " + img(path, page, _alt(w, "caption_step", k=i + 1)), ""]
        pending = states[-1]
        m = mark_name(pending.pending or 0)
        q = w["narrate"]["mid"][pending.to_move or "x"]
        a, b = pending.edges[pending.pending or 0]
        out += [choice_text(pending, w), ""]
        for c in (a, b):
            after = pending.apply(Measure(c))
            path = site.board(f"rulebook-{name}-outcome-{c + 1}", _small(after))
            what = narrate(pending, Measure(c), after, w)
            out += [w["example_outcome"].format(q=q, c=c + 1, what=what), "",
                    img(path, page, _alt(w, "caption_outcome", m=m, c=c + 1)), ""]
        return [*out, w["example_after"], ""]
    if k == 4:
        state = end_position(rs)
        a = next(c for c in range(rs.board ** 2) if not state.classical[c])
        key = "end_forced" if rs.value("last_square") == "forced" else "end_one_left"
        path = site.board(f"rulebook-{name}-end", _small(state))
        who = state.to_move or "x"
        sentence = w[key].format(P=w["narrate"][who], q=w["narrate"]["mid"][who], a=a + 1)
        return [sentence, "", img(path, page, sentence), ""]
    if k == 5:
        final = quantum_states(from_notation(_worked(name).notation))[-1]
        s = final.scores
        path = site.board(f"rulebook-{name}-scored", board_svg(final, size=56.0 * rs.board))
        return [img(path, page, w["alt_board"].format(
            what=w["caption_final"].format(x=frac(s["x"]), o=frac(s["o"])))), ""]
    return []


def _worked_game(site: Site, rs: Ruleset, w: dict[str, Any], page: str, lang: str) -> list[str]:
    """A complete game from spec/examples.toml, every action narrated with the board after it."""
    name = rs.name
    ex = _worked(name)
    record = from_notation(ex.notation)
    states = quantum_states(record)
    shows = ex.shows if lang == "en" else w["games"][name]
    out = [shows, "",
           w["game_record"].format(record=to_notation(record)), ""]
    tokens = to_notation(record).split()[1:]
    for i, action in enumerate(record.actions):
        assert isinstance(action, (Place, Measure))
        path = site.board(f"rulebook-{name}-game-{i + 1}", _small(states[i + 1]))
        out += [f"{i + 1}. `{tokens[i]}` {narrate(states[i], action, states[i + 1], w)}", "",
                "    " + img(path, page, w["alt_board"].format(what=w["caption_step"].format(k=i + 1))), ""]
    return [*out, f"**{winner_text(states[-1], w)}**", ""]


# -- the implementers' layer ----------------------------------------------------------------------

def cases_by_rule(name: str) -> dict[str, list[str]]:
    """Conformance case ids of spec/vectors/NAME.json by the rule ids they cite."""
    path = spec_dir() / "vectors" / family_of(load_ruleset(name)).vectors / f"{name}.json"
    out: dict[str, list[str]] = {}
    if path.is_file():
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]:
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
    for number, p in _numbered(paragraphs(name)):
        rids = [r for r in paragraph_rules(p) if r in rules()]
        pinned = sorted({c for r in rids for c in cases.get(r, [])})
        more = f" and {len(pinned) - 4} more" if len(pinned) > 4 else ""
        shown = ", ".join(f"`{c}`" for c in pinned[:4]) + more
        ours = f"our reading ([{p.point}](../ambiguities.md#{p.point}))" if p.point else "the sources"
        rows.append([number, ", ".join(rule_link(r, page) for r in rids), ours, shown or "none"])
    return ["## Rulebook paragraphs {#rulebook-paragraphs}", "",
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
.foot { font-size: 8.5pt; color: #616161; margin-top: 3mm; }
"""


def card_html(name: str, lang: str) -> str:
    """A one-page A4 rules card: the lead, the quick start, the summary card and the stepped
    cycle with its two outcomes drawn by the engine."""
    rs, w = load_ruleset(name), words(lang)
    heading, sentence, figures = book(rs).card_figures(rs, w)
    boards = "".join(f"<figure>{svg}<figcaption>{escape(cap)}</figcaption></figure>" for svg, cap in figures)
    quick = "".join(f"<li>{escape(line[2:])}</li>" for line in quick_start(rs, w)[:5])
    rows = "".join(f"<tr><th>{escape(a_)}</th><td>{escape(b_)}</td></tr>" for a_, b_ in card_rows(rs, w))
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


def _quantum_card_figures(rs: Ruleset, w: dict[str, Any]) -> tuple[str, str, list[tuple[str, str]]]:
    """The card's example: the stepped cycle and its two outcomes."""
    pending = quantum_states(_cycle_record(rs))[-1]
    k = pending.pending or 0
    m = mark_name(k)
    figures = [(pending, w["caption_cycle"].format(m=m))]
    figures += [(pending.apply(Measure(c)), w["caption_outcome"].format(m=m, c=c + 1))
                for c in pending.edges[k]]
    return (w["caption_cycle"].format(m=m), choice_text(pending, w),
            [(board_svg(st, size=60.0 * rs.board), cap) for st, cap in figures])


def _quantum_hero(site: Site, rs: Ruleset, w: dict[str, Any], page: str) -> list[str]:
    cyc = _cycle_record(rs)
    what = w["caption_cycle"].format(m=mark_name(len(cyc.actions)))
    path = site.board(f"rulebook-{rs.name}-cycle", board_svg(quantum_states(cyc)[-1]))
    return [img(path, page, w["alt_board"].format(what=what)), ""]


def _quantum_notation(rs: Ruleset, w: dict[str, Any]) -> list[str]:
    notation = [*w["notation_text"]] + ([w["notation_forced"]] if rs.value("last_square") == "forced" else [])
    return [text.format(name=rs.name, squares=rs.board ** 2) for text in notation]


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


class QuantumBook:
    """The quantum family's rulebook parts."""

    def articles(self, w: dict[str, Any]) -> list[str]:
        """The titles of articles 1 to 5."""
        return list(w["articles"])

    keys = staticmethod(_keys)
    values = staticmethod(_quantum_values)
    quick = staticmethod(_quantum_quick)
    card_rows = staticmethod(_quantum_card_rows)
    hero = staticmethod(_quantum_hero)
    pictures = staticmethod(_article_pictures)
    worked = staticmethod(_worked_game)
    card_figures = staticmethod(_quantum_card_figures)
    notation = staticmethod(_quantum_notation)


QUANTUM_BOOK = QuantumBook()


def book(rs: Ruleset) -> Book:
    """The rulebook parts of a ruleset's family."""
    found: Book = tool(rs, "rulebook")
    return found


GENERATED_HTML = "<!-- Generated by `python -m qttt.docgen` from spec/ and the engine: do not edit. -->"
