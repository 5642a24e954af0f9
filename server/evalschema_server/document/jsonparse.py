"""A tolerant, offset-keeping JSON / JSONC parser for the language server.

Modelled on vscode-json-languageservice's ``parser/jsonParser.ts``: every node
knows its offset, length and parent, property nodes keep their key node, value
node and colon offset, and the parser never gives up -- after an error it skips
to the next token that can continue (a missing comma is reported and the next
property parsed; a broken value leaves the property with ``value_node=None``), so
completion, hover and diagnostics work on half-typed text.

Speed matters because this runs on every keystroke. The parser is a single
iterative pass (an explicit stack, so 10,000 nested ``[`` cannot overflow the C
stack) over compiled regular expressions that each consume a whole token and the
whitespace after it; the common ``"key": scalar,`` shape of a schema line is
consumed by one regex match. Offsets and lengths are Python string indices (code
points); ``LineIndex`` turns them into LSP positions.
"""

from __future__ import annotations

import gc
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from json import decoder as _json_decoder
from operator import attrgetter
from typing import Any, Final, Literal, NamedTuple

from evalschema.pointer import escape

from .lines import LineIndex

__all__ = [
    "ISSUE_CODES",
    "Comment",
    "JsonDocument",
    "Node",
    "NodeKind",
    "SyntaxIssue",
    "parse",
    "parse_lines",
]

NodeKind = Literal["object", "array", "property", "string", "number", "boolean", "null"]


# --------------------------------------------------------------------------- model


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

_E: list[Node] = _NoChildren()


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


# --------------------------------------------------------------------------- scanner

_WS_CLASS = r"[ \t\n\r]*"
# Characters some tools treat as whitespace but JSON does not: reported, then skipped.
_STRAY_CHARS = "\x0b\x0c\x1c-\x1f\x85\xa0\u1680\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff"
_NUM_PATTERN = r"(-?(?:0|[1-9][0-9]*))((?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)(?![0-9.eE])"
_LIT_PATTERN = r"(true|false|null)(?![0-9A-Za-z_$])"
_SIMPLE_STR = r'"([^"\\\x00-\x1f]*)"'

_WS: Final = re.compile(_WS_CLASS)
_STR: Final = re.compile(_SIMPLE_STR + _WS_CLASS)
_NUM: Final = re.compile(_NUM_PATTERN + _WS_CLASS)
_LIT: Final = re.compile(_LIT_PATTERN + _WS_CLASS)
# The hot path: `"key": scalar,` (colon, value and comma optional) in one match.
_KV: Final = re.compile(
    _SIMPLE_STR
    + _WS_CLASS
    + r"(?:(:)"
    + _WS_CLASS
    + r"(?:(?:"
    + _SIMPLE_STR
    + "|"
    + _NUM_PATTERN
    + "|"
    + _LIT_PATTERN
    + ")"
    + _WS_CLASS
    + r"(?:(,)"
    + _WS_CLASS
    + r")?)?)?"
)
_COLON_AHEAD: Final = re.compile(_WS_CLASS + ":")
# A string that may hold escapes and control characters; it ends at the closing
# quote, or (unterminated) at the line end / end of text, a trailing `\` included.
_STR_SLOW: Final = re.compile(r'"([^"\\\n\r]*(?:\\[^\n\r][^"\\\n\r]*)*)(?:(")|\\?)')
_CTRL: Final = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f]+")
_ESC: Final = re.compile(
    r"\\(?:u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})"
    r'|u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))',
    re.S,
)
# C-accelerated JSON string decoding (not in typeshed's stubs).
_scanstring: Callable[[str, int, bool], tuple[str, int]] = _json_decoder.scanstring  # type: ignore[attr-defined]
_SIMPLE_ESC: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_LOOSE_NUM: Final = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]*)?")
_STRICT_NUM: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_LINE_COMMENT: Final = re.compile(r"//[^\n\r]*")
_BLOCK_COMMENT: Final = re.compile(r"/\*.*?\*/", re.S)
_STRAY: Final = re.compile(f"[{_STRAY_CHARS}]+")
_UNKNOWN: Final = re.compile(f'(?:[^ \\t\\n\\r{{}}\\[\\],:"/{_STRAY_CHARS}]|/(?![/*]))+')

