"""The players' rulebooks and rules cards: player text without rule ids or conformance cases,
every game rule stated, every statement no source makes marked as ours and linked to its register
entry, the translations paragraph for paragraph, pictures in the articles, and the errors the
sources refute kept out."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import cast

import pytest

from qttt import builtin_names, load_ruleset
from qttt.docgen import ambiguities, generate
from qttt.docgen.examples import EXAMPLES
from qttt.docgen.rulebook import (
    ARTICLES,
    COMPETITION,
    COMPETITION_PART,
    IMPLEMENTERS,
    card_path,
    card_rows,
    cases_by_rule,
    editions,
    glossary,
    glossary_rows,
    implementers,
    languages,
    page_path,
    paragraph_rules,
    paragraphs,
    plan,
    values,
    winner_text,
    words,
)
from qttt.family import Mark, family_of
from qttt.geometry import patterns
from qttt.narration import frac
from qttt.nested.engine import NestedState
from qttt.notation import Record
from qttt.quantum.engine import Measure, mark_name
from qttt.quantum.notation import from_notation
from qttt.quantum.rulebook import quantum_states
from qttt.spec import rules

ROOT = Path(__file__).resolve().parents[2]
EDITIONS = editions()
ALL = builtin_names(None)
QUANTUM_EDITIONS = [e for e in EDITIONS if e[0] in builtin_names()]  # builtin_names(): the quantum ones


@cache
def files() -> dict[str, str]:
    return generate()


def player_page(name: str, lang: str) -> str:
    return files()["docs/" + page_path(name, lang)]


def card(name: str, lang: str) -> str:
    return files()["docs/" + card_path(name, lang)]


@cache
def case_ids() -> frozenset[str]:
    ids = set()
    for path in (ROOT / "spec" / "vectors").rglob("*.json"):
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            ids |= {c["id"] for c in data.get("cases", []) if isinstance(c, dict) and "id" in c}
    return frozenset(ids)


def implementer_leaks(text: str) -> list[str]:
    """Rule numbers, rule ids as code or anchors, conformance case ids, spec paths in a text."""
    found = re.findall(r"\bR\d+\b", text)
    found += [r for r in rules() if f"`{r}`" in text or f"common.md#{r}" in text]
    found += [c for c in case_ids() if c in text]
    found += re.findall(r"spec/[a-z/]+", text)
    return found


def test_the_leak_detector_sees_what_it_must() -> None:
    assert implementer_leaks("(R12 `collapse-component`)") == ["R12", "collapse-component"]
    some_case = sorted(case_ids())[0]
    assert implementer_leaks(f"see {some_case}") == [some_case]
    assert implementer_leaks("[x](../rules/common.md#mark) spec/vectors/x.json") == ["mark", "spec/vectors/x"]
    assert implementer_leaks("X1:1-4, square 9, O4@1") == []


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_no_rule_id_or_conformance_case_in_player_pages(name: str, lang: str) -> None:
    assert implementer_leaks(player_page(name, lang)) == []
    assert implementer_leaks(card(name, lang)) == []


# The rules of play each family's rulebooks must state, whatever their conformance suites pin.
GAME_RULES = {
    "quantum": {"board-cells", "turn-order", "mark", "place-open", "place-distinct", "place-two-cycle",
                "entanglement", "cycle-close", "measure-pending", "measure-by", "measure-cell",
                "collapse-component", "collapse-untouched", "classical-fixed", "turn-after-measure",
                "last-square", "end-line", "end-full", "over-no-action", "score-at-end"},
    "nested-classical": {"nested-board", "nested-turn", "nested-cell-empty", "nested-block-closed",
                         "nested-first-move", "nested-route", "nested-free-move", "nested-patterns",
                         "nested-block-win", "nested-block-draw", "nested-board-win", "nested-end-closed",
                         "over-no-action", "score-at-end"},
}


@pytest.mark.parametrize("name", ALL)
def test_every_game_rule_is_stated_and_tooling_rules_are_not(name: str) -> None:
    paras = paragraphs(name)
    game = {r for p in paras if p.article <= ARTICLES for r in paragraph_rules(p)}
    # every rule of play the ruleset's conformance cases pin (its awards included) is stated
    pinned = set(cases_by_rule(name)) - set(implementers(name))
    assert pinned and GAME_RULES[family_of(load_ruleset(name)).name] | pinned <= game
    assert not game & (set(IMPLEMENTERS) | set(implementers(name)) | set(COMPETITION))
    competition = {r for p in paras if p.article == COMPETITION_PART for r in paragraph_rules(p)}
    assert competition and competition <= set(COMPETITION)
    assert all(r in rules() for p in paras for r in paragraph_rules(p))


@pytest.mark.parametrize("name", ALL)
def test_each_reading_is_a_paragraph_of_the_ruleset_and_a_register_entry(name: str) -> None:
    mine = plan()["ruleset"][name]
    points = {p["id"] for p in ambiguities()}
    keys = {p.key for p in paragraphs(name)}
    for table in ("ours", "ours_competition"):
        assert set(mine[table]) <= keys, f"{table} names a paragraph this rulebook does not have"
        assert set(mine[table].values()) <= points


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_every_reading_is_marked_as_ours_and_linked(name: str, lang: str) -> None:
    w, text = words(lang), player_page(name, lang)
    box = r'!!! note "([^"]+)"\n\n    \*\*(\d+\.\d+)\*\* .*?\]\(\.\./ambiguities\.md#([a-z0-9-]+)\)\)\n'
    boxes = re.findall(box, text)
    ours = [p for p in paragraphs(name, lang) if p.point]
    assert len(boxes) == len(ours) > 0
    for (label, _, point), p in zip(boxes, ours, strict=True):
        assert point == p.point
        assert label == (w["our_choice"] if p.article == COMPETITION_PART else w["our_reading"])
    # a paragraph a source states is never in a box
    plain = [p for p in paragraphs(name, lang) if not p.point]
    for p in plain:
        assert f"**{p.text}" not in text and p.text in text


@pytest.mark.parametrize(("name", "lang"), [e for e in EDITIONS if e[1] != "en"])
def test_translation_has_the_english_paragraphs_in_its_own_words(name: str, lang: str) -> None:
    en, tr = paragraphs(name), paragraphs(name, lang)
    assert [(p.article, p.key, p.point) for p in en] == [(p.article, p.key, p.point) for p in tr]
    assert all(a.text != b.text for a, b in zip(en, tr, strict=True))
    assert f'lang="{lang}"' in card(name, lang)


def test_every_language_file_has_the_keys_its_rulebooks_use() -> None:
    english = words("en")
    for code, w in languages().items():
        assert w["lang"] == code
        for key, value in english.items():
            if not isinstance(value, dict) and key != "rulesets":
                assert key in w, (code, key)
                assert isinstance(w[key], type(value)), (code, key)
        assert set(w["rulesets"]) <= set(english["rulesets"]) == set(ALL)


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_rulebook_teaches_with_pictures_a_quick_start_and_a_summary_card(name: str, lang: str) -> None:
    w, text = words(lang), player_page(name, lang)
    sections = re.split(r"^## ", text, flags=re.M)
    heads = [s.split("\n", 1)[0] for s in sections[1:]]
    assert heads[:2] == [w["quick_start"], w["summary_card"]]
    assert "](../boards/" in sections[1], "the quick start has no picture"
    for k in range(1, ARTICLES + 1):
        body = next(s for s in sections if s.startswith(f"{w['article'].format(k=k)}:"))
        assert "](../boards/" in body, f"article {k} has no picture"
    rows = card_rows(load_ruleset(name), w)
    assert len(rows) == 5
    for row, what in rows:
        # the row, marked where it sums up a reading of ours
        ours = rf"( \(\*{w['our_reading']}\*: [^|]*\))?"
        assert re.search(re.escape(f"| **{row}** | {what}") + ours + r" \|", text)


@pytest.mark.parametrize(("name", "lang"), QUANTUM_EDITIONS)
def test_quantum_rulebook_steps_through_a_cycle_and_a_complete_game(name: str, lang: str) -> None:
    w, text = words(lang), player_page(name, lang)
    assert [r for r, _ in card_rows(load_ruleset(name), w)] == w["card_rows"]
    # the stepped cycle: each step drawn, then both outcomes
    cycle = plan()["cycle"][str(load_ruleset(name).board)]
    steps = len(cycle.split())
    assert all(f"boards/rulebook-{name}-step-{i}.svg" in text for i in range(1, steps + 1))
    assert len(re.findall(rf"boards/rulebook-{name}-outcome-\d+\.svg", text)) == 2
    # the complete game, each action drawn, ends naming the winner the engine computes
    game = next(e for e in EXAMPLES[name] if from_notation(e.notation).replay().over)
    record = from_notation(game.notation)
    final = quantum_states(record)[-1]
    assert all(f"boards/rulebook-{name}-game-{i}.svg" in text for i in range(1, len(record.actions) + 1))
    assert f"**{winner_text(final, w)}**" in text


@pytest.mark.parametrize(("name", "lang"), QUANTUM_EDITIONS)
def test_the_forced_last_move_appears_only_where_the_ruleset_has_it(name: str, lang: str) -> None:
    w, text = words(lang), player_page(name, lang)
    forced = load_ruleset(name).value("last_square") == "forced"
    # the record of a forced move is the software's: on the ruleset's page, never on the players'
    rules_page = files()[f"docs/rules/{name}.md"]
    assert (words("en")["records"]["notation_forced"] in rules_page) == forced
    assert "`X9:5`" not in text
    assert (w["player"]["last-forced"] in text) == forced
    assert (w["card"]["end=full:end"] in text) == (load_ruleset(name).value("end") == "full" and not forced)


def test_the_wikipedia_rulebooks_say_who_wins() -> None:
    for lang in ("en", "de"):
        text = player_page("wikipedia", lang)
        assert words(lang)["scoring"]["winner"] in text
        assert words(lang)["narrate"]["win"]["o"] in text  # the source's own game: O wins anyway


def test_maximum_subscript_is_not_the_time_a_line_was_completed() -> None:
    """The source's game: one measurement completes X1 X3 X7 and O2 O4 O6, maxima 7 and 6."""
    caption = next(e for e in EXAMPLES["wikipedia"] if e.slug == "caption")
    final = quantum_states(from_notation(caption.notation))[-1]
    maxima = set()
    for line in patterns(3, "line", 3):
        marks = [final.classical[c] for c in line.cells]
        if all(marks) and len({m % 2 for m in marks}) == 1:
            maxima.add(max(marks))
    assert maxima == {6, 7}
    term = next(t for t in glossary() if t["term"] == "maximum subscript")
    for key in ("meaning", "meaning_de"):
        assert "7" in term[key] and "6" in term[key]
        assert "time at which" not in term[key]


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_glossary_defines_its_terms_in_the_page_language(name: str, lang: str) -> None:
    text = player_page(name, lang)
    head = "## " + words(lang)["glossary"]
    rows = text.split(head, 1)[1].split("\n## ", 1)[0]
    body = [line for line in rows.splitlines() if line.startswith("| **")]
    assert len(body) >= 10
    assert all(len(line.split(" | ")[1]) > 30 for line in body)


