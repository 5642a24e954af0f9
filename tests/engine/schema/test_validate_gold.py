"""validate_gold refuses exactly the gold records pairing refuses, with the same problems."""

from __future__ import annotations

from typing import Any

import pytest

from evalschema import GoldValidationError, Problem, evaluate, parse_eval_schema, validate_gold
from evalschema.errors import Severity

#: Every gold problem (as in tests/engine/run/test_pairing.py): a list, an id repeated, no
#: id, an id that is an object, a string, null, an id repeated again.
BAD_GOLD: list[Any] = [{"id": "a", "v": 1}, [1, 2], {"id": "b"}, {"id": "a", "v": 2},
                       {"v": "no id"}, {"id": {"nested": 1}}, "a string", None, {"id": 7},
                       {"id": 7}, {"id": "a"}]
SCHEMA: dict[str, Any] = {"type": "object", "properties": {"id": {"type": ["string", "integer"]},
                                                           "v": {}}}


@pytest.mark.parametrize("id_field", ["id", None], ids=["by-id", "by-position"])
def test_validate_gold_reports_what_pairing_refuses(id_field: str | None) -> None:
    with pytest.raises(GoldValidationError) as scored:
        evaluate(BAD_GOLD, [], SCHEMA, id_field=id_field)
    with pytest.raises(GoldValidationError) as checked:
        validate_gold(BAD_GOLD, SCHEMA, id_field, warn_missing=False)
    pairing = [(p.code, p.message, p.pointer) for p in scored.value.problems]
    validation = [(p.code, p.message, p.pointer) for p in checked.value.problems]
    assert validation == pairing
    assert {c for c, _, _ in pairing} == (
        {"gold-not-object", "gold-missing-id", "duplicate-id"} if id_field
        else {"gold-not-object"})


def test_an_id_that_is_an_object_has_no_usable_id() -> None:
    """Not a duplicate of an id never seen (the old checks said 'already used by ?')."""
    with pytest.raises(GoldValidationError) as info:
        validate_gold([{"id": {"nested": 1}}], SCHEMA, "id", warn_missing=False)
    [problem] = info.value.problems
    assert (problem.code, problem.pointer) == ("gold-missing-id", "/0")
    assert problem.message == "gold record 1 has no usable 'id'"


def test_schema_problems_still_follow_a_refused_id() -> None:
    """A record refused for its id is still an object: its fields are checked too."""
    problems = validate_gold([{"v": 1, "zzz": 2}], SCHEMA, None)
    assert [(p.code, p.pointer) for p in problems] == [("gold-missing-field", "/0/id"),
                                                      ("gold-extra-field", "/0/zzz")]


# -- what validate_gold says about fields -------------------------------------

NESTED: dict[str, Any] = {
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "total": {"type": "number"},
        "count": {"type": ["integer", "null"]},
        "a/b~c": {"type": "string"},
        "party": {"type": "object", "properties": {"name": {"type": "string"}}},
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer"}}}},
        "notes": {"x-eval-skip": True, "type": "object", "properties": {"n": {"type": "string"}}},
        "blob": {},
    }}
WHOLE: dict[str, Any] = {"id": "r1", "total": 3, "count": None, "a/b~c": "x",
                         "party": {"name": "ACME"}, "lines": [{"sku": "s", "qty": 1}],
                         "notes": {"n": "fine"}, "blob": {"any": [1, "thing"]}}


def seen(problems: list[Problem] | tuple[Problem, ...]) -> list[tuple[str, str, Severity, str,
                                                                   str | None]]:
    return [(p.code, p.pointer, p.severity, p.message, p.suggestion) for p in problems]


def extra(ptr: str, key: str) -> tuple[str, str, Severity, str, str | None]:
    return ("gold-extra-field", ptr, Severity.WARNING, f"{key!r} is not in the schema, so it is "
            "never scored (an extracted copy is skipped)",
            "add it to the schema, or remove it from gold")


def missing(ptr: str, path: str) -> tuple[str, str, Severity, str, str | None]:
    return ("gold-missing-field", ptr, Severity.WARNING, f"{path!r} is missing", None)


def test_a_record_that_fits_has_no_problems_with_every_check_on() -> None:
    """An integer fits a number, a null a nullable field, anything an untyped one; a
    skipped field is not looked into."""
    assert validate_gold([WHOLE], NESTED, strict_types=True) == []
    assert validate_gold([WHOLE], parse_eval_schema(NESTED), strict_types=True) == []


def test_missing_and_extra_fields_are_warnings_at_every_depth() -> None:
    rec = {"id": "r1", "total": 3, "party": {"nme": "ACME"},
           "lines": [{"sku": "s", "qty": 1}, {"qty": 2, "price": 5}], "zzz": 1}
    problems = validate_gold([rec], NESTED)
    assert seen(problems) == [
        missing("/0/count", "count"), missing("/0/a~1b~0c", "a/b~c"),
        missing("/0/party/name", "party.name"), extra("/0/party/nme", "nme"),
        missing("/0/lines/1/sku", "lines[].sku"), extra("/0/lines/1/price", "price"),
        missing("/0/notes", "notes"), missing("/0/blob", "blob"), extra("/0/zzz", "zzz")]
    assert seen(validate_gold([rec], NESTED, warn_missing=False)) == [
        extra("/0/party/nme", "nme"), extra("/0/lines/1/price", "price"), extra("/0/zzz", "zzz")]
    assert seen(validate_gold([rec], NESTED, allow_extra_fields=True)) == [
        p for p in seen(problems) if p[0] == "gold-missing-field"]


