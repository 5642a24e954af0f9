"""Every x-eval-* key either takes effect or is reported, located where it is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate
from evalschema.errors import Severity


def _obj(**props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props}


def _ignored(schema: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p.pointer, p.message) for p in check_eval_schema(schema).problems
            if p.code == "ignored-key"]


@pytest.mark.parametrize(("schema", "pointer", "why"), [
    (_obj(a={"type": "string", "not": {"x-eval-compare": "exact"}}),
     "/properties/a/not/x-eval-compare", "under not"),
    (_obj(a={"type": "array", "prefixItems": [{"type": "string", "x-eval-compare": "date"}]}),
     "/properties/a/prefixItems/0/x-eval-compare", "prefixItems"),
    (_obj(a={"type": "array", "items": [{"type": "string", "x-eval-compare": "date"}]}),
     "/properties/a/items/0/x-eval-compare", "prefixItems"),
    (_obj(a={"type": "object", "x-eval-compare": "exact",
             "properties": {"b": {"type": "number", "x-eval-compare": "numeric"}}}),
     "/properties/a/properties/b/x-eval-compare", "compares its whole value as one"),
    ({**_obj(a={"type": "string"}), "$defs": {"d": {"type": "string", "x-eval-compare": "date"}}},
     "/$defs/d/x-eval-compare", "no $ref"),
    (_obj(a={"allOf": [{"type": "string", "x-eval-compare": "date"},
                       {"x-eval-compare": "exact"}]}),
     "/properties/a/allOf/0/x-eval-compare", "the later key overriding"),
])
def test_a_key_the_engine_ignores_is_reported(schema: dict[str, Any], pointer: str,
                                              why: str) -> None:
    got = _ignored(schema)
    assert [p for p, _ in got] == [pointer]
    assert why in got[0][1]
    (problem,) = [p for p in check_eval_schema(schema).problems if p.code == "ignored-key"]
    assert (problem.severity, problem.target) == (Severity.WARNING, "key")


def test_keys_that_take_effect_are_not_reported() -> None:
    date = {"type": "string", "x-eval-compare": "date"}
    schema = {**_obj(a={"$ref": "#/$defs/d"}, b={"$ref": "#/$defs/d"},
                     c={"allOf": [{"$ref": "#/$defs/d"}, {"x-eval-weight": 2}]},
                     u={"anyOf": [date, {"type": "integer", "x-eval-compare": "numeric"}]},
                     n={"anyOf": [date, {"type": "null"}]},
                     m={"type": "object", "additionalProperties": date},
                     t={"type": "array", "items": date}),
              "$defs": {"d": date}}
    assert check_eval_schema(schema).problems == ()
    # Used twice, the definition takes effect at both places.
    run = evaluate([{"a": "2021-01-05", "b": "2021-01-06"}],
                   [{"a": "Jan 5, 2021", "b": "Jan 6, 2021"}], schema)
    assert {r.path: (r.comparator, str(r.status)) for r in run.records[0].field_results} == {
        "a": ("date", "match"), "b": ("date", "match")}


def test_check_on_a_file_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from evalschema.cli.main import main

    path = tmp_path / "s.json"
    path.write_text(json.dumps(_obj(a={"type": "string", "not": {"x-eval-compare": "exact"}}),
                               indent=2))
    main(["check", str(path)])
    out = capsys.readouterr().out
    assert "ignored-key" in out and "ok (" not in out
    assert str(path) in out


@pytest.mark.parametrize(("node", "key", "code"), [
    ({"type": "array", "items": {"type": "string"}}, {"x-eval-transform": ["strip"]},
     "transform-on-container"),
    ({"type": "object", "properties": {"a": {"type": "string"}}}, {"x-eval-threshold": 0.5},
     "threshold-on-container"),
    ({"type": "array", "items": {"type": "string"}}, {"x-eval-threshold": 0.5},
     "threshold-on-container"),
    ({"type": "object", "additionalProperties": {"type": "string"}}, {"x-eval-threshold": 0.5},
     "threshold-on-container"),
])
def test_leaf_keys_on_containers_are_reported(node: dict[str, Any], key: dict[str, Any],
                                              code: str) -> None:
    (p,) = check_eval_schema(_obj(f={**node, **key})).problems
    assert (p.code, p.pointer, p.target) == (code, f"/properties/f/{next(iter(key))}", "key")


def test_null_policy_in_a_union_branch_is_reported() -> None:
    """Null is judged for the union before a branch is picked: x-eval-null in a branch
    changed nothing (an extracted null stayed a mismatch) and check said ok."""
    date = {"type": "string", "x-eval-compare": "date", "x-eval-null": "absent"}
    schema = _obj(v={"anyOf": [date, {"type": "integer", "x-eval-compare": "numeric"}]})
    got = _ignored(schema)
    assert [p for p, _ in got] == ["/properties/v/anyOf/0/x-eval-null"]
    assert "for the union as a whole" in got[0][1]
    # on the union it takes effect, and is not reported
    whole = _obj(v={"x-eval-null": "absent", "anyOf": [
        {"type": "string", "x-eval-compare": "date"},
        {"type": "integer", "x-eval-compare": "numeric"}]})
    assert _ignored(whole) == []
    run = evaluate([{"v": "2021-01-05"}], [{"v": None}], whole)
    assert [str(r.status) for r in run.records[0].field_results] == ["omission"]
