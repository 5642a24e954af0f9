"""Checking gold records against the eval schema before trusting scores built on them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from evalschema.errors import GoldValidationError, Problem, Severity
from evalschema.io.gold import GoldChecker, gold_problem
from evalschema.io.records import RawRecord
from evalschema.jsontypes import json_type
from evalschema.pointer import escape
from evalschema.schema.node import SchemaNode
from evalschema.schema.tree import parse_eval_schema


def validate_gold(gold: Iterable[Any], schema: Any, id_field: str | None = None, *,
                  warn_missing: bool = True, strict_types: bool = False,
                  allow_extra_fields: bool = False) -> list[Problem]:
    """Located problems in gold records; raises GoldValidationError if any is an error.

    Errors: a record that is not an object, a missing or duplicate id (the checks
    pairing makes, ``io.gold.GoldChecker``, with its codes and messages), and (with
    ``strict_types``) a value whose JSON type the schema does not allow. Warnings:
    schema fields missing from a record (``warn_missing``) and gold keys the schema
    does not know, which scoring ignores (unless ``allow_extra_fields``).
    """
    root = parse_eval_schema(schema)  # a parsed SchemaNode comes back as it is
    rid_field = id_field or root.id_field
    problems: list[Problem] = []
    check = GoldChecker(rid_field)
    for i, rec in enumerate(gold):
        refused = check.check(rec, i)
        if refused is not None:
            problems.append(gold_problem(refused, RawRecord(rec), rid_field))
            if refused.code == "gold-not-object":
                continue
        _walk(root, rec, f"/{i}", problems, warn_missing, strict_types, allow_extra_fields)
    errors = [p for p in problems if p.severity is Severity.ERROR]
    if errors:
        raise GoldValidationError(problems, "the gold records do not fit the schema")
    return problems


def _type_ok(node: SchemaNode, value: Any) -> bool:
    if not node.types:
        return True
    t = json_type(value)
    return t in node.types or (t == "integer" and "number" in node.types)


def _walk(node: SchemaNode, value: Any, ptr: str, problems: list[Problem], warn_missing: bool,
          strict: bool, allow_extra: bool) -> None:
    if node.skip:
        return
    if strict and not _type_ok(node, value):
        problems.append(Problem("gold-type", f"{json_type(value)} where the schema says "
                                f"{'/'.join(sorted(node.types))}", ptr))
        return
    if node.kind == "object" and isinstance(value, dict):
        for child in node.children:
            assert child.name is not None
            cptr = f"{ptr}/{escape(child.name)}"
            if child.name in value:
                _walk(child, value[child.name], cptr, problems, warn_missing, strict,
                      allow_extra)
            elif warn_missing:
                problems.append(Problem("gold-missing-field", f"{child.path!r} is missing",
                                        cptr, severity=Severity.WARNING))
        for key, item in value.items():
            sub = node.value_node(key) if node.values and key not in node.child_map else None
            if sub is not None:
                _walk(sub, item, f"{ptr}/{escape(key)}", problems, warn_missing, strict,
                      allow_extra)
        if not allow_extra:
            for key in value:
                if key not in node.child_map and (not node.values or node.value_node(key) is None):
                    problems.append(Problem(
                        "gold-extra-field", f"{key!r} is not in the schema, so it is never "
                        "scored (an extracted copy is skipped)",
                        f"{ptr}/{escape(key)}", severity=Severity.WARNING,
                        suggestion="add it to the schema, or remove it from gold"))
    elif node.kind == "array" and isinstance(value, list) and node.items is not None:
        for i, item in enumerate(value):
            _walk(node.items, item, f"{ptr}/{i}", problems, warn_missing, strict, allow_extra)
