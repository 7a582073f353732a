"""The play page's bridge (qttt.webplay): requests in, the engine's view out, rules errors as replies."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.notation import Record, action_from_json, action_to_json
from qttt.quantum.engine import Measure, Place, State, playout, quantum_state
from qttt.quantum.notation import to_notation
from qttt.quantum.rulebook import CHANCE_PAGE
from qttt.quantum.strategies import random_rulesets
from qttt.quantum.text import status_line
from qttt.ruleset import Ruleset
from qttt.svg import board_svg
from qttt.variant import load_ruleset
from qttt.webplay import BOARD_PIXELS, CHANCE_RULESETS, Bridge, Session, call, rules_page

ROOT = Path(__file__).resolve().parents[2]


def ask(bridge: Bridge, **request: Any) -> dict[str, Any]:
    reply: dict[str, Any] = bridge.handle(request)
    return reply


def test_a_random_game_played_through_the_bridge_ends_as_in_the_engine() -> None:
    ruleset = load_ruleset("bonus4x4")
    actions, final = playout(ruleset, random.Random(11))
    bridge = Bridge()
    view = ask(bridge, cmd="new", variant="bonus4x4")
    for action in actions:
        assert action_to_json(action) in view["legal"]
        view = ask(bridge, cmd="act", action=action_to_json(action))
    assert view["state"]["over"] is True
    assert view["status"] == status_line(final)
    assert view["state"]["scores"] == {p: str(v) for p, v in final.scores.items()}
    assert view["record"] == {"variant": "bonus4x4", "actions": [action_to_json(a) for a in actions]}


def test_an_illegal_action_is_a_reply_naming_the_rule() -> None:
    call(json.dumps({"cmd": "new", "variant": "wikipedia"}))
    reply = json.loads(call(json.dumps({"cmd": "act", "action": {"place": [0, 0]}})))
    assert reply["kind"] == "illegal" and reply["rule"] == "place-distinct"
    assert "(rule place-distinct)" in reply["error"]
    view = json.loads(call(json.dumps({"cmd": "view"})))
    assert view["ply"] == 0  # nothing applied


def test_selectable_squares_are_those_of_the_legal_actions() -> None:
    bridge = Bridge()
    view = ask(bridge, cmd="new", variant="wikipedia")
    assert view["selectable"] == list(range(9))
    for a, b in ((0, 8), (0, 4), (4, 8)):
        view = ask(bridge, cmd="act", action={"place": [a, b]})
    assert view["state"]["phase"] == "measure"
    assert view["selectable"] == [4, 8] and view["legal"] == [{"measure": 4}, {"measure": 8}]


def test_a_loaded_record_steps_and_a_move_from_an_earlier_step_starts_a_new_line() -> None:
    bridge = Bridge()
    view = ask(bridge, cmd="load", record="[wikipedia] X1:1-9 O2:1-5 X3:5-9 X3@9")
    assert (view["ply"], view["plies"]) == (0, 4)
    view = ask(bridge, cmd="goto", ply=2)
    state = State.initial(load_ruleset("wikipedia")).apply(Place(0, 8)).apply(Place(0, 4))
    assert view["status"] == status_line(state) and view["notation"] == "[wikipedia] X1:1-9 O2:1-5"
    view = ask(bridge, cmd="goto", ply=99)
    assert view["ply"] == 4 and view["state"]["over"] is False
    ask(bridge, cmd="goto", ply=1)
    view = ask(bridge, cmd="act", action={"place": [1, 2]})
    assert (view["ply"], view["plies"]) == (2, 2)
    assert view["notation"] == to_notation(Record("wikipedia", (Place(0, 8), Place(1, 2))))


def test_a_pasted_variant_file_plays_under_its_canonical_name() -> None:
    bridge = Bridge()
    text = '[variant]\nname = "mine"\nextends = "wikipedia"\n\n[rules]\nmeasurer = "creator"\n'
    view = ask(bridge, cmd="new", variant_file=text)
    assert view["ruleset"]["name"] == "wikipedia(measurer=creator)"
    for a, b in ((0, 8), (0, 4), (4, 8)):
        view = ask(bridge, cmd="act", action={"place": [a, b]})
    assert view["state"]["to_move"] == "x"  # the creator of the cycle measures


def test_a_broken_variant_file_names_the_paste_not_a_temporary_file() -> None:
    text = "[variant]\nname = 'x'\n[rules]\nboard = 9\n"
    reply = json.loads(call(json.dumps({"cmd": "new", "variant_file": text})))
    assert reply["kind"] == "variant"
    assert reply["error"].startswith("the pasted variant file: rules.board = 9")
    assert "/tmp" not in reply["error"]


def test_bots_are_the_built_in_players_and_deterministic_per_seed() -> None:
    def game(seed: int) -> list[Any]:
        bridge = Bridge()
        view = ask(bridge, cmd="new", variant="kumar")
        while not view["state"]["over"]:
            view = ask(bridge, cmd="bot", player="greedy" if view["state"]["to_move"] == "o" else "random",
                       seed=seed)
        return list(view["record"]["actions"])

    assert game(1) == game(1)
    reply = json.loads(call(json.dumps({"cmd": "bot", "player": "nobody"})))
    assert reply["rule"] == "record-format" and "unknown player 'nobody'" in reply["error"]
    names = json.loads(call(json.dumps({"cmd": "rulesets"})))
    assert names["players"][0] == "person" and "greedy" in names["players"]


@settings(max_examples=examples(40), deadline=None)
@given(rs=random_rulesets(max_board=4), seed=st.integers(0, 10_000))
def test_the_page_is_told_exactly_which_squares_respond_and_what_each_measurement_does(
        rs: Ruleset, seed: int) -> None:
    """Over random rulesets and games: at every step the selectable squares are those of the legal
    actions, a pending cycle's hint names exactly its two squares, each measurement's preview is
    the engine's board after it, and a finished game's breakdown adds up to its scores and names
    the winner."""
    actions, _ = playout(rs, random.Random(seed))
    session = Session(rs)
    for action in [*actions, None]:
        view = session.view()
        state = session.state
        legal = state.legal_actions()
        assert view["selectable"] == sorted({c for a in legal for c in a})
        if view["state"]["phase"] == "measure" and not view["state"]["over"]:
            a, b = view["selectable"]
            assert f"Only squares {a + 1} and {b + 1} respond" in view["hint"]
            assert [p["measure"] for p in view["previews"]] == [a, b]
            for p in view["previews"]:
                assert p["svg"] == board_svg(quantum_state(state.apply(Measure(p["measure"]))), BOARD_PIXELS)
        else:
            assert view["previews"] == []
        if action is not None:
            assert view["result"] is None
            session.act(action)
    if not session.state.over:  # a deadlock some random rulesets allow
        return
    result, scores = session.view()["result"], session.state.scores
    for player in ("x", "o"):
        assert sum(Fraction(r[player].replace("½", "1/2")) for r in result["rows"]) == scores[player]
    winner = "x" if scores["x"] > scores["o"] else "o" if scores["o"] > scores["x"] else None
    assert result["winner"] == winner
    assert result["headline"].startswith(f"{winner.upper()} wins" if winner else "A draw")


def test_intelligent_is_offered_and_plays_to_the_end_with_its_rules_page_linked() -> None:
    bridge = Bridge()
    names = ask(bridge, cmd="rulesets")["rulesets"]
    assert "intelligent" in [r["name"] for r in names]
    view = ask(bridge, cmd="new", variant="intelligent")
    assert view["grid"] == 16 and view["ruleset"]["page"] == "rulebook/intelligent/"
    assert view["hint"] == ("Click an empty cell the rules allow: "
                            "x to move 1: any empty cell of an open block.")
    while not view["state"]["over"]:
        view = ask(bridge, cmd="bot", player="random", seed=2)
    final = Record("intelligent", tuple(action_from_json(a) for a in view["record"]["actions"])).replay()
    assert view["state"]["scores"] == {p: str(v) for p, v in final.scores.items()}
    assert view["result"]["rows"][0]["what"] == "blocks won"


def test_rulebook_links_only_for_built_in_rulesets() -> None:
    assert rules_page(load_ruleset("wikipedia")) == "rulebook/wikipedia/"
    assert rules_page(load_ruleset("wikipedia(measurer=creator)")) is None
    assert all(rules_page(load_ruleset(name)) == "rulebook/chance/" for name in CHANCE_RULESETS)
    assert CHANCE_PAGE == "rulebook/chance.md"  # the page the link opens (test_rulebook.py holds it)


def test_a_pasted_variant_of_another_family_plays_through_the_same_bridge() -> None:
    """The bridge asks the ruleset's family, so a classical-family variant plays with no page code."""
    text = (ROOT / "spec" / "coverage" / "classical-4x4-three.toml").read_text(encoding="utf-8")
    bridge = Bridge()
    view = ask(bridge, cmd="new", variant_file=text)
    assert view["grid"] == 4 and view["previews"] == [] and view["ruleset"]["page"] is None
    while not view["state"]["over"]:
        view = ask(bridge, cmd="bot", player="random", seed=3)
    final = Record(view["record"]["variant"],
                   tuple(action_from_json(a) for a in view["record"]["actions"])).replay()
    assert view["state"]["scores"] == {p: str(v) for p, v in final.scores.items()}
    scores = final.scores
    winner = "x" if scores["x"] > scores["o"] else "o" if scores["o"] > scores["x"] else None
    assert view["result"]["winner"] == winner


