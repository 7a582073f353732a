"""The play page in headless Chromium: the real engine runs in the page under Pyodide; a full game
is played by clicking squares with the mouse, and the page's final score, winner, score breakdown
and record are checked against the engine run here. Also: a measurement previewed before it is
made, the hint naming exactly the squares that respond, built-in players, Intelligent Tic-Tac-Toe,
a pasted variant, a pasted record stepped, a phone-width screen without sideways scrolling, and
the time to interactive of a cold load (printed)."""

from __future__ import annotations

import json
import os
import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from docsite import ROOT, build_site, serve

from qttt.family import family_of
from qttt.games import random_game
from qttt.notation import Record, action_from_json, action_to_json
from qttt.quantum.engine import Measure, Place, playout, quantum_state
from qttt.quantum.notation import from_notation, to_notation
from qttt.quantum.text import status_line
from qttt.svg import board_svg
from qttt.variant import load_ruleset
from qttt.webplay import BOARD_PIXELS

cdp = pytest.importorskip("cdp", reason="websocket-client is not installed")
pytestmark = [pytest.mark.slow, pytest.mark.docs, pytest.mark.browser]

if not (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the Pyodide runtime: npm ci (see .ci/run)")
    pytest.skip("the Pyodide runtime is not installed (npm ci); CI installs it", allow_module_level=True)


SHOTS = ROOT / "artifacts" / "screenshots"


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Any:
    exe = cdp.chromium_path()
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install chromium); CI installs it")
    site = tmp_path_factory.mktemp("site")
    build_site(site)
    with cdp.Browser(exe) as browser, serve(site) as base:
        browser.goto(base + "play/")
        seen = set()
        deadline = time.monotonic() + 120
        while browser.evaluate("document.getElementById('qttt-play').dataset.ready") != "yes":
            seen.add(browser.evaluate("document.getElementById('play-status').textContent"))
            assert time.monotonic() < deadline and "could not start" not in " ".join(seen), seen
            time.sleep(0.05)
        tti = browser.evaluate("document.getElementById('qttt-play').dataset.tti")
        reporter = pytestconfig.pluginmanager.get_plugin("terminalreporter")
        steps = json.loads(browser.evaluate("document.getElementById('qttt-play').dataset.timings"))
        line = (f"play page: time to interactive on a cold load {int(tti)} ms (each step began at: "
                + ", ".join(f"{step} {ms} ms" for step, ms in steps.items()) + ")")
        if reporter is not None:
            reporter.write_line(line)
        SHOTS.mkdir(parents=True, exist_ok=True)
        (SHOTS / "play-time-to-interactive.txt").write_text(line + "\n", encoding="utf-8")
        # the loading progress was visible and counted its steps
        assert any("Loading the engine (1/4)" in t for t in seen) and int(tti) > 0
        browser.base = base
        yield browser
        assert browser.errors() == []
        Path(ROOT / "artifacts" / "screenshots").mkdir(parents=True, exist_ok=True)
        browser.screenshot(ROOT / "artifacts" / "screenshots" / "play.png")


def wait(browser: Any, expression: str, value: Any, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while (got := browser.evaluate(expression)) != value:
        if got == "failed" or time.monotonic() > deadline:
            status = browser.evaluate("document.getElementById('play-status').textContent")
            raise AssertionError(f"{expression} is {got!r}, waited for {value!r}: {status}")
        time.sleep(0.1)


def choose(browser: Any, select: str, value: str) -> None:
    browser.evaluate(f"(() => {{ const s = document.getElementById({json.dumps(select)}); "
                     f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); }})()")


def click(browser: Any, selector: str) -> None:
    """A real mouse click (pressed and released) at the middle of the element."""
    box = browser.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                           "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                           "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1], button="left", clickCount=1)


def text(browser: Any, element_id: str) -> str:
    return str(browser.evaluate(f"document.getElementById({json.dumps(element_id)}).textContent"))


@pytest.mark.parametrize(("name", "seed"), [("wikipedia", 3), ("bonus4x4", 5)])
def test_a_full_game_played_by_clicking_scores_as_the_engine(page: Any, name: str, seed: int) -> None:
    actions, final = playout(load_ruleset(name), random.Random(seed))
    assert any(isinstance(a, Measure) for a in actions)
    choose(page, "play-x", "person")
    choose(page, "play-o", "person")
    choose(page, "play-ruleset", name)
    for action in actions:
        squares = [action.a, action.b] if isinstance(action, Place) else [action.cell]
        for c in squares:
            click(page, f'#play-squares button[data-cell="{c}"]')
    assert page.evaluate("document.getElementById('qttt-play').dataset.over") == "true"
    assert text(page, "play-status") == status_line(quantum_state(final))
    assert "game over" in status_line(quantum_state(final))
    record = json.loads(text(page, "play-record-out"))
    assert record == {"variant": name, "actions": [action_to_json(a) for a in actions]}


