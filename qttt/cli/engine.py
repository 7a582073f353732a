"""`qttt engine`: serve this package's engine over the protocol qttt-engine/1 (spec/protocol.md)."""

from __future__ import annotations

import argparse
import io
import random
import sys

from ..argtypes import integer
from ..bounds import SEED
from ..conformance.core import CompiledEngine
from ..conformance.protocol import QtttEngine, serve
from ..errors import FileError, QtttError
from ..family import having, load
from ..players import PLAYERS, make_player


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("engine", help="serve the engine over the line-based JSON protocol",
                       description="Read qttt-engine/1 requests, one JSON object per line, from "
                                   "standard input and answer each on standard output "
                                   "(spec/protocol.md).")
    p.add_argument("--core", choices=("python", "compiled"), default="python",
                   help="rules engine: the Python engine (default) or the compiled core (built with "
                        "the system C compiler; rulesets it does not take are played in Python)")
    p.add_argument("--player", choices=tuple(PLAYERS), default="random",
                   help="the built-in player that answers go (default random; Python core)")
    p.add_argument("--seed", type=integer(SEED), default=0,
                   help="seed of that player (default 0)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if sys.stdin is None:
        raise FileError(None, "standard input is closed; the engine reads its requests there")
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="replace")  # bytes that are not UTF-8 make a line that is not JSON
    if args.core == "compiled":
        for family in having("core"):  # every family's compiled core must build here
            reason = load(family.tools["core"]).available()
            if reason is not None:
                raise QtttError("core-compiled", reason)
        return serve(CompiledEngine(), sys.stdin, sys.stdout)
    player = make_player(args.player, random.Random(args.seed))
    return serve(QtttEngine(player), sys.stdin, sys.stdout)
