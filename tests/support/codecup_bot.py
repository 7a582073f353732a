"""A bot speaking the CodeCup 2012 dialogue (spec/codecup.md), written from that description
and the public bot Mangara/CodeCup2012 (src/framework/QTTTGame.java), not from qttt: it keeps
its own board with the naive reference model of tests/reference.py.

Run as `python tests/support/codecup_bot.py SEED [LOG]`: it plays uniformly random legal moves and
collapses; with LOG it appends each line it reads (`< `) and writes (`> `) to that file.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from reference import RefGame, load_variant

SQUARES = "ABCDEFGHIJKLMNOP"


def main(seed: int, log: Path | None) -> int:
    rng = random.Random(seed)
    game = RefGame(load_variant("bonus4x4"))

    def note(text: str) -> None:
        if log is not None:
            with open(log, "a", encoding="utf-8") as f:
                f.write(text + "\n")

    def mine() -> str:
        """Play random legal actions for as long as it is this bot's turn; their letters."""
        out, me = "", game.to_move()
        while game.to_move() == me and game.phase != "over":
            action = rng.choice(game.legal())
            game.apply(action)
            if "measure" in action:
                out += SQUARES[action["measure"]]
            else:
                a, b = action["place"]
                out += SQUARES[a] + SQUARES[b]
        return out

    for raw in sys.stdin:
        line = raw.strip()
        note("< " + line)
        if line == "Quit":
            break
        text = line.removesuffix("!")
        if line != "Start":
            if len(text) % 2 == 1:  # the opponent's collapse of this bot's cycle comes first
                game.apply({"measure": SQUARES.index(text[0])})
                text = text[1:]
            if text:
                game.apply({"place": [SQUARES.index(text[0]), SQUARES.index(text[1])]})
        forced = line not in ("Start",) and len(text) == 2 and text[0] == text[1]
        answer = text[0] if forced else mine()  # the forced last move is answered like a cycle
        note("> " + answer)
        print(answer, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]), Path(sys.argv[2]) if len(sys.argv) > 2 else None))