def test_built_in_players_finish_a_game_the_engine_replays(page: Any) -> None:
    choose(page, "play-ruleset", "kumar")
    choose(page, "play-x", "random")
    choose(page, "play-o", "greedy")
    wait(page, "document.getElementById('qttt-play').dataset.over", "true", 60)
    record = json.loads(text(page, "play-record-out"))
    final = Record(record["variant"], tuple(Place(*a["place"]) if "place" in a else Measure(a["measure"])
                                            for a in record["actions"])).replay()
    assert final.over and text(page, "play-status") == status_line(quantum_state(final))


def test_a_pasted_record_steps_through_its_positions(page: Any) -> None:
    choose(page, "play-x", "person")
    choose(page, "play-o", "person")
    notation = "[wikipedia] X1:1-9 O2:1-5 X3:5-9 X3@9"
    click(page, "#play-record-box summary")
    page.evaluate(f"document.getElementById('play-record').value = {json.dumps(notation)}")
    click(page, "#play-load")
    assert text(page, "play-ply") == "0 / 4"
    states = from_notation(notation).states()
    for ply in range(1, 5):
        click(page, "#play-next")
        assert text(page, "play-ply") == f"{ply} / 4"
        assert text(page, "play-status") == status_line(quantum_state(states[ply]))
    click(page, "#play-first")
    assert text(page, "play-ply") == "0 / 4"
    assert text(page, "play-status") == status_line(quantum_state(states[0]))


def test_a_pasted_variant_plays_under_its_canonical_name(page: Any) -> None:
    choose(page, "play-x", "person")
    choose(page, "play-o", "person")
    click(page, "#play-variant-box summary")
    click(page, "#play-variant-new")
    assert text(page, "play-notation") == "[wikipedia(measurer=creator)]"
    for c in (0, 8, 0, 4, 4, 8):
        click(page, f'#play-squares button[data-cell="{c}"]')
    state = from_notation("[wikipedia(measurer=creator)] X1:1-9 O2:1-5 X3:5-9").replay()
    assert text(page, "play-status") == status_line(quantum_state(state)) and state.to_move == "x"
    assert to_notation(Record("wikipedia(measurer=creator)", ())) == "[wikipedia(measurer=creator)]"


def play_until_measure(page: Any, name: str, seed: int) -> tuple[Any, list[Any]]:
    """Click a seeded random game of `name` up to its first pending measurement."""
    actions, _ = playout(load_ruleset(name), random.Random(seed))
    upto = next(i for i, a in enumerate(actions) if isinstance(a, Measure))
    choose(page, "play-x", "person")
    choose(page, "play-o", "person")
    choose(page, "play-ruleset", name)
    for action in actions[:upto]:
        assert isinstance(action, Place)
        for c in (action.a, action.b):
            click(page, f'#play-squares button[data-cell="{c}"]')
    state = quantum_state(Record(name, tuple(actions[:upto])).replay())
    assert state.phase == "measure"
    return state, actions


def same_svg(shown: str, drawn: str) -> bool:
    """The page's serialised SVG (`<rect></rect>`) is the engine's drawing (`<rect/>`)."""
    def norm(svg: str) -> str:
        return re.sub(r"<(\w+)([^<>]*?)\s*/>", r"<\1\2></\1>", svg).strip()
    return norm(shown) == norm(drawn)


def hover(page: Any, selector: str) -> None:
    box = page.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(selector)}); "
                        "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                        "return [r.x + r.width / 2, r.y + r.height / 2]; })()")
    page.call("Input.dispatchMouseEvent", type="mouseMoved", x=box[0], y=box[1])


def test_a_measurement_choice_previews_its_outcome_and_the_hint_names_the_squares(page: Any) -> None:
    state, _ = play_until_measure(page, "wikipedia", 3)
    k = state.pending
    assert k is not None
    a, b = state.edges[k]
    hint = text(page, "play-hint")
    assert f"Only squares {a + 1} and {b + 1} respond" in hint
    responding = page.evaluate("Array.from(document.querySelectorAll('#play-squares button.selectable'))"
                               ".map(b => Number(b.dataset.cell))")
    assert responding == [a, b]
    for c in (a, b):
        hover(page, f'#play-choices button[data-measure="{c}"]')
        assert page.evaluate("document.getElementById('qttt-play').dataset.preview") == str(c)
        shown = page.evaluate("document.getElementById('play-board').innerHTML")
        assert same_svg(shown, board_svg(state.apply(Measure(c)), size=BOARD_PIXELS))
        assert f"goes to square {c + 1}" in text(page, "play-preview-text")
    page.screenshot(SHOTS / "play-preview.png")
    hover(page, "#play-ply")
    assert page.evaluate("document.getElementById('qttt-play').dataset.preview") is None
    assert same_svg(page.evaluate("document.getElementById('play-board').innerHTML"),
                    board_svg(state, size=BOARD_PIXELS))
    # hovering the cycle-closing move's square on the board previews too; clicking it measures
    hover(page, f'#play-squares button[data-cell="{b}"]')
    assert page.evaluate("document.getElementById('qttt-play').dataset.preview") == str(b)
    click(page, f'#play-squares button[data-cell="{b}"]')
    assert text(page, "play-status") == status_line(state.apply(Measure(b)))


