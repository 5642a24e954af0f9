"""One change to a gold record, written the way its file is written: the edit only.

Accepting an extracted value as gold, or fixing a gold value a suite suspects, is one
change at a JSON Pointer of one gold record: replace the value, add the key (with the
parent objects it needs), or remove it. The edit touches only that place, so the rest
of the file (its other records, line endings, non-ASCII text, the user's layout) stays
byte for byte: a one-line record gets ``, "key": value`` inline, a pretty-printed object
a new line with its siblings' indentation, and the JSON stays valid (no trailing comma).

Pure: texts in, offsets out (``TextEdit`` over the whole file's text); the server turns
them into LSP ranges. The server never writes the gold file: the editor applies the edit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final, Protocol

from evalschema.pointer import escape, split

from ..authoring.actions import TextEdit
from ..document import Node, parse


class _Remove:
    def __repr__(self) -> str:
        return "REMOVE"


#: Pass as the new value to remove the key (or array element) at the pointer.
REMOVE: Final = _Remove()


class GoldFixError(ValueError):
    """The change cannot be written there (the message says why)."""


class Record(Protocol):
    """A record of the file: where its text starts (``datafile.RecordSlice`` is one)."""

    @property
    def start(self) -> int: ...
    @property
    def text(self) -> str: ...


def gold_edits(file_text: str, record: Record, pointer: str, new: Any, *,
               value_text: str | None = None,
               key_order: Callable[[str], Sequence[str]] = lambda pointer: ()
               ) -> list[TextEdit]:
    """The edit that sets the value at ``pointer`` of ``record`` to ``new`` (``REMOVE``:
    removes it). ``value_text``: the JSON text to write as it is (a scalar as the
    extracted file spells it, ``1.50``), else ``new`` is serialized. A new key goes
    after the keys that ``key_order(pointer of its object)`` puts before it (the
    extracted object's order), else last. Missing parents are created as objects (a
    ``null`` parent is replaced by one). Raises ``GoldFixError`` when it cannot."""
    fix = _Fix(file_text, record)
    if new is REMOVE:
        return [fix.remove(pointer)]
    return [fix.set(pointer, new, value_text, key_order)]


class _Fix:
    def __init__(self, file_text: str, record: Record) -> None:
        self.file = file_text
        self.base = record.start
        self.text = record.text
        self.doc = parse(record.text)
        if self.doc.root is None or any(i.code != "comment" for i in self.doc.issues):
            raise GoldFixError("the gold record is not valid JSON")
        self.nl = "\r\n" if "\r\n" in file_text else "\n"

    # -- the three changes ---------------------------------------------------

    def set(self, pointer: str, value: Any, value_text: str | None,
            key_order: Callable[[str], Sequence[str]]) -> TextEdit:
        segs = split(pointer)
        depth = len(segs)
        while depth > 0 and self.node("/".join(["", *map(escape, segs[:depth])])) is None:
            depth -= 1
        at = "".join("/" + escape(s) for s in segs[:depth])
        node = self.node(at)
        assert node is not None  # the root is there (checked in __init__)
        rest = segs[depth:]
        if not rest:  # the value is there: replace it
            return self.edit(node.offset, node.end, value_text or self.dump(value, node))
        nested = value
        for key in reversed(rest[1:]):
            nested = {key: nested}
        text = value_text if len(rest) == 1 else None
        if node.kind == "null":
            return self.edit(node.offset, node.end, self.dump({rest[0]: nested}, node))
        if node.kind != "object":
            raise GoldFixError(f"gold has {_kind(node)} at {at or 'the record'}, not an object "
                               f"to add {rest[0]!r} to")
        return self.insert(node, rest[0], nested, text, key_order(at))

    def remove(self, pointer: str) -> TextEdit:
        node = self.node(pointer) if pointer else None
        if node is None:
            raise GoldFixError(f"gold has no value at {pointer or 'the record'} to remove")
        member = node.parent if node.parent is not None and node.parent.kind == "property" \
            else node
        container = member.parent
        assert container is not None  # not the root
        siblings = container.children
        i = next(k for k, c in enumerate(siblings) if c is member)
        if len(siblings) == 1:  # {"a": 1} -> {}: no blank line left inside
            return self.edit(container.offset + 1, container.end - 1, "")
        if i + 1 < len(siblings):  # the member, its comma and the space up to the next
            return self.edit(member.offset, siblings[i + 1].offset, "")
        return self.edit(siblings[i - 1].end, member.end, "")  # the last: the comma before

    def insert(self, obj: Node, key: str, value: Any, value_text: str | None,
               order: Sequence[str]) -> TextEdit:
        props = obj.children
        item_sep, key_sep = self.separators(obj)
        name = json.dumps(key, ensure_ascii=False)
        at = _place(props, key, order)
        if not self.multiline(obj):
            member = f"{name}{key_sep}{value_text or self.dump(value, None)}"
            if not props:
                return self.edit(obj.offset + 1, obj.end - 1, member)
            if at == 0:
                return self.edit(props[0].offset, props[0].offset, member + item_sep)
            return self.edit(props[at - 1].end, props[at - 1].end, item_sep + member)
        if not props:
            outer = self.indent(obj.offset)
            inner = outer + self.unit(obj)
            member = f"{name}{key_sep}{value_text or self.dump(value, None, inner, obj)}"
            return self.edit(obj.offset + 1, obj.end - 1, self.nl + inner + member + self.nl + outer)
        sibling = props[max(at - 1, 0)]
        inner = self.indent(sibling.offset)
        member = f"{name}{key_sep}{value_text or self.dump(value, None, inner, obj)}"
        if at == 0:
            return self.edit(props[0].offset, props[0].offset, member + "," + self.nl + inner)
        return self.edit(sibling.end, sibling.end, "," + self.nl + inner + member)

    # -- the file's ways -------------------------------------------------------

    def node(self, pointer: str) -> Node | None:
        return self.doc.node_at_pointer(pointer)

    def edit(self, start: int, end: int, text: str) -> TextEdit:
        return TextEdit(self.base + start, self.base + end, text)

    def multiline(self, container: Node) -> bool:
        """Pretty-printed: a line break between its bracket and its first member."""
        first = container.children[0].offset if container.children else container.end
        return "\n" in self.text[container.offset:first]

    def indent(self, offset: int) -> str:
        """The leading blanks of the line holding ``offset`` (of the record's text)."""
        at = self.base + offset
        start = self.file.rfind("\n", 0, at) + 1
        line = self.file[start:at]
        return line[:len(line) - len(line.lstrip(" \t"))]

    def unit(self, container: Node) -> str:
        """One level of indentation: the container's members' indentation beyond its own
        line's, else that of the record's first pretty-printed object, else two spaces."""
        for node in (container, self.doc.root):
            if node is not None and node.children and self.multiline(node):
                outer, inner = self.indent(node.offset), self.indent(node.children[0].offset)
                if inner.startswith(outer) and len(inner) > len(outer):
                    return inner[len(outer):]
        return "  "

    def separators(self, obj: Node | None) -> tuple[str, str]:
        """(between members, between key and value) as the record writes them (in ``obj``
        when it has members, else at its top): ``, `` and ``: `` unless it writes ``,``
        and ``:``."""
        sample = obj if obj is not None and obj.kind == "object" and obj.children \
            else self.doc.root
        item, key = ", ", ": "
        if sample is not None and sample.kind == "object" and sample.children:
            first = sample.children[0]
            if first.colon_offset >= 0 and first.value_node is not None:
                key = ":" if first.value_node.offset == first.colon_offset + 1 else ": "
            if len(sample.children) > 1:
                gap = self.text[first.end:sample.children[1].offset]
                item = ", " if gap.strip() == "," and gap.endswith(" ") else ","
                if "\n" in gap:
                    item = ", "
        return item, key

    def dump(self, value: Any, replaced: Node | None, inner: str | None = None,
             container: Node | None = None) -> str:
        """``value`` as JSON: on one line in a one-line record, else indented as the
        file is, continuing at the indentation ``inner`` (the line of ``replaced``)."""
        holder = container or (replaced.parent if replaced is not None else None)
        if holder is not None and holder.kind == "property":
            holder = holder.parent
        if holder is None or not self.multiline(holder) or not isinstance(value, dict | list) \
                or not value:
            return _json(value, separators=self.separators(holder))
        base = inner if inner is not None else self.indent(replaced.offset if replaced else 0)
        return _json(value, indent=self.unit(holder)).replace("\n", self.nl + base)


def _json(value: Any, **how: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, **how)
    except ValueError:
        raise GoldFixError("the value is not valid JSON (NaN or Infinity)") from None


def _place(props: list[Node], key: str, order: Sequence[str]) -> int:
    """Where a new key goes among ``props``: after the last key ``order`` puts before it,
    else before the first it puts after it, else last."""
    order = list(order)
    if key in order:
        mine = order.index(key)
        before, after = set(order[:mine]), set(order[mine + 1:])
        last = max((i + 1 for i, p in enumerate(props) if p.key in before), default=None)
        if last is not None:
            return last
        first = min((i for i, p in enumerate(props) if p.key in after), default=None)
        if first is not None:
            return first
    return len(props)


def _kind(node: Node) -> str:
    return "an array" if node.kind == "array" else f"a {node.kind}"
