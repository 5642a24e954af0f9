"""A schema with a mistake still evaluates (``make_evaluator(allow_schema_errors=True)``):
the field that owns an error is ``error`` in every record, with the error as its reason;
every other field is scored exactly as without it; only an unusable root stops the run."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from evalschema import SchemaError, evaluate, make_evaluator
from evalschema.errors import Problem
from evalschema.report.figures import f1_figure
from evalschema.results import Counts, RunResult, Status

SCHEMA: dict[str, Any] = {
    "type": "object", "x-eval-id": "id",
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string", "x-eval-compare": "normalized"},
        "total": {"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01}}}},
        "vendor": {"type": "object", "properties": {"city": {"type": "string"},
                                                    "zip": {"type": "string"}}},
        "lines": {"type": "array", "x-eval-align": {"match_by": "key_field", "key": "sku"},
                  "items": {"type": "object", "properties": {"sku": {"type": "string"},
                                                             "qty": {"type": "integer"}}}},
        "tags": {"type": "array", "items": {"type": "string"},
                 "x-eval-align": {"match_by": "set"}},
    },
}
GOLD = [
    {"id": "a", "name": "Acme", "total": 10.0, "vendor": {"city": "Paris", "zip": "75001"},
     "lines": [{"sku": "s1", "qty": 1}, {"sku": "s2", "qty": 2}], "tags": ["x", "y"]},
    {"id": "b", "name": "Beta", "total": 5, "vendor": {"city": "Rome", "zip": "00100"},
     "lines": [], "tags": []},
    {"id": "c", "name": "Gamma", "vendor": {"city": "Oslo"}, "lines": [{"sku": "s9", "qty": 9}],
     "tags": ["z"]},
]
EXTRACTED = [
    {"id": "b", "name": "beta", "total": 6, "vendor": {"city": "Rome", "zip": "00100"},
     "lines": [{"sku": "s3", "qty": 1}], "tags": ["q"]},
    {"id": "a", "name": "ACME", "total": 10.004, "vendor": {"city": "Pariss", "zip": "75001"},
     "lines": [{"sku": "s2", "qty": 3}], "tags": ["y"]},
    {"id": "d", "name": "Delta", "vendor": {"city": "Bern"}, "lines": [], "tags": []},
]
#: Record c is in gold only, d in the run only: an omitted and an invented record.


def with_key(path: list[str], key: str, value: Any) -> dict[str, Any]:
    """SCHEMA with ``key: value`` written into the node at ``path`` (property names)."""
    schema = copy.deepcopy(SCHEMA)
    node = schema
    for name in path:
        node = node["properties"][name]
    node[key] = value
    return schema


def without(path: list[str]) -> dict[str, Any]:
    schema = copy.deepcopy(SCHEMA)
    node = schema
    for name in path[:-1]:
        node = node["properties"][name]
    del node["properties"][path[-1]]
    return schema


def others(run: RunResult, broken: str) -> list[list[dict[str, Any]]]:
    """Each record's results of the fields other than ``broken`` (and below it)."""
    return [[r.to_dict() for r in rec.field_results
             if r.field != broken and not r.field.startswith((broken + ".", broken + "["))]
            for rec in run.records]


def broken_results(run: RunResult, field: str) -> list[tuple[str, Any, str | None]]:
    return [(r.path, r.record_id, r.reason) for rec in run.records for r in rec.field_results
            if r.field == field]


