"""processes.write_pieces against a model of writing the pieces one after another in one process:
pieces of parts for two outputs (the same pipe, a file written at its places and a pipe, functions
fed from the relay), some the last, some failing (made or raising after their parts), each made
knowing the measures of the pieces before it, on any number of workers."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from qttt.errors import QtttError
from qttt.processes import Output, Piece, Written, write_pieces

PIECE = st.fixed_dictionaries({
    "parts": st.lists(st.tuples(st.integers(0, 1), st.sampled_from([0, 3, 5000, 90_000])), max_size=4),
    "measure": st.integers(0, 9),
    "end": st.sampled_from(["none"] * 6 + ["last", "fails", "raises"]),
})


def made(spec: list[dict[str, Any]], i: int, before: int) -> Piece:
    """Piece i: its parts' bytes name the piece, the part and `before`."""
    p = spec[i]
    if p["end"] == "fails":
        raise QtttError(None, f"piece {i} cannot be made")
    parts = [(out, (f"<{i}.{k}.{before}>".encode() * size)[:size])
             for k, (out, size) in enumerate(p["parts"])]
    return Piece(parts, last=p["end"] == "last", note=i,
                 error=QtttError(None, f"piece {i} failed") if p["end"] == "raises" else None)


def model(spec: list[dict[str, Any]]) -> tuple[list[tuple[int, bytes]], list[int], str | None]:
    """The parts written in order, the notes, and the error, writing one piece after another."""
    parts: list[tuple[int, bytes]] = []
    notes: list[int] = []
    before = 0
    for i, p in enumerate(spec):
        if p["end"] == "fails":
            return parts, notes, f"piece {i} cannot be made"
        piece = made(spec, i, before)
        parts += [(out, data) for out, data in piece.parts if data]
        if p["end"] == "raises":
            return parts, notes, f"piece {i} failed"
        notes.append(i)
        if p["end"] == "last":
            break
        before += p["measure"]
    return parts, notes, None


def joined(parts: list[tuple[int, bytes]], out: int | None = None) -> bytes:
    return b"".join(data for o, data in parts if out is None or o == out)


def drain(fd: int, into: list[bytes]) -> threading.Thread:
    reader = threading.Thread(target=lambda: into.extend(iter(lambda: os.read(fd, 1 << 16), b"")))
    reader.start()
    return reader


@settings(max_examples=examples(60), deadline=None)
@given(spec=st.lists(PIECE, min_size=1, max_size=9), workers=st.integers(1, 4),
       kind=st.sampled_from(["one pipe", "file and pipe", "functions"]))
def test_pieces_are_written_as_one_process_writes_them(spec: list[dict[str, Any]], workers: int, kind: str,
                                                       tmp_path_factory: pytest.TempPathFactory) -> None:
    parts, notes, error = model(spec)
    got: list[tuple[int, bytes]] = []
    result: Written | None = None
    failure: str | None = None

    def run(outs: list[Output], positioned: bool = False) -> None:
        nonlocal result, failure
        try:
            result = write_pieces(outs, len(spec), lambda i, before: made(spec, i, before), workers,
                                  positioned=positioned, measure=lambda i: int(spec[i]["measure"]))
        except QtttError as e:
            failure = e.message

    if kind == "functions":
        run([lambda data: got.append((0, data)), lambda data: got.append((1, data))])
        merged: list[tuple[int, bytes]] = []
        for which, data in got:  # parts arrive in pieces: join those of one part
            if merged and merged[-1][0] == which:
                merged[-1] = (which, merged[-1][1] + data)
            else:
                merged.append((which, data))
        expected: list[tuple[int, bytes]] = []
        for which, data in parts:
            if expected and expected[-1][0] == which:
                expected[-1] = (which, expected[-1][1] + data)
            else:
                expected.append((which, data))
        assert merged == expected
    elif kind == "one pipe":  # both outputs to one pipe: the order of every part shows
        r, w = os.pipe()
        out: list[bytes] = []
        reader = drain(r, out)
        try:
            run([w, w])
        finally:
            os.close(w)
            reader.join()
            os.close(r)
        assert b"".join(out) == joined(parts)
    else:
        path = tmp_path_factory.mktemp("pieces") / "zero"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT)
        r, w = os.pipe()
        out = []
        reader = drain(r, out)
        try:
            run([fd, w], positioned=True)
        finally:
            os.close(fd)
            os.close(w)
            reader.join()
            os.close(r)
        assert path.read_bytes() == joined(parts, 0)  # a failing piece writes its parts first
        assert b"".join(out) == joined(parts, 1)
    assert failure == error
    if error is None:
        assert result == Written(len(joined(parts, 0)), notes)


def test_a_failure_to_measure_writes_nothing() -> None:
    got: list[bytes] = []

    def measure(i: int) -> int:
        if i == 3:
            raise QtttError(None, "piece 3 cannot be measured")
        return 1
    with pytest.raises(QtttError, match="cannot be measured"):
        write_pieces([got.append], 6, lambda i, before: b"x", 3, measure=measure)
    assert got == []


def test_a_file_written_at_its_places_ends_where_it_would(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"head:")
    with open(path, "r+b") as f:
        f.seek(0, os.SEEK_END)
        done = write_pieces([f.fileno()], 5, lambda i, before: bytes([48 + i]) * (i * 1000), 3,
                            positioned=True)
        f.write(b":tail")
    assert done.size == sum(i * 1000 for i in range(5))
    assert path.read_bytes() == b"head:" + b"".join(bytes([48 + i]) * (i * 1000) for i in range(5)) + b":tail"
