"""Schema resolution: $ref, allOf, anyOf/oneOf, cycles, relative files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalschema import SchemaError, check_eval_schema, parse_eval_schema, resolve_schema_references


def test_local_ref_is_inlined() -> None:
    schema = {"type": "object", "$defs": {"m": {"type": "number", "x-eval-compare": "numeric"}},
              "properties": {"a": {"$ref": "#/$defs/m"}, "b": {"$ref": "#/$defs/m"}}}
    out = resolve_schema_references(schema)
    assert out["properties"]["a"] == {"type": "number", "x-eval-compare": "numeric"}
    assert "$defs" not in out


def test_ref_siblings_override_target() -> None:
    schema = {"$defs": {"s": {"type": "string", "x-eval-compare": "exact"}}, "type": "object",
              "properties": {"a": {"$ref": "#/$defs/s", "x-eval-compare": "normalized"}}}
    root = parse_eval_schema(schema)
    assert root.children[0].comparator == "normalized"


def test_ref_node_pointer_is_the_use_site() -> None:
    schema = {"$defs": {"s": {"type": "string"}}, "type": "object",
              "properties": {"a": {"$ref": "#/$defs/s"}}}
    assert parse_eval_schema(schema).children[0].pointer == "/properties/a"


def test_relative_file_ref(tmp_path: Path) -> None:
    (tmp_path / "money.json").write_text(json.dumps({"type": "number",
                                                     "x-eval-compare": "numeric"}))
    main = tmp_path / "main.eval.json"
    schema = {"type": "object", "properties": {"total": {"$ref": "money.json"}}}
    main.write_text(json.dumps(schema))
    out = resolve_schema_references(schema, base_uri=str(main))
    assert out["properties"]["total"]["x-eval-compare"] == "numeric"


def test_cycle_is_an_error() -> None:
    schema = {"$defs": {"node": {"type": "object", "properties": {
        "child": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}
    with pytest.raises(SchemaError) as exc:
        resolve_schema_references(schema)
    assert exc.value.problems[0].code == "ref-cycle"


def test_allof_merges_properties_and_required() -> None:
    schema = {"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"properties": {"b": {"type": "number"}}, "required": ["b"]}]}
    out = resolve_schema_references(schema)
    assert set(out["properties"]) == {"a", "b"}
    assert out["required"] == ["a", "b"]


def test_nullable_anyof_becomes_nullable_type() -> None:
    schema = {"type": "object", "properties": {"a": {"anyOf": [{"type": "null"},
                                                               {"type": "integer"}]}}}
    root = parse_eval_schema(schema)
    node = root.children[0]
    assert node.types == frozenset({"integer", "null"})
    assert node.comparator == "numeric"


def test_anyof_of_objects_merges_shapes() -> None:
    schema = {"type": "object", "properties": {"p": {"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}},
        {"type": "object", "properties": {"b": {"type": "string"}}},
        {"type": "null"}]}}}
    root = parse_eval_schema(schema)
    assert [c.name for c in root.children[0].children] == ["a", "b"]


def test_anyof_of_mixed_primitives_is_a_multi_leaf() -> None:
    schema = {"type": "object", "properties": {"v": {"anyOf": [
        {"type": "null"}, {"type": "number"}, {"type": "string"}]}}}
    node = parse_eval_schema(schema).children[0]
    assert node.kind == "leaf"
    assert node.json_type == "multi"
    assert node.comparator == "exact"


def test_anyof_of_arrays_merges_items() -> None:
    schema = {"type": "object", "properties": {"xs": {"oneOf": [
        {"type": "array", "items": {"type": "object", "properties": {"a": {"type": "string"}}}},
        {"type": "array", "items": {"type": "object", "properties": {"b": {"type": "string"}}}},
    ]}}}
    node = parse_eval_schema(schema).children[0]
    assert node.kind == "array"
    assert node.items is not None
    assert [c.name for c in node.items.children] == ["a", "b"]


def test_enum_without_type_is_typed_from_values() -> None:
    node = parse_eval_schema({"type": "object", "properties": {"e": {"enum": ["a", "b"]}}})
    assert node.children[0].types == frozenset({"string"})


def test_a_problem_in_a_definition_used_twice_is_listed_once() -> None:
    """Each ``$ref`` binds the definition again; its problem is one problem, at one place."""
    schema = {"type": "object",
              "$defs": {"money": {"type": "number", "x-eval-compare": {
                  "numeric": {"tolerance": {"abs": -1}}}}},
              "properties": {"a": {"$ref": "#/$defs/money"}, "b": {"$ref": "#/$defs/money"},
                             "c": {"type": "string", "x-eval-compare": "exakt"},
                             "d": {"type": "string", "x-eval-compare": "exakt"}}}
    problems = check_eval_schema(schema).problems
    assert [(p.code, p.pointer) for p in problems] == [
        ("bad-param", "/$defs/money/x-eval-compare/numeric/tolerance/abs"),
        ("unknown-comparator", "/properties/c/x-eval-compare"),
        ("unknown-comparator", "/properties/d/x-eval-compare"),
    ]