def test_an_unknown_comparator_makes_its_field_an_error_and_nothing_else() -> None:
    """``"exakt"`` on ``name``: name is ``error`` in every record (also where one side or
    both lack it), with the problem as its reason; every other field's results, the
    per-field figures and the paired records' P/R/F1 are those of the schema without
    ``name``."""
    bad = with_key(["name"], "x-eval-compare", "exakt")
    with pytest.raises(SchemaError):  # as before, without the switch
        make_evaluator(bad)
    ev = make_evaluator(bad, allow_schema_errors=True)
    assert ev.tolerated == (Problem(
        "unknown-comparator", "unknown comparator 'exakt'", "/properties/name/x-eval-compare",
        "did you mean 'exact'?", data={"replacements": ["exact"], "kind": "comparator"}),)
    assert ev.specialized is None  # a broken field is the general walk's
    run = evaluate(GOLD, EXTRACTED, ev.root)
    why = "schema error: unknown comparator 'exakt' (did you mean 'exact'?)"
    assert broken_results(run, "name") == [("name", "a", why), ("name", "b", why),
                                           ("name", "c", why), ("name", "d", why)]
    assert {r.status for rec in run.records for r in rec.field_results
            if r.field == "name"} == {Status.ERROR}
    assert run.per_field["name"].counts == Counts(errors=4)
    assert run.per_field["name"].f1 is None
    assert f1_figure(run.per_field["name"].counts, None) == "error"  # never 1.0, never "—"

    ref = evaluate(GOLD, EXTRACTED, without(["name"]))
    assert make_evaluator(without(["name"])).specialized is not None
    assert others(run, "name") == others(ref, "name")
    assert {k: v for k, v in run.per_field.items() if k != "name"} == \
        {k: v for k, v in ref.per_field.items() if k != "name"}
    # Without the field, its key in the unpaired extracted record d is an invented key;
    # skipped, it counts for nothing, as an error does: the records' figures are those.
    skipped = evaluate(GOLD, EXTRACTED, with_key(["name"], "x-eval-skip", True))
    assert [(r.precision, r.recall, r.f1) for r in run.records] == \
        [(r.precision, r.recall, r.f1) for r in skipped.records]
    assert [(r.precision, r.recall, r.f1) for r in run.records[:3]] == \
        [(r.precision, r.recall, r.f1) for r in ref.records[:3]]
    assert (run.mean_f1, run.micro_f1) == (skipped.mean_f1, skipped.micro_f1)
    assert run.total_errors == 4


def test_the_field_of_a_nested_problem() -> None:
    """The field is the nearest property at or above the problem, with all below it: a
    transform typo in vendor.zip breaks vendor.zip only; a bad alignment breaks the whole
    array (one error per record, no item results); a bad key in items' properties breaks
    that item field in every element."""
    zip_typo = with_key(["vendor", "zip"], "x-eval-transform", ["lowercse"])
    run = evaluate(GOLD, EXTRACTED, make_evaluator(zip_typo, allow_schema_errors=True).root)
    why = "schema error: unknown transform 'lowercse' (did you mean 'lowercase'?)"
    assert broken_results(run, "vendor.zip") == [
        ("vendor.zip", "a", why), ("vendor.zip", "b", why), ("vendor.zip", "c", why),
        ("vendor.zip", "d", why)]
    ref = evaluate(GOLD, EXTRACTED, SCHEMA)
    assert run.per_field["vendor.city"] == ref.per_field["vendor.city"]

    align = with_key(["lines"], "x-eval-align", {"match_by": "key_feld", "key": "sku"})
    run = evaluate(GOLD, EXTRACTED, make_evaluator(align, allow_schema_errors=True).root)
    assert broken_results(run, "lines") == [
        ("lines", rid, "schema error: unknown alignment strategy 'key_feld' (did you mean "
         "'key_field'?)") for rid in "abcd"]
    assert not [f for f in run.per_field if f.startswith("lines[")]
    assert others(run, "lines") == others(evaluate(GOLD, EXTRACTED, without(["lines"])),
                                          "lines")

    items = copy.deepcopy(SCHEMA)
    items["properties"]["lines"]["items"]["properties"]["qty"]["x-eval-compare"] = \
        {"numeric": {"tolerance": {"abss": 1}}}
    ev = make_evaluator(items, allow_schema_errors=True)
    assert [p.pointer for p in ev.tolerated] == [
        "/properties/lines/items/properties/qty/x-eval-compare/numeric/tolerance/abss"]
    run = evaluate(GOLD, EXTRACTED, ev.root)
    assert [(path, rid) for path, rid, _ in broken_results(run, "lines[].qty")] == [
        ("lines[1].qty", "a"), ("lines[0].qty", "a"), ("lines[0].qty", "b"),
        ("lines[0].qty", "c")]
    assert run.per_field["lines[].qty"].counts == Counts(errors=4)
    assert run.per_field["lines[].sku"] == ref.per_field["lines[].sku"]

    # Items that are not objects: their node is no field; the array owns the problem.
    tags = copy.deepcopy(SCHEMA)
    tags["properties"]["tags"]["items"]["x-eval-compare"] = "levenstein"
    run = evaluate(GOLD, EXTRACTED, make_evaluator(tags, allow_schema_errors=True).root)
    assert [rid for _, rid, _ in broken_results(run, "tags")] == ["a", "b", "c", "d"]
    assert "tags[]" not in run.per_field


