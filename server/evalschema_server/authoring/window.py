"""Completion right after an edit, without re-parsing a large document.

Completion needs only the object around the cursor and the chain of keys above
it. When every edit since the last full parse lies after the start of the object
enclosing the cursor, that object still starts where the old tree says; we find
its end in the new text, parse just that window, and hang it under the old tree's
ancestors. Diagnostics still come from a full parse, after the debounce.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalschema.io.lenient import balanced_end

from ..document import JsonDocument, Node, parse
from .analysis import SchemaAnalysis

#: Larger windows are not worth it: a full parse is about 60 µs per KB.
MAX_WINDOW = 64 * 1024


@dataclass
class Window:
    """A parsed slice of the current text; ``offset`` maps its offsets to the text's."""

    doc: JsonDocument
    offset: int


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
    end = balanced_end(text, start, MAX_WINDOW)
    if end is None or not start < offset <= end:
        return None
    frag = parse(text[start:end + 1], comments=True)
    if frag.root is None or frag.root.kind != "object":
        return None
    frag.root.parent = node.parent  # the keys above it are unchanged
    return Window(frag, start)
