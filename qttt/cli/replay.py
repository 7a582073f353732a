"""`qttt replay RECORD`: replay game records and print each final state, as they are read.

With --json, JSON Lines records of a ruleset the family's compiled core plays are replayed by the
core line by line (each action checked, the state written from its tables); any other line (a
record written otherwise, an illegal action, another family) is replayed here by the engine, so
output, messages and exit status are the engine's whichever replays a record.

A file of JSON Lines is replayed by several worker processes with --json (`Split`): it is cut at
line starts into pieces, each worker replays its pieces and writes each in its turn
(`processes.write_pieces`), so the output, messages and exit status are one process's. Where one
process would give the rest of the input to the engine (a line longer than the scanner reads whole,
bytes that are not UTF-8, a document rather than JSON Lines), the rest is replayed here, from the
same place, as one process would.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import stat
import sys
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import IO, NamedTuple, Protocol, runtime_checkable

from ..argtypes import integer
from ..bounds import WORKERS
from ..competition.match import story
from ..errors import FileError, IllegalAction, QtttError, RecordError, VariantError
from ..family import GameState, Replayed, compiled_core, family_of
from ..games import new_game
from ..io import text_chunks
from ..jsonstream import MAX_VALUE
from ..notation import FORMAT, RecordReader, state_to_json, stream_records
from ..processes import Output, Piece, seekable_output, write_pieces
from ..safe import SafeStream
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
    p.add_argument("--workers", type=integer(WORKERS), default=0,
                   help="with --json, processes replaying pieces of a file (default 0: one per core; "
                        "standard input and small files are replayed here); same output whatever "
                        "the number")
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


class Tally(NamedTuple):
    """Records read, records that failed, and records the compiled core replayed."""

    records: int = 0
    failed: int = 0
    replayed: int = 0

    def __add__(self, other: object) -> Tally:
        assert isinstance(other, Tally)
        return Tally(*(a + b for a, b in zip(self, other, strict=True)))


def run(args: argparse.Namespace) -> int:
    workers = args.workers or os.cpu_count() or 1
    split = Split.of(args, workers)
    if split is not None:
        tally, rest = split.run(workers)
        if rest is not None:
            tally += replay(args, rest.chunks(args.record), rest.line, rest.lines)
    else:
        tally = replay(args, text_chunks(args.record, FORMAT))
    if not tally.records and not tally.replayed:
        name = "standard input" if args.record == "-" else args.record
        raise FileError(FORMAT, f"{name}: no records (the input is empty)")
    return 1 if tally.failed else 0


def replay(args: argparse.Namespace, chunks: Iterable[str], line: int = 1, lines: bool = False,
           core: CoreReplay | None = None) -> Tally:
    """Replay the records of the text (its first line numbered `line`; `lines`: known to be JSON
    Lines), printing each final state or error; through `core` with --json (made here unless
    given; a HandOff it raises comes with the tally so far as `HandOff.tally`)."""
    failed = records = 0
    colour = sys.stdout.isatty() and not args.json
    if core is None and args.json and args.core == "auto":
        core = CoreReplay(chunks, line, lines)
    readers = core.readers() if core is not None else stream_records(chunks, line=line, json_lines=lines)
    try:
        for reader in readers:
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
                for line_text in story(reader.extra):
                    print(line_text, flush=True)
            reader.finish()
    except HandOff as h:
        h.tally = Tally(records, failed, core.replayed if core is not None else 0)
        raise
    return Tally(records, failed, core.replayed if core is not None else 0)


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


# The variant of a line written as {"variant": "NAME", ...} with NAME free of escapes.
_VARIANT = re.compile(rb'[ \t\r]*\{[ \t\r]*"variant"[ \t\r]*:[ \t\r]*"([^"\\\x00-\x1f]*)"')


class HandOff(Exception):
    """Where the engine takes the rest of the input, when a CoreReplay hands it off."""

    def __init__(self, rest: Rest) -> None:
        super().__init__(rest)
        self.rest = rest
        self.tally = Tally()  # what was replayed before (`replay`)


class Rest(NamedTuple):
    """The rest of a file from where the engine takes it: the text held then (bytes [at, read) of
    the file), the number of its first line, and whether the input is known to be JSON Lines."""

    at: int
    read: int
    line: int
    lines: bool

    def chunks(self, source: str) -> Iterator[str]:
        """The rest of the text, in the pieces one process reads it in."""
        with open(source, "rb") as f:
            held = os.pread(f.fileno(), self.read - self.at, self.at)
        yield held.decode()
        yield from text_chunks(source, FORMAT, start=self.read)


class CoreReplay:
    """JSON Lines records replayed by the compiled core where it can (`readers`). With `hand_off`,
    where the engine would take the rest of the input, HandOff is raised instead, naming the rest
    (bytes from `at`, the offset in the file of the text's first byte)."""

    def __init__(self, chunks: Iterable[str], line: int = 1, lines: bool = False, at: int | None = None
                 ) -> None:
        self.source = iter(chunks)
        self.replayed = 0  # records the core replayed
        self.found: dict[str, ReplaysRecords | None] = {}  # the core replaying each variant name
        self.name = ""
        self.core: ReplaysRecords | None = None
        self.text = b""
        self.line = line
        self.lines = lines  # the input is JSON Lines: known, or the first record was replayed on its line
        self.final = False  # the text holds the rest of the input
        self.at = at  # the offset of the text in the file, when the rest is handed off

    def readers(self) -> Iterator[RecordReader]:
        """Readers of the records (as `stream_records`) that the core does not replay; the states
        of those it does are written to standard output as it goes. The core reads JSON Lines only:
        a JSON document, or a first record it does not replay itself, leaves the whole text to the
        engine; so does a line longer than the scanner reads whole, or input that cannot be read,
        from there on."""
        while not self.final:
            try:
                self.text += next(self.source).encode()
            except StopIteration:
                self.final = True
            except Exception as e:  # unreadable input: the engine meets it where it would
                yield from self.engine(_raising(e))
                return
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
        at = 0
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
                    self._drop(at)
                    yield from self.engine(self.source)
                    return True
                yield from stream_records([self.text[at:end].decode()], line=self.line, json_lines=True)
                at, self.line = end, self.line + 1
        sys.stdout.flush()
        self._drop(at)
        return False

    def _drop(self, at: int) -> None:
        """Drop the text's first `at` bytes, replayed."""
        self.text = self.text[at:]
        if self.at is not None:
            self.at += at

    def _long_tail(self) -> bool:
        """Whether the text's last line, unfinished, is longer than the scanner reads whole."""
        return len(self.text) - self.text.rfind(b"\n") - 1 > MAX_VALUE

    def core_of(self, name: str) -> ReplaysRecords | None:
        """The compiled core replaying records of the variant `name` (None: the engine does),
        loaded once per process."""
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
        if name == self.name or (core := self.core_of(name)) is None:
            return False
        self.name, self.core = name, core
        return True

    def engine(self, rest: Iterable[str]) -> Iterator[RecordReader]:
        """Readers of the text and then `rest` (as `stream_records`); HandOff instead when the
        rest is handed off."""
        if self.at is not None:
            raise HandOff(Rest(self.at, self.at + len(self.text), self.line, self.lines))
        return stream_records(chain([self.text.decode()], rest), line=self.line, json_lines=self.lines)


# -- a file replayed by worker processes ----------------------------------------------------------

PIECE_BYTES = 4 << 20  # bytes of a file a worker replays at once (its output is held until its turn)
MIN_PIECE = 1 << 16  # a file of fewer than two pieces of this size is replayed here


class Tape:
    """A text stream keeping what is written to it, encoded, as parts in the order written with
    those of the other tapes writing to the same parts (a worker's output until its turn)."""

    def __init__(self, parts: list[tuple[int, bytes]], out: int, codec: tuple[str, str], terminal: bool
                 ) -> None:
        self.parts, self.out, self.codec, self.terminal = parts, out, codec, terminal

    def write(self, text: str) -> int:
        if text:
            self.parts.append((self.out, text.encode(*self.codec)))
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return self.terminal


@dataclass(frozen=True)
class Split:
    """A regular file of records, cut at line starts into `pieces` pieces that worker processes
    replay (`make`), each knowing the line it starts at (`measure`: the lines of a piece), and
    write in turn to standard output and error (`run`)."""

    args: argparse.Namespace
    path: str
    size: int
    pieces: int
    outs: tuple[Output, Output]
    codecs: tuple[tuple[str, str], tuple[str, str]]  # how each output encodes text
    terminals: tuple[bool, bool]

    @classmethod
    def of(cls, args: argparse.Namespace, workers: int) -> Split | None:
        """The split of the input `args` name, when it is worth splitting: --json through the core,
        several workers, a regular file of at least two pieces of MIN_PIECE bytes."""
        if not args.json or args.core != "auto" or workers < 2 or args.record == "-":
            return None
        try:
            st = os.stat(args.record)
        except (OSError, ValueError):
            return None  # the reader names the problem
        if not stat.S_ISREG(st.st_mode) or st.st_size < 2 * MIN_PIECE:
            return None
        pieces = min(max(2 * workers, -(-st.st_size // PIECE_BYTES)), st.st_size // MIN_PIECE)
        outs = tuple(_output(stream) for stream in (sys.stdout, sys.stderr))
        codecs = tuple(_codec(stream) if isinstance(out, int) else ("utf-8", "strict")
                       for stream, out in zip((sys.stdout, sys.stderr), outs, strict=True))
        terminals = tuple(stream.isatty() for stream in (sys.stdout, sys.stderr))
        return cls(args, args.record, st.st_size, pieces, outs, codecs, terminals)  # type: ignore[arg-type]

    def run(self, workers: int) -> tuple[Tally, Rest | None]:
        """Replay the pieces on `workers` processes: the tally of those written, and the rest of the
        file that the engine takes, if it does."""
        with open(self.path, "rb") as f:  # the first record's core, loaded once for every worker
            first = _VARIANT.match(f.read(1 << 12).lstrip())
        if first is not None:
            CoreReplay(()).core_of(first[1].decode(errors="replace"))
        fd = self.outs[0]
        places = isinstance(fd, int) and seekable_output(fd) and not _same_file(fd, self.outs[1])
        done = write_pieces(self.outs, self.pieces, self.make, workers, positioned=places,
                            measure=self.measure)
        tally = sum((tally for tally, _ in done.notes), Tally())
        return tally, done.notes[-1][1]

    def cut(self, j: int, fd: int) -> int:
        """Where piece j starts: the first line start at or after its share of the bytes."""
        if j <= 0 or j >= self.pieces:
            return 0 if j <= 0 else self.size
        at = j * self.size // self.pieces - 1
        while block := os.pread(fd, 1 << 16, at):
            if (end := block.find(b"\n")) >= 0:
                return at + end + 1
            at += len(block)
        return self.size

    def measure(self, i: int) -> int:
        """The line ends in piece i."""
        block = bytearray(1 << 20)
        with open(self.path, "rb", buffering=0) as f:
            at, end = self.cut(i, f.fileno()), self.cut(i + 1, f.fileno())
            lines = 0
            f.seek(at)
            while at < end and (got := f.readinto(memoryview(block)[:min(len(block), end - at)])):
                lines += block.count(b"\n", 0, got)
                at += got
        return lines

    def make(self, i: int, lines: int) -> Piece:
        """Piece i replayed (its first line is line `lines` + 1): what it writes to each output,
        and as its note its tally and the rest of the file the engine takes, if it does (then it
        is the last piece written)."""
        with open(self.path, "rb") as f:
            start, end = self.cut(i, f.fileno()), self.cut(i + 1, f.fileno())
        parts: list[tuple[int, bytes]] = []
        streams = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = (SafeStream(Tape(parts, k, self.codecs[k], self.terminals[k]))  # type: ignore[arg-type]
                                  for k in (0, 1))
        rest = None
        try:
            text = text_chunks(self.path, FORMAT, start=start, end=end)
            core = CoreReplay(text, lines + 1, i > 0, at=start)
            tally = replay(self.args, (), core=core)
        except HandOff as h:
            tally, rest = h.tally, h.rest
        finally:
            sys.stdout, sys.stderr = streams
        return Piece(parts, last=rest is not None, note=(tally, rest))


def _output(stream: IO[str]) -> Output:
    """A standard stream as an output of `write_pieces`: its file descriptor, or a function
    writing to it (a stream that has none)."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        return lambda data: stream.write(data.decode())
    stream.flush()
    return fd


def _codec(stream: IO[str]) -> tuple[str, str]:
    """How a text stream encodes: its encoding and its errors."""
    return getattr(stream, "encoding", None) or "utf-8", getattr(stream, "errors", None) or "strict"


def _same_file(a: Output, b: Output) -> bool:
    """Whether two outputs write to one file."""
    if not isinstance(a, int) or not isinstance(b, int):
        return False
    one, two = os.fstat(a), os.fstat(b)
    return (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)


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