def test_a_shared_definition_breaks_each_field_that_uses_it(tmp_path: Path) -> None:
    """A mistake in a ``$defs`` entry is reported once and breaks every field using it; an
    unresolvable ``$ref`` breaks the field it stands in."""
    schema = {
        "type": "object", "$defs": {"place": {"type": "string", "x-eval-compare": "exakt"}},
        "properties": {"from": {"$ref": "#/$defs/place"}, "to": {"$ref": "#/$defs/place"},
                       "via": {"$ref": "#/$defs/nowhere"}, "n": {"type": "integer"}}}
    ev = make_evaluator(schema, allow_schema_errors=True)
    assert [(p.code, p.pointer) for p in ev.tolerated] == [
        ("ref-unresolvable", "/properties/via/$ref"),
        ("unknown-comparator", "/$defs/place/x-eval-compare")]
    run = evaluate([{"from": "A", "to": "B", "via": "C", "n": 1}],
                   [{"from": "A", "to": "X", "via": "C", "n": 2}], ev.root)
    assert [(r.field, r.status, r.reason) for r in run.records[0].field_results] == [
        ("from", Status.ERROR, "schema error: unknown comparator 'exakt' (did you mean "
         "'exact'?)"),
        ("to", Status.ERROR, "schema error: unknown comparator 'exakt' (did you mean "
         "'exact'?)"),
        ("via", Status.ERROR, "schema error: cannot resolve $ref '#/$defs/nowhere': "
         "PointerToNowhere (check the pointer after '#' and that the file exists)"),
        ("n", Status.MISMATCH, None)]


@pytest.mark.parametrize(("schema", "code"), [
    ([], "bad-node"),  # the root is not an object schema
    ({"type": "object", "x-eval-id": "key", "properties": {"id": {"type": "string"}}},
     "id-unknown"),
    ({"$ref": "#/$defs/missing", "properties": {"a": {"type": "string"}}}, "ref-unresolvable"),
    ({"type": "object", "x-eval-wieght": 2, "properties": {"a": {"type": "string"}}},
     "unknown-key"),
])
def test_an_unusable_root_still_stops_the_run(schema: Any, code: str) -> None:
    with pytest.raises(SchemaError) as raised:
        make_evaluator(schema, allow_schema_errors=True)
    assert raised.value.problems[0].code == code


def test_the_root_error_comes_first_and_every_error_is_listed() -> None:
    """When the run stops, the error that stopped it is first (the editor points at it),
    then the fields' own, all named with the schema's file."""
    schema = with_key(["name"], "x-eval-compare", "exakt")
    schema["x-eval-id"] = "ident"
    with pytest.raises(SchemaError) as raised:
        make_evaluator(schema, allow_schema_errors=True, base_uri="s.eval.json")
    assert [(p.code, p.source) for p in raised.value.problems] == [
        ("id-unknown", "s.eval.json"), ("unknown-comparator", "s.eval.json")]


def test_a_schema_file_with_errors_names_its_file(tmp_path: Path) -> None:
    path = tmp_path / "s.eval.jsonc"
    path.write_text('{"type": "object", // the fields\n "properties": {"a": {"type": "string",'
                    ' "x-eval-compare": "exakt"}, "b": {"type": "integer"},},}',
                    encoding="utf-8")
    ev = make_evaluator(path, allow_schema_errors=True)
    assert [(p.code, p.source) for p in ev.tolerated] == [("unknown-comparator", str(path))]
    run = evaluate([{"a": "x", "b": 1}], [{"a": "x", "b": 1}], ev.root)
    assert [(r.field, r.status) for r in run.records[0].field_results] == [
        ("a", Status.ERROR), ("b", Status.MATCH)]
    assert run.mean_f1 == 1.0  # b is right; a is an error, not counted as right
