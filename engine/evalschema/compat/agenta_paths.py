"""Agenta's path resolution (``resolve_any``), reproduced for JSON Multi-Field Match.

Dot notation, JSON Pointer (python-jsonpath's, non-standard parts included) and a
subset of JSONPath: ``$``, ``.name``, ``['name']``, ``[n]`` (an index on an object
reads the key ``"n"``, as python-jsonpath does), ``[*]``, ``.*``, slices, unions and
``..`` descent. Filters, functions and the non-standard key selectors raise
CompatInputError instead of guessing. Apart from ``agenta`` (the evaluators) because
it is a small path language of its own: one seam, one module each.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass
from typing import Any

from evalschema.compat._explain import Parts
from evalschema.compat.errors import CompatInputError


@dataclass(frozen=True, slots=True)
class Found:
    """A resolved value and where it is (``parts`` is None for multi-match lists)."""

    value: Any
    parts: Parts | None


def resolve_path(data: Any, expr: str) -> Found | None:
    """What ``_get_nested_value`` returns, with its location; None when it gives None."""
    if data is None:
        return None
    if expr.startswith("$"):
        return _resolve_jsonpath(data, expr)
    if expr.startswith("/"):
        return _resolve_pointer(data, expr)
    return _resolve_dots(data, expr)


# -- dot notation ----------------------------------------------------------------


def _resolve_dots(data: Any, expr: str) -> Found | None:
    if not expr or "[" in expr or "]" in expr:
        return None
    if isinstance(data, dict):
        if expr in data:
            return Found(data[expr], (expr,))
    elif not isinstance(data, list) or expr in data:
        # A string, number or bool root, or a list holding the path itself: Agenta's
        # ``expr in data`` / ``data[expr]`` raises there, which reads as no value.
        return None
    tokens = [t for t in expr.split(".") if t]
    if not tokens:
        return None
    node: Any = data
    parts: list[str | int] = []
    for token in tokens:
        if isinstance(node, list) and token.isdigit():
            try:
                index = int(token)
            except ValueError:  # str.isdigit() accepts digits int() rejects ("²")
                return None
            if index >= len(node):
                return None
            node = node[index]
            parts.append(index)
        elif isinstance(node, dict) and token in node:
            node = node[token]
            parts.append(token)
        else:
            return None
    return Found(node, tuple(parts))


# -- JSON Pointer (python-jsonpath's JSONPointer, non-standard parts included) --------

_MAX_INDEX = 2**53 - 1
_PROBABLY_MALFORMED = re.compile(r"[{}\[\]]")
_INDEX_POINTER = re.compile(r"#[1-9]\d*")


class _NoValue(Exception):
    """Resolution failed; Agenta turns every such failure into None."""


def _load_root(data: Any) -> Any:
    """python-jsonpath reads a string document as JSON text (a plain word stays a string)."""
    if not isinstance(data, str):
        return data
    try:
        return json.loads(data)
    except ValueError as exc:
        if _PROBABLY_MALFORMED.search(data):
            raise _NoValue from exc
        return data


def _resolve_pointer(data: Any, expr: str) -> Found | None:
    try:
        text = _unicode_unescape(expr).lstrip()
        if text and not text.startswith("/"):
            return None
        tokens = [p.replace("~1", "/").replace("~0", "~") for p in text.split("/")][1:]
        node: Any = _load_root(data)
        parts: list[str | int] | None = []
        for token in tokens:
            node, step = _pointer_step(node, token)
            parts = None if parts is None or step is None else [*parts, step]
    except (_NoValue, RecursionError):
        return None
    return Found(node, None if parts is None else tuple(parts))


def _unicode_unescape(text: str) -> str:
    """JSONPointer decodes backslash escapes (UTF-16 pairs included) before parsing."""
    try:
        return (
            codecs.decode(text.replace("\\/", "/"), "unicode-escape")
            .encode("utf-16", "surrogatepass")
            .decode("utf-16")
        )
    except (UnicodeError, ValueError) as exc:
        raise _NoValue from exc


def _pointer_step(node: Any, token: str) -> tuple[Any, str | int | None]:
    """One pointer step: (value, location part or None when the value is not at a location)."""
    if isinstance(node, list):
        index = _pointer_index(token)
        if index is not None:
            if index >= len(node):
                raise _NoValue
            return node[index], index
        return _sequence_quirk(node, token), None
    if isinstance(node, dict):
        if token in node:
            return node[token], token
        if token[:1] in ("~", "#") and token[1:] in node:
            return token[1:], None  # a "key pointer" yields the key itself
        raise _NoValue
    if isinstance(node, str):
        return _sequence_quirk(node, token), None
    raise _NoValue


def _pointer_index(token: str) -> int | None:
    if len(token) > 1 and token.startswith("0"):
        return None
    try:
        index = int(token)
    except ValueError:
        return None
    if index < 0 or index > _MAX_INDEX:
        raise _NoValue
    return index


def _sequence_quirk(node: list[Any] | str, token: str) -> int:
    """``#N`` on an array or string yields the index N itself; anything else fails."""
    if token != "-" and _INDEX_POINTER.match(token):
        try:
            index = int(token[1:])
        except ValueError as exc:
            raise _NoValue from exc
        if index < len(node):
            return index
    raise _NoValue


