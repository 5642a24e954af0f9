"""Completion: x-eval keys at key position, registry names and parameters at value position.

Every name comes from the engine's registry and keyword table, so a comparator a
project registers shows up here the moment it is registered.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from lsprotocol import types

from evalschema.rules.keywords import KEYWORDS
from evalschema.rules.registry import Entry, Registry

from . import standard
from .analysis import SchemaAnalysis
from .context import (
    Cursor,
    cursor_at,
    fitting_keywords,
    key_of,
    member_follows,
    param_doc,
    param_entry,
    property_value,
    role_of,
    schema_kind,
)


@dataclass(frozen=True)
class Edit:
    """What one completion item inserts, as offsets (the server maps them to positions)."""

    label: str
    new_text: str
    start: int
    end: int
    kind: types.CompletionItemKind
    detail: str | None = None
    doc: str | None = None
    snippet: bool = False
    sort: str | None = None


def _doc(entry: Entry) -> str:
    params = entry.params.get("properties", {})
    lines = [entry.doc]
    if params:
        lines.append("")
        lines.append("Parameters: " + ", ".join(
            f"`{k}`{' (required)' if k in entry.required_params else ''}" for k in params))
    return "\n".join(lines)


def _quoted(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _tabstop(i: int) -> str:
    return "${" + str(i) + "}"


def _choice(i: int, options: Any) -> str:
    """A snippet choice placeholder: ``${1|a,b|}``."""
    return "${" + str(i) + "|" + ",".join(str(o) for o in options) + "|}"


def _snippet_params(entry: Entry) -> str:
    """``{"name": {"param": ${1:…}}}`` with the required parameters as tab stops."""
    props = entry.params.get("properties", {})
    parts = []
    for i, p in enumerate(entry.required_params, start=1):
        spec = props.get(p, {})
        placeholder = f'"{_tabstop(i)}"' if spec.get("type") == "string" else _tabstop(i)
        if isinstance(spec.get("enum"), list) and spec["enum"]:
            placeholder = f'"{_choice(i, spec["enum"])}"'
        parts.append(f"{_quoted(p)}: {placeholder}")
    return "{" + _quoted(entry.name) + ": {" + ", ".join(parts) + "}}"


def complete(analysis: SchemaAnalysis, offset: int, registry: Registry,
             snippets: bool) -> list[Edit]:
    doc = analysis.doc
    node = doc.node_at(offset, include_right_boundary=True)
    cur = cursor_at(doc.root, node, offset)
    if cur.position == "key" and cur.obj is not None:
        if not cur.has_colon and member_follows(doc.text, cur.end):
            cur = replace(cur, comma=True)
        return _keys(cur, registry, snippets)
    if cur.position in ("value", "item"):
        return _values(analysis, cur, registry, snippets)
    return []


def _key_item(cur: Cursor, name: str, value_snippet: str | None, kind: types.CompletionItemKind,
              detail: str, doc: str, snippets: bool, sort: str | None = None) -> Edit:
    if cur.has_colon:
        return Edit(name, _quoted(name), cur.start, cur.end, kind, detail, doc, sort=sort)
    comma = "," if cur.comma else ""
    if not snippets or value_snippet is None:
        # Without a value to put, the comma would land before it: leave it to the user.
        return Edit(name, f"{_quoted(name)}: ", cur.start, cur.end, kind, detail, doc,
                    sort=sort)
    return Edit(name, f"{_quoted(name)}: {value_snippet}{comma}", cur.start, cur.end, kind,
                detail, doc, snippet=True, sort=sort)


def _keys(cur: Cursor, registry: Registry, snippets: bool) -> list[Edit]:
    assert cur.obj is not None
    role = role_of(cur.obj, registry)
    present = {key_of(p) for p in cur.obj.children if p is not cur.prop}
    out: list[Edit] = []
    if role.role == "schema":
        for name in fitting_keywords(cur.obj):
            if name in present:
                continue
            kw = KEYWORDS[name]
            out.append(_key_item(cur, name, kw.snippet, types.CompletionItemKind.Property,
                                 "evalschema key", kw.doc, snippets))
        root = cur.obj.parent is None
        for name, std in standard.KEYWORDS.items():
            if name not in present and (root or not std.root_only):
                out.append(_key_item(cur, name, std.snippet, types.CompletionItemKind.Keyword,
                                     "JSON Schema", std.doc, snippets, sort="~" + name))
    elif role.role == "compare":
        for c in registry.comparators.values():
            out.append(_key_item(cur, c.name, _params_object(c), types.CompletionItemKind.Function,
                                 "comparator", _doc(c), snippets))
    elif role.role in ("compare-params", "transform-params") and role.name:
        entry = param_entry(role, registry)
        holder = entry.param_spec(role.path) if entry is not None else None
        if entry is not None and holder is not None:
            for p, spec in holder.get("properties", {}).items():
                if p in present:
                    continue
                out.append(_key_item(cur, p, _value_snippet(spec),
                                     types.CompletionItemKind.Field, f"{entry.name} parameter",
                                     _spec_doc(".".join((*role.path, p)), spec, entry),
                                     snippets))
    elif role.role == "align":
        for p, snip in (("match_by", f'"{_choice(1, registry.strategies)}"'),
                        ("key", '"${1}"'), ("ordered", "${1|true,false|}")):
            if p not in present:
                out.append(_key_item(cur, p, snip, types.CompletionItemKind.Field,
                                     "alignment", KEYWORDS["x-eval-align"].doc, snippets))
    return out


def _params_object(entry: Entry) -> str:
    if not entry.required_params:
        return "{$1}"
    body = _snippet_params(entry)
    return body[len(_quoted(entry.name)) + 3:-1]


def _value_snippet(spec: dict[str, Any]) -> str:
    if isinstance(spec.get("enum"), list) and spec["enum"]:
        return f'"{_choice(1, spec["enum"])}"'
    t = spec.get("type")
    if t == "string":
        return '"${1}"'
    if t == "boolean":
        return "${1|true,false|}"
    if t == "array":
        return "[${1}]"
    if t == "object" or (isinstance(t, list) and "object" in t):
        return "{${1}}"
    return "${1}"


def _spec_doc(name: str, spec: dict[str, Any], entry: Entry) -> str:
    return param_doc(name, spec, entry)


def _values(analysis: SchemaAnalysis, cur: Cursor, registry: Registry,
            snippets: bool) -> list[Edit]:
    key = key_of(cur.prop)
    holder = cur.obj
    if key is None or holder is None:
        return []
    role = role_of(holder, registry)
    out: list[Edit] = []
    if role.role == "schema" and key == "type":  # "type": "…" or "type": ["…", …]
        return [Edit(json.dumps(t), json.dumps(t), cur.start, cur.end,
                     types.CompletionItemKind.Value, "JSON type") for t in standard.TYPE_NAMES]
    if cur.position == "item":
        if key == "x-eval-transform":
            for d in registry.transforms.values():
                out.append(Edit(d.name, _quoted(d.name), cur.start, cur.end,
                                types.CompletionItemKind.Function, "transform", _doc(d)))
                if snippets and d.required_params:
                    out.append(Edit(f"{d.name} {{…}}", _snippet_params(d), cur.start, cur.end,
                                    types.CompletionItemKind.Snippet, "transform with parameters",
                                    _doc(d), snippet=True, sort=f"~{d.name}"))
        return out
    if role.role == "schema" and key == "x-eval-compare":
        node_types = _types_of(holder)
        for c in registry.comparators.values():
            fits = not node_types or node_types <= c.types
            out.append(Edit(c.name, _quoted(c.name), cur.start, cur.end,
                            types.CompletionItemKind.Function, "comparator", _doc(c),
                            sort=("0" if fits else "1") + c.name))
            if snippets and c.required_params:
                out.append(Edit(f"{c.name} {{…}}", _snippet_params(c), cur.start, cur.end,
                                types.CompletionItemKind.Snippet, "comparator with parameters",
                                _doc(c), snippet=True, sort=("0" if fits else "1") + c.name + "~"))
        return out
    if role.role == "schema" and key in KEYWORDS:
        enum = KEYWORDS[key].value_schema.get("enum")
        if key == "x-eval-skip":
            enum = [True, False]
        for v in enum or []:
            out.append(Edit(json.dumps(v), json.dumps(v), cur.start, cur.end,
                            types.CompletionItemKind.Value, key, KEYWORDS[key].doc))
        if key == "x-eval-id" and holder.parent is None:
            props = property_value(holder, "properties")
            for p in props.children if props is not None and props.kind == "object" else []:
                name = key_of(p)
                if name:
                    out.append(Edit(name, _quoted(name), cur.start, cur.end,
                                    types.CompletionItemKind.Field, "record id field"))
        return out
    if role.role == "align":
        if key == "match_by":
            for st in registry.strategies.values():
                out.append(Edit(st.name, _quoted(st.name), cur.start, cur.end,
                                types.CompletionItemKind.EnumMember, "alignment strategy",
                                _doc(st)))
        elif key == "key" and role.schema_obj is not None:
            items = property_value(role.schema_obj, "items")
            props = property_value(items, "properties") if items is not None \
                and items.kind == "object" else None
            for p in props.children if props is not None and props.kind == "object" else []:
                name = key_of(p)
                if name:
                    out.append(Edit(name, _quoted(name), cur.start, cur.end,
                                    types.CompletionItemKind.Field, "item property"))
        elif key == "ordered":
            out.append(Edit("true", "true", cur.start, cur.end, types.CompletionItemKind.Value))
        return out
    if role.role in ("compare-params", "transform-params") and role.name:
        entry = param_entry(role, registry)
        spec = (entry.param_spec((*role.path, key)) if entry else None) or {}
        values = spec.get("enum") or ([True, False] if spec.get("type") == "boolean" else [])
        for v in values:
            out.append(Edit(json.dumps(v), json.dumps(v), cur.start, cur.end,
                            types.CompletionItemKind.Value, f"{role.name}.{key}"))
    return out


def _types_of(obj: Any) -> frozenset[str]:
    t = property_value(obj, "type")
    if t is None:
        kind = schema_kind(obj)
        return frozenset({kind}) if kind != "leaf" else frozenset()
    if t.kind == "string" and isinstance(t.value, str):
        return frozenset({t.value}) - {"null"}
    if t.kind == "array":
        return frozenset(c.value for c in t.children if isinstance(c.value, str)) - {"null"}
    return frozenset()