def test_intelligent_tic_tac_toe_is_playable(page: Any) -> None:
    rs = load_ruleset("intelligent")
    actions, _ = random_game(rs, random.Random(4))
    choose(page, "play-x", "person")
    choose(page, "play-o", "person")
    choose(page, "play-ruleset", "intelligent")
    link = page.evaluate("document.getElementById('play-rules-link').getAttribute('href')")
    assert link == "../rulebook/intelligent/"
    for i, action in enumerate(actions[:6]):
        click(page, f'#play-squares button[data-cell="{action[0]}"]')
        after = Record("intelligent", tuple(actions[:i + 1])).replay()
        assert text(page, "play-status") == family_of(rs).status_line(after)
    choose(page, "play-x", "random")
    choose(page, "play-o", "random")
    wait(page, "document.getElementById('qttt-play').dataset.over", "true", 120)
    record = json.loads(text(page, "play-record-out"))
    final = Record(record["variant"], tuple(action_from_json(a) for a in record["actions"])).replay()
    assert final.over and text(page, "play-status") == family_of(rs).status_line(final)
    assert "blocks won" in text(page, "play-result")


def test_a_chance_ruleset_is_offered_and_the_page_draws_and_shows_each_outcome(page: Any) -> None:
    """The stochastic variant plays to the end with two built-in players: every chance turn is
    drawn by the page (nobody clicks it), the draw is shown, and the record replays in the engine."""
    name = "wikipedia(collapse=chance-second,p=3/4)"
    choose(page, "play-x", "person")
    choose(page, "play-o", "person")
    choose(page, "play-ruleset", name)
    assert text(page, "play-drawn") == ""
    choose(page, "play-x", "random")
    choose(page, "play-o", "random")
    wait(page, "document.getElementById('qttt-play').dataset.over", "true", 120)
    record = json.loads(text(page, "play-record-out"))
    actions = tuple(action_from_json(a) for a in record["actions"])
    assert record["variant"] == name and Record(name, actions).replay().over
    states = Record(name, actions).states()
    chance = [i for i, st in enumerate(states[:-1]) if st.to_move == "chance"]
    assert chance, "no chance turn in the game"
    choose(page, "play-x", "person")  # step back to the last draw: its line says what chance drew
    choose(page, "play-o", "person")
    while int(page.evaluate("document.getElementById('qttt-play').dataset.ply")) > chance[-1] + 1:
        click(page, "#play-prev")
    shown = text(page, "play-drawn")
    assert re.fullmatch(r"Chance drew square \d \(probability (3/4|1/4)\)\.", shown), shown
    assert f"square {action_to_json(actions[chance[-1]])['outcome'] + 1} " in shown


def test_the_page_fits_a_phone_without_sideways_scrolling(page: Any) -> None:
    """At 375 px the controls, the board, the choices, the result and a long record fit the width."""
    page.call("Emulation.setDeviceMetricsOverride", width=375, height=800, deviceScaleFactor=1, mobile=True)
    try:
        page.goto(page.base + "play/")
        wait(page, "document.getElementById('qttt-play').dataset.ready", "yes", 120)
        widths = []
        play_until_measure(page, "bonus4x4", 5)
        widths.append(page.evaluate("document.documentElement.scrollWidth"))
        page.screenshot(SHOTS / "play-phone-measure.png")
        choose(page, "play-x", "random")
        choose(page, "play-o", "random")
        wait(page, "document.getElementById('qttt-play').dataset.over", "true", 120)
        widths.append(page.evaluate("document.documentElement.scrollWidth"))
        overflowing = page.evaluate("Array.from(document.querySelectorAll('#qttt-play *'))"
                                    ".filter(e => e.getBoundingClientRect().right > 375.5)"
                                    ".map(e => e.id || e.tagName)")
        page.screenshot(SHOTS / "play-phone-end.png")
    finally:
        page.call("Emulation.clearDeviceMetricsOverride")
        page.goto(page.base + "play/")
        wait(page, "document.getElementById('qttt-play').dataset.ready", "yes", 120)
    assert all(w <= 375 for w in widths), widths
    assert overflowing == []
