"""Eval-schema validation: every problem, located, coded, with a suggestion."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import Problem, SchemaError, check_eval_schema, parse_eval_schema


def problems(schema: Any) -> list[tuple[str, str, str]]:
    return [(p.code, p.pointer, p.target) for p in check_eval_schema(schema).problems]


def only(schema: Any) -> Problem:
    found = check_eval_schema(schema).problems
    assert len(found) == 1, found
    return found[0]


def leaf(**kw: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"f": {"type": "string", **kw}}}


def test_valid_schema_has_no_problems() -> None:
    schema = {
        "type": "object", "x-eval-id": "id",
        "properties": {
            "id": {"type": "string"},
            "price": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": 0.01}}}},
            "name": {"type": "string", "x-eval-transform": ["strip", {"normalize_unicode": {"form": "NFC"}}]},
            "items": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
                      "items": {"type": "object", "properties": {"sku": {"type": "string"}}}},
        },
    }
    assert check_eval_schema(schema).problems == ()


def test_unknown_key_on_the_key_with_suggestion() -> None:
    p = only(leaf(**{"x-eval-compar": "exact"}))
    assert (p.code, p.pointer, p.target) == ("unknown-key", "/properties/f/x-eval-compar", "key")
    assert p.suggestion == "did you mean 'x-eval-compare'?"
    assert p.data["replacements"] == ["x-eval-compare"]


def test_unknown_comparator_on_the_value() -> None:
    p = only(leaf(**{"x-eval-compare": "levenstein"}))
    assert (p.code, p.pointer, p.target) == ("unknown-comparator", "/properties/f/x-eval-compare",
                                             "value")
    assert "levenshtein" in (p.suggestion or "")


def test_unknown_comparator_in_object_form_is_on_its_key() -> None:
    p = only(leaf(**{"x-eval-compare": {"numerc": {}}}))
    assert (p.code, p.pointer, p.target) == ("unknown-comparator",
                                             "/properties/f/x-eval-compare/numerc", "key")


def test_bad_parameter_type_and_range() -> None:
    schema = {"type": "object", "properties": {"p": {"type": "number", "x-eval-compare": {
        "numeric": {"tolerance": {"rel": -1}}}}}}
    p = only(schema)
    assert p.code == "bad-param"
    assert p.pointer == "/properties/p/x-eval-compare/numeric/tolerance/rel"


def test_unknown_parameter_name_with_suggestion() -> None:
    p = only(leaf(**{"x-eval-compare": {"levenshtein": {"treshold": 0.8}}}))
    assert (p.code, p.pointer, p.target) == ("unknown-param",
                                             "/properties/f/x-eval-compare/levenshtein/treshold",
                                             "key")
    assert p.suggestion == "did you mean 'threshold'?"


def test_missing_required_parameter() -> None:
    p = only(leaf(**{"x-eval-compare": "regex"}))
    assert p.code == "missing-param"
    assert p.data["missing"] == ["pattern"]


def test_comparator_type_mismatch() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer",
                                                     "x-eval-compare": "levenshtein"}}}
    p = only(schema)
    assert (p.code, p.pointer) == ("comparator-type", "/properties/n/x-eval-compare")


def test_unknown_transform_in_list() -> None:
    p = only(leaf(**{"x-eval-transform": ["strip", "lowercas"]}))
    assert (p.code, p.pointer) == ("unknown-transform", "/properties/f/x-eval-transform/1")
    assert p.suggestion == "did you mean 'lowercase'?"


def test_transform_not_a_list() -> None:
    assert problems(leaf(**{"x-eval-transform": "strip"})) == [
        ("transform-shape", "/properties/f/x-eval-transform", "value")]


def test_align_on_non_array_is_on_the_key() -> None:
    assert problems(leaf(**{"x-eval-align": {"match_by": "hungarian"}})) == [
        ("align-not-array", "/properties/f/x-eval-align", "key")]


def test_align_key_not_among_item_properties() -> None:
    schema = {"type": "object", "properties": {"items": {
        "type": "array", "x-eval-align": {"match_by": "key_field", "key": "skuu"},
        "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}}}
    p = only(schema)
    assert (p.code, p.pointer) == ("align-key-unknown", "/properties/items/x-eval-align/key")
    assert p.suggestion == "did you mean 'sku'?"


def test_ordered_beside_match_by_is_not_a_strategy_parameter() -> None:
    """``"ordered": false`` may sit beside ``match_by``; it is x-eval-align's own key, so the
    strategy's parameter check (``additionalProperties: false``) never sees it."""
    schema = {"type": "object", "properties": {"items": {
        "type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku", "ordered": False},
        "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}}}
    assert check_eval_schema(schema).problems == ()
    align = parse_eval_schema(schema).child_map["items"].align
    assert align is not None and (align.strategy, dict(align.params)) == ("key_field",
                                                                         {"key": "sku"})


def test_unknown_strategy() -> None:
    schema = {"type": "object", "properties": {"items": {
        "type": "array", "x-eval-align": {"match_by": "hungarain"}, "items": {"type": "string"}}}}
    p = only(schema)
    assert (p.code, p.pointer) == ("unknown-strategy", "/properties/items/x-eval-align/match_by")


def test_simple_key_values() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "x-eval-skip": "yes"},
        "b": {"type": "string", "x-eval-weight": -1},
        "c": {"type": "string", "x-eval-threshold": 2},
        "d": {"type": "string", "x-eval-null": "maybe"},
    }}
    assert [(c, p) for c, p, _ in problems(schema)] == [
        ("bad-value", "/properties/a/x-eval-skip"), ("bad-value", "/properties/b/x-eval-weight"),
        ("bad-value", "/properties/c/x-eval-threshold"), ("bad-value", "/properties/d/x-eval-null"),
    ]


