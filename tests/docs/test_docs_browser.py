"""The built site in a real browser (headless Chromium over the DevTools protocol): every page
loads without a console error or a failed request, every image loads, and every SVG board draws
ink. Screenshots of a ruleset page and the home page go to artifacts/screenshots/."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Any

import pytest
from docsite import ROOT, build_site, pages, serve

from qttt.docgen.rulebook import card_path, editions, languages, page_path, words
from qttt.variant import builtin_names

# builds the site and drives Chromium: the full run, not the quick lane
pytestmark = [pytest.mark.slow, pytest.mark.docs, pytest.mark.browser]

cdp = pytest.importorskip("cdp", reason="websocket-client is not installed")
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
LOCALES = [code for code in languages() if code != "en"]

# Waits for every image, then reports its size and, for SVG boards, how many dark pixels it draws.
IMAGES_JS = """
(async () => {
  const imgs = Array.from(document.images);
  await Promise.all(imgs.map(i => i.complete ? null :
    new Promise(r => { i.addEventListener('load', r); i.addEventListener('error', r); })));
  return imgs.map(i => {
    let ink = -1;
    if (i.naturalWidth > 0 && new URL(i.src).pathname.endsWith('.svg')) {
      const c = document.createElement('canvas');
      c.width = i.naturalWidth; c.height = i.naturalHeight;
      const g = c.getContext('2d');
      g.drawImage(i, 0, 0);
      const d = g.getImageData(0, 0, c.width, c.height).data;
      ink = 0;
      for (let k = 0; k < d.length; k += 4)
        if (d[k + 3] > 0 && Math.min(d[k], d[k + 1], d[k + 2]) < 160) ink++;
    }
    return {src: i.src, width: i.naturalWidth, ink: ink};
  });
})()
"""


@pytest.fixture(scope="module")
def browser() -> Any:
    exe = cdp.chromium_path()
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install chromium); CI installs it")
    with cdp.Browser(exe) as b:
        yield b


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site(out)
    return out


def test_every_page_renders_without_errors(browser: Any, site: Path) -> None:
    # every page of the default language; of the other languages' builds, their own pages and the
    # home and play pages (the rest are the same English pages under translated chrome)
    def visited(url: str) -> bool:
        head, _, rest = url.partition("/")
        return head not in LOCALES or rest in ("", "play/") or rest.startswith("rulebook/")

    urls = [u for u in pages(site) if visited(u)]
    assert "" in urls and "rules/common/" in urls and "ru/rulebook/russian/" in urls and "de/play/" in urls
    assert {f"rules/{n}/" for n in builtin_names()} <= set(urls)
    problems: dict[str, list[str]] = {}
    boards = 0
    with serve(site) as base:
        for url in urls:
            browser.goto(base + url)
            found = list(browser.errors())
            for img in browser.evaluate(IMAGES_JS):
                if img["width"] == 0:
                    found.append(f"image did not load: {img['src']}")
                elif "/boards/" in img["src"]:
                    boards += 1
                    if img["ink"] < 200:
                        found.append(f"board drew nothing: {img['src']} ({img['ink']} dark pixels)")
            if found:
                problems[url] = found
    assert problems == {}
    assert boards >= 2 * len(builtin_names())


def test_screenshots_of_a_ruleset_page(browser: Any, site: Path) -> None:
    with serve(site) as base:
        for name, url in (("ruleset-wikipedia", "rules/wikipedia/"), ("home", "")):
            browser.goto(base + url)
            browser.evaluate(IMAGES_JS)
            path = SCREENSHOTS / f"{name}.png"
            browser.screenshot(path)
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert path.stat().st_size > 20_000


def test_search_finds_pages_with_no_request_leaving_the_machine(browser: Any, site: Path) -> None:
    import time
    with serve(site) as base:
        browser.goto(base)
        browser.evaluate("document.querySelector('input[data-md-component=search-query]').focus()")
        browser.call("Input.insertText", text="measurement")
        deadline = time.monotonic() + 20
        hits = 0
        while time.monotonic() < deadline and not hits:
            time.sleep(0.5)
            hits = browser.evaluate("document.querySelectorAll('.md-search-result__item').length")
        requested = [e["params"]["request"]["url"] for e in browser.events
                     if e["method"] == "Network.requestWillBeSent"]
    assert hits > 0
    assert requested and all(u.startswith(base) or u.startswith("data:") for u in requested)


def test_boards_stay_legible_at_phone_width(browser: Any, site: Path) -> None:
    """At 375 px the 4×4 boards of the bonus4x4 page fit the screen and the step boards keep their
    own size; the screenshot goes to artifacts/screenshots/."""
    browser.call("Emulation.setDeviceMetricsOverride", width=375, height=800, deviceScaleFactor=1,
                 mobile=True)
    try:
        with serve(site) as base:
            browser.goto(base + "rules/bonus4x4/")
            widths = browser.evaluate("Array.from(document.images).filter(i => i.src.includes('/boards/'))"
                                      ".map(i => [i.clientWidth, i.naturalWidth])")
            browser.screenshot(SCREENSHOTS / "bonus4x4-phone.png")
    finally:
        browser.call("Emulation.clearDeviceMetricsOverride")
    assert widths and all(0 < shown <= 375 for shown, _ in widths)
    # a step board is shown at its own size: 56 px a cell, spooky marks about 17 px high
    assert any(shown == natural for shown, natural in widths)


def pdf_pages(pdf: bytes) -> int:
    """The pages of a PDF Chromium printed: its page objects."""
    return len(re.findall(rb"/Type\s*/Page(?![s\w])", pdf))


@pytest.mark.parametrize(("name", "lang"), editions())
def test_each_rules_card_prints_on_one_a4_page(browser: Any, site: Path, name: str, lang: str) -> None:
    """Each card, printed to PDF as a judge would print it, is one A4 page (210 × 297 mm) holding
    its board pictures; a screenshot goes to artifacts/screenshots/."""
    with serve(site) as base:
        # mkdocs-static-i18n moves cards/NAME.LANG.html into LANG's build as cards/NAME.html
        built = ("" if lang == "en" else f"{lang}/") + card_path(name, lang).replace(f".{lang}.html", ".html")
        browser.goto(base + built)
        assert browser.errors() == []
        drawn = browser.evaluate("document.querySelectorAll('.boards svg').length")
        lang_attr = browser.evaluate("document.documentElement.lang")
        printed = browser.call("Page.printToPDF", preferCSSPageSize=True, printBackground=True)
        pdf = base64.b64decode(printed["data"])
        browser.screenshot(SCREENSHOTS / f"card-{name}.{lang}.png")
    assert drawn == 3 and lang_attr == lang
    assert pdf.startswith(b"%PDF") and pdf_pages(pdf) == 1
    box = re.search(rb"/MediaBox\s*\[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    assert box is not None
    assert (round(float(box[1]) * 25.4 / 72), round(float(box[2]) * 25.4 / 72)) == (210, 297)


def test_pdf_page_count_sees_two_pages() -> None:
    assert pdf_pages(b"<< /Type /Pages /Count 2 >> << /Type /Page >> << /Type /Page /Parent 1 0 R >>") == 2


@pytest.mark.parametrize(("name", "lang"), editions())
def test_each_rulebook_page_declares_its_language_and_has_chrome_in_it(site: Path, name: str,
                                                                       lang: str) -> None:
    """mkdocs-static-i18n builds each language apart: the page's lang, its search box and its menu
    are in the page's language."""
    prefix = "" if lang == "en" else f"{lang}/"
    page = site / prefix / page_path(name, "en").removesuffix(".md") / "index.html"
    html = page.read_text(encoding="utf-8")
    assert f'<html lang="{lang}"' in html
    search = {"en": "Search", "ru": "Поиск", "de": "Suche"}[lang]
    assert f'placeholder="{search}"' in html
    menu = {"en": "Rulebooks", "ru": "Правила для игроков", "de": "Spielregeln"}[lang]
    assert menu in html
    assert words(lang)["quick_start"] in html