def test_wrong_types_are_errors_only_when_asked_for() -> None:
    rec = {**WHOLE, "total": "3", "count": 1.5, "party": ["ACME"],
           "lines": [{"sku": "s", "qty": True}, "line"], "notes": 5, "blob": "free"}
    assert validate_gold([rec], NESTED) == []
    with pytest.raises(GoldValidationError) as info:
        validate_gold([rec], NESTED, strict_types=True)
    assert str(info.value).split("\n")[0] == "the gold records do not fit the schema"
    assert seen(info.value.problems) == [
        ("gold-type", "/0/total", Severity.ERROR, "string where the schema says number", None),
        ("gold-type", "/0/count", Severity.ERROR, "number where the schema says integer/null",
         None),
        ("gold-type", "/0/party", Severity.ERROR, "array where the schema says object", None),
        ("gold-type", "/0/lines/0/qty", Severity.ERROR, "boolean where the schema says integer",
         None),
        ("gold-type", "/0/lines/1", Severity.ERROR, "string where the schema says object",
         None)]


def test_a_record_that_is_not_an_object_is_refused_once() -> None:
    with pytest.raises(GoldValidationError) as info:
        validate_gold([WHOLE, ["r2"]], NESTED, strict_types=True)
    assert [(p.code, p.pointer) for p in info.value.problems] == [("gold-not-object", "/1")]


def test_the_schema_s_id_field_is_used_unless_another_is_given() -> None:
    twice = [{**WHOLE, "total": 1}, {**WHOLE, "total": 2}]
    with pytest.raises(GoldValidationError) as info:
        validate_gold(twice, NESTED)
    assert [(p.code, p.pointer) for p in info.value.problems] == [("duplicate-id", "/1")]
    assert validate_gold(twice, NESTED, "total") == []


def test_map_values_are_checked_and_unknown_keys_are_extra() -> None:
    schema = {"type": "object", "properties": {
        "m": {"type": "object", "properties": {"fixed": {"type": "string"}},
              "patternProperties": {"^n_": {"type": "number"}}}}}
    rec = {"m": {"fixed": "f", "n_a": 1, "n_b": "two", "other": 3}}
    assert seen(validate_gold([rec], schema)) == [extra("/0/m/other", "other")]
    assert seen(validate_gold([rec], schema, allow_extra_fields=True)) == []
    with pytest.raises(GoldValidationError) as info:
        validate_gold([rec, {"m": {"fixed": 1}}], schema, strict_types=True)
    assert seen(info.value.problems) == [
        ("gold-type", "/0/m/n_b", Severity.ERROR, "string where the schema says number", None),
        extra("/0/m/other", "other"),
        ("gold-type", "/1/m/fixed", Severity.ERROR, "integer where the schema says string",
         None)]
    opened = {"type": "object", "properties": {"a": {"type": "number"}},
              "additionalProperties": {"type": "number"}}
    with pytest.raises(GoldValidationError) as info:
        validate_gold([{"a": "x", "b": "y", "c": 1}], opened, strict_types=True)
    assert [(p.code, p.pointer) for p in info.value.problems] == [("gold-type", "/0/a"),
                                                                  ("gold-type", "/0/b")]


def test_a_leaf_holding_an_object_or_array_is_not_looked_into() -> None:
    schema = {"type": "object", "properties": {"v": {"x-eval-compare": "exact"},
                                               "w": {"type": "array"}}}
    assert validate_gold([{"v": {"k": 1}, "w": [{"k": 1}]}], schema) == []


def test_objects_in_a_map_are_checked_like_declared_ones() -> None:
    schema = {"type": "object", "properties": {"by_id": {
        "type": "object", "additionalProperties": {"type": "object", "properties": {
            "name": {"type": "string"}}}}}}
    rec = {"by_id": {"k1": {"name": "a"}, "k2": {"nme": "b"}}}
    assert seen(validate_gold([rec], schema)) == [missing("/0/by_id/k2/name", "by_id{}.name"),
                                                  extra("/0/by_id/k2/nme", "nme")]
    assert seen(validate_gold([rec], schema, allow_extra_fields=True)) == [
        missing("/0/by_id/k2/name", "by_id{}.name")]
    assert seen(validate_gold([rec], schema, warn_missing=False)) == [
        extra("/0/by_id/k2/nme", "nme")]


def test_a_field_of_the_wrong_shape_is_left_alone_without_strict_types() -> None:
    """An array field holding a number, an object field holding a list: nothing to look
    into, and nothing to report unless types are checked."""
    rec = {**WHOLE, "lines": 5, "party": ["ACME"]}
    assert validate_gold([rec], NESTED) == []
    assert validate_gold([{**WHOLE, "lines": {"sku": "s"}}], NESTED) == []
