"""The nested-classical family's part of the players' rulebooks (qttt.docgen.rulebook, reached
through the family's `rulebook` tool): which paragraphs its rulesets state, the numbers they
quote, and the boards and narration of its articles, worked game and rules card. The words are
in spec/i18n/LANG.toml ([player], [scoring] and [nested]); the worked game is data in
spec/rulebook.toml."""

from __future__ import annotations

from typing import Any

from ..docgen.rulebook import plan, winner_text
from ..docgen.site import Site, figure, load_toml
from ..family import Mark
from ..narration import frac
from ..ruleset import Ruleset
from ..spec import spec_dir
from .engine import NestedState
from .svg import legend_svg, nested_svg

# Each article's paragraphs (the scoring article's come from spec/rulebook.toml).
KEYS = ((1, "nested-board"), (1, "nested-turns"), (1, "nested-mark"),
        (2, "nested-first"), (2, "nested-route"), (2, "nested-free"),
        (3, "nested-block-win"), (3, "nested-abandon"), (3, "nested-block-full"),
        (4, "nested-game-win"), (4, "nested-game-end"), (4, "nested-over"))


def _t(w: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = w["nested"]
    return found


def where(n: int, cell: int) -> tuple[int, int]:
    """A cell's block and its position in the block, both counted from 1 row by row."""
    row, col = divmod(cell, n * n)
    return (row // n) * n + col // n + 1, (row % n) * n + col % n + 1


def game(rs: Ruleset) -> list[NestedState]:
    """The states of the ruleset's worked game (spec/rulebook.toml), from the start."""
    cells = load_toml(spec_dir() / "rulebook.toml")["ruleset"][rs.name]["game"]
    states = [NestedState.initial(rs)]
    for c in cells:
        states.append(states[-1].apply(Mark(c)))
    if not states[-1].over:
        raise LookupError(f"the worked game of {rs.name} in spec/rulebook.toml is not finished")
    return states


def _draw(state: NestedState, size: float = 260.0) -> str:
    return nested_svg(state, size=size)


def narrate(before: NestedState, after: NestedState, w: dict[str, Any]) -> str:
    """What one move does: the cell, a block won, where the next move must go, or the end."""
    t, n = _t(w), before.ruleset.board
    cell = after.last
    assert cell is not None and before.to_move is not None
    block, pos = where(n, cell)
    text = t["move"].format(P=w["narrate"][before.to_move], m=after.marks[cell], b=block, c=pos)
    won = [b + 1 for b in range(n * n) if after.blocks[b] != before.blocks[b]]
    for b in won:
        status = after.blocks[b - 1]
        text += " " + (t["block_drawn"].format(b=b) if status == "drawn"
                       else t["block_won"].format(P=w["narrate"][status], b=b))
    if after.over:
        s = after.scores
        key = "game_won" if after.winner else "game_closed"
        text += " " + t[key].format(P=w["narrate"][after.winner or "x"], x=frac(s["x"]), o=frac(s["o"]))
    elif after.target is None:
        key = "next_free_full" if after.blocks[pos - 1] in ("open", "drawn") else "next_free_won"
        text += " " + t[key].format(Q=w["narrate"][after.to_move or "x"], b=pos)
    else:
        text += " " + t["next"].format(Q=w["narrate"][after.to_move or "x"], b=pos)
    return str(text)


def _first(states: list[NestedState], test: Any) -> int:
    return next(i for i, st in enumerate(states) if test(st))


class NestedBook:
    """The rulebook parts of a nested-classical ruleset."""

    def articles(self, w: dict[str, Any]) -> list[str]:
        """The titles of articles 1 to 5."""
        return list(_t(w)["articles"])

    def keys(self, rs: Ruleset) -> list[tuple[int, str]]:
        """The paragraphs of articles 1 to 4."""
        return list(KEYS)

    def values(self, rs: Ruleset, lang: str = "en") -> dict[str, str]:
        """The numbers player text quotes: the grid, and the points of each scoring component."""
        n = rs.board
        out = {"n": str(n), "blocks": str(n * n), "cells": str(n ** 4), "line": str(n)}
        for comp in rs.scoring:
            if comp.award == "win":
                out["win"] = frac(comp.get("points"))
        return out

    def quick(self, rs: Ruleset, w: dict[str, Any]) -> list[str]:
        """The quick start's five bullets."""
        q, vals = _t(w)["quick"], self.values(rs)
        return [q[k].format(**vals) for k in ("players", "move", "route", "block", "end")]

    def card_rows(self, rs: Ruleset, w: dict[str, Any]) -> list[tuple[str, str]]:
        """The summary card: turn, where to play, block, end, scoring."""
        t, vals = _t(w), self.values(rs)
        return list(zip(t["card_rows"], [t["card"][k].format(**vals) for k in
                                         ("turn", "route", "block", "end", "score")], strict=True))

    def hero(self, site: Site, rs: Ruleset, w: dict[str, Any], page: str) -> list[str]:
        """The quick start's picture: the worked game after its first block is won."""
        states = game(rs)
        i = _first(states, lambda st: any(b != "open" for b in st.blocks))
        path = site.board(f"rulebook-{rs.name}-first-block", _draw(states[i]))
        return [figure(path, page, w, _t(w)["caption_block"].format(k=i)), ""]

    def pictures(self, site: Site, rs: Ruleset, k: int, w: dict[str, Any], page: str) -> list[str]:
        """Each article's boards: the empty grid; routing after the first moves and a free move;
        a block won; the end; the final score."""
        name, t, states = rs.name, _t(w), game(rs)
        if k == 1:
            path = site.board(f"rulebook-{name}-empty", _draw(states[0]))
            return [t["empty_text"], "", figure(path, page, w, t["caption_empty"]), ""]
        if k == 2:
            out = [t["route_intro"], ""]
            for i in (1, 2):
                path = site.board(f"rulebook-{name}-route-{i}", _draw(states[i]))
                out += [f"{i}. {narrate(states[i - 1], states[i], w)}", "",
                        "    " + figure(path, page, w, t["caption_route"].format(k=i)),
                        ""]
            free = _first(states, lambda st: not st.over and st.move > 1 and st.target is None)
            path = site.board(f"rulebook-{name}-free", _draw(states[free]))
            return [*out, t["free_intro"].format(k=free), "", narrate(states[free - 1], states[free], w), "",
                    figure(path, page, w, t["caption_free"].format(k=free)), ""]
        if k == 3:
            i = _first(states, lambda st: any(b != "open" for b in st.blocks))
            path = site.board(f"rulebook-{name}-block", _draw(states[i]))
            return [t["block_intro"].format(k=i), "", narrate(states[i - 1], states[i], w), "",
                    figure(path, page, w, t["caption_block"].format(k=i)), ""]
        if k == 4:
            final = states[-1]
            path = site.board(f"rulebook-{name}-end", _draw(final, 320.0))
            return [t["end_intro"].format(k=len(states) - 1), "", narrate(states[-2], final, w), "",
                    figure(path, page, w, t["caption_end"]), ""]
        if k == 5:
            final = states[-1]
            counts = {p: sum(1 for b in final.blocks if b == p) for p in ("x", "o")}
            s = final.scores
            path = site.board(f"rulebook-{name}-scored", _draw(final, 320.0))
            text = t["score_example"].format(bx=counts["x"], bo=counts["o"], x=frac(s["x"]), o=frac(s["o"]))
            what = w["caption_final"].format(x=frac(s["x"]), o=frac(s["o"]))
            return [text, "", figure(path, page, w, what), ""]
        return []

    def worked(self, site: Site, rs: Ruleset, w: dict[str, Any], page: str, lang: str) -> list[str]:
        """The complete worked game: every move narrated; the board drawn whenever a block is
        closed, and at the end."""
        name, t, states = rs.name, _t(w), game(rs)
        out = [t["game_intro"].format(moves=len(states) - 1), ""]
        for i in range(1, len(states)):
            out += [f"{i}. {narrate(states[i - 1], states[i], w)}", ""]
            if states[i].blocks != states[i - 1].blocks or states[i].over:
                path = site.board(f"rulebook-{name}-game-{i}", _draw(states[i]))
                what = w["caption_step"].format(k=i)
                out += ["    " + figure(path, page, w, what), ""]
        return [*out, f"**{winner_text(states[-1], w)}**", ""]

    def card_figures(self, rs: Ruleset, w: dict[str, Any]) -> tuple[str, str, list[tuple[str, str]]]:
        """The card's example: its heading, its sentence and its boards with captions."""
        t, states = _t(w), game(rs)
        i = _first(states, lambda st: any(b != "open" for b in st.blocks))
        figures = [(states[1], t["caption_route"].format(k=1)), (states[i], t["caption_block"].format(k=i)),
                   (states[-1], t["caption_end"])]
        return (t["card_heading"], narrate(states[0], states[1], w),
                [(_draw(st, 240.0), cap) for st, cap in figures])

    def notation(self, rs: Ruleset, w: dict[str, Any]) -> list[str]:
        """How games are written."""
        return [str(x).format(name=rs.name) for x in _t(w)["notation_text"]]

    def summary_keys(self, rs: Ruleset) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
        """The paragraphs each quick-start line and each summary-card row sums up."""
        scoring = (*plan()["ruleset"][rs.name]["scoring"], "count")
        rows = [("nested-board", "nested-turns"), ("nested-mark", "nested-first"),
                ("nested-route", "nested-free"),
                ("nested-block-win", "nested-abandon", "nested-block-full"),
                ("nested-game-win", "nested-game-end", *scoring)]
        card = [("nested-mark", "nested-first"), rows[2], rows[3], ("nested-game-win", "nested-game-end"),
                scoring]
        return rows, card

    def legend(self, w: dict[str, Any]) -> str:
        """The key to the boards (beside the first board of a page)."""
        return legend_svg(_t(w)["legend"])

    def legend_title(self, w: dict[str, Any]) -> str:
        return str(_t(w)["legend"]["title"])

    def glossary_game(self) -> str:
        """The family whose glossary terms apply."""
        return "nested-classical"


BOOK = NestedBook()