# -- JSONPath (subset) ---------------------------------------------------------------

_NAME = re.compile(r"[\u0080-\uFFFFa-zA-Z_][\u0080-\uFFFFa-zA-Z0-9_-]*")
_INT = r"-?(?:0|[1-9]\d*)"
_INDEX_OR_SLICE = re.compile(
    rf"(?P<start>{_INT})?\s*(?:(?P<c1>:)\s*(?P<stop>{_INT})?\s*(?:(?P<c2>:)\s*(?P<step>{_INT})?)?)?"
)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "/": "/", "\\": "\\"}

Selector = tuple[Any, ...]  # ("name", str) | ("index", int) | ("wild",) | ("slice", a, b, c)


@dataclass(frozen=True, slots=True)
class _Segment:
    descendant: bool
    selectors: tuple[Selector, ...]


def _resolve_jsonpath(data: Any, expr: str) -> Found | None:
    if not (expr == "$" or expr.startswith("$.") or expr.startswith("$[")):
        return None  # Agenta's own prefix check raises ValueError: no value
    segments = _parse(expr)
    try:
        root = _load_root(data)
    except _NoValue:
        return None
    nodes: list[tuple[Any, Parts]] = [(root, ())]
    for segment in segments:
        nodes = _apply(segment, nodes)
    if not nodes:
        return None
    if len(nodes) == 1:
        return Found(nodes[0][0], nodes[0][1])
    return Found([value for value, _ in nodes], None)


def _syntax(expr: str, pos: int, what: str) -> CompatInputError:
    return CompatInputError(
        f"invalid JSONPath {expr!r} at {pos}: {what}", original="JSONPathSyntaxError"
    )


def _unsupported(expr: str, pos: int) -> CompatInputError:
    return CompatInputError(
        f"JSONPath {expr!r} uses syntax at {pos} that evalschema.compat does not implement "
        "(filters, functions, key selectors); use a dot path or a JSON Pointer"
    )


def _parse(expr: str) -> list[_Segment]:
    segments: list[_Segment] = []
    i, n = 1, len(expr)
    while True:
        while i < n and expr[i].isspace():
            i += 1
        if i >= n:
            return segments
        if expr.startswith("..", i):
            i += 2
            if i < n and expr[i] == "[":
                selectors, i = _parse_bracket(expr, i)
            else:
                selectors, i = _parse_shorthand(expr, i)
            segments.append(_Segment(True, selectors))
        elif expr[i] == ".":
            selectors, i = _parse_shorthand(expr, i + 1)
            segments.append(_Segment(False, selectors))
        elif expr[i] == "[":
            selectors, i = _parse_bracket(expr, i)
            segments.append(_Segment(False, selectors))
        else:
            raise _syntax(expr, i, "expected '.', '..' or '['")


def _parse_shorthand(expr: str, i: int) -> tuple[tuple[Selector, ...], int]:
    if expr.startswith("*", i):
        return (("wild",),), i + 1
    m = _NAME.match(expr, i)
    if m is None:
        if expr.startswith("~", i):
            raise _unsupported(expr, i)
        raise _syntax(expr, i, "expected a shorthand selector")
    return (("name", m.group()),), m.end()


def _parse_bracket(expr: str, i: int) -> tuple[tuple[Selector, ...], int]:
    selectors: list[Selector] = []
    i += 1
    while True:
        i = _skip_ws(expr, i)
        selector, i = _parse_selector(expr, i)
        selectors.append(selector)
        i = _skip_ws(expr, i)
        if expr.startswith("]", i):
            return tuple(selectors), i + 1
        if not expr.startswith(",", i):
            raise _syntax(expr, i, "expected ',' or ']'")
        i += 1


def _skip_ws(expr: str, i: int) -> int:
    while i < len(expr) and expr[i].isspace():
        i += 1
    return i


