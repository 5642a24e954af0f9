"""Schemas from data: infer a schema from gold records; add default x-eval annotations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evalschema.rules.values import json_type
from evalschema.schema.bind import TYPE_DEFAULTS


def infer_schema(records: Iterable[Any]) -> dict[str, Any]:
    """A JSON Schema covering every record: keys are the union, array items pooled.

    Integers and floats together give "number"; a field seen null somewhere is
    nullable; a field never seen with a value is a nullable string.
    """
    return _infer(list(records))


def _infer(values: list[Any]) -> dict[str, Any]:
    present = [v for v in values if v is not None]
    nullable = len(present) < len(values)
    if not present:
        return {"type": ["string", "null"]}
    kinds = {json_type(v) for v in present}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    if kinds == {"object"}:
        keys = sorted({k for v in present for k in v})
        schema: dict[str, Any] = {"type": "object", "properties": {
            k: _infer([v.get(k) for v in present if k in v]) for k in keys}}
        always = [k for k in keys if all(k in v for v in present)]
        if always:
            schema["required"] = always
    elif kinds == {"array"}:
        pooled = [item for v in present for item in v]
        schema = {"type": "array", "items": _infer(pooled) if pooled else {"type": "string"}}
    elif len(kinds) == 1:
        schema = {"type": kinds.pop()}
    else:
        schema = {"type": sorted(kinds)}
    if nullable:
        t = schema["type"]
        schema["type"] = [t, "null"] if isinstance(t, str) else [*t, "null"]
    return schema


def _types(node: dict[str, Any]) -> list[str]:
    t = node.get("type")
    if isinstance(t, str):
        return [t]
    if isinstance(t, list):
        return [x for x in t if isinstance(x, str)]
    alts = node.get("anyOf") or node.get("oneOf")
    if isinstance(alts, list):
        return [x for a in alts if isinstance(a, dict) for x in _types(a)]
    return []


def _is_container(node: dict[str, Any]) -> bool:
    if isinstance(node.get("properties"), dict) and node["properties"]:
        return True
    if isinstance(node.get("additionalProperties"), dict) or (
            isinstance(node.get("patternProperties"), dict) and node["patternProperties"]):
        return True  # a map, judged per key (schema.tree)
    return isinstance(node.get("items"), dict)


def _has_xeval(node: Any) -> bool:
    if isinstance(node, dict):
        return any((isinstance(k, str) and k.startswith("x-eval-")) or _has_xeval(v)
                   for k, v in node.items())
    return isinstance(node, list) and any(_has_xeval(v) for v in node)


def annotate_xeval(schema: dict[str, Any]) -> dict[str, Any]:
    """Give every unannotated leaf the default comparator for its type (in place).

    Strings and booleans get ``exact``, numbers ``numeric``, anything else
    ``exact``. Returns the schema so calls chain.
    """
    _annotate(schema)
    return schema


def _annotate(node: Any) -> None:
    if not isinstance(node, dict):
        return
    for key in ("$defs", "definitions", "properties"):
        sub = node.get(key)
        if isinstance(sub, dict):
            for child in sub.values():
                _annotate(child)
    if isinstance(node.get("items"), dict):
        _annotate(node["items"])
    for key in ("additionalProperties", "patternProperties"):
        sub = node.get(key)
        if key == "additionalProperties" and isinstance(sub, dict):
            _annotate(sub)
        elif key == "patternProperties" and isinstance(sub, dict):
            for child in sub.values():
                _annotate(child)
    alts = [a for k in ("anyOf", "oneOf", "allOf") for a in (node.get(k) or [])
            if isinstance(a, dict)]
    if "x-eval-compare" not in node and any(_has_xeval(a) for a in alts):
        # Branches with their own keys are judged one by one (schema.resolve): annotate
        # them, not the union (an x-eval-compare here would compare it whole).
        for a in alts:
            if _types(a) != ["null"]:
                _annotate(a)
        return
    container_alts = [a for a in alts if _is_container(a) or "$ref" in a]
    for a in container_alts:
        _annotate(a)
    if "$ref" in node or _is_container(node) or container_alts:
        return
    if "x-eval-compare" in node or node.get("x-eval-skip") is True:
        return
    concrete = [t for t in dict.fromkeys(_types(node)) if t != "null"]
    if concrete == ["integer", "number"] or concrete == ["number", "integer"]:
        concrete = ["number"]
    node["x-eval-compare"] = TYPE_DEFAULTS.get(concrete[0], "exact") if len(concrete) == 1 \
        else "exact"
