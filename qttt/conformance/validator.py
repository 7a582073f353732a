"""A small JSON Schema validator (standard library only) for the keywords spec/schema/ uses.

Supported: type, const, enum, properties, required, additionalProperties (false or a schema),
items, minItems, maxItems, minLength, maxLength, pattern, minimum, oneOf, anyOf and local
`$ref`s (`#/$defs/...`). Annotations ($schema, $id, title, description, default) are ignored;
any other keyword is refused, so the schema cannot silently use something unchecked.
"""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from ..jsonstream import loads
from ..notation import Json
from ..spec import spec_dir

_ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "default"}
_TYPES: dict[str, Any] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


@cache
def load_schema(name: str) -> Json:
    """A schema of spec/schema/ by file name."""
    return loads((spec_dir() / "schema" / name).read_text(encoding="utf-8"))


def _same(a: Json, b: Json) -> bool:
    return type(a) is type(b) and a == b


class Validator:
    """Validates instances against one root schema; `errors` lists the first problems found."""

    def __init__(self, root: Json) -> None:
        self.root = root

    def errors(self, instance: Json, limit: int = 10) -> list[str]:
        """Up to `limit` messages `path: problem`; empty when the instance is valid."""
        out: list[str] = []
        try:
            self._check(self.root, instance, "$", out, limit)
        except RecursionError:
            return ["$: arrays and objects nested too deeply to check"]
        return out

    def _resolve(self, ref: str) -> Json:
        if not ref.startswith("#/"):
            raise ValueError(f"only local $refs are supported, got {ref!r}")
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node

    def _check(self, schema: Json, v: Json, path: str, out: list[str], limit: int) -> None:
        if len(out) >= limit:
            return
        unknown = set(schema) - _ANNOTATIONS - set(_KEYWORDS)
        if unknown:
            raise ValueError(f"schema keyword(s) not supported: {sorted(unknown)}")
        for key, value in schema.items():
            if key in _KEYWORDS:
                problem = _KEYWORDS[key](self, value, schema, v, path, out, limit)
                if problem:
                    out.append(f"{path}: {problem}")
                    if len(out) >= limit:
                        return

    def closest(self, subs: Json, v: Json, path: str) -> str:
        """For a value that matches none of the alternatives `subs`: the first problem of the
        one it comes closest to (the problem deepest in the value, then the fewest problems)."""
        best: tuple[int, int, str] | None = None
        for sub in subs:
            found: list[str] = []
            self._check(sub, v, path, found, 5)
            if found:
                where = found[0].split(": ", 1)[0]
                key = (-(where.count(".") + where.count("[")), len(found), found[0])
                best = key if best is None or key < best else best
        return best[2] if best else ""

    def valid(self, schema: Json, v: Json) -> bool:
        """Whether `v` satisfies the sub-schema."""
        found: list[str] = []
        self._check(schema, v, "$", found, 1)
        return not found


def _type(self: Validator, t: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    types = t if isinstance(t, list) else [t]
    return "" if any(_TYPES[x](v) for x in types) else f"expected {'/'.join(types)}, got {json.dumps(v)[:60]}"


def _const(self: Validator, c: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    return "" if _same(c, v) else f"expected {json.dumps(c)}, got {json.dumps(v)[:60]}"


def _enum(self: Validator, e: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    return "" if any(_same(x, v) for x in e) else f"{json.dumps(v)[:60]} is not one of {json.dumps(e)}"


def _properties(self: Validator, props: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    if isinstance(v, dict):
        for key, sub in props.items():
            if key in v:
                self._check(sub, v[key], f"{path}.{key}", out, limit)
    return ""


def _required(self: Validator, req: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    missing = [k for k in req if isinstance(v, dict) and k not in v]
    return f"missing {', '.join(missing)}" if missing else ""


def _key(k: str) -> str:
    """An object key as a message shows it: bare when it is a plain name, else as JSON."""
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _additional(self: Validator, extra: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    if not isinstance(v, dict):
        return ""
    others = [k for k in v if k not in s.get("properties", {})]
    if extra is False:
        return f"unexpected {', '.join(_key(k) for k in others)}" if others else ""
    for k in others:
        self._check(extra, v[k], f"{path}.{_key(k)}", out, limit)
    return ""


def _items(self: Validator, sub: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    if isinstance(v, list):
        for i, item in enumerate(v):
            self._check(sub, item, f"{path}[{i}]", out, limit)
    return ""


def _size(kind: Any, low: bool, what: str) -> Any:
    def check(self: Validator, n: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
        if not isinstance(v, kind) or isinstance(v, bool):
            return ""
        size = len(v) if what else v
        bad = size < n if low else size > n
        return f"{what or 'value'} {size} is {'below' if low else 'above'} {n}" if bad else ""
    return check


def _pattern(self: Validator, p: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    return "" if not isinstance(v, str) or re.search(p, v) else f"{v[:60]!r} does not match {p}"


def _one_of(self: Validator, subs: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    matches = sum(self.valid(sub, v) for sub in subs)
    if matches == 1:
        return ""
    if matches == 0:
        return f"matches none of the {len(subs)} alternatives; closest: {self.closest(subs, v, path)}"
    return f"matches {matches} of the alternatives, not exactly one"


def _any_of(self: Validator, subs: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    if any(self.valid(sub, v) for sub in subs):
        return ""
    return f"matches none of the alternatives; closest: {self.closest(subs, v, path)}"


def _ref(self: Validator, ref: Json, s: Json, v: Json, path: str, out: list[str], limit: int) -> str:
    self._check(self._resolve(ref), v, path, out, limit)
    return ""


_KEYWORDS: dict[str, Any] = {
    "type": _type, "const": _const, "enum": _enum, "properties": _properties, "required": _required,
    "additionalProperties": _additional, "items": _items, "pattern": _pattern, "oneOf": _one_of,
    "anyOf": _any_of, "$ref": _ref,
    "minItems": _size(list, True, "length"), "maxItems": _size(list, False, "length"),
    "minLength": _size(str, True, "length"), "maxLength": _size(str, False, "length"),
    "minimum": _size((int, float), True, ""),
}