# Token kinds: value-starting tokens first so `tok <= _T_LBRACKET` tests "is a value".
_T_STRING, _T_SCALAR, _T_LBRACE, _T_LBRACKET = 0, 1, 2, 3
_T_RBRACE, _T_RBRACKET, _T_COMMA, _T_COLON, _T_UNKNOWN = 4, 5, 6, 7, 8

# Parser states. Objects are 2..6, arrays 7..9.
_TOP, _TOP_DONE = 0, 1
_OBJ_KEY, _OBJ_KEY_COMMA, _OBJ_COLON, _OBJ_VALUE, _OBJ_NEXT = 2, 3, 4, 5, 6
_ARR_VALUE, _ARR_VALUE_COMMA, _ARR_NEXT = 7, 8, 9

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

_FrameT = tuple[Node | None, list[Node], int, Node | None, dict[str, Node | None]]


def _issue(
    issues: list[SyntaxIssue], code: str, offset: int, length: int, message: str | None = None
) -> None:
    issues.append(SyntaxIssue(code, message or _MESSAGES[code], offset, length))


def _int(s: str) -> int | float:
    """``int(s)`` without tripping Python's 4300-digit str->int limit."""
    if len(s) < 4000:
        return int(s)
    try:
        return int(Decimal(s))
    except (InvalidOperation, ValueError, OverflowError):  # pragma: no cover - defensive
        return float(s)


def _loose_value(s: str) -> int | float:
    """Best-effort number for an invalid literal such as ``01``, ``1.``, ``.5``, ``+1``, ``1e``."""
    t = s.lstrip("+").rstrip("eE+-")
    try:
        if "." in t or "e" in t or "E" in t:
            return float(t)
        return _int(t)
    except ValueError:  # pragma: no cover - the regex only admits convertible shapes
        return 0


def _slow_string(text: str, pos: int, end: int, issues: list[SyntaxIssue]) -> tuple[int, str]:
    """Scan a string with escapes, control characters or no closing quote."""
    m = _STR_SLOW.match(text, pos, end)
    if m is None:  # pragma: no cover - text[pos] is always '"'
        return pos + 1, ""
    raw = m.group(1)
    tend = m.end()
    terminated = m.group(2) is not None
    if not terminated:
        _issue(issues, "unterminated-string", pos, tend - pos)
    content = pos + 1
    for c in _CTRL.finditer(text, content, content + len(raw)):
        _issue(
            issues,
            "invalid-character",
            c.start(),
            c.end() - c.start(),
            "Invalid characters in string. Control characters must be escaped.",
        )
    if "\\" not in raw:
        return tend, raw
    if terminated:
        try:
            value, after = _scanstring(text, content, False)
            if after == tend:
                return tend, value
        except ValueError:
            pass
    out: list[str] = []
    last = 0
    for e in _ESC.finditer(raw):
        out.append(raw[last : e.start()])
        hi, lo, u, simple, _other = e.groups()
        if hi is not None:
            h = int(hi, 16)
            low = int(lo, 16)
            out.append(chr(0x10000 + ((h - 0xD800) << 10) + (low - 0xDC00)))
        elif u is not None:
            out.append(chr(int(u, 16)))
        elif simple is not None:
            out.append(_SIMPLE_ESC[simple])
        else:
            _issue(issues, "invalid-escape", content + e.start(), e.end() - e.start())
            out.append(e.group(0))  # keep `\q` verbatim: Windows paths survive
        last = e.end()
    out.append(raw[last:])
    return tend, "".join(out)


