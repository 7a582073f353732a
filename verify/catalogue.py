"""The checker's catalogue over every family: the statuses a property can have, what a property
is, and each family's properties (its `catalogue` tool: a module with PROPERTIES and NOTES, the
sentences its reports use keyed by a walk's key), in registry order. Property ids are stable,
never reused."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Protocol

from qttt.family import families, load

STATUSES = ("proved", "exhaustive", "classes", "sampled", "unknown", "accepted", "violated", "error")
"""From least to most severe: proved for every game (Z3, or exhaustive analysis of the rules); the
engine checked at every reachable position (a walk without merging); the engine checked on one
position per class of positions the rules cannot tell apart (shape classes with relabelled
members of each in the quantum family; symmetric images and unread cells in the classical and
nested ones), every move out of it compared; the engine checked in sampled games (or on a walk
of only the first plies); not settled; violated in a way the ambiguity register documents (a game
shows it; `--strict` fails on it); violated (a game, replayed from the start under the real
rules, shows the failure); the checker itself failed. A property's status is the weakest of the
parts that settle it, and its label says how each part was settled. Nothing is settled by hand:
every status names what a machine did."""
LABELS = {"proved": "proved", "exhaustive": "exhaustive (engine)", "classes": "shape classes (engine)",
          "sampled": "sampled (engine)", "unknown": "unknown",
          "accepted": "violated (accepted)", "violated": "violated", "error": "checker error"}


@dataclass(frozen=True)
class Property:
    """A property: its stable id, a plain statement, the rule ids it rests on (spec/rules.toml),
    the rulesets it applies to and how the checker settles it."""

    id: str
    title: str
    statement: str
    rules: tuple[str, ...]
    applies_to: str
    method: str



class Catalogue(Protocol):
    """A family's catalogue module."""

    PROPERTIES: tuple[Property, ...]
    NOTES: Mapping[str, str]


@cache
def catalogues() -> tuple[Catalogue, ...]:
    """The catalogue of every family that has one, in registry order."""
    return tuple(load(f.tools["catalogue"]) for f in families() if "catalogue" in f.tools)


def properties() -> tuple[Property, ...]:
    """Every family's properties."""
    return tuple(p for c in catalogues() for p in c.PROPERTIES)


@cache
def by_id() -> dict[str, Property]:
    """Every property by its id."""
    return {p.id: p for p in properties()}


def notes() -> dict[str, str]:
    """What each key of a walk means, over every family."""
    return {key: text for c in catalogues() for key, text in c.NOTES.items()}
