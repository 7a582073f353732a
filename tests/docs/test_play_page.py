"""The play page in headless Chromium: the real engine runs in the page under Pyodide; a full game
is played by clicking squares with the mouse, and the page's final score and record are checked
against the engine run here. Also: built-in players, a pasted variant, a pasted record stepped."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path
from typing import Any

import pytest
from docsite import ROOT, build_site, serve

from qttt.notation import Record, action_to_json
from qttt.quantum.engine import Measure, Place, playout, quantum_state
from qttt.quantum.notation import from_notation, to_notation
from qttt.text import status_line
from qttt.variant import load_ruleset

cdp = pytest.importorskip("cdp", reason="websocket-client is not installed")
pytestmark = pytest.mark.slow

if not (ROOT / "node_modules" / "pyodide" / "pyodide.asm.wasm").is_file():
    if os.environ.get("CI"):
        raise RuntimeError("CI must install the Pyodide runtime: npm ci (see .ci/run)")
    pytest.skip("the Pyodide runtime is not installed (npm ci); CI installs it", allow_module_level=True)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Any:
    exe = cdp.chromium_path()
    if exe is None:
        pytest.skip("chromium is not installed (apt-get install chromium); CI installs it")
    site = tmp_path_factory.mktemp("site")
    build_site(site)
    with cdp.Browser(exe) as browser, serve(site) as base:
        browser.goto(base + "play/")
        wait(browser, "document.getElementById('qttt-play').dataset.ready", "yes", 120)
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
        squares = [action.cell] if isinstance(action, Measure) else [action.a, action.b]
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
