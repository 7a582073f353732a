"""The worked examples of the documentation, read from spec/examples.toml, and the committed
contrasts and branch values that annotate them (results/contrasts.json)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from typing import Any

from ..jsonstream import loads
from ..spec import results_dir, spec_dir


@dataclass(frozen=True)
class Example:
    """A worked example: a game record in human notation, what it shows, the checks its title
    claims and the source it reproduces, if any."""

    slug: str
    title: str
    notation: str
    shows: str
    proves: tuple[str, ...] = ()
    source: str = ""


def _load() -> dict[str, Any]:
    with open(spec_dir() / "examples.toml", "rb") as f:
        return tomllib.load(f)


def _example(e: dict[str, Any]) -> Example:
    return Example(**{**e, "proves": tuple(e.get("proves", ()))})


def contrasts() -> dict[str, Any]:
    """results/contrasts.json: games telling rulesets apart and the examples' branch values."""
    path = results_dir() / "contrasts.json"
    data: dict[str, Any] = loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return data


_DATA = _load()
INTRO = _example(_DATA["intro"])
EXAMPLES: dict[str, tuple[Example, ...]] = {
    name: tuple(_example(e) for e in exs) for name, exs in _DATA["example"].items()}
