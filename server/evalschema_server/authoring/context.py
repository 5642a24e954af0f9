"""Where the cursor is, in eval-schema terms: which object's keys, which key's value.

Completion and hover both need to know whether the cursor sits on a key or a
value and what that object means (a schema node, a comparator's parameters, an
alignment spec), the way vscode-json-languageservice decides between
property-name and value position from the node under the cursor.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from evalschema.rules.keywords import KEYWORDS
from evalschema.rules.registry import Entry, Registry

from ..document import Node

#: Keys whose object value maps names to schemas (each value is a schema node).
_SCHEMA_MAPS = {"properties", "$defs", "definitions", "patternProperties"}
#: Keys whose value is a schema node.
_SCHEMA_VALUES = {"items", "additionalProperties", "not", "contains", "if", "then", "else"}
#: Keys whose array items are schema nodes.
_SCHEMA_ARRAYS = {"anyOf", "oneOf", "allOf", "prefixItems"}

Role = Literal["schema", "compare", "compare-params", "transform-params", "align", "other"]


@dataclass(frozen=True)
class ObjectRole:
    role: Role
    #: The comparator or transform whose parameters these are.
    name: str | None = None
    #: The schema object this belongs to (for align: the array schema).
    schema_obj: Node | None = None
    #: For parameters: the path from the entry's parameter object to this object
    #: (``("tolerance",)`` inside ``{"numeric": {"tolerance": {…}}}``).
    path: tuple[str, ...] = ()


def key_of(prop: Node | None) -> str | None:
    if prop is None or prop.kind != "property" or prop.key_node is None:
        return None
    key = prop.key_node.value
    return key if isinstance(key, str) else None


def parent_property(node: Node) -> Node | None:
    p = node.parent
    return p if p is not None and p.kind == "property" else None


def property_value(obj: Node, key: str) -> Node | None:
    for prop in obj.children:
        if key_of(prop) == key:
            return prop.value_node
    return None


def role_of(obj: Node, registry: Registry) -> ObjectRole:
    """What an object in an eval schema is, from where it stands."""
    prop = parent_property(obj)
    if prop is None:
        parent = obj.parent
        if parent is None:
            return ObjectRole("schema")
        if parent.kind == "array":
            holder = parent_property(parent)
            hkey = key_of(holder)
            if hkey in _SCHEMA_ARRAYS:
                return ObjectRole("schema")
            if hkey == "x-eval-transform":
                return ObjectRole("other")
        return ObjectRole("other")
    key = key_of(prop)
    owner = prop.parent  # the object holding `key`
    if key in _SCHEMA_VALUES:
        return ObjectRole("schema")
    if key == "x-eval-compare":
        return ObjectRole("compare", schema_obj=owner)
    if key == "x-eval-align":
        return ObjectRole("align", schema_obj=owner)
    if owner is not None:
        owner_prop = parent_property(owner)
        okey = key_of(owner_prop)
        if okey in _SCHEMA_MAPS:
            return ObjectRole("schema")
        if okey == "x-eval-compare" and key in registry.comparators:
            return ObjectRole("compare-params", key, schema_obj=owner_prop.parent
                              if owner_prop is not None else None)
        if owner.parent is not None and owner.parent.kind == "array":
            holder = parent_property(owner.parent)
            if key_of(holder) == "x-eval-transform" and key in registry.transforms:
                return ObjectRole("transform-params", key)
        outer = role_of(owner, registry)
        if outer.role in ("compare-params", "transform-params") and outer.name and key:
            nested = ObjectRole(outer.role, outer.name, outer.schema_obj, (*outer.path, key))
            entry = param_entry(nested, registry)
            if entry is not None and entry.param_spec(nested.path) is not None:
                return nested
    return ObjectRole("other")


def param_entry(role: ObjectRole, registry: Registry) -> Entry | None:
    """The comparator or transform whose parameters a ``*-params`` role is about."""
    if role.name is None:
        return None
    if role.role == "compare-params":
        return registry.comparators.get(role.name)
    if role.role == "transform-params":
        return registry.transforms.get(role.name)
    return None


def schema_kind(obj: Node) -> str:
    """leaf / object / array, from the object's own keys (as the engine decides)."""
    if property_value(obj, "x-eval-compare") is not None:
        return "leaf"
    props = property_value(obj, "properties")
    if props is not None and props.kind == "object" and props.children:
        return "object"
    # A map (judged per key, schema.tree's _map_schemas) is an object too.
    extra = property_value(obj, "additionalProperties")
    patterns = property_value(obj, "patternProperties")
    if (extra is not None and extra.kind == "object") or (patterns is not None \
            and patterns.kind == "object" and patterns.children):
        return "object"
    if property_value(obj, "items") is not None:
        return "array"
    t = property_value(obj, "type")
    types: list[object] = []
    if t is not None and t.kind == "string":
        types = [t.value]
    elif t is not None and t.kind == "array":
        types = [c.value for c in t.children]
    if "array" in types:
        return "array"
    return "leaf"


