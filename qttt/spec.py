"""Locating the normative data in spec/: the rule catalogue and the built-in variant files."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path


def spec_dir() -> Path:
    """The spec/ directory: beside the package in a source tree, inside it when installed."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "spec", here / "_spec"):
        if (candidate / "rules.toml").is_file():
            return candidate
    raise FileNotFoundError("spec/ directory not found beside or inside the qttt package")


def results_dir() -> Path:
    """The results/ directory (computed results: analysis tables, the verification report, the
    contrasts), kept apart from the normative spec/: beside spec/ in a source tree, inside the
    package when installed."""
    here = Path(__file__).resolve().parent
    for candidate in (here.parent / "results", here / "_results"):
        if candidate.is_dir():
            return candidate
    return here.parent / "results"


@dataclass(frozen=True)
class Rule:
    """One rule of the catalogue."""

    id: str
    scope: str
    title: str
    statement: str


@cache
def rules() -> dict[str, Rule]:
    """Every rule of spec/rules.toml by id, in catalogue order."""
    with open(spec_dir() / "rules.toml", "rb") as f:
        data = tomllib.load(f)
    return {r["id"]: Rule(r["id"], r["scope"], r["title"], r["statement"]) for r in data["rule"]}
