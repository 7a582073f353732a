"""`qttt replay RECORD`: replay game records and print each final state, as they are read.

With --json, JSON Lines records of a ruleset the family's compiled core plays are replayed by the
core line by line (each action checked, the state written from its tables); any other line (a
record written otherwise, an illegal action, another family) is replayed here by the engine, so
output, messages and exit status are the engine's whichever replays a record.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import chain, pairwise
from typing import Protocol, runtime_checkable

from ..argtypes import integer
from ..bounds import WORKERS
from ..competition.match import story
from ..errors import FileError, IllegalAction, QtttError, RecordError, VariantError
from ..family import GameState, Replayed, compiled_core, family_of
from ..games import new_game
from ..io import text_chunks
from ..jsonstream import MAX_VALUE
from ..notation import FORMAT, RecordReader, state_to_json, stream_records
from ..text import count
from ..variant import load_ruleset


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("replay", help="replay game records and print each final state",
                       description="Replay records (a JSON file, a JSON Lines file, or - for "
                                   "standard input) and print the final state of each. Records are "
                                   "checked as they are read: an illegal action is reported without "
                                   "reading the rest of its record.")
    p.add_argument("record", help="JSON or JSON Lines file, or - for standard input")
    p.add_argument("--json", action="store_true", help="one v1 JSON state per record, one per line")
    p.add_argument("--core", choices=("auto", "python"), default="auto",
                   help="rules engine for --json: auto (the compiled core replays the JSON Lines "
                        "records it can; default) or the Python engine; same output either way")
    p.add_argument("--workers", type=integer(WORKERS), default=1,
                   help="threads the compiled core replays records on (default 1; 0: one per core), "
                        "reading 256 KiB per thread ahead; same output whatever the number")
    p.set_defaults(run=run)


def replay_one(reader: RecordReader) -> tuple[str, GameState, int]:
    """The variant, final state and number of actions of a record, applying each action as it is
    read; errors carry the failing action's index as `.index`."""
    variant = reader.variant()
    state = new_game(load_ruleset(variant))
    count = 0
    for i, act in enumerate(reader.actions()):
        try:
            state = state.apply(act)
        except (IllegalAction, RecordError) as e:
            e.index = i
            raise
        count += 1
    return variant, state, count


def run(args: argparse.Namespace) -> int:
    failed = records = 0
    colour = sys.stdout.isatty() and not args.json
    chunks = text_chunks(args.record, FORMAT)
    workers = args.workers or os.cpu_count() or 1
    core = CoreReplay(chunks, workers) if args.json and args.core == "auto" else None
    for reader in core.readers() if core is not None else stream_records(chunks):
        records += 1
        where = f"record at line {reader.line}"
        try:
            variant, state, played = replay_one(reader)
        except (IllegalAction, RecordError, VariantError) as e:
            failed += 1
            _report(args, where, e)
            if not reader.finish():
                break
            continue
        if args.json:
            print(json.dumps(state_to_json(state, variant), separators=(", ", ": ")), flush=True)
        else:
            print(f"{where}: {variant}, {count(played, 'action')}")
            print(family_of(state.ruleset).board_text(state, colour), flush=True)
            for line in story(reader.extra):
                print(line, flush=True)
        reader.finish()
    if not records and not (core is not None and core.replayed):
        name = "standard input" if args.record == "-" else args.record
        raise FileError(FORMAT, f"{name}: no records (the input is empty)")
    return 1 if failed else 0


def _report(args: argparse.Namespace, where: str, e: IllegalAction | RecordError | VariantError) -> None:
    index = e.index
    at = f", action {index}" if index is not None else ""
    print(f"qttt: {where}{at}: {e}", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps({"error": {"kind": e.kind, "rule": e.rule or None, "message": e.message,
                                    "action": index}}), flush=True)


# -- --json through the compiled core ------------------------------------------------------------

@runtime_checkable
class ReplaysRecords(Protocol):
    """A compiled core that replays JSON Lines records itself (`compiled.Core.replay_jsonl`)."""

    def replay_jsonl(self, text: bytes, final: bool, variant: str) -> Replayed: ...


# Text a thread replays at once with --workers N: reads are gathered to N pieces before replaying
# (a piece of a 64 KiB read was ~170 records, 0.1 ms of the core's work: handing it to a thread
# cost 0.3 s more CPU per 2,000,000 records, measured).
PIECE = 1 << 18
# The variant of a line written as {"variant": "NAME", ...} with NAME free of escapes.
_VARIANT = re.compile(rb'[ \t\r]*\{[ \t\r]*"variant"[ \t\r]*:[ \t\r]*"([^"\\\x00-\x1f]*)"')


