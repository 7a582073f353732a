"""Variant files: TOML rulesets, `extends` inheritance and the built-in rulesets (rule
`variant-file`), and `load_ruleset`, which reads a built-in name, a canonical name or a file.

A ruleset is a record of parameters; the engine interprets it. Built-in rulesets live in
spec/variants/*.toml; a user's file usually `extends` one and changes a few keys.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from .canonical import cut, parse_name
from .errors import VariantError
from .io import input_problem, parse_toml, read_text
from .ruleset import (
    MatchRules,
    Ruleset,
    changed,
    changes,
    check_scoring_game,
    components,
    default_ruleset,
    merge_params,
    refit,
)
from .safe import shown
from .spec import spec_dir
from .vocabulary import (
    MATCH_FIELDS,
    PARAMETER_BY_NAME,
    QUANTUM,
    RULE,
    check_param,
    fraction,
    only_keys,
    toml_text,
)


@cache
def _builtin_order() -> tuple[str, ...]:
    """The built-in rulesets' names (their files' names), in a fixed order."""
    order = ("wikipedia", "russian", "russian-unstable", "bonus4x4", "kumar", "ishizeki-complete",
             "intelligent")
    found = sorted(p.stem for p in (spec_dir() / "variants").glob("*.toml"))
    return tuple([n for n in order if n in found] + [n for n in found if n not in order])


@cache
def _builtin_games() -> dict[str, str]:
    """Each built-in ruleset's name and game family, in a fixed order."""
    games = {}
    for name in _builtin_order():
        with open(spec_dir() / "variants" / f"{name}.toml", "rb") as f:
            games[name] = str(tomllib.load(f).get("rules", {}).get("game", QUANTUM))
    return games


def builtin_names(game: str | None = QUANTUM) -> tuple[str, ...]:
    """Names of the built-in rulesets of one game family (None: every family), in a fixed order."""
    if game is None:  # without reading every file for its family
        return _builtin_order()
    return tuple(n for n, g in _builtin_games().items() if g == game)


def load_ruleset(spec: str | Path) -> Ruleset:
    """A ruleset from a built-in name, a canonical name or a variant file path."""
    text = str(spec)
    if isinstance(spec, str):
        if text in builtin_names(None):
            return _load_builtin(text)
        if "(" in text and text.endswith(")") and not _is_file(Path(text)):
            return parse_canonical(text)
    path = Path(text)
    if path.suffix == ".toml" or _exists(path):
        problem = input_problem(path)
        if problem is not None:
            raise VariantError("record-variant", f"variant file {_cut_path(text)} {problem}")
        return _load_file(_real(path))
    raise VariantError("record-variant", f"unknown ruleset {cut(text)}; built-in rulesets: "
                       + ", ".join(builtin_names(None)) + ", or a path to a .toml variant file")


def _is_file(path: Path) -> bool:
    """Whether `path` is a file; False for a name the system cannot even look up (too long)."""
    try:
        return path.is_file()
    except (OSError, ValueError):
        return False


def _exists(path: Path) -> bool:
    """Whether anything (a broken or looping symbolic link too) has the name `path`."""
    try:
        return os.path.lexists(path)
    except (OSError, ValueError):
        return False


def _real(path: Path) -> Path:
    """`path` absolute with symbolic links followed (never raising on a loop: the input layer
    names it when the file is opened)."""
    return Path(os.path.realpath(path))


