"""Schemas from data: infer a schema from gold records; add x-eval annotations.

``annotate`` makes what evalschema applies explicit: extract-bench's ``evaluation_config``
as its x-eval keys, ``format: date``/``date-time`` as the ``date`` comparator, and the
type's default comparator on every other leaf the scorer would judge (found through the
scoring tree itself, so ``annotate --check`` and ``eval --metric struct_extract_eval``,
which requires a comparator on every leaf, agree). With gold, it also chooses ``date`` for
strings that are all dates and suggests ``key_field`` alignment on a property unique in
every gold array; ``infer`` does both from the records it reads.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalschema.errors import Problem, Severity
from evalschema.jsontypes import json_type
from evalschema.pointer import join as ptr_join
from evalschema.pointer import resolve as ptr_resolve
from evalschema.schema.bind import TYPE_DEFAULTS
from evalschema.schema.extractbench import translate, unwrap
from evalschema.schema.node import SchemaNode
from evalschema.schema.tree import check_eval_schema

# -- what a date looks like ------------------------------------------------------

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_ISO_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?"
                            r"(?:Z|[+-]\d{2}:?\d{2})?", re.IGNORECASE)
_DATE_LIKE = re.compile(
    r"\d{4}-\d{2}"                                     # 2021-01 (a month)
    r"|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}"                # 14/03/2026, 14.03.26
    rf"|(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?{_MONTH},?\s+\d{{4}}"         # 14 Mar 2026, Jan 2021
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}",             # March 14, 2026
    re.IGNORECASE)


def date_kind(value: Any) -> str | None:
    """"date-time", "date" or "partial" for a string that is a date, else None (a bare year
    is not taken for one: it is as often a count or a code)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if _ISO_DATE_TIME.fullmatch(text):
        return "date-time"
    if _ISO_DATE.fullmatch(text):
        return "date"
    return "partial" if _DATE_LIKE.fullmatch(text) else None


def dates_in(values: Sequence[Any]) -> str | None:
    """What the non-null values are when every one is a date string (at least one):
    "date-time" or "date" when all are that ISO form, else "partial"; None otherwise."""
    kinds = {date_kind(v) for v in values if v is not None}
    if not kinds or None in kinds:
        return None
    return kinds.pop() if len(kinds) == 1 and kinds <= {"date", "date-time"} else "partial"


#: Key values longer than this are text, not identifiers.
_KEY_MAX_CHARS = 100
_KEY_HINT = re.compile(r"(?:^|_|-)(?:id|key|sku|code|uuid|number|no|name|title)$"
                       r"|(?:Id|ID|Key|Code|Number|Name|Title)$")


def unique_key(arrays: Sequence[Any]) -> str | None:
    """A property that identifies the elements of every array of objects given: a
    non-empty short string on every element, never a date, never repeated within an
    array, in arrays of which at least one has two elements. A name that says so (``sku``,
    ``*_id``, ``name``, ``title``) is enough; any other needs two such arrays as evidence.
    Among them, names that say so first, then the shortest values."""
    lists = [a for a in arrays if isinstance(a, list) and a]
    if not lists or max(len(a) for a in lists) < 2 or not all(
            type(e) is dict for a in lists for e in a):
        return None
    evidence = sum(len(a) >= 2 for a in lists)
    names: dict[str, None] = {}
    for a in lists:
        for e in a:
            names.update(dict.fromkeys(e))
    ranked: list[tuple[bool, float, str]] = []
    for name in names:
        values = [e.get(name) for a in lists for e in a]
        if not all(isinstance(v, str) and v.strip() and len(v) <= _KEY_MAX_CHARS
                   and date_kind(v) is None for v in values):
            continue
        if any(len({e[name] for e in a}) < len(a) for a in lists):
            continue
        hinted = _KEY_HINT.search(name) is not None
        if hinted or evidence >= 2:
            ranked.append((not hinted, sum(map(len, values)) / len(values), name))
    return min(ranked)[2] if ranked else None


# -- infer ---------------------------------------------------------------------------


