"""RFC 6901 JSON Pointers and the path notations users type.

Results carry pointers; users select fields with dot paths, JSONPath-like ``$.a.b``
or pointers. One module turns all of them into the same segments.
"""

from __future__ import annotations

import re
from typing import Any

_INDEX = re.compile(r"\[(\d*|\*)\]")


def escape(segment: str) -> str:
    return segment.replace("~", "~0").replace("/", "~1")


def unescape(segment: str) -> str:
    return segment.replace("~1", "/").replace("~0", "~")


def join(pointer: str, segment: str | int) -> str:
    return f"{pointer}/{escape(str(segment))}"


def split(pointer: str) -> list[str]:
    """Segments of a pointer ("" is the whole document)."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"JSON Pointer must start with '/': {pointer!r}")
    return [unescape(s) for s in pointer[1:].split("/")]


_MISSING = object()


def resolve(document: Any, pointer: str, default: Any = _MISSING) -> Any:
    """The value at ``pointer``; ``default`` (or KeyError) when it is not there."""
    node = document
    for seg in split(pointer):
        if isinstance(node, dict) and seg in node:
            node = node[seg]
        elif isinstance(node, list) and seg.isdigit() and int(seg) < len(node):
            node = node[int(seg)]
        else:
            if default is _MISSING:
                raise KeyError(pointer)
            return default
    return node


def field_segments(path: str) -> list[str]:
    """Schema field segments from dot, ``$.``-JSONPath or pointer notation.

    ``line_items[].price``, ``line_items[0].price``, ``$.line_items[*].price`` and
    ``/line_items/0/price`` all give ``["line_items", "[]", "price"]``: a selection
    names a field, not one element.
    """
    path = path.strip()
    if path.startswith("/"):
        return ["[]" if s.isdigit() or s in ("-", "*") else s for s in split(path)]
    if path.startswith("$"):
        path = path[1:].lstrip(".")
    out: list[str] = []
    for part in path.split("."):
        if not part:
            continue
        name = _INDEX.sub("", part)
        bracketed = re.match(r"^\[['\"](.+)['\"]\]$", part)
        if bracketed:
            name = bracketed.group(1)
        if name:
            out.append(name)
        out.extend("[]" for _ in _INDEX.findall(part))
    return out


def field_path(segments: list[str]) -> str:
    """The display form of field segments: ``line_items[].price``."""
    out = ""
    for seg in segments:
        if seg == "[]":
            out += "[]"
        else:
            out += f".{seg}" if out else seg
    return out
