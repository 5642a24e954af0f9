"""Every parameter has a complete JSON Schema, nested objects included: a mistyped key
anywhere is a located error with the closest name, never a silently ignored setting."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate, parse_eval_schema
from evalschema.cli.main import main
from evalschema.errors import SchemaError
from evalschema.rules.builtins import builtin_registry
from evalschema.rules.registry import (
    ComparatorDef,
    Registry,
    RegistryError,
    register_comparator,
)

TOTAL = "/properties/total/x-eval-compare/numeric/tolerance"


def _total(compare: Any) -> dict[str, Any]:
    return {"type": "object", "properties": {"total": {"type": "number",
                                                       "x-eval-compare": compare}}}


def test_a_mistyped_nested_parameter_is_an_error_at_its_key() -> None:
    check = check_eval_schema(_total({"numeric": {"tolerance": {"rell": 0.01}}}))
    [p] = check.problems
    assert (p.code, p.pointer, p.target) == ("unknown-param", f"{TOTAL}/rell", "key")
    assert p.suggestion == "did you mean 'rel'?"
    assert "tolerance.rell" in p.message
    assert p.data["replacements"] == ["rel"]
    with pytest.raises(SchemaError):
        parse_eval_schema(_total({"numeric": {"tolerance": {"rell": 0.01}}}))


def test_the_corrected_parameter_takes_effect() -> None:
    root = parse_eval_schema(_total({"numeric": {"tolerance": {"rel": 0.01}}}))
    run = evaluate([{"total": 100.0}], [{"total": 100.5}], root)
    assert run.totals.matches == 1


def test_an_unrelated_nested_key_lists_the_known_ones() -> None:
    [p] = check_eval_schema(_total({"numeric": {"tolerance": {"percent": 1}}})).problems
    assert p.code == "unknown-param" and p.pointer == f"{TOTAL}/percent"
    assert p.suggestion == "tolerance: rel, abs"


def test_an_empty_tolerance_is_refused() -> None:
    """``{"tolerance": {}}`` would silently mean no tolerance at all."""
    [p] = check_eval_schema(_total({"numeric": {"tolerance": {}}})).problems
    assert p.code == "bad-param" and p.pointer == TOTAL


def _object_schemas(schema: Any, where: str = "") -> list[tuple[str, dict[str, Any]]]:
    out: list[tuple[str, dict[str, Any]]] = []
    if isinstance(schema, dict):
        t = schema.get("type")
        if t == "object" or (isinstance(t, list) and "object" in t):
            out.append((where, schema))
        for key, sub in (schema.get("properties") or {}).items():
            out += _object_schemas(sub, f"{where}/{key}")
    return out


@pytest.mark.parametrize("kind", ["comparators", "transforms", "strategies"])
def test_every_builtin_parameter_schema_is_closed_at_every_depth(kind: str) -> None:
    reg = builtin_registry()
    for entry in getattr(reg, kind).values():
        objects = _object_schemas(entry.params)
        assert objects and objects[0][0] == "", entry.name
        for where, schema in objects:
            assert schema.get("additionalProperties") is False, (entry.name, where)
            for name, spec in (schema.get("properties") or {}).items():
                assert "type" in spec or "enum" in spec, (entry.name, where, name)


def test_param_spec_reaches_nested_parameters() -> None:
    numeric = builtin_registry().comparators["numeric"]
    assert numeric.param_spec(("tolerance", "rel")) == {
        "type": "number", "minimum": 0,
        "description": "largest |gold - extracted| / |gold| that matches"}
    assert numeric.param_spec(()) is numeric.params
    assert numeric.param_spec(("tolerance", "rell")) is None


def test_an_invalid_parameter_schema_is_refused_at_registration() -> None:
    reg = Registry()
    with pytest.raises(RegistryError, match="not a valid JSON Schema"):
        register_comparator("odd", lambda g, e, p: 1.0, params={"type": "objekt"},
                            registry=reg)
    with pytest.raises(RegistryError, match="properties"):
        reg.add_comparator(ComparatorDef("odd2", "doc", {"type": "object", "properties": 3}))
    assert reg.comparators == {}


def test_custom_nested_parameters_get_the_same_checks() -> None:
    reg = builtin_registry()
    register_comparator("near", lambda g, e, p: 1.0, registry=reg, params={
        "type": "object", "additionalProperties": False,
        "properties": {"window": {"type": "object", "additionalProperties": False,
                                  "properties": {"days": {"type": "integer"}}}}})
    [p] = check_eval_schema(_total({"near": {"window": {"dayz": 2}}}), registry=reg).problems
    assert (p.code, p.suggestion) == ("unknown-param", "did you mean 'days'?")
    assert p.pointer == "/properties/total/x-eval-compare/near/window/dayz"


def test_check_cli_names_the_file_and_the_nested_key(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "invoice.eval.json"
    path.write_text(json.dumps(_total({"numeric": {"tolerance": {"rell": 0.01}}})), "utf-8")
    assert main(["check", str(path)]) == 2
    out = capsys.readouterr().out
    assert f"{path}#{TOTAL}/rell: error unknown-param" in out
    assert "did you mean 'rel'?" in out
    assert "ok" not in out
    assert main(["check", str(path), "--format", "json"]) == 2
    [p] = json.loads(capsys.readouterr().out)
    assert (p["code"], p["pointer"], p["source"]) == ("unknown-param", f"{TOTAL}/rell",
                                                      str(path))


# -- parameters nested below the comparator's or transform's name ------------------------------
# Each problem is located at the parameter itself: /x-eval-transform/0/round_digits/digits,
# not one level up (/x-eval-transform/0/digits, a pointer into nothing), so the editor marks
# the value the user must change.

LINE = "/properties/lines/items/properties"
#: (field schema, code, pointer below the field, target).
NESTED_PARAMS: list[tuple[dict[str, Any], str, str, str]] = [
    ({"type": "number", "x-eval-transform": [{"round_digits": {"digits": "two"}}]},
     "bad-param", "/x-eval-transform/0/round_digits/digits", "value"),
    ({"type": "string", "x-eval-transform": ["strip", {"normalize_unicode": {"from": "NFC"}}]},
     "unknown-param", "/x-eval-transform/1/normalize_unicode/from", "key"),
    ({"type": "string", "x-eval-transform": ["strip", {"type_convert": {"to": "decimal"}}]},
     "bad-param", "/x-eval-transform/1/type_convert/to", "value"),
    ({"anyOf": [{"type": "string", "x-eval-compare": "exact"},
                {"type": "number", "x-eval-transform": [{"round_digits": {"digits": 1.5}}]}]},
     "bad-param", "/anyOf/1/x-eval-transform/0/round_digits/digits", "value"),
    ({"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"rel": "1%"}}}},
     "bad-param", "/x-eval-compare/numeric/tolerance/rel", "value"),
    ({"type": "number", "x-eval-compare": {"numeric": {"tolerance": {"abs": 0.01, "pct": 1}}}},
     "unknown-param", "/x-eval-compare/numeric/tolerance/pct", "key"),
    ({"type": "string", "x-eval-compare": {"levenshtein": {"threshold": 2}}},
     "bad-param", "/x-eval-compare/levenshtein/threshold", "value"),
]


def _lines(fields: dict[str, Any]) -> dict[str, Any]:
    """``fields`` as the properties of an array's items, two levels into a schema."""
    return {"type": "object", "properties": {"lines": {"type": "array", "items": {
        "type": "object", "properties": fields}}}}


