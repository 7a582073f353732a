"""The rulebooks: numbered articles in play order citing the game's rules only, one numbering
scheme across the site, the tooling rules apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from qttt import builtin_names, load_ruleset
from qttt.docgen.rulebook import ARTICLES, COMPETITION, IMPLEMENTERS, rulebook_page
from qttt.quantum.game import compile_game
from qttt.spec import rules

ROOT = Path(__file__).resolve().parents[2]


def _sections(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    head = ""
    for line in lines:
        if line.startswith("## "):
            head = line[3:]
        out[head] = out.get(head, "") + line + "\n"
    return out


@pytest.mark.parametrize("name", builtin_names())
def test_rulebook_states_every_game_rule_once_in_numbered_articles(name: str) -> None:
    lines = rulebook_page(name)
    sections = _sections(lines)
    articles = "".join(v for k, v in sections.items() if k.startswith("Article") and "Competition" not in k)
    cited = re.findall(r"\(\[R\d+ `([a-z0-9-]+)`\]", articles)
    wanted = [r for _, rids in ARTICLES for r in rids if r in rules()]
    awards = [a.rule for a in compile_game(load_ruleset(name)).awards]
    assert sorted(cited) == sorted(wanted + awards)
    assert not set(cited) & (set(IMPLEMENTERS) | set(COMPETITION))
    numbers = re.findall(r"^\*\*(\d+)\.(\d+)\*\*", "\n".join(lines), flags=re.M)
    by_article: dict[str, list[int]] = {}
    for a, b in numbers:
        by_article.setdefault(a, []).append(int(b))
    assert all(v == list(range(1, len(v) + 1)) for v in by_article.values())
    assert list(by_article) == [str(i) for i in range(1, len(by_article) + 1)]


@pytest.mark.parametrize("name", builtin_names())
def test_ruleset_pages_use_no_second_r_numbering(name: str) -> None:
    text = (ROOT / "docs" / "rules" / f"{name}.md").read_text(encoding="utf-8")
    assert not re.search(r"\*\*[A-Z]\d+\*\*", text)


def test_cited_conformance_cases_exist() -> None:
    import json
    for name in builtin_names():
        ids = {c["id"] for c in json.loads((ROOT / "spec" / "vectors" / f"{name}.json").read_text())["cases"]}
        for case in re.findall(r"`([a-z0-9-]+\.[a-z0-9.-]+)`", "\n".join(rulebook_page(name))):
            if case.startswith(name + "."):
                assert case in ids


def _translated() -> list[tuple[str, str]]:
    from qttt.docgen.rulebook import languages
    return [(name, code) for code, words in languages().items() for name in words["rulesets"]]


@pytest.mark.parametrize(("name", "lang"), _translated(), ids=lambda v: str(v))
def test_translated_rulebook_has_the_english_articles_in_its_own_words(name: str, lang: str) -> None:
    english, local = rulebook_page(name), rulebook_page(name, lang)
    number = re.compile(r"^\*\*(\d+\.\d+)\*\* ")
    cite = re.compile(r"\(\[R\d+ `[a-z0-9-]+`\]")

    def articles(lines: list[str]) -> dict[str, tuple[str, list[str]]]:
        out = {}
        for line in lines:
            m = number.match(line)
            if m:
                out[m.group(1)] = (line.split(" ([R")[0], cite.findall(line))
        return out

    en, tr = articles(english), articles(local)
    assert list(en) == list(tr)
    for k in en:
        assert en[k][1] == tr[k][1], k          # the same rule cited by the same article
        assert en[k][0] != tr[k][0], k          # stated in the other language
