"""Functions the tests of verify.isolated run in its child process (importable there: the child
sees the caller's module path)."""

from __future__ import annotations

import ctypes
import os
import time


def double(x: int) -> int:
    return 2 * x


def crash() -> None:
    ctypes.string_at(0)  # reads address 0: SIGSEGV


def hang() -> None:
    while True:
        time.sleep(1)


def fail() -> None:
    raise ValueError("as asked")


def noisy() -> int:
    print("printed by the function")
    return 7


def exits() -> None:
    os._exit(3)