@pytest.mark.parametrize("field, code, pointer, target", NESTED_PARAMS,
                         ids=[p for _, _, p, _ in NESTED_PARAMS])
def test_a_nested_parameter_is_located_at_itself(field: dict[str, Any], code: str,
                                                 pointer: str, target: str) -> None:
    [p] = check_eval_schema(_lines({"f": field})).problems
    assert (p.code, p.pointer, p.target) == (code, f"{LINE}/f{pointer}", target)
    with pytest.raises(SchemaError) as info:
        parse_eval_schema(_lines({"f": field}))
    assert [q.pointer for q in info.value.problems] == [f"{LINE}/f{pointer}"]


def test_check_cli_locates_every_nested_parameter(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "lines.eval.json"
    fields = {f"f{i}": field for i, (field, _, _, _) in enumerate(NESTED_PARAMS)}
    path.write_text(json.dumps(_lines(fields)), "utf-8")
    assert main(["check", str(path), "--format", "json"]) == 2
    got = {(p["code"], p["pointer"]) for p in json.loads(capsys.readouterr().out)}
    assert got == {(code, f"{LINE}/f{i}{pointer}")
                   for i, (_, code, pointer, _) in enumerate(NESTED_PARAMS)}
    assert main(["check", str(path)]) == 2
    text = capsys.readouterr().out
    assert f"{path}#{LINE}/f0/x-eval-transform/0/round_digits/digits: error bad-param" in text
