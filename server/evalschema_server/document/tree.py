"""The parsed document: nodes, syntax issues, comments, and the queries features ask of them.

Modelled on vscode-json-languageservice's ``parser/jsonParser.ts``: every node
knows its offset, length and parent; property nodes keep their key node, value
node and colon offset. :class:`JsonDocument` answers the lookups (``node_at``,
``pointer``, ``node_at_pointer``, ``property_at_pointer``, ``value``, ``range``);
``parser`` builds it and never gives up, so any of these may meet a tree left
half-built by error recovery. Offsets and lengths are Python string indices
(code points); ``LineIndex`` turns them into LSP positions.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, Final, Literal, NamedTuple

from evalschema.pointer import escape

from .lines import LineIndex

__all__ = [
    "ISSUE_CODES",
    "NO_CHILDREN",
    "Comment",
    "JsonDocument",
    "Node",
    "NodeKind",
    "SyntaxIssue",
    "add_issue",
]

NodeKind = Literal["object", "array", "property", "string", "number", "boolean", "null"]


class _NoChildren(list):  # type: ignore[type-arg]
    """The one shared, read-only ``children`` list of every leaf and property node.

    Half the nodes of a document are leaves; giving each its own empty list doubled
    the objects the garbage collector has to walk after every keystroke.
    """

    __slots__ = ()

    def _readonly(self, *args: object, **kwargs: object) -> None:
        raise TypeError("children of a leaf or property node are read-only")

    def __repr__(self) -> str:
        return "[]"


for _name in (
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "sort",
    "reverse",
    "__setitem__",
    "__delitem__",
    "__iadd__",
    "__imul__",
):
    setattr(_NoChildren, _name, _NoChildren._readonly)
del _name

NO_CHILDREN: list[Node] = _NoChildren()


@dataclass(slots=True, eq=False, repr=False)
class Node:
    """One node of the tree. Identity equality: nodes are places in a text, not values."""

    kind: NodeKind
    offset: int
    length: int
    parent: Node | None = None
    children: list[Node] = field(default_factory=list)
    key_node: Node | None = None
    value_node: Node | None = None
    colon_offset: int = -1
    value: Any = None

    @property
    def end(self) -> int:
        """Offset just past the node."""
        return self.offset + self.length

    @property
    def key(self) -> str | None:
        """The key of a property node (or of the property a key/value node belongs to)."""
        prop = self if self.kind == "property" else self.parent
        if prop is None or prop.kind != "property" or prop.key_node is None:
            return None
        key = prop.key_node.value
        return key if isinstance(key, str) else None

    @property
    def pointer_segment(self) -> str | None:
        """This node's RFC 6901 segment (escaped) within its container; None for the root.

        A property, its key node and its value node share the property's segment; an
        array item's segment is its index. Nodes detached by error recovery give None.
        """
        node: Node = self
        parent = node.parent
        if parent is not None and parent.kind == "property":
            node, parent = parent, parent.parent
        if parent is None:
            if node.kind == "property" and node.key is not None:
                return escape(node.key)
            return None
        if node.kind == "property":
            key = node.key
            return None if key is None else escape(key)
        if parent.kind == "array":
            i = _index_of(parent.children, node)
            return str(i) if i >= 0 else None
        return None

    def contains(self, offset: int, include_right_boundary: bool = False) -> bool:
        """Whether ``offset`` lies in [offset, end) (or [offset, end] if asked)."""
        end = self.offset + self.length
        return self.offset <= offset < end or (include_right_boundary and offset == end)

    def __repr__(self) -> str:
        # The dataclass repr would recurse through parent <-> children forever.
        extra = ""
        if self.kind == "property":
            extra = f" key={self.key!r}"
        elif self.kind not in ("object", "array"):
            extra = f" value={self.value!r}"
        return f"<Node {self.kind} {self.offset}+{self.length}{extra}>"


@dataclass(frozen=True, slots=True)
class SyntaxIssue:
    """A syntax problem: a stable ``code`` for clients, a human ``message`` and a span."""

    code: str
    message: str
    offset: int
    length: int

    @property
    def end(self) -> int:
        return self.offset + self.length


_MESSAGES: Final = {
    "unexpected-token": "Unexpected token",
    "missing-comma": "Expected comma",
    "missing-colon": "Colon expected",
    "unterminated-string": "Unterminated string",
    "invalid-escape": "Invalid escape sequence in string",
    "invalid-character": "Invalid character",
    "trailing-comma": "Trailing comma",
    "comment-not-allowed": "Comments are not permitted in JSON",
    "unterminated-comment": "Unterminated comment",
    "end-of-file-expected": "End of file expected",
    "value-expected": "Value expected",
    "property-expected": "Property expected",
    "unquoted-key": "Property keys must be doublequoted",
    "missing-close-brace": "This object is never closed: expected '}'",
    "missing-close-bracket": "This array is never closed: expected ']'",
    "invalid-number": "Invalid number",
    "duplicate-key": "Duplicate object key",
}

#: Every ``SyntaxIssue.code`` the parser can emit.
ISSUE_CODES: Final = frozenset(_MESSAGES)


def add_issue(
    issues: list[SyntaxIssue], code: str, offset: int, length: int, message: str | None = None
) -> None:
    """Record an issue; the message defaults to the code's usual one (VS Code's wording)."""
    issues.append(SyntaxIssue(code, message or _MESSAGES[code], offset, length))


class Comment(NamedTuple):
    """A ``//`` or ``/* */`` comment (kept for folding and for comment-preserving edits)."""

    offset: int
    length: int
    block: bool


