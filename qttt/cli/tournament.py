"""`qttt tournament RULESET P1 P2 P3 ...`: a round robin under the referee of `qttt match`,
with standings and a cross-table."""

from __future__ import annotations

import argparse

from .match import EPILOG, add_options, run_command


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("tournament", help="round robin among several players, with a cross-table",
                       description="Every pair of players plays --games games, colours "
                                   "alternating, under the referee of qttt match.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("ruleset", metavar="RULESET", help="built-in name, canonical name or variant file")
    p.add_argument("players", nargs="+", metavar="PLAYER", help="two or more players")
    add_options(p, games=2)
    p.set_defaults(run=lambda args: run_command(args, "tournament", list(args.players)))
