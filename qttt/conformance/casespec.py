"""A conformance case before the engine computes its expectations, the form every game family's
case list takes."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from typing import Any

Json = Any  # a JSON value as json.loads returns it
MAX_DESCRIPTION = 100  # the longest description a case may have (qttt vectors check)


@dataclass(frozen=True)
class CaseSpec:
    """A case without expectations: its start record, the actions to check and extra rule ids."""

    slug: str
    description: str
    start: tuple[Json, ...]
    steps: tuple[Json, ...]
    refs: tuple[str, ...] = ()
    variant: str | None = None  # None: the ruleset's canonical name
    seed_note: str = field(default="", compare=False)


def seed_of(text: str) -> int:
    """A stable seed derived from a name."""
    return zlib.crc32(text.encode("utf-8"))