@pytest.mark.parametrize("name", ALL)
def test_implementers_map_lists_every_paragraph_with_rules_and_real_cases(name: str) -> None:
    page = files()[f"docs/rules/{name}.md"]
    section = page.split("{#rulebook-paragraphs}", 1)[1].split("\n## ", 1)[0]
    numbers = re.findall(r"^\| (\d+\.\d+) \|", section, flags=re.M)
    assert len(numbers) == len(paragraphs(name))
    for case in re.findall(r"`([a-z0-9-]+\.[a-z0-9.-]+)`", section):
        assert case in case_ids()


def test_scoring_values_come_from_the_variant() -> None:
    v = values(load_ruleset("bonus4x4"))
    got = tuple(v[k] for k in ("sole", "first", "second", "neither", "run", "square"))
    assert got == ("20", "15", "5", "10", "1", "2")
    assert v["lines"] == "24" and values(load_ruleset("wikipedia"))["lines"] == "8"
    assert values(load_ruleset("wikipedia"))["second"] == "½"


# Phrasings issue 21 found wrong in the earlier translations (the rule changed, or the words were
# not the language's); none may come back in any page.
MISTRANSLATIONS = ["Другая клетка недопустима", "Значок — это игрок", "ставит значки одного хода",
                   "не двигается", "с на действие", "просрочивший", "большая диагональ",
                   "und 1 weitere", "Eine Markierung ist ein Spieler", "setzt die Markierungen eines Zuges",
                   "genau eine klassische Markierung behält", "Das Brett ist 3×3", "Zelle",
                   "Die zwei Wahlen ergeben", "eine Regel bricht"]


