"""Quick fixes from diagnostics' data, and the "annotate schema" source action.

Fixes are text edits as offsets; the server turns them into LSP ranges. Each fix
reads what the engine put in ``Problem.data`` (replacements, missing parameters),
so the engine decides what is wrong and the server only says how to write it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from evalschema.rules.registry import Registry

from ..document import Node
from .analysis import SchemaAnalysis
from .context import key_of, property_value, role_of


@dataclass(frozen=True)
class TextEdit:
    start: int
    end: int
    new_text: str


@dataclass
class Fix:
    title: str
    edits: list[TextEdit] = field(default_factory=list)
    kind: str = "quickfix"
    preferred: bool = False
    #: The diagnostic (its index in the request) this fix answers, if any.
    diagnostic: int | None = None


def _insert_property(obj: Node, key: str, value: str) -> TextEdit:
    """A new first property of ``obj``, with the comma it needs."""
    text = f"{json.dumps(key)}: {value}"
    if obj.children:
        return TextEdit(obj.children[0].offset, obj.children[0].offset, text + ", ")
    return TextEdit(obj.offset + 1, obj.offset + 1, text)


def _enclosing_schema_object(analysis: SchemaAnalysis, offset: int,
                             registry: Registry) -> Node | None:
    node = analysis.doc.node_at(offset)
    while node is not None:
        if node.kind == "object" and role_of(node, registry).role == "schema" \
                and node.parent is not None:
            return node
        node = node.parent
    return None


def quick_fixes(analysis: SchemaAnalysis, index: int, start: int, end: int,
                data: dict[str, Any], registry: Registry) -> list[Fix]:
    out: list[Fix] = []
    for name in data.get("replacements") or []:
        if isinstance(name, str):
            out.append(Fix(f"Change to '{name}'", [TextEdit(start, end, json.dumps(name))],
                           preferred=len(data["replacements"]) == 1, diagnostic=index))
    missing = data.get("missing")
    if data.get("code") == "missing-param" and isinstance(missing, list) and missing:
        fix = _add_params(analysis, data, missing)
        if fix is not None:
            fix.diagnostic = index
            out.append(fix)
    obj = _enclosing_schema_object(analysis, start, registry)
    if obj is not None and property_value(obj, "x-eval-skip") is None:
        out.append(Fix("Skip this field (x-eval-skip)", [_insert_property(obj, "x-eval-skip",
                                                                          "true")],
                       diagnostic=index))
    return out


def _add_params(analysis: SchemaAnalysis, data: dict[str, Any], missing: list[str]) -> Fix | None:
    name = data.get("name")
    pointer = data.get("pointer", "")
    node = analysis.doc.node_at_pointer(pointer)
    if not isinstance(name, str) or node is None:
        return None
    body = ", ".join(f"{json.dumps(m)}: \"\"" for m in missing)
    title = f"Add required parameter(s) {', '.join(missing)}"
    if node.kind == "string":  # "x-eval-compare": "regex"
        return Fix(title, [TextEdit(node.offset, node.end,
                                    "{" + json.dumps(name) + ": {" + body + "}}")])
    if node.kind == "object":
        if node.children:
            return Fix(title, [TextEdit(node.children[0].offset, node.children[0].offset,
                                        body + ", ")])
        return Fix(title, [TextEdit(node.offset + 1, node.offset + 1, body)])
    return None


def annotate_edits(analysis: SchemaAnalysis) -> list[TextEdit]:
    """Give every unannotated leaf the comparator it is judged with, explicitly: its
    default, or what an extract-bench ``evaluation_config`` is read as (with its
    parameters and transforms, so writing it changes nothing)."""
    edits: list[TextEdit] = []
    if analysis.check is None:
        return edits
    for node in analysis.check.root.walk():
        if node.kind != "leaf" or node.skip or not node.comparator or not node.pointer:
            continue
        obj = analysis.doc.node_at_pointer(node.pointer)
        if obj is None or obj.kind != "object" or property_value(obj, "x-eval-compare"):
            continue
        if any(key_of(p) == "$ref" for p in obj.children):
            continue  # annotated where it is defined
        compare = {node.comparator: node.params} if node.params else node.comparator
        text = json.dumps(compare)
        if node.transforms and property_value(obj, "x-eval-transform") is None:
            text += ", " + json.dumps("x-eval-transform") + ": " + json.dumps(
                [{name: params} if params else name for name, params in node.transforms])
        edits.append(_insert_property(obj, "x-eval-compare", text))
    edits.sort(key=lambda e: e.start)
    return edits