class JsonDocument:
    """A parsed text: the tree, the syntax issues, the comments and a line index.

    For JSONL (``parse_lines``) a document covers one line of a larger text:
    ``text`` is the whole text, ``start``/``end`` bound the line, and all offsets
    are relative to the whole text so ranges map directly.
    """

    __slots__ = (
        "_prop_index",
        "_value_index",
        "comments",
        "end",
        "issues",
        "lines",
        "root",
        "start",
        "text",
    )

    def __init__(
        self,
        text: str,
        root: Node | None,
        issues: list[SyntaxIssue],
        lines: LineIndex,
        comments: list[Comment] | None = None,
        start: int = 0,
        end: int | None = None,
    ) -> None:
        self.text = text
        self.root = root
        self.issues = issues
        self.lines = lines
        self.comments: list[Comment] = comments if comments is not None else []
        self.start = start
        self.end = len(text) if end is None else end
        self._value_index: dict[str, Node] | None = None
        self._prop_index: dict[str, Node] = {}

    def __repr__(self) -> str:
        return (
            f"<JsonDocument {self.start}:{self.end} root={self.root!r} issues={len(self.issues)}>"
        )

    # -- lookup -------------------------------------------------------------

    def node_at(self, offset: int, include_right_boundary: bool = False) -> Node | None:
        """The deepest node whose span holds ``offset`` (a key's string node on a key)."""
        node = self.root
        if node is None or not node.contains(offset, include_right_boundary):
            return None
        get_offset = attrgetter("offset")
        while True:
            if node.kind == "property":
                nxt = None
                for sub in (node.key_node, node.value_node):
                    if sub is not None and sub.contains(offset, include_right_boundary):
                        nxt = sub
                        break
                if nxt is None:
                    return node
                node = nxt
                continue
            children = node.children
            if not children:
                return node
            i = bisect_right(children, offset, key=get_offset)
            if i and children[i - 1].contains(offset, include_right_boundary):
                node = children[i - 1]
            else:
                return node

    def pointer(self, node: Node) -> str:
        """RFC 6901 pointer of a node (a property or key node: the pointer of its value)."""
        segments: list[str] = []
        cur: Node | None = node
        if node.parent is not None and node.parent.kind == "property":
            cur = node.parent
        while cur is not None:
            parent = cur.parent
            if parent is None:
                if cur.kind == "property":  # a property detached by recovery
                    segments.append(escape(cur.key or ""))
                break
            if cur.kind == "property":
                segments.append(escape(cur.key or ""))
                cur = parent
            elif parent.kind == "array":
                segments.append(str(_index_of(parent.children, cur)))
                cur = parent
            elif parent.kind == "property":
                cur = parent
            else:
                break
        if not segments:
            return ""
        segments.reverse()
        return "/" + "/".join(segments)

    def _build_index(self) -> dict[str, Node]:
        values: dict[str, Node] = {}
        props: dict[str, Node] = {}
        root = self.root
        if root is not None:
            values[""] = root
            stack: list[tuple[Node, str]] = [(root, "")]
            while stack:
                node, ptr = stack.pop()
                if node.kind == "object":
                    for prop in node.children:
                        key = prop.key
                        if key is None:
                            continue
                        p = ptr + "/" + escape(key)
                        props[p] = prop  # duplicate keys: the last one wins, as in value()
                        value = prop.value_node
                        if value is None:
                            values.pop(p, None)
                            continue
                        values[p] = value
                        if value.children:
                            stack.append((value, p))
                elif node.kind == "array":
                    for i, item in enumerate(node.children):
                        p = f"{ptr}/{i}"
                        values[p] = item
                        if item.children:
                            stack.append((item, p))
        self._prop_index = props
        self._value_index = values
        return values

    def node_at_pointer(self, pointer: str) -> Node | None:
        """The value node at an RFC 6901 pointer (``""`` is the root); O(1) after first use."""
        index = self._value_index
        if index is None:
            index = self._build_index()
        return index.get(pointer)

    def property_at_pointer(self, pointer: str) -> Node | None:
        """The property node whose value is at ``pointer`` (to mark a key), if any."""
        if self._value_index is None:
            self._build_index()
        return self._prop_index.get(pointer)

    # -- values and ranges --------------------------------------------------

    def value(self, node: Node | None = None) -> Any:
        """The Python value of ``node`` (default: the root), best effort for broken text.

        Properties without a value are skipped; duplicate keys keep the last value,
        like ``json.loads``. Iterative, so any depth works.
        """
        if node is None:
            node = self.root
            if node is None:
                return None
        if node.kind == "property":
            if node.value_node is None:
                return None
            node = node.value_node
        kind = node.kind
        if kind != "object" and kind != "array":
            return node.value
        result: Any = {} if kind == "object" else []
        stack: list[tuple[Node, Any]] = [(node, result)]
        child: dict[str, Any]
        items: list[Any]
        while stack:
            cur, out = stack.pop()
            if cur.kind == "object":
                for prop in cur.children:
                    v = prop.value_node
                    key_node = prop.key_node
                    if v is None or key_node is None:
                        continue
                    if v.kind == "object":
                        out[key_node.value] = child = {}
                        stack.append((v, child))
                    elif v.kind == "array":
                        out[key_node.value] = items = []
                        stack.append((v, items))
                    else:
                        out[key_node.value] = v.value
            else:
                for v in cur.children:
                    if v.kind == "object":
                        out.append(child := {})
                        stack.append((v, child))
                    elif v.kind == "array":
                        out.append(items := [])
                        stack.append((v, items))
                    else:
                        out.append(v.value)
        return result

    def range(
        self, node: Node, encoding: str = "utf-16"
    ) -> tuple[tuple[int, int], tuple[int, int]]:
        """((line, character), (line, character)) of a node in ``encoding``."""
        return (
            self.lines.position(node.offset, encoding),
            self.lines.position(node.offset + node.length, encoding),
        )

    def position_at(self, offset: int, encoding: str = "utf-16") -> tuple[int, int]:
        return self.lines.position(offset, encoding)

    def offset_at(self, line: int, character: int, encoding: str = "utf-16") -> int:
        return self.lines.offset(line, character, encoding)


def _index_of(children: list[Node], node: Node) -> int:
    """Index of ``node`` among ``children`` (sorted by offset: a bisection, not a scan)."""
    i = bisect_left(children, node.offset, key=attrgetter("offset"))
    if i < len(children) and children[i] is node:
        return i
    for i, child in enumerate(children):  # pragma: no cover - hand-built trees only
        if child is node:
            return i
    return -1