# --------------------------------------------------------------------------- parser


def parse(text: str, *, comments: bool = True, trailing_commas: bool = True) -> JsonDocument:
    """Parse ``text`` into a :class:`JsonDocument`; never raises.

    ``comments``: ``//`` and ``/* */`` are allowed (JSONC); when False each one is a
    ``comment-not-allowed`` issue (comments are recorded either way).
    ``trailing_commas``: when False, ``[1,]`` / ``{"a": 1,}`` give ``trailing-comma``.
    """
    paused = gc.isenabled()
    if paused:
        gc.disable()  # see _parse_window: collections during tree building cost 2-3x the parse
    try:
        return _parse_window(text, 0, len(text), comments, trailing_commas, LineIndex(text))
    finally:
        if paused:
            gc.enable()


def parse_lines(
    text: str, *, comments: bool = True, trailing_commas: bool = True
) -> list[tuple[int, JsonDocument | None]]:
    """JSONL: one document per non-blank line as ``(line number, document)``.

    Offsets are relative to the whole text and every document shares one
    ``LineIndex``, so node ranges map straight to editor positions.
    """
    lines = LineIndex(text)
    out: list[tuple[int, JsonDocument | None]] = []
    starts = lines.line_starts
    paused = gc.isenabled()
    if paused:
        gc.disable()
    try:
        for line, start in enumerate(starts):
            end = lines.line_end(line)
            if start == end or not text[start:end].strip():
                continue
            out.append((line, _parse_window(text, start, end, comments, trailing_commas, lines)))
    finally:
        if paused:
            gc.enable()
    return out


