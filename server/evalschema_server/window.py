"""Completion right after an edit, without re-parsing a large document.

Completion needs only the object around the cursor and the chain of keys above
it. When every edit since the last full parse lies after the start of the object
enclosing the cursor, that object still starts where the old tree says; we find
its end in the new text, parse just that window, and hang it under the old tree's
ancestors. Diagnostics still come from a full parse, after the debounce.
"""

from __future__ import annotations

from dataclasses import dataclass

from .analysis import SchemaAnalysis
from .document import JsonDocument, Node, parse

#: Larger windows are not worth it: a full parse is about 60 µs per KB.
MAX_WINDOW = 64 * 1024


@dataclass
class Window:
    """A parsed slice of the current text; ``offset`` maps its offsets to the text's."""

    doc: JsonDocument
    offset: int


def _balanced_end(text: str, begin: int, limit: int) -> int | None:
    depth = 0
    in_string = escaped = False
    stop = min(len(text), begin + limit)
    for i in range(begin, stop):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
            if depth == 0:
                return i
    return None


def window_at(old: SchemaAnalysis, text: str, edited_from: int, offset: int) -> Window | None:
    """The re-parsed object around ``offset`` in ``text``, or None when a full parse is needed."""
    anchor = min(edited_from, offset)
    node: Node | None = old.doc.node_at(anchor)
    while node is not None and not (node.kind == "object" and node.offset < anchor):
        node = node.parent
    if node is None or node.parent is None:  # the root: parse it all
        return None
    start = node.offset
    if text[start:start + 1] != "{":
        return None
    end = _balanced_end(text, start, MAX_WINDOW)
    if end is None or not start < offset <= end:
        return None
    frag = parse(text[start:end + 1], comments=True)
    if frag.root is None or frag.root.kind != "object":
        return None
    frag.root.parent = node.parent  # the keys above it are unchanged
    return Window(frag, start)
