"""Reading JSON: the one strict decoder of the project (`loads`, `StrictDecoder`), and a scanner over
text chunks that decodes one small value at a time, so that a record of millions of actions is
checked as it is read, in bounded memory.

Every JSON text qttt reads goes through `StrictDecoder` (records, the engine protocol both ways,
suites, checkpoints, match records, ruleset names, the adapters): it takes JSON as RFC 8259 states
it and refuses what Python's own decoder lets through, each named in the message (a `Refused`,
which is a JSONDecodeError): an object with the same key twice, a number that is not finite
(`NaN`, `Infinity`, or one too large to hold such as `1e400`), a string holding a lone
surrogate (`"\\ud800"`: not Unicode text), and an integer longer than MAX_DIGITS digits.

The scanner knows line and column numbers for messages, refuses a single value larger than
`MAX_VALUE` characters or nested too deeply, and in line mode refuses a value that crosses a line
end (JSON Lines). Errors are `ScanError` (rule `record-format`).
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .bounds import MAX_DIGITS
from .errors import RecordError


class Refused(json.JSONDecodeError):
    """Text Python's decoder would take that strict JSON does not (see the module docstring)."""


class NumberTooLong(Refused):
    """A JSON integer with more than MAX_DIGITS digits (refused while parsing)."""


class _Refusal(ValueError):
    """Raised by the decoder's hooks: the message, and a pattern locating the text refused."""

    def __init__(self, message: str, pattern: str, kind: type[Refused] = Refused, nth: int = 0) -> None:
        super().__init__(message)
        self.message, self.pattern, self.kind, self.nth = message, pattern, kind, nth