class CoreReplay:
    """JSON Lines records replayed by the compiled core where it can (`readers`), on `workers`
    threads (the core's work releases the interpreter; PIECE bytes per thread are read, cut at
    line ends into a piece per thread, and the pieces' states are written in order)."""

    def __init__(self, chunks: Iterable[str], workers: int = 1) -> None:
        self.source = iter(chunks)
        self.workers = workers
        self.ahead = PIECE * workers if workers > 1 else 0  # text read before replaying any
        self.threads: ThreadPoolExecutor | None = None  # made when there is work to share
        self.replayed = 0  # records the core replayed
        self.found: dict[str, ReplaysRecords | None] = {}  # the core replaying each variant name
        self.name = ""
        self.core: ReplaysRecords | None = None
        self.text = b""
        self.line = 1
        self.lines = False  # the first record was replayed on its line: JSON Lines
        self.final = False  # the text holds the rest of the input

    def readers(self) -> Iterator[RecordReader]:
        """Readers of the records (as `stream_records`) that the core does not replay; the states
        of those it does are written to standard output as it goes. The core reads JSON Lines only:
        a JSON document, or a first record it does not replay itself, leaves the whole text to the
        engine; so does a line longer than the scanner reads whole, or input that cannot be read,
        from there on."""
        try:
            yield from self._readers()
        finally:
            if self.threads is not None:
                self.threads.shutdown()

    def _readers(self) -> Iterator[RecordReader]:
        while not self.final:
            try:
                self.text += next(self.source).encode()
            except StopIteration:
                self.final = True
            except Exception as e:  # unreadable input: the engine meets it where it would
                yield from self.engine(_raising(e))
                return
            if not self.final and len(self.text) < self.ahead and not self._long_tail():
                continue
            if not self.lines and (start := self.text.lstrip(b" \t\r\n")[:1]) != b"{":
                if start or self.final:
                    yield from self.engine(self.source)  # a JSON document, or no record at all
                    return
                continue
            if (yield from self.replay()):
                return
            if self._long_tail() and not self.final:
                yield from self.engine(self.source)  # a line the scanner would not read whole
                return

    def replay(self) -> Generator[RecordReader, None, bool]:
        """Replay the whole lines of the text, the core's and the engine's; True when the rest of
        the input was left to the engine."""
        at = self._pieces() if self.workers > 1 and self.core is not None else 0
        while True:
            done = (_blank(self.text, at, self.final) if self.core is None
                    else self.core.replay_jsonl(self.text[at:], self.final, self.name))
            sys.stdout.write(done.states)
            at += done.consumed
            self.line += done.lines
            self.replayed += done.records
            self.lines = self.lines or done.records > 0
            if done.stop == "end":
                break
            if done.stop == "line" and not self._switch(at):
                end = self.text.find(b"\n", at) + 1 or len(self.text)
                sys.stdout.flush()
                if not self.lines or end - at > MAX_VALUE:
                    self.text = self.text[at:]
                    yield from self.engine(self.source)
                    return True
                yield from stream_records([self.text[at:end].decode()], line=self.line, json_lines=True)
                at, self.line = end, self.line + 1
        sys.stdout.flush()
        self.text = self.text[at:]
        return False

    def _long_tail(self) -> bool:
        """Whether the text's last line, unfinished, is longer than the scanner reads whole."""
        return len(self.text) - self.text.rfind(b"\n") - 1 > MAX_VALUE

    def _pieces(self) -> int:
        """Replay the text's whole lines in pieces on the threads, while the core replays each piece
        whole (the lines after one it stops at are left to `replay`); the offset reached."""
        assert self.core is not None
        text, core, name = self.text, self.core, self.name
        end = text.rfind(b"\n") + 1
        cuts = sorted({0, end, *(text.find(b"\n", end * k // self.workers) + 1
                                 for k in range(1, self.workers))})
        pieces = [(a, b) for a, b in pairwise(cuts) if b > a]
        if len(pieces) < 2:
            return 0
        if self.threads is None:
            self.threads = ThreadPoolExecutor(self.workers)
        done = list(self.threads.map(lambda ab: core.replay_jsonl(text[ab[0]:ab[1]], True, name), pieces))
        at = 0
        for (a, b), piece in zip(pieces, done, strict=True):
            if piece.consumed != b - a:
                break
            sys.stdout.write(piece.states)
            self.line += piece.lines
            self.replayed += piece.records
            self.lines = self.lines or piece.records > 0
            at = b
        return at

    def _core_of(self, name: str) -> ReplaysRecords | None:
        if name not in self.found:
            try:
                core = compiled_core(load_ruleset(name))
            except QtttError:
                core = None
            self.found[name] = core if isinstance(core, ReplaysRecords) else None
        return self.found[name]

    def _switch(self, at: int) -> bool:
        """Whether the line at `at` names another variant the core replays (now the one it replays)."""
        first = _VARIANT.match(self.text, at)
        name = first[1].decode() if first is not None else self.name
        if name == self.name or (core := self._core_of(name)) is None:
            return False
        self.name, self.core = name, core
        return True

    def engine(self, rest: Iterable[str]) -> Iterator[RecordReader]:
        """Readers of the text and then `rest` (as `stream_records`)."""
        return stream_records(chain([self.text.decode()], rest), line=self.line, json_lines=self.lines)


def _blank(text: bytes, at: int, final: bool) -> Replayed:
    """As a core's `replay_jsonl` that replays no record: the blank lines from `at`."""
    start, lines = at, 0
    while (end := text.find(b"\n", at)) >= 0 or (final and at < len(text)):
        stop = end if end >= 0 else len(text)
        if text[at:stop].strip(b" \t\r"):
            return Replayed("", at - start, lines, 0, "line")
        at, lines = stop + 1 if end >= 0 else stop, lines + 1
    return Replayed("", at - start, lines, 0, "end")


def _raising(error: Exception) -> Iterator[str]:
    raise error
    yield ""  # a generator
