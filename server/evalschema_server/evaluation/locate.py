"""From JSON Pointers in a record (or a schema) to offsets in its text, and back.

The engine reports pointers; the tolerant parser knows where each value sits. Records
are small, so parsing one on demand is cheap; the last few parsed are kept for the
hover and go-to-definition requests that tend to come in runs on the same record.
"""

from __future__ import annotations

from collections import OrderedDict

from evalschema.errors import Problem

from ..document import JsonDocument, Node, parse

Span = tuple[int, int]


def key_span(doc: JsonDocument, pointer: str) -> Span | None:
    """Where to mark the node at ``pointer`` of a schema: its property's key, else (the
    root, an array item) the value's first character."""
    prop = doc.property_at_pointer(pointer)
    if prop is not None and prop.key_node is not None:
        return prop.key_node.offset, prop.key_node.end
    node = doc.node_at_pointer(pointer)
    return None if node is None else (node.offset, min(node.end, node.offset + 1))


def problem_span(doc: JsonDocument, text: str, problem: Problem) -> Span:
    """Where to mark a problem of the schema ``text`` (parsed as ``doc``): the key its
    pointer names, else the character of a syntax error (the engine's reader gives its
    ``offset``), else the top of the file."""
    span = key_span(doc, problem.pointer) if problem.pointer else None
    offset = problem.data.get("offset")
    if span is None and isinstance(offset, int) and 0 <= offset <= len(text):
        span = offset, min(offset + 1, len(text))
    return span or (0, 0)


class RecordLocator:
    def __init__(self, size: int = 64) -> None:
        self._docs: OrderedDict[str, JsonDocument] = OrderedDict()
        self._size = size

    def doc(self, text: str) -> JsonDocument:
        got = self._docs.get(text)
        if got is None:
            got = parse(text)  # only the tree is used: comments etc. need no flags
            self._docs[text] = got
            if len(self._docs) > self._size:
                self._docs.popitem(last=False)
        else:
            self._docs.move_to_end(text)
        return got

    def value(self, text: str, pointer: str | None) -> Span | None:
        """The span of the value at ``pointer``."""
        if pointer is None:
            return None
        node = self.doc(text).node_at_pointer(pointer)
        return None if node is None else (node.offset, node.end)

    def key(self, text: str, pointer: str | None) -> Span | None:
        """The span of the key whose value is at ``pointer`` (the value's for array items)."""
        if pointer is None:
            return None
        doc = self.doc(text)
        prop = doc.property_at_pointer(pointer)
        if prop is not None and prop.key_node is not None:
            return prop.key_node.offset, prop.key_node.end
        return self.value(text, pointer)

    def nearest(self, text: str, pointer: str | None) -> tuple[Span, str] | None:
        """Where to show something missing at ``pointer``: the key of the nearest parent
        present, else the record's first key (its first character when it has none); with
        that parent's pointer."""
        if pointer is None:
            return None
        doc = self.doc(text)
        p = pointer
        while p:
            p = p.rsplit("/", 1)[0]
            if not p:
                break
            if doc.node_at_pointer(p) is not None:
                span = self.key(text, p)
                if span is not None:
                    return span, p
        root = doc.root
        if root is None:
            return None
        first = next((c.key_node for c in root.children if c.kind == "property"
                      and c.key_node is not None), None) if root.kind == "object" else None
        if first is not None:  # a key to point at, not a one-character brace
            return (first.offset, first.end), ""
        return (root.offset, root.offset + 1), ""

    def near(self, text: str, pointer: str | None) -> Span:
        """``nearest``'s place for ``pointer`` (the record itself when None), else the text's
        first character: somewhere to show a finding that always exists."""
        found = self.nearest(text, pointer or "/")
        return (0, min(1, len(text))) if found is None else found[0]

    def pointer_at(self, text: str, offset: int) -> str | None:
        """The pointer of the value (or of the property whose key) lies at ``offset``."""
        doc = self.doc(text)
        node: Node | None = doc.node_at(offset, include_right_boundary=True)
        if node is None:
            return None
        return doc.pointer(node)
