"""`qttt play [RULESET]`: a game at the terminal, between people or against a computer player; the
ruleset's family plays it (qttt.family tool `play`)."""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import textwrap

from ..argtypes import integer, output_file
from ..bounds import SEED
from ..family import tool
from ..io import check_writable
from ..players import PLAYERS
from ..variant import load_ruleset

KINDS = ("human", *PLAYERS)

EPILOG = """\
defaults: X is played by a person at the keyboard, O by the greedy player, on the wikipedia
ruleset; --o human for two people at one terminal. Squares are numbered from 1, row by row
(1 2 3 / 4 5 6 / 7 8 9 on 3x3).

the board: classical marks are large (X3 framed by \\ /, O4 by ( )), spooky marks small (x3);
the squares of a pending cycle are highlighted (yellow; * beside the number without colour)
and the cycle-closing mark is underlined (and in brackets, [o4]).

at the prompt:
  1 9  (or 1-9, 1,9)  place your move's two spooky marks in squares 1 and 9
  5                   measure: put the cycle-closing mark in square 5; or fill the last square 5
  moves               list the legal moves      undo   take back your last decision
  help                explain the input         quit   stop the game (Ctrl-D also ends it)

players: human (a person at the keyboard); {players}. --seed makes the computer players
repeatable, and the draws of a chance collapse (collapse = chance-measurer or chance-second:
each draw is shown, with its probability, as it happens).

Intelligent Tic-Tac-Toe (qttt play intelligent): type a cell as row and column from 0
(5 4); the board shows row and column numbers, the map of blocks (X, O won, # drawn) and
the blocks you must use (* or yellow); the computer player is the random one.

exit status: 0 when the game ends or you quit, 1 when input ends before the game does."""

def players_help() -> str:
    """Each computer player of the registry (qttt.players.PLAYERS) with its summary, wrapped for a
    help text."""
    return "; ".join(f"{name} ({cls.summary})" for name, cls in PLAYERS.items())


def _wrapped(text: str) -> str:
    """The epilog with its players paragraph wrapped (the others are laid out by hand)."""
    head, _, rest = text.partition("players: ")
    paragraph, _, tail = rest.partition("\n\n")
    return head + textwrap.fill("players: " + " ".join(paragraph.split()), 92) + "\n\n" + tail


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    computers = ", ".join(PLAYERS)
    p = sub.add_parser("play", help=f"play a game at the terminal (people, or a computer player: "
                                    f"{computers})",
                       description="Play quantum tic-tac-toe at the terminal: two people at one\n"
                                   f"keyboard, or against a computer player ({computers}).",
                       epilog=_wrapped(EPILOG.replace("{players}", players_help())),
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ruleset", nargs="?", default="wikipedia", metavar="RULESET",
                   help="built-in name, canonical name or variant file (default wikipedia)")
    p.add_argument("--x", choices=KINDS, default="human", help="who plays X (default human)")
    p.add_argument("--o", choices=KINDS, default="greedy", help="who plays O (default greedy)")
    p.add_argument("--seed", type=integer(SEED),
                   help="seed of the computer players and of the chance draws (default: a fresh "
                        "one, printed at the start)")
    p.add_argument("--no-colour", "--no-color", dest="no_colour", action="store_true",
                   help="plain text even on a terminal (colour is also off when NO_COLOR is set "
                        "or output is not a terminal)")
    p.add_argument("--record", type=output_file, metavar="FILE",
                   help="save the game record (JSON) here at the end, for `qttt replay FILE`")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    rs = load_ruleset(args.ruleset)
    if args.record:
        check_writable(args.record)  # before the game, not after it
    if args.record:
        check_writable(args.record)  # before the game, not after it
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    if sys.stdin.isatty():
        with contextlib.suppress(ImportError):
            import readline  # noqa: F401  (line editing for input())
    colour = sys.stdout.isatty() and not args.no_colour and not os.environ.get("NO_COLOR")
    status: int = tool(rs, "play")(rs, args, input, _write, colour, seed)
    return status


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()
