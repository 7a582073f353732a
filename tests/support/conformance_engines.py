"""Engines for the conformance tests, speaking qttt-engine/1 in-process (`handle`) or over
standard input/output (`python tests/support/conformance_engines.py NAME`).

`RefEngine` serves the naive reference model (tests/support/reference.py): an independent engine that
must pass the whole suite. The others are deliberately broken, each in one way; the runner must
report failures for every one of them and never a pass.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from reference import Params, RefGame, RefIllegal, load_variant, owner, score

from qttt import builtin_names
from qttt.conformance.protocol import QtttEngine, error, serve
from qttt.notation import Json


class RefEngine:
    """The reference model behind the protocol (no perft: the runner walks it)."""

    game_class: type[RefGame] = RefGame

    def __init__(self) -> None:
        self.game: RefGame | None = None

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        cmd = request.get("cmd")
        if cmd == "hello":
            return {"ok": True, "protocol": 1, "engine": f"reference {type(self).__name__}"}
        if cmd == "quit":
            return {"ok": True}
        if cmd == "new":
            variant = request["variant"]
            if variant not in builtin_names():
                # the reference reads built-in files only; judge the name's shape itself
                rule = "variant-file" if "(" in variant else "record-variant"
                return error("variant", f"unknown ruleset {variant}", rule)
            self.game = self.game_class(load_variant(variant), variant)
            return {"ok": True}
        if self.game is None:
            return error("protocol", "no game")
        if cmd == "apply":
            try:
                self.game.apply(request["action"])
            except RefIllegal as e:
                return error("malformed" if e.rule == "record-format" else "illegal", e.rule, e.rule)
            return {"ok": True}
        if cmd == "state":
            return {"ok": True, "state": self.game.state()}
        if cmd == "legal":
            return {"ok": True, "legal": self.game.legal()}
        return error("unsupported", f"{cmd} is not supported")


# -- broken engines: the reference with one rule changed ---------------------------------------

class _NoCycleDetection(RefGame):
    def _path(self, start: int, goal: int) -> list[int] | None:
        return None  # wrong: a placement never closes a cycle, so nothing is ever measured


class _CreatorMeasures(RefGame):
    def _place(self, a: int, b: int) -> None:
        super()._place(a, b)
        if self.phase == "measure":
            self.measurer = owner(self.move - 1)  # wrong: the creator measures under every ruleset


class _StemsStay(RefGame):
    def _collapse(self, closing: int, cell: int) -> None:
        cycle = set(self.cycle or ())
        stems = {k: e for k, e in self.spooky.items() if not set(e) <= cycle}
        for k in stems:
            del self.spooky[k]
        super()._collapse(closing, cell)  # wrong: only the cycle collapses
        self.spooky.update(stems)


class _NoForcedLast(RefGame):
    def _forced(self) -> bool:
        return False  # wrong: the last open cell is never filled


class _WrongSimultaneous(RefGame):
    def _finish(self) -> None:
        super()._finish()
        if self.scores["x"] and self.scores["o"] and self.scores["x"] != self.scores["o"]:
            self.scores = {"x": self.scores["o"], "o": self.scores["x"]}  # wrong: the later line wins


class _LinesEndFullGames(RefGame):
    def _end_check(self) -> None:
        params: Params = {**self.params, "end": "first-line"}
        saved, self.params = self.params, params
        try:
            super()._end_check()  # wrong: any line ends the game, whatever the ruleset says
        finally:
            self.params = saved


class _ScoresEarly(RefGame):
    def state(self) -> dict[str, Any]:
        out = super().state()
        if self.phase != "over":  # wrong: scores shown before the end
            out["scores"] = {p: str(v) for p, v in score(self.params, self.n, self.classical).items()}
        return out


class _HalfPoints(RefGame):
    def _finish(self) -> None:
        super()._finish()
        self.scores = {p: v / 2 if v > 1 else v for p, v in self.scores.items()}


class _PlacesOnClassical(RefGame):
    def _place(self, a: int, b: int) -> None:
        if a != b and self.phase == "place" and 0 <= a < self.size and 0 <= b < self.size \
                and (self.classical[a] is not None or self.classical[b] is not None):
            raise RefIllegal("place-distinct")  # wrong rule named
        super()._place(a, b)


def _broken(game: type[RefGame]) -> type[RefEngine]:
    return type(f"Broken{game.__name__}", (RefEngine,), {"game_class": game})


class UnsortedLegal(RefEngine):
    """Legal actions in reverse order."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = super().handle(request)
        if request.get("cmd") == "legal":
            out["legal"] = list(reversed(out["legal"]))
        return out


# -- engines that differ where the spec allows it, or that do less ------------------------------

class ExtraFields(RefEngine):
    """Adds fields of its own to every response and to the state (the spec allows both)."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = {**super().handle(request), "nodes_searched": 0, "info": "extra"}
        if "state" in out:
            out["state"] = {**out["state"], "hash": "0x1f", "history": [], "x-clock": None}
        return out


class NoPerftListed(QtttEngine):
    """Our engine, whose hello lists no optional command: the runner must not send perft."""

    perft_requests = 0

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        if request.get("cmd") == "perft":
            NoPerftListed.perft_requests += 1
        out = super().handle(request)
        return {**out, "commands": []} if request.get("cmd") == "hello" else out


class WikipediaOnly(RefEngine):
    """Implements the wikipedia ruleset only, and says so in hello; other valid rulesets are
    refused as unsupported."""

    listed = True

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = super().handle(request)
        if request.get("cmd") == "hello" and self.listed:
            out["rulesets"] = ["wikipedia"]
        if request.get("cmd") == "new" and out["ok"] and request["variant"] != "wikipedia":
            self.game = None
            return error("unsupported", f"this engine plays wikipedia only, not {request['variant']}")
        return out


class WikipediaOnlyUnlisted(WikipediaOnly):
    """As WikipediaOnly, but its hello lists nothing: it only refuses new as unsupported."""

    listed = False


class NoRuleIds(RefEngine):
    """Refuses with the right kind but no rule id (rule null)."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = super().handle(request)
        if not out["ok"]:
            out["error"]["rule"] = None
        return out


