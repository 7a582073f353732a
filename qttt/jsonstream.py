"""Reading JSON a piece at a time: a scanner over text chunks that decodes one small value at a
time, so that a record of millions of actions is checked as it is read, in bounded memory.

The scanner knows line and column numbers for messages, refuses a single value larger than
`MAX_VALUE` characters or nested too deeply, and in line mode refuses a value that crosses a line
end (JSON Lines). Errors are `ScanError` (rule `record-format`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from .bounds import NumberTooLong, json_decoder
from .errors import RecordError

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
        self._decoder = json_decoder()

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
        return ScanError("record-format", f"not JSON: {message} at line {self.line} column {self.column}")

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
            except NumberTooLong as e:
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