def infer_schema(records: Iterable[Any]) -> dict[str, Any]:
    """A JSON Schema covering every record: keys are the union, array items pooled.

    Integers and floats together give "number"; a field seen null somewhere is
    nullable; a field never seen with a value is a nullable string. Strings that are all
    ISO dates get ``format: date``/``date-time``, other date strings ``x-eval-compare:
    date``; arrays of objects with a property unique in each array get ``key_field``
    alignment on it.
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
        key = unique_key(present)
        if key is not None:
            schema["x-eval-align"] = {"match_by": "key_field", "key": key}
    elif len(kinds) == 1:
        schema = {"type": kinds.pop()}
        dates = dates_in(present) if schema["type"] == "string" else None
        if dates in ("date", "date-time"):
            schema["format"] = dates
        elif dates == "partial":
            schema["x-eval-compare"] = "date"
    else:
        schema = {"type": sorted(kinds)}
    if nullable:
        t = schema["type"]
        schema["type"] = [t, "null"] if isinstance(t, str) else [*t, "null"]
    return schema


# -- annotate ----------------------------------------------------------------------


@dataclass
class Annotation:
    """What ``annotate`` did to a schema document (changed in place)."""

    schema: Any
    #: Leaves given a comparator, by pointer.
    added: list[str] = field(default_factory=list)
    #: What was read or chosen, and what could not be annotated (``missing-compare``), each
    #: located in the document.
    problems: list[Problem] = field(default_factory=list)


def annotate_xeval(schema: dict[str, Any], gold: Sequence[Any] | None = None, *,
                   base_uri: str | None = None) -> dict[str, Any]:
    """Annotate ``schema`` in place (see ``annotate``); returns it so calls chain."""
    return annotate(schema, gold, base_uri=base_uri).schema  # type: ignore[no-any-return]


def annotate(schema: Any, gold: Sequence[Any] | None = None, *,
             base_uri: str | None = None) -> Annotation:
    """Give every leaf the scorer judges an explicit comparator (in place).

    extract-bench's ``evaluation_config`` becomes its x-eval keys; ``format: date`` and
    ``date-time`` strings get ``date``; other leaves their type's default (``exact`` for
    strings and booleans, ``numeric`` for numbers). With ``gold``, string leaves whose
    values are all dates get ``date`` and arrays of objects without ``x-eval-align`` get
    ``key_field`` on a property unique in every gold array (each choice noted).
    """
    out = Annotation(schema)
    inner, prefix, _ = unwrap(schema)
    if not isinstance(inner, dict):
        return out
    read = translate(inner, prefix=prefix, in_place=True)
    out.added += [prefix + p for p in sorted(read.added)]
    out.problems += read.problems
    _annotate(inner, "", prefix, out)
    check = check_eval_schema(schema, base_uri=base_uri, defaults=False)
    nodes = {n.pointer: n for n in check.root.walk()}
    for p in check.problems:
        if p.code == "missing-compare":
            target = ptr_resolve(schema, p.pointer, None)
            node = nodes.get(p.pointer)
            if isinstance(target, dict) and node is not None and "x-eval-compare" not in target:
                target["x-eval-compare"] = _default(sorted(node.types))
                _drop_below(schema, p.pointer, out)
                out.added.append(p.pointer)
    if gold is not None:
        _from_gold(schema, gold, out, base_uri)
    check = check_eval_schema(schema, base_uri=base_uri, defaults=False)
    out.problems += [p for p in check.problems if p.code == "missing-compare"]
    return out


def _drop_below(schema: Any, pointer: str, out: Annotation) -> None:
    """Undo what the document walk added under a node the tree judges whole (a leaf
    typed ``string`` that also lists ``properties``): keys there would be ignored."""
    below = [q for q in out.added if q.startswith(pointer + "/")]
    for q in below:
        target = ptr_resolve(schema, q, None)
        if isinstance(target, dict):
            target.pop("x-eval-compare", None)
        out.added.remove(q)


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


def _default(types: Iterable[str]) -> str:
    concrete = [t for t in dict.fromkeys(types) if t != "null"]
    if concrete in (["integer", "number"], ["number", "integer"]):
        concrete = ["number"]
    return TYPE_DEFAULTS.get(concrete[0], "exact") if len(concrete) == 1 else "exact"


def _has_xeval(node: Any) -> bool:
    if isinstance(node, dict):
        return any((isinstance(k, str) and k.startswith("x-eval-")) or _has_xeval(v)
                   for k, v in node.items())
    return isinstance(node, list) and any(_has_xeval(v) for v in node)


def _annotate(node: Any, pointer: str, prefix: str, out: Annotation) -> None:
    """The document walk: definitions annotated where they are written."""
    if not isinstance(node, dict):
        return
    for key in ("$defs", "definitions", "properties"):
        sub = node.get(key)
        if isinstance(sub, dict):
            for name, child in sub.items():
                _annotate(child, ptr_join(ptr_join(pointer, key), name), prefix, out)
    if isinstance(node.get("items"), dict):
        _annotate(node["items"], ptr_join(pointer, "items"), prefix, out)
    if isinstance(node.get("additionalProperties"), dict):
        _annotate(node["additionalProperties"], ptr_join(pointer, "additionalProperties"),
                  prefix, out)
    if isinstance(node.get("patternProperties"), dict):
        for pattern, child in node["patternProperties"].items():
            _annotate(child, ptr_join(ptr_join(pointer, "patternProperties"), pattern),
                      prefix, out)
    alts = [(ptr_join(ptr_join(pointer, k), i), a) for k in ("anyOf", "oneOf", "allOf")
            for i, a in enumerate(node.get(k) or []) if isinstance(a, dict)]
    if "x-eval-compare" not in node and any(_has_xeval(a) for _, a in alts):
        # Branches with their own keys are judged one by one (schema.resolve): annotate
        # them, not the union (an x-eval-compare here would compare it whole).
        for at, a in alts:
            if _types(a) != ["null"]:
                _annotate(a, at, prefix, out)
        return
    container_alts = [(at, a) for at, a in alts if _is_container(a) or "$ref" in a]
    for at, a in container_alts:
        _annotate(a, at, prefix, out)
    if "$ref" in node or _is_container(node) or container_alts:
        return
    if "x-eval-compare" in node or node.get("x-eval-skip") is True:
        return
    types = _types(node)
    fmt = node.get("format")
    if fmt in ("date", "date-time") and [t for t in types if t != "null"] in (["string"], []):
        node["x-eval-compare"] = "date"
        out.problems.append(Problem(
            "annotate-date", f"\"format\": \"{fmt}\": compared as dates (the date "
            "comparator)", prefix + ptr_join(pointer, "format"), severity=Severity.INFO))
    else:
        node["x-eval-compare"] = _default(types)
    out.added.append(prefix + pointer)


def _collect(node: SchemaNode, value: Any, into: dict[str, list[Any]]) -> None:
    """Gold values by the pointer of the schema node that judges them."""
    into.setdefault(node.pointer, []).append(value)
    if node.kind == "object" and type(value) is dict:
        for child in node.children:
            if child.name in value:
                _collect(child, value[child.name], into)
    elif node.kind == "array" and node.items is not None and type(value) is list:
        for item in value:
            _collect(node.items, item, into)


def _from_gold(schema: Any, gold: Sequence[Any], out: Annotation, base_uri: str | None) -> None:
    """Choices only gold can support: all-date strings, unique keys."""
    check = check_eval_schema(schema, base_uri=base_uri, defaults=False)
    values: dict[str, list[Any]] = {}
    for record in gold:
        _collect(check.root, record, values)
    ours = set(out.added)
    for node in check.root.walk():
        target = ptr_resolve(schema, node.pointer, None) if node.pointer else None
        if not isinstance(target, dict) or node.pointer not in values:
            continue
        seen = values[node.pointer]
        if node.kind == "leaf" and node.pointer in ours and \
                target.get("x-eval-compare") == "exact" and node.types - {"null"} == {"string"} \
                and "x-eval-transform" not in target:
            kind = dates_in(seen)
            if kind is not None:
                target["x-eval-compare"] = "date"
                out.problems.append(Problem(
                    "annotate-date", f"every gold value of {node.path} is a date "
                    f"(e.g. {next(v for v in seen if v is not None)!r}): compared as dates",
                    ptr_join(node.pointer, "x-eval-compare"), severity=Severity.INFO))
        elif node.kind == "array" and "x-eval-align" not in target:
            key = unique_key(seen)
            if key is not None:
                target["x-eval-align"] = {"match_by": "key_field", "key": key}
                out.problems.append(Problem(
                    "annotate-key-field", f"{node.path or '(record)'}: elements paired by "
                    f"{key!r}, unique in every gold array (x-eval-align key_field; remove it "
                    "to pair by position)", ptr_join(node.pointer, "x-eval-align"),
                    severity=Severity.INFO))