def _json_int(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > MAX_DIGITS:
        raise _Refusal(f"an integer of {digits:,} digits (at most {MAX_DIGITS})",
                       rf"[0-9]{{{MAX_DIGITS + 1},}}", NumberTooLong)
    return int(text)


def _json_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else text[:20] + "..."
        raise _Refusal(f"the number {shown} is too large to hold (a finite number is needed)",
                       re.escape(text))
    return value


def _json_constant(name: str) -> Any:
    raise _Refusal(f"{name} is not a JSON number", re.escape(name))


def _json_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for twice, _ in pairs:
            if twice in seen:
                break
            seen.add(twice)
        shown = json.dumps(twice)
        raise _Refusal(f"duplicate key {shown if len(shown) <= 40 else shown[:36] + '...'}",
                       re.escape(json.dumps(twice, ensure_ascii=False)) + r"\s*:", nth=1)
    return out


_MAYBE_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate in a decoded value's strings (keys included), or None. The decoder
    joins escaped pairs, so any surrogate left is lone."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            m = _SURROGATE.search(v)
            if m:
                return m.group()
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


class StrictDecoder(json.JSONDecoder):
    """The one JSON decoder for input (see the module docstring): `Refused` for text that is not
    strict JSON, naming what; JSONDecodeError for text that is not JSON at all."""

    def __init__(self) -> None:
        super().__init__(parse_int=_json_int, parse_float=_json_float, parse_constant=_json_constant,
                         object_pairs_hook=_json_object)

    def raw_decode(self, s: str, idx: int = 0) -> tuple[Any, int]:
        try:
            value, end = super().raw_decode(s, idx)
        except _Refusal as e:  # placed at the text refused (a key's second time), when found
            found = list(itertools.islice(re.finditer(e.pattern, s[idx:]), e.nth + 1))
            raise e.kind(e.message, s, idx + found[-1].start() if found else idx) from None
        if _MAYBE_SURROGATE.search(s, idx, end):
            lone = _lone_surrogate(value)
            if lone is not None:
                code = f"\\u{ord(lone):04x}"
                at = s.find(lone, idx, end)
                if at < 0:
                    m = re.compile(re.escape(code), re.I).search(s, idx, end)
                    at = m.start() if m else idx
                raise Refused(f"a string holds a lone surrogate {code} (not Unicode text)", s, at)
        return value, end


_DECODER = StrictDecoder()


def loads(text: str) -> Any:
    """JSON text decoded by the strict decoder: `Refused` (a JSONDecodeError, `NumberTooLong`
    for a long integer) or JSONDecodeError for text that is not JSON, RecursionError for text
    nested too deeply."""
    return _DECODER.decode(text)


def dumps(value: Any, **options: Any) -> str:
    """JSON text of `value` that the strict decoder reads back: ValueError for a number that is not
    finite (never `NaN` or `Infinity` in what qttt writes)."""
    return json.dumps(value, allow_nan=False, **options)


MAX_VALUE = 1 << 20  # characters in one value decoded whole (an action, a key, a variant name)
WHITESPACE = " \t\r\n"


class ScanError(RecordError):
    """Text that is not JSON, or a value beyond the scanner's limits."""


class Scanner:
    """A cursor over text arriving in chunks, with line and column numbers."""

    def __init__(self, chunks: Iterable[str]) -> None:
        self._chunks: Iterator[str] = iter(chunks)
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.line = 1  # line of buf[pos]
        self._offset = 0  # absolute offset of buf[0]
        self._line_start = 0  # absolute offset where the current line starts
        self.newlines = True  # whether values may cross line ends
        self._decoder = _DECODER

    # -- the buffer ---------------------------------------------------------------------------

    def _fill(self) -> bool:
        """Read one more chunk; False at the end of the input."""
        if self.eof:
            return False
        for chunk in self._chunks:
            if chunk:
                if self.pos > MAX_VALUE:
                    self._offset += self.pos
                    self.buf, self.pos = self.buf[self.pos:], 0
                self.buf += chunk
                return True
        self.eof = True
        return False

    def _advance(self, to: int) -> None:
        n = self.buf.count("\n", self.pos, to)
        if n:
            self.line += n
            self._line_start = self._offset + self.buf.rindex("\n", self.pos, to) + 1
        self.pos = to

    @property
    def column(self) -> int:
        """1-based column of the cursor."""
        return self._offset + self.pos - self._line_start + 1

    def error(self, message: str) -> ScanError:
        """A ScanError at the cursor."""
        return ScanError("record-format", f"not JSON: {message.removesuffix(' at')} at line {self.line} "
                         f"column {self.column}")  # json's own messages can end "... at"

    # -- reading ------------------------------------------------------------------------------

    def peek(self) -> str:
        """The next character after whitespace ('' at the end); in line mode a line end is
        returned as '\\n' rather than skipped."""
        while True:
            buf, i, n = self.buf, self.pos, len(self.buf)
            while i < n and buf[i] in WHITESPACE and (self.newlines or buf[i] != "\n"):
                i += 1
            self._advance(i)
            if i < n:
                return buf[i]
            if not self._fill():
                return ""

    def take(self, ch: str, what: str) -> None:
        """Consume `ch` (after whitespace) or fail naming what was expected."""
        got = self.peek()
        if got != ch:
            raise self.error(f"expecting {what}" + (", the line ended" if got == "\n" else ""))
        self._advance(self.pos + 1)

    def value(self) -> Any:
        """Decode one JSON value (at most MAX_VALUE characters) and move past it."""
        first = self.peek()
        if first in ("", "\n"):
            raise self.error("expecting a value" + (", the line ended" if first else ""))
        while True:
            try:
                value, end = self._decoder.raw_decode(self.buf, self.pos)
            except Refused as e:  # final: more input cannot make it strict JSON
                raise self.error(e.msg) from None
            except json.JSONDecodeError as e:
                if not self.newlines and "\n" in self.buf[self.pos:e.pos + 1]:
                    raise self.error("the line ends inside the value") from None  # never the next line's
                line_end = -1 if self.newlines else self.buf.find("\n", self.pos)
                if 0 <= line_end - self.pos <= MAX_VALUE:  # whole line read: more input changes nothing
                    self._advance(max(e.pos, self.pos))
                    raise self.error(e.msg[0].lower() + e.msg[1:]) from None
                if len(self.buf) - self.pos > MAX_VALUE:
                    raise self.error(f"a value longer than {MAX_VALUE:,} characters") from None
                if self._fill():
                    continue
                self._advance(max(e.pos, self.pos))
                raise self.error(e.msg[0].lower() + e.msg[1:]) from None
            except RecursionError:
                raise self.error("arrays and objects nested too deeply") from None
            if end == len(self.buf) and self._fill():
                continue  # a number or literal may go on in the next chunk
            if not self.newlines and "\n" in self.buf[self.pos:end]:
                raise self.error("the line ends inside the value")
            self._advance(end)
            return value

    def skip_line(self) -> None:
        """Move past the next line end (or to the end of the input). A line that goes on for more
        than MAX_VALUE characters ends the input: the rest is not read (an endless stream such
        as /dev/zero is never read to its end)."""
        skipped = 0
        while True:
            i = self.buf.find("\n", self.pos)
            if i >= 0:
                self._advance(i + 1)
                return
            skipped += len(self.buf) - self.pos
            self._offset += len(self.buf)
            self.buf, self.pos = "", 0
            if skipped > MAX_VALUE:
                self.eof = True
                return
            if not self._fill():
                return

    def skip_container_rest(self, depth: int) -> None:
        """Move past the rest of `depth` open arrays or objects, counting brackets outside
        strings (the content is not checked: it belongs to a record already reported)."""
        while True:
            for m in _TOKEN.finditer(self.buf, self.pos):
                token = m.group()
                if token == '"':  # a string that goes on in the next chunk
                    self._advance(m.start())
                    break
                if token in "[{":
                    depth += 1
                elif token in "]}":
                    depth -= 1
                    if depth == 0:
                        self._advance(m.end())
                        return
            else:
                self._advance(len(self.buf))
            if not self._fill():
                raise self.error("the input ends inside a record")
            if len(self.buf) - self.pos > MAX_VALUE:
                raise self.error(f"a string longer than {MAX_VALUE:,} characters")


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|"|[\[\]{}]')
