"""Document symbols (the outline of fields with their comparators) and go to definition."""

from __future__ import annotations

from dataclasses import dataclass, field

from evalschema.pointer import unescape

from ..document import Node
from .analysis import SchemaAnalysis
from .context import key_of, property_value


@dataclass
class Symbol:
    name: str
    detail: str
    start: int
    end: int
    sel_start: int
    sel_end: int
    kind: str  # "object" | "array" | "field"
    children: list[Symbol] = field(default_factory=list)


def outline(analysis: SchemaAnalysis) -> list[Symbol]:
    root = analysis.doc.root
    if root is None or root.kind != "object":
        return []
    return _fields(analysis, root, depth=0)


def _fields(analysis: SchemaAnalysis, obj: Node, depth: int) -> list[Symbol]:
    if depth > 64:
        return []
    props = property_value(obj, "properties")
    out: list[Symbol] = []
    if props is not None and props.kind == "object":
        for prop in props.children:
            value = prop.value_node
            name = key_of(prop)
            if name is None or value is None or value.kind != "object" or prop.key_node is None:
                continue
            node = analysis.schema_node_for(value)
            detail = ""
            kind = "field"
            if node is not None:
                kind = "field" if node.kind == "leaf" else node.kind
                detail = "skipped" if node.skip else (node.label or node.comparator or "") \
                    if node.kind == "leaf" else (node.align.strategy if node.align else "")
            sym = Symbol(name, detail, prop.offset, prop.end, prop.key_node.offset,
                         prop.key_node.end, kind)
            sym.children = _fields(analysis, value, depth + 1)
            items = property_value(value, "items")
            if items is not None and items.kind == "object":
                sym.children.extend(_fields(analysis, items, depth + 1))
            out.append(sym)
    return out


def definition(analysis: SchemaAnalysis, offset: int) -> tuple[int, int] | None:
    """For a local ``$ref`` under the cursor: the span of its target."""
    node = analysis.doc.node_at(offset)
    if node is None or node.kind != "string" or node.parent is None:
        return None
    if key_of(node.parent) != "$ref" or not isinstance(node.value, str):
        return None
    ref = node.value
    if not ref.startswith("#"):
        return None
    pointer = ref[1:]
    target = analysis.doc.node_at_pointer(pointer)
    if target is None:
        target = analysis.doc.node_at_pointer("/".join(unescape(s) for s in pointer.split("/")))
    if target is None:
        return None
    prop = target.parent if target.parent is not None and target.parent.kind == "property" \
        else None
    if prop is not None and prop.key_node is not None:
        return prop.offset, prop.end
    return target.offset, target.end
