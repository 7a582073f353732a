"""The play page's bridge to the engine: one game session, driven by JSON requests.

The site's play page runs this module under Pyodide in the reader's browser; `call` takes a JSON
request and returns a JSON reply, so the page holds no rules of its own. A session keeps the
states from the start and a cursor, so a pasted record steps back and forth, and a move made
from an earlier step starts a new line of play from there.
"""

from __future__ import annotations

import json
import math
import random
import tempfile
from pathlib import Path

from .chance import CHANCE, draw
from .errors import QtttError, RecordError
from .family import AnyAction, GameState, family_of
from .games import new_game
from .jsonstream import loads
from .narration import frac
from .notation import (
    Json,
    Record,
    action_from_json,
    action_to_json,
    from_notation,
    parse_records,
    record_to_json,
    state_to_json,
)
from .players import PLAYERS
from .ruleset import Ruleset
from .variant import builtin_names, load_ruleset

CHANCE_RULESETS = ("wikipedia(collapse=chance-measurer)", "wikipedia(collapse=chance-second,p=3/4)")
"""The stochastic variant (a chance turn decides each collapse), offered beside the built-in
rulesets: the measurer's pick comes true with probability 1/2, and the second player's with 3/4."""
BOARD_PIXELS = 480  # the drawn board's side; the page lays its clickable squares over it
MARGIN = 4  # the board drawing's margin around the board, in the same pixels


class Session:
    """A game in progress: the states from the start, the actions between them and a cursor."""

    def __init__(self, ruleset: Ruleset, actions: tuple[AnyAction, ...] = ()) -> None:
        self.ruleset = ruleset
        self.family = family_of(ruleset)
        self.states: list[GameState] = [new_game(ruleset)]
        self.actions: list[AnyAction] = []
        for i, action in enumerate(actions):
            try:
                self.states.append(self.states[-1].apply(action))
            except QtttError as e:
                e.index = i
                raise
            self.actions.append(action)
        self.cursor = len(self.actions)

    @property
    def state(self) -> GameState:
        """The state at the cursor."""
        return self.states[self.cursor]

    def act(self, action: AnyAction) -> None:
        """Apply `action` at the cursor; later steps, if any, are dropped."""
        after = self.state.apply(action)
        del self.states[self.cursor + 1:], self.actions[self.cursor:]
        self.states.append(after)
        self.actions.append(action)
        self.cursor += 1

    def goto(self, ply: int) -> None:
        """Move the cursor to step `ply` (0 is the start), clamped to the game."""
        self.cursor = max(0, min(ply, len(self.actions)))

    def record(self) -> Record:
        """The actions up to the cursor, under the ruleset's canonical name (it replays anywhere)."""
        return Record(self.ruleset.canonical, tuple(self.actions[:self.cursor]))

    def drawn(self) -> str | None:
        """What chance drew in the step that led here (None when the step was a player's)."""
        if self.cursor == 0 or self.states[self.cursor - 1].to_move != CHANCE:
            return None
        action = self.actions[self.cursor - 1]
        p = dict(self.states[self.cursor - 1].chance_outcomes())[action]
        (cell,) = action_to_json(action).values()
        return f"Chance drew square {cell + 1} (probability {frac(p)})."

    def view(self) -> Json:
        """Everything the page draws: the board, the status, what a click does, the legal actions,
        the outcome of each measurement, the result and the record."""
        state, fam = self.state, self.family
        legal = state.legal_actions()
        record = self.record()
        shown = state_to_json(state, record.variant)
        return {
            "ruleset": {"name": self.ruleset.canonical, "title": self.ruleset.title,
                        "board": self.ruleset.board, "page": rules_page(self.ruleset)},
            "svg": fam.svg(state, BOARD_PIXELS, None),
            "board_pixels": BOARD_PIXELS, "margin": MARGIN, "grid": math.isqrt(len(shown["board"])),
            "status": fam.status_line(state),
            "hint": hint(state),
            "state": shown,
            "legal": [action_to_json(a) for a in legal],
            "selectable": sorted({c for a in legal for c in a}),
            "previews": [{**action_to_json(action), "svg": fam.svg(after, BOARD_PIXELS, None), "text": text}
                         for action, after, text in fam.previews(state)],
            "result": result(state),
            "drawn": self.drawn(),
            "ply": self.cursor, "plies": len(self.actions),
            "record": record_to_json(record),
            "notation": fam.notation(record.variant, record.actions) or "",
        }