def _parse_selector(expr: str, i: int) -> tuple[Selector, int]:
    ch = expr[i : i + 1]
    if ch == "*":
        return ("wild",), i + 1
    if ch in ("'", '"'):
        name, i = _parse_string(expr, i)
        return ("name", name), i
    if ch and (ch.isdigit() or ch in "-:"):
        return _parse_index_or_slice(expr, i)
    if not ch:
        raise _syntax(expr, i, "unexpected end")
    raise _unsupported(expr, i)


def _parse_index_or_slice(expr: str, i: int) -> tuple[Selector, int]:
    m = _INDEX_OR_SLICE.match(expr, i)
    if m is None or m.end() == i:
        raise _syntax(expr, i, "bad index")
    nxt = _skip_ws(expr, m.end())
    if nxt < len(expr) and expr[nxt].isdigit():
        raise _syntax(expr, i, "leading zero in index selector")
    start, stop, step = (None if g is None else int(g) for g in m.group("start", "stop", "step"))
    if m.group("c1") is None:
        if start is None or m.group("start") == "-0":
            raise _syntax(expr, i, "bad index")
        return ("index", start), m.end()
    return ("slice", start, stop, step), m.end()


def _parse_string(expr: str, i: int) -> tuple[str, int]:
    quote, i = expr[i], i + 1
    out: list[str] = []
    while i < len(expr):
        ch = expr[i]
        if ch == quote:
            return "".join(out), i + 1
        if ch != "\\":
            out.append(ch)
            i += 1
            continue
        esc = expr[i + 1 : i + 2]
        if esc == quote:
            out.append(quote)
            i += 2
        elif esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            i += 2
        elif esc == "u":
            char, i = _parse_unicode(expr, i)
            out.append(char)
        else:
            raise _syntax(expr, i, "invalid escape")
    raise _syntax(expr, i, "unterminated string")


def _parse_unicode(expr: str, i: int) -> tuple[str, int]:
    """``\\uXXXX``, joining a surrogate pair into one character."""
    code = _hex4(expr, i + 2)
    i += 6
    if 0xD800 <= code <= 0xDBFF and expr.startswith("\\u", i):
        low = _hex4(expr, i + 2)
        if 0xDC00 <= low <= 0xDFFF:
            return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), i + 6
    return chr(code), i


def _hex4(expr: str, i: int) -> int:
    digits = expr[i : i + 4]
    if len(digits) != 4 or any(c not in "0123456789abcdefABCDEF" for c in digits):
        raise _syntax(expr, i, "invalid \\u escape")
    return int(digits, 16)


def _apply(segment: _Segment, nodes: list[tuple[Any, Parts]]) -> list[tuple[Any, Parts]]:
    out: list[tuple[Any, Parts]] = []
    for node in nodes:
        visits = _descendants(node) if segment.descendant else [node]
        for value, parts in visits:
            for selector in segment.selectors:
                out.extend(_select(selector, value, parts))
    return out


def _descendants(node: tuple[Any, Parts]) -> list[tuple[Any, Parts]]:
    """The node and every node below it, in document pre-order."""
    out = [node]
    value, parts = node
    if isinstance(value, dict):
        for key, child in value.items():
            out.extend(_descendants((child, (*parts, key))))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            out.extend(_descendants((child, (*parts, index))))
    return out


def _select(selector: Selector, value: Any, parts: Parts) -> list[tuple[Any, Parts]]:
    kind = selector[0]
    if kind == "wild":
        if isinstance(value, dict):
            return [(v, (*parts, k)) for k, v in value.items()]
        if isinstance(value, list):
            return [(v, (*parts, i)) for i, v in enumerate(value)]
        return []
    if kind == "name":
        name = selector[1]
        return [(value[name], (*parts, name))] if isinstance(value, dict) and name in value else []
    if kind == "index":
        return _select_index(selector[1], value, parts)
    if not isinstance(value, list | str) or selector[3] == 0:
        return []  # python-jsonpath slices any sequence, strings included
    indices = range(*slice(selector[1], selector[2], selector[3]).indices(len(value)))
    return [(value[i], (*parts, i)) for i in indices]


def _select_index(index: int, value: Any, parts: Parts) -> list[tuple[Any, Parts]]:
    if isinstance(value, dict):
        key = str(index)  # python-jsonpath (non-strict) reads an index on an object as a key
        return [(value[key], (*parts, key))] if key in value else []
    if isinstance(value, list):
        i = index + len(value) if index < 0 else index
        return [(value[i], (*parts, i))] if 0 <= i < len(value) else []
    return []
