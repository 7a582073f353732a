"""The worked examples of the documentation, read from spec/examples.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

from ..spec import spec_dir


@dataclass(frozen=True)
class Example:
    """A worked example: a game record in human notation and what it shows."""

    slug: str
    title: str
    notation: str
    shows: str


def _load() -> dict[str, Any]:
    with open(spec_dir() / "examples.toml", "rb") as f:
        return tomllib.load(f)


_DATA = _load()
INTRO = Example(**_DATA["intro"])
EXAMPLES: dict[str, tuple[Example, ...]] = {
    name: tuple(Example(**e) for e in exs) for name, exs in _DATA["example"].items()}