def rules_page(rs: Ruleset) -> str | None:
    """The site page (relative to the site's root) that teaches a built-in ruleset: its players'
    rulebook (the stochastic variant's for the chance rulesets offered); None for a ruleset of one's
    own."""
    if rs.canonical in CHANCE_RULESETS:
        return "rulebook/chance/"
    if rs.canonical != rs.name or rs.name not in builtin_names(None):
        return None
    return f"rulebook/{rs.name}/"


def hint(state: GameState) -> str:
    """Exactly what a click does now: which squares respond and why."""
    legal = state.legal_actions()
    if state.over:
        return "The game is over: step back with ◀ or start a new game."
    if not legal:
        return "No action is legal here (a deadlock this ruleset allows)."
    return family_of(state.ruleset).hint(state)


def result(state: GameState) -> Json:
    """A finished game's winner and where its points came from; None while it goes on."""
    if not state.over:
        return None
    s, rs = state.scores, state.ruleset
    winner = "x" if s["x"] > s["o"] else "o" if s["o"] > s["x"] else None
    loser = "o" if winner == "x" else "x"
    headline = (f"{winner.upper()} wins, {frac(s[winner])} to {frac(s[loser])}." if winner
                else f"A draw, {frac(s['x'])} to {frac(s['o'])}.")
    rows = family_of(rs).score_rows(state)
    return {"winner": winner, "headline": headline, "rows": rows, "notes": list(state.score_notes)}


def _ruleset(request: Json) -> Ruleset:
    """The ruleset a `new` request names, or the variant file it pastes (rule variant-file)."""
    text = request.get("variant_file")
    if isinstance(text, str) and text.strip():
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pasted.toml"
            path.write_text(text, encoding="utf-8")
            try:
                return load_ruleset(path)
            except QtttError as e:
                raise type(e)(e.rule, e.message.replace(str(path), "the pasted variant file")) from None
    name = request.get("variant")
    if not isinstance(name, str):
        raise RecordError("record-variant", "name a ruleset or paste a variant file")
    return load_ruleset(name)


def _pasted_record(text: str) -> Record:
    """A record pasted as JSON, JSON Lines (the first record) or human notation."""
    if text.lstrip().startswith("["):
        return from_notation(text)
    for _, found in parse_records(text):
        if isinstance(found, QtttError):
            raise found
        return found
    raise RecordError("record-format", "the pasted text holds no record")


class Bridge:
    """Answers the page's requests; holds the current session."""

    def __init__(self) -> None:
        self.session = Session(load_ruleset(builtin_names(None)[0]))

    def handle(self, request: Json) -> Json:
        """One request; the reply is the session's view, or `{"error": ..., "rule": ...}`."""
        cmd = request.get("cmd")
        if cmd == "rulesets":
            names = (*builtin_names(None), *CHANCE_RULESETS)
            return {"rulesets": [{"name": n, "title": load_ruleset(n).title} for n in names],
                    "players": ["person", *PLAYERS]}
        if cmd == "new":
            self.session = Session(_ruleset(request))
        elif cmd == "load":
            record = _pasted_record(str(request.get("record", "")))
            self.session = Session(record.ruleset(), record.actions)
            self.session.goto(0)
        elif cmd == "act":
            self.session.act(action_from_json(request.get("action")))
        elif cmd == "bot":
            kind, seed = request.get("player"), request.get("seed", 0)
            if kind not in PLAYERS:
                raise RecordError("record-format", f"unknown player {kind!r}; players: {', '.join(PLAYERS)}")
            rng = random.Random(f"{seed}:{self.session.cursor}")
            self.session.act(PLAYERS[str(kind)](rng=rng).choose(self.session.state))
        elif cmd == "draw":  # a chance turn: the page asks the engine to draw its outcome
            state = self.session.state
            if state.to_move != CHANCE:
                raise RecordError("record-format", "nothing to draw: it is not chance's turn")
            rng = random.Random(f"{request.get('seed', 0)}:chance:{self.session.cursor}")
            self.session.act(draw(state.chance_outcomes(), rng))
        elif cmd == "goto":
            ply = request.get("ply")
            self.session.goto(ply if isinstance(ply, int) else 0)
        elif cmd != "view":
            raise RecordError("record-format", f"unknown request {cmd!r}")
        return self.session.view()


_BRIDGE: Bridge | None = None


def call(request: str) -> str:
    """One JSON request in, one JSON reply out; a rules error is a reply, never an exception."""
    global _BRIDGE
    if _BRIDGE is None:
        _BRIDGE = Bridge()
    try:
        reply = _BRIDGE.handle(loads(request))
    except QtttError as e:
        reply = {"error": str(e), "rule": e.rule, "kind": e.kind}
    return json.dumps(reply)