class AcceptsOnClassical(RefEngine):
    """Accepts a placement on a classical cell (marking only the open cell of the two)."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = super().handle(request)
        action = request.get("action")
        if (not out["ok"] and out["error"]["rule"] == "place-open" and self.game is not None
                and isinstance(action, dict)):
            self.game.move += 1  # wrong: the move is counted although nothing was placed
            return {"ok": True}
        return out


class UnknownRuleIds(RefEngine):
    """Refuses as the reference does, naming rules of its own (`rule-N` for ours)."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = super().handle(request)
        if not out["ok"] and out["error"].get("rule"):
            out["error"]["rule"] = "my-" + out["error"]["rule"]
        return out


class RefusesMeasurements(RefEngine):
    """Refuses every measurement: the cases that need one cannot go on."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        action = request.get("action")
        if request.get("cmd") == "apply" and isinstance(action, dict) and "measure" in action:
            return error("illegal", "no measurements here", "measure-pending")
        return super().handle(request)


class DoubleLineTwo(RefEngine):
    """Follows Goff's current site: a double line scores 2. It plays that reading both when
    asked for `wikipedia` (where it differs from ours) and for `wikipedia(double_line=2)`."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        names = ["wikipedia", "wikipedia(double_line=2)"]
        if request.get("cmd") == "hello":
            return {**super().handle(request), "rulesets": names}
        if request.get("cmd") == "new" and request.get("variant") in names:
            self.game = self.game_class(load_variant(names[1]), request["variant"])
            return {"ok": True}
        return super().handle(request)


class DiesMidGame(QtttEngine):
    """Our engine, which exits without a word on its fifth apply of every game."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        if request.get("cmd") == "new":
            self.applied = 0
        if request.get("cmd") == "apply":
            self.applied = getattr(self, "applied", 0) + 1
            if self.applied == 5:
                sys.stdout.flush()
                os._exit(3)
        return super().handle(request)


class HangsOnMeasure(QtttEngine):
    """Our engine, which never answers a measurement."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        if request.get("cmd") == "apply" and isinstance(request.get("action"), dict) \
                and "measure" in request["action"]:
            time.sleep(3600)
        return super().handle(request)


class Chatty(QtttEngine):
    """Our engine, which prints a progress line before answering a state request."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        if request.get("cmd") == "state":
            print("info thinking...", flush=True)
        return super().handle(request)


class WrongIds(QtttEngine):
    """Our engine, answering each request with the previous request's id."""

    last = 0

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        out = super().handle(request)
        if request.get("cmd") not in ("hello", "quit"):
            out = {"id": self.last, **out}
        self.last = request.get("id", 0)
        return out


class Raises(QtttEngine):
    """Our engine, raising on every legal request (in-process only)."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        if request.get("cmd") == "legal":
            raise RuntimeError("boom")
        return super().handle(request)


class Silent:
    """An engine that exits at once, answering nothing."""

    def handle(self, request: dict[str, Json]) -> dict[str, Json]:
        sys.stdout.flush()
        os._exit(0)


BROKEN_RULES: dict[str, type[RefEngine]] = {
    "no-cycle-detection": _broken(_NoCycleDetection),
    "creator-measures": _broken(_CreatorMeasures),
    "stems-stay": _broken(_StemsStay),
    "no-forced-last": _broken(_NoForcedLast),
    "wrong-simultaneous": _broken(_WrongSimultaneous),
    "lines-end-full-games": _broken(_LinesEndFullGames),
    "scores-early": _broken(_ScoresEarly),
    "half-points": _broken(_HalfPoints),
    "wrong-rule-named": _broken(_PlacesOnClassical),
    "unsorted-legal": UnsortedLegal,
}
TOLERATED: dict[str, type[Any]] = {
    "extra-fields": ExtraFields, "no-perft-listed": NoPerftListed, "wikipedia-only": WikipediaOnly,
    "wikipedia-only-unlisted": WikipediaOnlyUnlisted, "no-rule-ids": NoRuleIds,
    "double-line-two": DoubleLineTwo,
}
DIVERGING: dict[str, type[Any]] = {
    "accepts-on-classical": AcceptsOnClassical, "refuses-measurements": RefusesMeasurements,
    "unknown-rule-ids": UnknownRuleIds,
}
MISBEHAVING: dict[str, type[Any]] = {
    "dies-mid-game": DiesMidGame, "hangs-on-measure": HangsOnMeasure, "chatty": Chatty,
    "wrong-ids": WrongIds, "silent": Silent,
}
ENGINES: dict[str, type[Any]] = {"reference": RefEngine, "qttt": QtttEngine, **BROKEN_RULES,
                                 **TOLERATED, **DIVERGING, **MISBEHAVING}

if __name__ == "__main__":
    sys.exit(serve(ENGINES[sys.argv[1]](), sys.stdin, sys.stdout))