def _parse_window(
    text: str, start: int, end: int, comments: bool, trailing_commas: bool, lines: LineIndex
) -> JsonDocument:
    """Parse ``text[start:end]`` (offsets stay relative to ``text``) in one flat loop.

    Callers pause the cyclic GC around this: the tree is tens of thousands of
    objects allocated in a burst, and CPython would otherwise run several full
    collections over the growing heap while it is built (measured: ~110 ms
    instead of ~40 ms per edit of a 20,000-line schema, amortised). The objects
    are collected normally afterwards.
    """
    issues: list[SyntaxIssue] = []
    comment_list: list[Comment] = []
    root: Node | None = None
    stack: list[_FrameT] = []
    node: Node | None = None  # the open container
    kids: list[Node] = []  # node.children
    state = _TOP
    prop: Node | None = None  # the property awaiting a colon / value (None: discard value)
    seen: dict[str, Node | None] = {}  # keys of the open object -> first property
    comma_at = -1
    n_obj = n_arr = 0
    junk_reported = False

    ws: Callable[[str, int, int], re.Match[str]] = _WS.match  # type: ignore[assignment]
    kv = _KV.match
    str_m = _STR.match
    num_m = _NUM.match
    lit_m = _LIT.match
    new = Node

    pos = ws(text, start, end).end()
    while pos < end:
        ch = text[pos]

        # ---- hot path: a whole `"key": scalar,` in one match -------------------
        if ch == '"' and _OBJ_KEY <= state <= _OBJ_KEY_COMMA:
            m = kv(text, pos, end)
            if m is not None:
                g = m.groups()
                k: str = g[0]
                kend = pos + len(k) + 2
                key = new("string", pos, kend - pos, None, _E, None, None, -1, k)
                p = new("property", pos, kend - pos, node, _E, key, None, -1, None)
                key.parent = p
                kids.append(p)
                if k in seen:
                    _duplicate(issues, seen, k, key)
                else:
                    seen[k] = p
                if g[1] is None:
                    prop = p
                    state = _OBJ_COLON
                    pos = m.end()
                    continue
                colon = m.start(2)
                p.colon_offset = colon
                sv = g[2]
                if sv is not None:
                    vs = m.start(3) - 1
                    ve = vs + len(sv) + 2
                    v = new("string", vs, ve - vs, p, _E, None, None, -1, sv)
                elif g[3] is not None:
                    vs = m.start(4)
                    ip: str = g[3]
                    frac: str = g[4]
                    if frac:
                        ve = vs + len(ip) + len(frac)
                        v = new("number", vs, ve - vs, p, _E, None, None, -1, float(ip + frac))
                    else:
                        ve = vs + len(ip)
                        v = new(
                            "number",
                            vs,
                            ve - vs,
                            p,
                            _E,
                            None,
                            None,
                            -1,
                            int(ip) if len(ip) < 4000 else _int(ip),
                        )
                elif g[5] is not None:
                    lit: str = g[5]
                    vs = m.start(6)
                    ve = vs + len(lit)
                    if lit == "null":
                        v = new("null", vs, 4, p, _E, None, None, -1, None)
                    else:
                        v = new("boolean", vs, ve - vs, p, _E, None, None, -1, lit == "true")
                else:
                    p.length = colon + 1 - pos
                    prop = p
                    state = _OBJ_VALUE
                    pos = m.end()
                    continue
                p.value_node = v
                p.length = ve - pos
                if g[6] is not None:
                    state = _OBJ_KEY_COMMA
                    comma_at = m.start(7)
                else:
                    state = _OBJ_NEXT
                pos = m.end()
                continue

        # ---- tokenize one token ---------------------------------------------
        snode: Node | None = None
        if ch == '"':
            m = str_m(text, pos, end)
            if m is not None:
                sv = m.group(1)
                tend = pos + len(sv) + 2
                npos = m.end()
            else:
                tend, sv = _slow_string(text, pos, end, issues)
                npos = ws(text, tend, end).end()
            snode = new("string", pos, tend - pos, None, _E, None, None, -1, sv)
            tok = _T_STRING
        elif ch == "{":
            tok = _T_LBRACE
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == "}":
            tok = _T_RBRACE
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == ",":
            tok = _T_COMMA
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == "[":
            tok = _T_LBRACKET
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == "]":
            tok = _T_RBRACKET
            tend = pos + 1
            npos = ws(text, tend, end).end()
        elif ch == ":":
            tok = _T_COLON
            tend = pos + 1
            npos = ws(text, tend, end).end()
        else:
            tok = _T_UNKNOWN
            m = None
            if ch in "-0123456789":
                m = num_m(text, pos, end)
                if m is not None:
                    ip = m.group(1)
                    frac = m.group(2)
                    tend = pos + len(ip) + len(frac)
                    npos = m.end()
                    value: Any = (
                        float(ip + frac) if frac else int(ip) if len(ip) < 4000 else _int(ip)
                    )
                    snode = new("number", pos, tend - pos, None, _E, None, None, -1, value)
                    tok = _T_SCALAR
            elif ch == "t" or ch == "f" or ch == "n":
                m = lit_m(text, pos, end)
                if m is not None:
                    lit = m.group(1)
                    tend = pos + len(lit)
                    npos = m.end()
                    if lit == "null":
                        snode = new("null", pos, 4, None, _E, None, None, -1, None)
                    else:
                        snode = new(
                            "boolean", pos, tend - pos, None, _E, None, None, -1, lit == "true"
                        )
                    tok = _T_SCALAR
            elif ch == "/" and pos + 1 < end and text[pos + 1] in "/*":
                if text[pos + 1] == "/":
                    cm = _LINE_COMMENT.match(text, pos, end)
                    cend = cm.end() if cm is not None else end
                    comment_list.append(Comment(pos, cend - pos, False))
                else:
                    cm = _BLOCK_COMMENT.match(text, pos, end)
                    if cm is None:
                        cend = end
                        _issue(issues, "unterminated-comment", pos, cend - pos)
                    else:
                        cend = cm.end()
                    comment_list.append(Comment(pos, cend - pos, True))
                if not comments:
                    _issue(issues, "comment-not-allowed", pos, cend - pos)
                pos = ws(text, cend, end).end()
                continue
            if tok == _T_UNKNOWN:
                sm = _STRAY.match(text, pos, end)
                if sm is not None:
                    _issue(
                        issues,
                        "invalid-character",
                        pos,
                        sm.end() - pos,
                        "Invalid character (not JSON whitespace)",
                    )
                    pos = ws(text, sm.end(), end).end()
                    continue
                lm = _LOOSE_NUM.match(text, pos, end) if ch in "+-.0123456789" else None
                if lm is not None:
                    s = lm.group()
                    tend = lm.end()
                    if _STRICT_NUM.fullmatch(s) is None:
                        _issue(issues, "invalid-number", pos, tend - pos)
                        value = _loose_value(s)
                    else:
                        value = float(s) if ("." in s or "e" in s or "E" in s) else _int(s)
                    snode = new("number", pos, tend - pos, None, _E, None, None, -1, value)
                    tok = _T_SCALAR
                else:
                    um = _UNKNOWN.match(text, pos, end)
                    tend = um.end() if um is not None else pos + 1
                npos = ws(text, tend, end).end()

        # ---- grammar ----------------------------------------------------------
        if tok <= _T_LBRACKET:  # a value starts here
            attach = 0  # 0 discard, 1 array item, 2 property value, 3 root
            if state >= _ARR_VALUE:
                if state == _ARR_NEXT:
                    _issue(issues, "missing-comma", pos, tend - pos)
                attach = 1
                state = _ARR_NEXT
            elif state == _OBJ_VALUE:
                attach = 2 if prop is not None else 0
                state = _OBJ_NEXT
            elif state in (_OBJ_KEY, _OBJ_KEY_COMMA, _OBJ_NEXT):
                if snode is not None and tok == _T_STRING:
                    if state == _OBJ_NEXT:
                        _issue(issues, "missing-comma", pos, tend - pos)
                    prop = _new_property(snode, node, kids, seen, issues)
                    state = _OBJ_COLON
                    pos = npos
                    continue
                _issue(issues, "property-expected", pos, tend - pos)
                state = _OBJ_NEXT
                if snode is not None:
                    cm = _COLON_AHEAD.match(text, npos, end)
                    if cm is not None:  # `{1: 2}`: skip the colon and discard the value too
                        pos = ws(text, cm.end(), end).end()
                        prop = None
                        state = _OBJ_VALUE
                        continue
            elif state == _OBJ_COLON:
                if tok == _T_STRING and snode is not None and _COLON_AHEAD.match(text, npos, end):
                    # `"a" "b": 1`: the string is the next key; `a` lost its colon and value.
                    _issue(issues, "missing-colon", pos, tend - pos)
                    prop = _new_property(snode, node, kids, seen, issues)
                    pos = npos
                    continue
                _issue(issues, "missing-colon", pos, tend - pos)
                attach = 2 if prop is not None else 0
                state = _OBJ_NEXT
            elif state == _TOP:
                attach = 3
                state = _TOP_DONE
            else:  # _TOP_DONE
                _issue(issues, "end-of-file-expected", pos, tend - pos)
                break

            if snode is not None:
                if attach == 1:
                    snode.parent = node
                    kids.append(snode)
                elif attach == 2 and prop is not None:
                    snode.parent = prop
                    prop.value_node = snode
                    prop.length = tend - prop.offset
                elif attach == 3:
                    root = snode
                pos = npos
                continue

            # open a container
            if tok == _T_LBRACE:
                c = new("object", pos, 1, None, [], None, None, -1, None)
            else:
                c = new("array", pos, 1, None, [], None, None, -1, None)
            if attach == 1:
                c.parent = node
                kids.append(c)
            elif attach == 2 and prop is not None:
                c.parent = prop
                prop.value_node = c
            elif attach == 3:
                root = c
            stack.append((node, kids, state, prop, seen))
            node = c
            kids = c.children
            prop = None
            if tok == _T_LBRACE:
                state = _OBJ_KEY
                seen = {}
                n_obj += 1
            else:
                state = _ARR_VALUE
                n_arr += 1
            pos = npos
            continue

        if tok in (_T_RBRACE, _T_RBRACKET):
            closes_obj = tok == _T_RBRACE
            if node is None:
                if state == _TOP_DONE:
                    _issue(issues, "end-of-file-expected", pos, tend - pos)
                    break
                if not junk_reported:
                    _issue(issues, "value-expected", pos, tend - pos)
                    junk_reported = True
                pos = npos
                continue
            in_obj = state < _ARR_VALUE
            if in_obj == closes_obj:
                if state == _OBJ_COLON:
                    _issue(issues, "missing-colon", pos, tend - pos)
                elif state == _OBJ_VALUE:
                    _issue(issues, "value-expected", pos, tend - pos)
                elif state in (_ARR_VALUE_COMMA, _OBJ_KEY_COMMA) and not trailing_commas:
                    _issue(issues, "trailing-comma", comma_at, 1)
                close_at = tend
                pos = npos
            elif (n_obj if closes_obj else n_arr) > 0:
                # `{"a": [1, 2}`: close the inner container here, let the outer one take it.
                if state == _OBJ_COLON:
                    _issue(issues, "missing-colon", pos, tend - pos)
                elif state == _OBJ_VALUE:
                    _issue(issues, "value-expected", pos, tend - pos)
                assert node is not None
                _issue(
                    issues,
                    "missing-close-bracket" if closes_obj else "missing-close-brace",
                    node.offset,
                    1,
                )
                close_at = pos
                while close_at > node.offset + 1 and text[close_at - 1] in " \t\n\r":
                    close_at -= 1
                # pos unchanged: the closing token is read again by the parent
            else:  # a stray closer: report it once and skip it
                if state == _OBJ_VALUE:
                    _issue(issues, "value-expected", pos, tend - pos)
                    state = _OBJ_NEXT
                elif state == _OBJ_COLON:
                    _issue(issues, "missing-colon", pos, tend - pos)
                    state = _OBJ_NEXT
                else:
                    _issue(issues, "unexpected-token", pos, tend - pos)
                pos = npos
                continue
            # pop the container
            closed = node
            closed.length = close_at - closed.offset
            if closed.kind == "object":
                n_obj -= 1
            else:
                n_arr -= 1
            node, kids, state, prop, seen = stack.pop()
            if prop is not None and prop.value_node is closed:
                prop.length = close_at - prop.offset
            continue

        if tok == _T_COMMA:
            if state in (_OBJ_NEXT, _ARR_NEXT):
                state = _OBJ_KEY_COMMA if state == _OBJ_NEXT else _ARR_VALUE_COMMA
            elif state in (_OBJ_KEY, _OBJ_KEY_COMMA):
                _issue(issues, "property-expected", pos, 1)
                state = _OBJ_KEY_COMMA
            elif state == _OBJ_COLON:
                _issue(issues, "missing-colon", pos, 1)
                state = _OBJ_KEY_COMMA
            elif state == _OBJ_VALUE:
                _issue(issues, "value-expected", pos, 1)
                state = _OBJ_KEY_COMMA
            elif state in (_ARR_VALUE, _ARR_VALUE_COMMA):
                _issue(issues, "value-expected", pos, 1)
                state = _ARR_VALUE_COMMA
            elif state == _TOP:
                if not junk_reported:
                    _issue(issues, "value-expected", pos, 1)
                    junk_reported = True
            else:
                _issue(issues, "end-of-file-expected", pos, 1)
                break
            comma_at = pos
            pos = npos
            continue

        if tok == _T_COLON:
            if state == _OBJ_COLON:
                assert prop is not None
                prop.colon_offset = pos
                prop.length = pos + 1 - prop.offset
                state = _OBJ_VALUE
            elif state in (_OBJ_KEY, _OBJ_KEY_COMMA):
                _issue(issues, "property-expected", pos, 1)
                prop = None  # discard the value that follows
                state = _OBJ_VALUE
            elif state == _OBJ_NEXT:
                _issue(issues, "unexpected-token", pos, 1)
                prop = None
                state = _OBJ_VALUE
            elif state == _TOP:
                if not junk_reported:
                    _issue(issues, "value-expected", pos, 1)
                    junk_reported = True
            elif state == _TOP_DONE:
                _issue(issues, "end-of-file-expected", pos, 1)
                break
            else:
                _issue(issues, "unexpected-token", pos, 1)
            pos = npos
            continue

        # _T_UNKNOWN: a bare word such as `True`, `None`, `NaN`, `tru`, or a lone `/`
        if state in (_OBJ_KEY, _OBJ_KEY_COMMA, _OBJ_NEXT):
            if state == _OBJ_NEXT:
                _issue(issues, "missing-comma", pos, tend - pos)
            word = text[pos:tend]
            _issue(issues, "unquoted-key", pos, tend - pos)
            knode = new("string", pos, tend - pos, None, _E, None, None, -1, word)
            prop = _new_property(knode, node, kids, seen, issues)
            state = _OBJ_COLON
        elif state == _OBJ_COLON:
            _issue(issues, "missing-colon", pos, tend - pos)
            state = _OBJ_NEXT
        elif state in (_OBJ_VALUE, _ARR_VALUE, _ARR_VALUE_COMMA):
            _issue(issues, "value-expected", pos, tend - pos)
            state = _OBJ_NEXT if state == _OBJ_VALUE else _ARR_NEXT
        elif state == _ARR_NEXT:
            _issue(issues, "unexpected-token", pos, tend - pos)
        elif state == _TOP:
            if not junk_reported:
                _issue(issues, "value-expected", pos, tend - pos)
                junk_reported = True
        else:
            _issue(issues, "end-of-file-expected", pos, tend - pos)
            break
        pos = npos
    else:
        # ---- end of text ----------------------------------------------------
        if state == _OBJ_COLON:
            _issue(issues, "missing-colon", end, 0)
        elif state == _OBJ_VALUE:
            _issue(issues, "value-expected", end, 0)
            if prop is not None:
                prop.length = end - prop.offset  # the cursor at EOF is in this value
        while node is not None:
            _issue(
                issues,
                "missing-close-brace" if node.kind == "object" else "missing-close-bracket",
                node.offset,
                1,
            )
            closed = node
            closed.length = end - closed.offset
            node, kids, state, prop, seen = stack.pop()
            if prop is not None and prop.value_node is closed:
                prop.length = end - prop.offset

    if len(issues) > 1:
        issues.sort(key=attrgetter("offset"))
    return JsonDocument(text, root, issues, lines, comment_list, start, end)


def _new_property(
    key: Node,
    obj: Node | None,
    kids: list[Node],
    seen: dict[str, Node | None],
    issues: list[SyntaxIssue],
) -> Node:
    """A property node for ``key`` (a string node), appended to the open object."""
    p = Node("property", key.offset, key.length, obj, _E, key, None, -1, None)
    key.parent = p
    kids.append(p)
    k = key.value
    if k in seen:
        _duplicate(issues, seen, k, key)
    else:
        seen[k] = p
    return p


def _duplicate(issues: list[SyntaxIssue], seen: dict[str, Node | None], k: str, key: Node) -> None:
    """Report a repeated key; the first occurrence is reported once too (as VS Code does)."""
    _issue(issues, "duplicate-key", key.offset, key.length)
    first = seen[k]
    if first is not None and first.key_node is not None:
        _issue(issues, "duplicate-key", first.key_node.offset, first.key_node.length)
        seen[k] = None