@pytest.mark.parametrize(("name", "lang"), [e for e in EDITIONS if e[1] != "en"])
def test_corrected_phrasings_stay_corrected(name: str, lang: str) -> None:
    text = player_page(name, lang) + card(name, lang)
    assert [m for m in MISTRANSLATIONS if m in text] == []
    # the rule says no other square may be chosen (issue 34 reworded both: "недопустима" and
    # "unzulässig" read as legal jargon)
    corrected = {"ru": "Выбрать другую клетку нельзя", "de": "Ein anderes Feld darf nicht gewählt werden"}
    assert corrected[lang] in text


def test_home_page_names_the_boards_its_picture_has() -> None:
    """The measurement picture has the cycle on top and the two outcomes below, left and right."""
    home = files()["docs/index.md"]
    assert "middle board" not in home and "right board" not in home
    assert "**O4 to square 1** (the board below, left)" in home
    assert "**O4 to square 8** (the board below, right)" in home



def block_cells(block: int) -> list[int]:
    """The cells of a block (from 0), row by row: computed here, apart from the engine."""
    return [((block // 4) * 4 + i // 4) * 16 + (block % 4) * 4 + i % 4 for i in range(16)]


def test_intelligent_rulebook_draws_routing_a_block_won_the_end_and_a_whole_game() -> None:
    """The nested rulebook: each move of its worked game is narrated with the block and cell of
    the recorded move, where the engine sends the next move (or a free move), the blocks it wins,
    and the result the engine replays; the boards of the articles are the engine's."""
    text, w = player_page("intelligent", "en"), words("en")
    cells = plan()["ruleset"]["intelligent"]["game"]
    states = [cast(NestedState, Record("intelligent", tuple(Mark(c) for c in cells[:i])).replay())
              for i in range(len(cells) + 1)]
    worked = text.split("## Article 6", 1)[1].split("\n## ", 1)[0]
    items = re.findall(r"^(\d+)\. (.*)$", worked, flags=re.M)
    assert [int(i) for i, _ in items] == list(range(1, len(cells) + 1))
    drawn = 0
    for (_, line), cell, before, after in zip(items, cells, states[:-1], states[1:], strict=True):
        row, col = divmod(cell, 16)
        block, pos = (row // 4) * 4 + col // 4 + 1, (row % 4) * 4 + col % 4 + 1
        assert cell in block_cells(block - 1)
        assert f"in block {block}, cell {pos}." in line
        won = [b + 1 for b in range(16) if after.blocks[b] in ("x", "o") and before.blocks[b] == "open"]
        assert [int(b) for b in re.findall(r"wins block (\d+)", line)] == won
        if after.over:
            assert after.winner is not None and "wins the game" in line
        elif after.target is None:
            closed = after.blocks[pos - 1] != "open" or all(after.marks[c] for c in block_cells(pos - 1))
            assert closed and "may play in any open block" in line
        else:
            assert after.target == (pos - 1,) and f"must play in block {pos}." in line
        drawn += after.blocks != before.blocks or after.over
    assert worked.count("](../boards/rulebook-intelligent-game-") == drawn >= 2
    winner = states[-1].winner
    assert winner is not None and f"**{w['narrate']['win'][winner]}**" in worked
    # the articles: the empty board, routing, a free move, a block won, the end, the score
    for slug in ("empty", "route-1", "route-2", "free", "block", "end", "scored"):
        assert f"](../boards/rulebook-intelligent-{slug}.svg)" in text
    s = states[-1].scores
    assert f"the game scores X {s['x']}, O {s['o']}." in text
    assert files()["docs/boards/rulebook-intelligent-end.svg"] == family_of(load_ruleset("intelligent")).svg(
        states[-1], 320.0, None)


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_every_picture_has_a_caption_and_the_first_board_a_legend(name: str, lang: str) -> None:
    """Each picture of a rulebook is a figure with a caption; the quick start's board has the key to
    the boards beside it (the opening pictures included)."""
    text = player_page(name, lang)
    pictures = re.findall(r"!\[[^\]]*\]\([^)]*\.svg\)", text)
    captioned = re.findall(r'<figure markdown="span">!\[[^\]]*\]\([^)]*\.svg\)<figcaption>[^<]+</figcaption>'
                           r"</figure>", text)
    assert pictures and len(captioned) == len(pictures)
    quick = text.split(f"## {words(lang)['quick_start']}")[1].split("\n## ")[0]
    block = re.search(r'<div class="qttt-figures" markdown>(.*?)</div>', quick, re.S)
    assert block and block.group(1).count("<figure") == 2
    legend = re.search(r"\]\(\.\./boards/(legend-[\w-]+)\.svg\)", block.group(1))
    assert legend, "no legend beside the first board"
    assert f"docs/boards/{legend.group(1)}.svg" in files()


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_the_quick_start_and_the_card_mark_every_reading_they_state(name: str, lang: str) -> None:
    """Every reading of the game's rules (spec/rulebook.toml `ours`) is marked, with its register
    point, on the quick start or the summary card that sums it up, on the page and on the A4 card."""
    w = words(lang)
    text = player_page(name, lang)
    summary = text.split(f"## {w['quick_start']}")[1].split(f"## {w['article'].format(k=1)}")[0]
    marked = set(re.findall(rf"\(\*{re.escape(w['our_reading'])}\*: ([^)]*\)(?:, [^)]*\))*)\)", summary))
    points = {p for group in marked for p in re.findall(r"ambiguities\.md#([\w-]+)\)", group)}
    assert points == set(plan()["ruleset"][name]["ours"].values())
    card = files()["docs/" + card_path(name, lang)]
    mark = f'<em class="ours">({w["our_reading"]})</em>'
    assert card.count(mark) == summary.count(f"(*{w['our_reading']}*:")


# Errors readers found in the rulebooks, kept out by class: per language, phrases a native editor
# struck (calques, the wrong register, implementers' words) and patterns (a record's capital mark
# names, a record's notation, the second person in the Russian text, which speaks of "the player").
FORBIDDEN: dict[str, list[str]] = {
    "ru": [r"стоит ход", r"ход стоит", r"Быстрый старт", r"Партия целиком", r"реестр\w* неоднозначност",
           r"нес[ёе]т номер", r"[Зз]а индивидуальный этап", r"[Зз]а командный этап", r"проверочн\w+ случа",
           r"\bфаз\w*", r"\b(вы|вас|вам|вами|ваш\w*)\b", r"без часов", r"лимит\w* времени",
           r"для разработчиков", r"идентификатор"],
    "de": [r"groß geschrieben", r"Register der Mehrdeutigkeiten", r"Konformität", r"Werkzeug", r"ohne Uhr",
           r"Kennungen", r"Für Entwickler", r"Endbrett", r"unbegrenzt Zeit", r"Zug steht in"],
    "en": [r"toolkit", r"conformance", r"ambiguity register", r"[Ff]or implementers", r"without a clock",
           r"\bids\b"],
}
EVERY_LANGUAGE = [r"\b[XOХО]\d+\b", r"`[XO]\d+[:@]", r"\[\w[\w-]*\] X1:"]


def player_texts(name: str, lang: str) -> list[str]:
    """The player page and the A4 card of one edition, as their readers see the words (the
    page's links and pictures left out)."""
    page = re.sub(r"\]\([^)]*\)|<[^>]+>", "]", player_page(name, lang))
    card = re.sub(r"<style>.*?</style>|<svg.*?</svg>|<[^>]+>", " ", files()["docs/" + card_path(name, lang)],
                  flags=re.S)
    return [page, card]


@pytest.mark.parametrize(("name", "lang"), EDITIONS)
def test_no_listed_error_comes_back(name: str, lang: str) -> None:
    for text in player_texts(name, lang):
        for pattern in (*FORBIDDEN[lang], *EVERY_LANGUAGE):
            found = re.search(pattern, text, flags=re.I if pattern.islower() else 0)
            assert not found, f"{name} ({lang}): {found.group(0)!r}"
    text, rs = player_page(name, lang), load_ruleset(name)
    if rs.game == "quantum" and rs.board == 3:  # no "long" diagonal where there is no short one
        assert not re.search(r"long diagonal|lange Diagonale|(больш|длинн)\w+ диагонал", text), name
    w = words(lang)
    competition = text.split(f"## {w['article'].format(k=COMPETITION_PART)}")[1]
    uses = (text.find(f"(*{w['our_reading']}*"), text.find(f'!!! note "{w["our_reading"]}"'))
    first_mark = min(i for i in uses if i >= 0)
    assert text.find(f"**{w['our_reading']}**") < first_mark, "Our reading is used before it is explained"
    if f'!!! note "{w["our_choice"]}"' in competition:  # the box is explained before it first appears
        intro = competition.split(f'!!! note "{w["our_choice"]}"')[0]
        assert f"**{w['our_choice']}**" in intro


def test_the_russian_rulebook_names_the_variant_its_source_offers() -> None:
    """The Russian source's footnote offers the unstable variant: both editions of its rulebook
    link that variant's rulebook."""
    for lang in ("en", "ru"):
        assert "](russian-unstable.md)" in player_page("russian", lang), lang


def test_bonus4x4_uses_draw_for_one_thing_only() -> None:
    """A draw is equal points (the winner paragraph); a game without a line of four is not called
    a draw (issue: 5.9 and 5.11 used the word for both)."""
    paras = [p for p in paragraphs("bonus4x4") if re.search(r"\bdraws?\b", p.text)]
    assert [p.key for p in paras] == ["winner"]
    # the glossary's example lines are lines of this board: four marks, not the 3×3 source's three
    examples = [m.split() for m in re.findall(r"\b((?:[xX]\d+ )+[xX]\d+) and", words_of_glossary("bonus4x4"))]
    assert examples and all(len(line) == 4 for line in examples), examples


def words_of_glossary(name: str) -> str:
    return " ".join(row[1] for row in glossary_rows(name, "en"))


def test_the_chance_rulebook_draws_a_chance_collapse_with_each_outcomes_probability() -> None:
    """The stochastic variant's rulebook and card: the pick, then the two outcomes, each captioned
    with its probability by the rule (the picked square p, the other 1 − p) and drawn as the
    measurement of that square collapses the cycle (the choice engine, apart from chance); the
    legend beside the first board, every picture captioned, the reading marked; the card too."""
    text, card_text = files()["docs/rulebook/chance.md"], files()["docs/cards/chance.en.html"]
    name = plan()["chance"]["ruleset"]
    p = Fraction(load_ruleset(name).value("p"))
    pending = quantum_states(from_notation("[wikipedia] " + plan()["cycle"]["3"]))[-1]
    a, b = pending.edges[pending.pending or 0]
    svg_ns = "{http://www.w3.org/2000/svg}"
    for cell, prob in ((a, p), (b, 1 - p)):
        caption = f"<figcaption>probability {frac(prob)}: o4 in square {cell + 1}</figcaption>"
        assert caption in text and caption in card_text
        svg = files()[f"docs/boards/rulebook-chance-outcome-{cell + 1}.svg"]
        drawn = sorted(e.get("data-mark") or "" for e in ET.fromstring(svg).iter(f"{svg_ns}text")
                       if "classical" in (e.get("class") or ""))
        after = pending.apply(Measure(cell))
        assert drawn == sorted(mark_name(k) for k in after.classical if k)
    assert f"O picks square {a + 1}" in text
    pictures = re.findall(r"!\[[^\]]*\]\([^)]*\.svg\)", text)
    assert len(re.findall(r"<figcaption>[^<]+</figcaption></figure>", text)) == len(pictures) == 4
    assert "](../boards/legend-quantum-en.svg)" in text.split("## Summary card")[0]
    assert f'!!! note "{words("en")["our_reading"]}"' in text and "ambiguities.md#chance-collapse" in text
    assert card_text.count('<em class="ours">') == 2
    for lang in ("en",):
        for pattern in (*FORBIDDEN[lang], *EVERY_LANGUAGE):
            assert not re.search(pattern, text, flags=re.I if pattern.islower() else 0), pattern