def test_id_must_be_at_root_and_name_a_property() -> None:
    schema = {"type": "object", "x-eval-id": "idd", "properties": {
        "id": {"type": "string"}, "o": {"type": "object", "x-eval-id": "x",
                                        "properties": {"x": {"type": "string"}}}}}
    assert [c for c, _, _ in problems(schema)] == ["id-unknown", "id-not-root"]


def test_all_problems_are_reported_at_once() -> None:
    schema = {"type": "object", "properties": {
        "a": {"type": "string", "x-eval-compare": "nope"},
        "b": {"type": "string", "x-eval-foo": 1},
        "c": {"type": "array", "items": {"type": "string"}, "x-eval-align": {"match_by": "x"}},
    }}
    with pytest.raises(SchemaError) as exc:
        parse_eval_schema(schema)
    codes = [p.code for p in exc.value.problems]
    assert codes == ["unknown-comparator", "unknown-key", "unknown-strategy"]
    assert "/properties/a/x-eval-compare" in str(exc.value)


def test_problems_in_defs_point_where_written() -> None:
    schema = {"type": "object", "$defs": {"money": {"type": "number", "x-eval-compare": "nmeric"}},
              "properties": {"total": {"$ref": "#/$defs/money"}}}
    p = only(schema)
    assert p.pointer == "/$defs/money/x-eval-compare"


def test_unresolvable_ref_is_located() -> None:
    schema = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    p = only(schema)
    assert (p.code, p.pointer) == ("ref-unresolvable", "/properties/a/$ref")


def test_bad_type_keyword() -> None:
    p = only({"type": "object", "properties": {"a": {"type": "strng"}}})
    assert (p.code, p.pointer) == ("bad-type", "/properties/a/type")
    assert p.suggestion == "did you mean 'string'?"


def test_defaults_by_type() -> None:
    root = parse_eval_schema({"type": "object", "properties": {
        "s": {"type": "string"}, "n": {"type": "number"}, "i": {"type": "integer"},
        "b": {"type": "boolean"}, "m": {"type": ["string", "number"]}, "o": {"type": "object"}}})
    assert {c.name: c.comparator for c in root.children} == {
        "s": "exact", "n": "numeric", "i": "numeric", "b": "exact", "m": "exact", "o": "exact"}


def test_without_defaults_missing_compare_is_a_problem() -> None:
    with pytest.raises(SchemaError) as exc:
        parse_eval_schema(leaf(), defaults=False)
    assert exc.value.problems[0].code == "missing-compare"


def test_problem_format_is_one_readable_line() -> None:
    p = only(leaf(**{"x-eval-compare": "levenstein"}))
    assert p.format() == ("/properties/f/x-eval-compare: error unknown-comparator: unknown "
                          "comparator 'levenstein' (did you mean 'levenshtein'?)")


def test_problem_location_with_file() -> None:
    p = Problem("c", "m", "/a/b", source="s.eval.json")
    assert p.location() == "s.eval.json#/a/b"
    q = Problem("c", "m", source="g.jsonl", line=3, column=7)
    assert q.location() == "g.jsonl:3:7"