def fitting_keywords(obj: Node) -> list[str]:
    """x-eval keys that fit this schema node and are not there yet (root gets x-eval-id)."""
    kind = schema_kind(obj)
    present = {key_of(p) for p in obj.children}
    out = []
    for name, kw in KEYWORDS.items():
        if name in present:
            continue
        if "root" in kw.applies_to:
            if obj.parent is None:
                out.append(name)
        elif kind in kw.applies_to:
            out.append(name)
    return out


@dataclass(frozen=True)
class Cursor:
    """The cursor in JSON terms."""

    position: Literal["key", "value", "item", "none"]
    #: key: the object whose keys are typed; value/item: the object holding the property.
    obj: Node | None = None
    #: value/item: the property whose value is typed.
    prop: Node | None = None
    #: Span the completion replaces (the partial token, quotes included).
    start: int = 0
    end: int = 0
    #: A key already has its colon (complete only the name).
    has_colon: bool = False
    #: A new key is typed before another member with no comma between: the completion
    #: adds it, so the object stays valid JSON.
    comma: bool = False


def member_follows(text: str, end: int) -> bool:
    """Whether the next thing after ``end`` (past whitespace) starts another member."""
    rest = text[end:end + 4096].lstrip()
    return rest.startswith('"')


def cursor_at(root: Node | None, node: Node | None, offset: int) -> Cursor:
    if root is None:
        return Cursor("none", start=offset, end=offset)
    if node is None:
        return Cursor("none", start=offset, end=offset)
    if node.kind == "string" and node.parent is not None and node.parent.kind == "property" \
            and node.parent.key_node is node:
        prop = node.parent
        return Cursor("key", prop.parent, prop, node.offset, node.end, prop.colon_offset >= 0)
    if node.kind == "property":
        if node.colon_offset >= 0 and offset > node.colon_offset:
            return Cursor("value", node.parent, node, offset, offset)
        return Cursor("key", node.parent, node, offset, offset)
    if node.kind == "object":
        return Cursor("key", node, None, offset, offset)
    if node.kind == "array":
        holder = parent_property(node)
        return Cursor("item", holder.parent if holder is not None else None, holder, offset,
                      offset)
    parent = node.parent
    if parent is not None and parent.kind == "property":
        return Cursor("value", parent.parent, parent, node.offset, node.end)
    if parent is not None and parent.kind == "array":
        holder = parent_property(parent)
        return Cursor("item", holder.parent if holder else None, holder, node.offset, node.end)
    return Cursor("none", start=offset, end=offset)


def param_doc(name: str, spec: dict[str, Any], entry: Entry) -> str:
    """Markdown for one parameter (``tolerance.rel``): its description, its JSON Schema
    (nested parameters listed), and the entry's doc."""
    head = f"**`{entry.name}` parameter `{name}`**"
    if isinstance(spec.get("description"), str):
        head += f": {spec['description']}"
    shown = {k: v for k, v in spec.items() if k != "description"}
    props = shown.get("properties")
    if isinstance(props, dict):
        shown["properties"] = {k: {kk: vv for kk, vv in v.items() if kk != "description"}
                               if isinstance(v, dict) else v for k, v in props.items()}
    return f"{head}\n\n`{json.dumps(shown)}`\n\n{entry.doc}"
