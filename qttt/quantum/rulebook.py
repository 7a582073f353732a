"""The quantum family's part of the players' rulebooks (qttt.docgen.rulebook, reached through
the family's `rulebook` tool): the paragraphs its rulesets select, the numbers they quote, the
stepped cycle, the last-square position and the complete game, drawn and narrated from the engine."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from html import escape
from pathlib import Path
from typing import Any

from ..docgen.examples import EXAMPLES, Example
from ..docgen.rulebook import (
    CARD_CSS,
    GENERATED_HTML,
    amount,
    card_rows,
    plan,
    reading_mark,
    values,
    winner_text,
    words,
)
from ..docgen.site import Site, figure, img, source_link, table
from ..geometry import patterns
from ..narration import frac
from ..notation import Record
from ..ruleset import Ruleset
from ..variant import load_ruleset
from .engine import Measure, Outcome, Place, State, mark_name, player_of, playout, quantum_state
from .notation import from_notation, to_notation
from .svg import board_svg, legend_svg


def _quantum_values(rs: Ruleset, lang: str = "en") -> dict[str, str]:
    n = rs.board
    line = rs.rules.end_line or n
    w = words(lang)
    out = {"n": str(n), "squares": str(n * n), "line": str(line),
           # "long" only where shorter diagonals exist to tell it from (a 3×3 board has none)
           "diagonal": str(w["long_diagonal"] if n > 3 else w["diagonal"])}
    for comp in rs.scoring:
        length = comp.length or n
        if comp.award == "first-line":
            for k in ("sole", "first", "second", "neither"):
                out[k] = amount(comp.get(k), lang)
        elif comp.award == "per-pattern":
            out["run" if comp.pattern == "line" else "square"] = amount(comp.get("points"), lang)
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


def choice_text(pending: State, w: dict[str, Any]) -> str:
    """Who must measure a pending cycle, and the two squares they choose between."""
    k = pending.pending or 0
    a, b = pending.edges[k]
    who = pending.to_move or "x"
    return str(w["example_choice"].format(Q=w["narrate"][who], q=w["narrate"]["mid"][who], m=mark_name(k),
                                          a=a + 1, b=b + 1))


def _small(state: State) -> str:
    return board_svg(state, size=48.0 * state.ruleset.board)


def _quantum_quick(rs: Ruleset, w: dict[str, Any]) -> list[str]:
    vals = values(rs, w["lang"])
    card = card_rows(rs, w)
    q = w["quick"]
    return [q["players"].format(**vals), q["move"], q["cycle"], card[3][1], card[4][1]]


def _quantum_card_rows(rs: Ruleset, w: dict[str, Any]) -> list[tuple[str, str]]:
    c, vals = w["card"], values(rs, w["lang"])
    measure = c[f"measure-{rs.value('measurer')}"]
    if rs.value("untouched") == "vanish":
        measure += " " + c["vanish"]
    end = c[f"end={rs.value('end')}:{rs.value('last_square')}"].format(**vals)
    texts = [c["turn"], c["cycle"], measure, end, c[rs.name]]
    return list(zip(w["card_rows"], texts, strict=True))


def _article_pictures(site: Site, rs: Ruleset, k: int, w: dict[str, Any], page: str) -> list[str]:
    """Each article's pictures: the numbered board, marks placed, the stepped cycle and its two
    outcomes, the scored lines of a finished game."""
    name = rs.name
    cyc = _cycle_record(rs)
    states = quantum_states(cyc)
    if k == 1:
        path = site.board(f"rulebook-{name}-empty", board_svg(states[0], size=48.0 * rs.board))
        return [figure(path, page, w, w["caption_start"].format(squares=rs.board ** 2)), ""]
    if k == 2:
        path = site.board(f"rulebook-{name}-placed", _small(states[3]))
        return [figure(path, page, w, w["caption_step"].format(k=3)), ""]
    if k == 3:
        out = [w["example_intro"], ""]
        for i, action in enumerate(cyc.actions):
            assert isinstance(action, Place)
            path = site.board(f"rulebook-{name}-step-{i + 1}", _small(states[i + 1]))
            out += [f"{i + 1}. {narrate(states[i], action, states[i + 1], w)}", "",
                    "    " + figure(path, page, w, w["caption_step"].format(k=i + 1)), ""]
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
                    figure(path, page, w, w["caption_outcome"].format(m=m, c=c + 1)), ""]
        return [*out, w["example_after"], ""]
    if k == 4:
        state = end_position(rs)
        a = next(c for c in range(rs.board ** 2) if not state.classical[c])
        key = "end_forced" if rs.value("last_square") == "forced" else "end_one_left"
        path = site.board(f"rulebook-{name}-end", _small(state))
        who = state.to_move or "x"
        sentence = w[key].format(P=w["narrate"][who], q=w["narrate"]["mid"][who], a=a + 1)
        return [sentence, "", img(path, page, sentence, w["caption_last"].format(a=a + 1)), ""]
    if k == 5:
        final = quantum_states(from_notation(_worked(name).notation))[-1]
        s = final.scores
        path = site.board(f"rulebook-{name}-scored", board_svg(final, size=56.0 * rs.board))
        return [figure(path, page, w, w["caption_final"].format(x=frac(s["x"]), o=frac(s["o"]))), ""]
    return []


def small_marks(text: str) -> str:
    """Mark names as the players' pages write them, small (x1, o4) as the boards draw them; the
    examples' texts (spec/examples.toml) are shared with the rules pages, which write a record's
    capitals (X1)."""
    return re.sub(r"\b([XO])(\d+)\b", lambda m: m.group(1).lower() + m.group(2), text)


def _worked_game(site: Site, rs: Ruleset, w: dict[str, Any], page: str, lang: str) -> list[str]:
    """A complete game from spec/examples.toml, every action narrated with the board after it."""
    name = rs.name
    ex = _worked(name)
    record = from_notation(ex.notation)
    states = quantum_states(record)
    shows = small_marks(ex.shows) if lang == "en" else w["games"][name]
    out = [shows, ""]
    for i, action in enumerate(record.actions):
        assert isinstance(action, (Place, Measure))
        path = site.board(f"rulebook-{name}-game-{i + 1}", _small(states[i + 1]))
        out += [f"{i + 1}. {narrate(states[i], action, states[i + 1], w)}", "",
                "    " + figure(path, page, w, w["caption_step"].format(k=i + 1)), ""]
    return [*out, f"**{winner_text(states[-1], w)}**", ""]


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
    return [figure(path, page, w, what), ""]


def _quantum_notation(rs: Ruleset, w: dict[str, Any]) -> list[str]:
    """How the ruleset's games are recorded, and the records of the rulebook's cycle and game (for
    the ruleset's page: records are the software's, not the players')."""
    r = w["records"]
    notation = [*r["notation_text"]] + ([r["notation_forced"]] if rs.value("last_square") == "forced" else [])
    records = [r["example_record"].format(record=to_notation(_cycle_record(rs))),
               r["game_record"].format(record=to_notation(from_notation(_worked(rs.name).notation)))]
    return [text.format(name=rs.name, squares=rs.board ** 2) for text in notation] + records


def _summary_keys(rs: Ruleset) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """The paragraphs each quick-start line and each summary-card row sums up (their readings are
    marked on them)."""
    by_article = {a: tuple(k for b, k in _keys(rs) if b == a) for a in (1, 2, 3, 4)}
    scoring = (*plan()["ruleset"][rs.name]["scoring"], "count")
    place = by_article[2] + ("numbers",)
    measure = by_article[3]
    quick = [tuple(k for k in by_article[1] if k != "numbers"), place, measure, by_article[4], scoring]
    card = [place, ("cycle",), measure, by_article[4], scoring]
    return quick, card


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
    summary_keys = staticmethod(_summary_keys)

    def legend(self, w: dict[str, Any]) -> str:
        """The key to the boards (beside the first board of a page)."""
        return legend_svg(w["legend"])

    def legend_title(self, w: dict[str, Any]) -> str:
        return str(w["legend"]["title"])


QUANTUM_BOOK = QuantumBook()




# -- the stochastic variant ------------------------------------------------------------------------

CHANCE_PAGE, CHANCE_CARD = "rulebook/chance.md", "cards/chance.en.html"


def chance_figures(site: Site | None = None) -> list[tuple[str, str, str]]:
    """The chance collapse drawn from the engine: the rulebook's cycle with the pick, then each
    outcome chance may draw, captioned with its probability; (board name, SVG, caption) each."""
    c = words("en")["chance"]
    rs = load_ruleset(plan()["chance"]["ruleset"])
    pending = quantum_states(from_notation(f"[{rs.canonical}] " + plan()["cycle"][str(rs.board)]))[-1]
    a, size = chance_pick(), 56.0 * rs.board
    turn = pending.apply(Measure(a))
    out = [("rulebook-chance-pick", board_svg(pending, size=size), c["caption_pick"].format(a=a + 1))]
    for outcome, p in turn.chance_outcomes():
        assert isinstance(outcome, Outcome)
        out.append((f"rulebook-chance-outcome-{outcome.cell + 1}", board_svg(turn.apply(outcome), size=size),
                    c["caption_outcome"].format(p=frac(p), c=outcome.cell + 1)))
    return out


def chance_pick() -> int:
    """The cell the rulebook's pick names: the first cell of the cycle-closing move."""
    rs = load_ruleset(plan()["chance"]["ruleset"])
    pending = quantum_states(from_notation(f"[{rs.canonical}] " + plan()["cycle"][str(rs.board)]))[-1]
    return pending.edges[pending.pending or 0][0]


def _chance_values() -> dict[str, str]:
    rs = load_ruleset(plan()["chance"]["ruleset"])
    p = Fraction(rs.value("p"))
    return {"p": frac(p), "q": frac(1 - p), "name": rs.canonical}


def chance_page(site: Site, root: Path) -> list[str]:
    """The stochastic variant's rulebook: what a chance collapse changes in the wikipedia rulebook,
    in its style (quick start with the legend beside its first board, summary card, the changed
    article with its reading marked, the chance collapse drawn with each outcome's probability),
    and its A4 card."""
    w = words("en")
    c, vals, page = w["chance"], _chance_values(), CHANCE_PAGE
    figures = [(site.board(name, svg), caption) for name, svg, caption in chance_figures()]
    legend = site.board("legend-quantum-en", legend_svg(w["legend"]))
    point = plan()["chance"]["ours"]
    rows = [[f"**{a}**", b.format(**vals)] for a, b in zip(c["card_rows"], c["card"], strict=True)]
    rows[1][1] += reading_mark([point], w, page)
    numbered = [f"**3.{i + 1}** {text.format(**vals)}" for i, text in enumerate(c["paragraphs"])]
    target = f"../ambiguities.md#{point}"
    numbered[1] = (f'!!! note "{w["our_reading"]}"\n\n    {numbered[1]} ([{c["why"]}]({target}))')
    quick = [f"- {line.format(**vals)}" for line in c["quick"]]
    quick[1] += reading_mark([point], w, page)
    site.add("docs/" + CHANCE_CARD, _chance_card(c, vals, figures))
    return [
        f"# {c['title']}", "", c["lead"].format(**vals), "",
        c["card_link"].format(card="../" + CHANCE_CARD), "",
        w["reading_intro"].format(sources=source_link("sakuta-tomioka-2017", page)), "",
        f"## {w['quick_start']}", "", *quick, "",
        '<div class="qttt-figures" markdown>', "", img(figures[0][0], page, figures[0][1], figures[0][1]), "",
        img(legend, page, w["legend"]["title"], w["legend"]["title"]), "", "</div>", "",
        f"## {w['summary_card']}", "", *table(w["card_head"], rows),
        f"## {w['article'].format(k=3)}: {c['article']}", "", *(x for p in numbered for x in (p, "")),
        c["example"].format(a=chance_pick() + 1), "",
        *(x for path, caption in figures[1:]
          for x in (img(path, page, w["alt_board"].format(what=caption), caption), "")),
        "---", "", w["implementers"].format(page="../rules/common.md#collapse-chance"), ""]


def _chance_card(c: dict[str, Any], vals: dict[str, str], figures: list[tuple[str, str]]) -> str:
    """The stochastic variant's one-page A4 card: lead, quick start, summary card, the collapse drawn."""
    _, svgs = zip(*[(n, s) for n, s, _ in chance_figures()], strict=True)
    boards = "".join(f"<figure>{svg}<figcaption>{escape(cap)}</figcaption></figure>"
                     for svg, (_, cap) in zip(svgs, figures, strict=True))
    lead = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", c["lead"].format(**vals)).replace("`", "")
    w = words("en")
    ours = f' <em class="ours">({escape(w["our_reading"])})</em>'  # the pick: who picks is our reading
    quick = "".join(f"<li>{escape(line.format(**vals))}{ours if i == 1 else ''}</li>"
                    for i, line in enumerate(c["quick"]))
    rows = "".join(f"<tr><th>{escape(a)}</th><td>{escape(b.format(**vals))}{ours if i == 1 else ''}</td></tr>"
                   for i, (a, b) in enumerate(zip(c["card_rows"], c["card"], strict=True)))
    return "\n".join([
        "<!DOCTYPE html>", GENERATED_HTML, '<html lang="en">', "<head>", '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(c['title'])}</title>", f"<style>{CARD_CSS}</style>", "</head>", "<body>",
        f"<h1>{escape(c['title'])}</h1>", f"<p>{escape(lead)}</p>",
        f"<h2>{escape(w['quick_start'])}</h2>", f"<ul>{quick}</ul>",
        f"<h2>{escape(w['summary_card'])}</h2>", f"<table>{rows}</table>",
        f"<h2>{escape(c['article'])}</h2>", f'<div class="boards">{boards}</div>',
        f'<p class="foot">{escape(w["card_foot"])}</p>', "</body>", "</html>", ""])