def test_a_chance_ruleset_is_offered_and_the_page_draws_each_outcome_from_its_seed() -> None:
    """The stochastic variant (collapse=chance-second, p=3/4) plays through the bridge: at a chance
    turn the page asks the engine to draw; the outcome the second player picked comes true with
    probability 3/4 (the view says so), the draw is the seed's, and the record replays."""
    offered = [r["name"] for r in ask(Bridge(), cmd="rulesets")["rulesets"]]
    assert set(CHANCE_RULESETS) <= set(offered)

    def game(seed: int) -> tuple[list[Any], list[str]]:
        bridge = Bridge()
        view = ask(bridge, cmd="new", variant="wikipedia(collapse=chance-second,p=3/4)")
        drawn = []
        while not view["state"]["over"]:
            if view["state"]["to_move"] == "chance":
                assert view["hint"].endswith("The page draws it now.")
                picked = view["record"]["actions"][-1]["measure"]  # the second player's pick
                legal = view["legal"]
                view = ask(bridge, cmd="draw", seed=seed)
                outcome = view["record"]["actions"][-1]
                assert outcome in legal
                p = "3/4" if outcome["outcome"] == picked else "1/4"
                assert view["drawn"] == f"Chance drew square {outcome['outcome'] + 1} (probability {p})."
                drawn.append(view["drawn"])
            else:
                if view["state"]["phase"] == "measure":  # a pick, not a measurement: the hint says so
                    assert "your pick comes true with probability 3/4" in view["hint"]
                view = ask(bridge, cmd="bot", player="random", seed=seed)
                assert view["drawn"] is None
        record = view["record"]
        assert Record(record["variant"], tuple(action_from_json(a) for a in record["actions"])).replay().over
        return list(record["actions"]), drawn

    results = [game(seed) for seed in range(4)]
    assert all(drawn for _, drawn in results)
    assert game(0) == results[0]
    reply = json.loads(call(json.dumps({"cmd": "new", "variant": "wikipedia"})))
    reply = json.loads(call(json.dumps({"cmd": "draw"})))
    assert reply["rule"] == "record-format" and "not chance's turn" in reply["error"]