def _cut_path(text: str, width: int = 240) -> str:
    """A path quoted for a message; a long one keeps its start and its file name."""
    quoted = repr(text)
    return quoted if len(quoted) <= width else quoted[:width // 3] + "..." + quoted[-(2 * width // 3):]


@cache
def _load_builtin(name: str) -> Ruleset:
    return _load_file(_real(spec_dir() / "variants" / f"{name}.toml"))


EXTENDS_DEPTH = 32  # variant files in one `extends` chain, the file itself included


def _load_file(path: Path) -> Ruleset:
    """A variant file over the chain of files it extends, read one after another (never
    recursively): at most EXTENDS_DEPTH files, a cycle named with its chain (rule variant-file)."""
    chain = [(path, _read_file(path))]
    parent: Ruleset | None = None
    while parent is None:
        here, data = chain[-1]
        parent, target = _parent(data["variant"].get("extends"), here, [p for p, _ in chain])
        if target is not None:
            if len(chain) >= EXTENDS_DEPTH:
                raise VariantError(RULE, f"{path}: extends a chain of more than {EXTENDS_DEPTH} files "
                                   f"({path.name} -> {chain[1][0].name} -> ... -> {target.name}); "
                                   f"allowed: at most {EXTENDS_DEPTH}")
            chain.append((target, _read_file(target)))
    ruleset = parent
    for here, data in reversed(chain):
        ruleset = _build(here, data, ruleset)
    return ruleset


def _read_file(path: Path) -> dict[str, Any]:
    """A variant file's TOML, its [variant] table checked."""
    where = str(path)
    data = parse_toml(read_text(path, RULE), where, lambda why: VariantError(RULE, why))
    only_keys(data, ("variant", "rules", "scoring", "match"), where, "top level")
    meta = data.get("variant")
    if not isinstance(meta, dict):
        raise VariantError(RULE, f"{where}: missing [variant] table with a name")
    only_keys(meta, ("name", "extends", "title", "summary", "sources", "notes"), where, "variant")
    name = meta.get("name")
    if name is None:
        raise VariantError(RULE, f"{where}: variant.name is missing; it is a non-empty string")
    if not isinstance(name, str) or not name.strip():
        raise VariantError(RULE, f"{where}: variant.name = {toml_text(name)} is not allowed; "
                           "allowed: a string with a letter or digit, not only white space")
    for key in ("title", "summary", "notes", "extends"):
        if key in meta and not isinstance(meta[key], str):
            raise VariantError(RULE, f"{where}: variant.{key} = {toml_text(meta[key])} is not allowed; "
                               "allowed: a string")
    sources = meta.get("sources", [])
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        raise VariantError(RULE, f"{where}: variant.sources = {toml_text(sources)} is not allowed; "
                           "allowed: a list of strings")
    return data


def _build(path: Path, data: dict[str, Any], parent: Ruleset) -> Ruleset:
    """The ruleset of a variant file read by _read_file, over its parent's."""
    where = str(path)
    meta = data["variant"]
    rules = data.get("rules", {})
    if not isinstance(rules, dict):
        raise VariantError(RULE, f"{where}: rules must be a table")
    only_keys(rules, tuple(PARAMETER_BY_NAME), where, "rules")
    values = {k: check_param(PARAMETER_BY_NAME[k], v, where, "rules.") for k, v in rules.items()}
    origin = parent.path or f"ruleset {parent.name!r}"
    params = merge_params(parent.rules, values, where, origin)
    scoring = parent.scoring
    if "scoring" in data:
        scoring = components(data["scoring"], where, params)
    else:
        refit(scoring, params, where, origin)
    check_scoring_game(scoring, params, where)
    match = _match(data.get("match", {}), parent.match, where)
    is_builtin = path.parent == _real(spec_dir() / "variants")
    name = shown(meta["name"])
    base = name if is_builtin else parent.base
    changed_keys = ", ".join(changes(Ruleset(params, scoring), parent))
    inherited = parent.title if not changed_keys else f"{parent.name} with {changed_keys}"
    basis = None if is_builtin or parent.base == "qttt" else parent.based_on
    return Ruleset(rules=params, scoring=scoring, name=name, base=base, match=match, basis=basis,
                   title=shown(meta.get("title", inherited if not is_builtin else "")),
                   summary=shown(meta.get("summary", "")),
                   sources=tuple(shown(s) for s in meta.get("sources", [])) or parent.sources,
                   path=str(path))


def _match(raw: Any, parent: MatchRules, where: str) -> MatchRules:
    """The [match] table over the parent's settings (rule variant-file)."""
    if not isinstance(raw, dict):
        raise VariantError(RULE, f"{where}: match must be a table")
    only_keys(raw, tuple(MATCH_FIELDS), where, "match")
    out = parent
    for key in ("move_seconds", "game_seconds"):
        if key in raw:
            given = raw[key]
            value = fraction(str(given) if isinstance(given, float) else given, f"{where}: match.{key}")
            if value < 0:
                raise VariantError(RULE, f"{where}: match.{key} = {toml_text(raw[key])} is not allowed; "
                                   "allowed: a number of seconds >= 0 (0: no limit)")
            out = replace(out, move_seconds=value) if key == "move_seconds" else \
                replace(out, game_seconds=value)
    if "forfeit" in raw:
        pair = raw["forfeit"]
        if not isinstance(pair, list) or len(pair) != 2:
            raise VariantError(RULE, f"{where}: match.forfeit = {toml_text(pair)} is not allowed; allowed: "
                               "[points to the opponent, points to the player who forfeits]")
        won, lost = (fraction(v, f"{where}: match.forfeit") for v in pair)
        out = replace(out, forfeit=(won, lost))
    return out


def _parent(extends: str | None, path: Path, chain: list[Path]) -> tuple[Ruleset | None, Path | None]:
    """What `extends` names: a ruleset (a built-in or canonical name, or none: the defaults), or
    the next variant file to read; a file already in `chain` is a cycle."""
    target: Path | None = None
    if extends is None:
        return default_ruleset(), None
    if extends in builtin_names(None):
        target = _real(spec_dir() / "variants" / f"{extends}.toml")
        if target not in chain:
            return _load_builtin(extends), None
    elif "(" in extends and extends.endswith(")") and not _exists(path.parent / extends):
        return parse_canonical(extends), None
    else:
        given = path.parent / extends
        problem = input_problem(given)
        if problem is not None:
            what = "not found" if problem == "does not exist" else problem
            raise VariantError(RULE, f"{path}: variant.extends = {cut(extends)}: file "
                               f"{_cut_path(str(given))} {what}; extends names a built-in ruleset ("
                               + ", ".join(builtin_names(None)) + "), a canonical name or a variant "
                               "file, relative to this file")
        target = _real(given)
    if target in chain:
        raise VariantError(RULE, f"{chain[0]}: extends itself through "
                           + " -> ".join(p.name for p in (*chain, target)))
    return None, target


def parse_canonical(text: str) -> Ruleset:
    """Parse `base(key=value,...)`: base is a built-in name or `qttt` (all defaults)."""
    where = f"ruleset name {cut(text)}"
    base, change = parse_name(text, where)
    if base == "qttt":
        rs = default_ruleset()
    elif base in builtin_names(None):
        rs = _load_builtin(base)
    else:
        raise VariantError("record-variant", f"{where}: unknown base {base!r}; allowed: qttt, "
                           + ", ".join(builtin_names(None)))
    return changed(rs, change, where)
