"""x-eval-* keys inside anyOf/oneOf branches take effect: the branch is chosen by the gold
value's JSON type (else the extracted value's) and named in the result's reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate, parse_eval_schema

PRICE = {"anyOf": [
    {"type": "string", "format": "date", "x-eval-compare": "date"},
    {"type": "integer", "x-eval-compare": {"numeric": {"tolerance": {"abs": 2}}}},
]}


def _schema(prop: dict[str, Any], combiner: str = "anyOf") -> dict[str, Any]:
    if combiner != "anyOf":
        prop = {combiner: prop["anyOf"]}
    return {"type": "object", "properties": {"v": prop}}


def _one(gold: Any, extracted: Any, schema: dict[str, Any]) -> Any:
    run = evaluate([{"v": gold}], [{"v": extracted}], schema)
    (r,) = run.records[0].field_results
    return r


@pytest.mark.parametrize("combiner", ["anyOf", "oneOf"])
def test_the_gold_type_picks_the_branch(combiner: str) -> None:
    schema = _schema(PRICE, combiner)
    r = _one(100, 101, schema)
    assert (str(r.status), r.comparator, r.path) == ("match", "numeric", "v")
    assert r.reason == f"{combiner}/1 (integer)"
    d = _one("2021-01-05", "January 5, 2021", schema)
    assert (str(d.status), d.comparator) == ("match", "date")
    assert d.reason == f"{combiner}/0 (string)"
    far = _one(100, 110, schema)
    assert (str(far.status), far.comparator) == ("mismatch", "numeric")
    assert (far.reason or "").startswith(f"{combiner}/1 (integer)")


def test_the_extracted_type_picks_when_gold_is_null() -> None:
    r = _one(None, 5, _schema(PRICE))
    assert r.comparator == "numeric" and (r.reason or "").startswith("anyOf/1 (integer)")


def test_the_tag_names_the_branch_type_that_took_the_value() -> None:
    """A whole float judged by the integer branch, an integer by a number branch: the tag
    says which type of the schema took it, not the value's own."""
    r = _one(10.0, 11, _schema(PRICE))
    assert r.reason == "anyOf/1 (integer)" and str(r.status) == "match"
    number = {"anyOf": [{"type": "string", "x-eval-compare": "exact"},
                        {"type": "number", "x-eval-compare": "numeric"}]}
    assert _one(3, 3, _schema(number)).reason == "anyOf/1 (number)"


def test_omissions_and_hallucinations_name_their_branch() -> None:
    run = evaluate([{"v": 7}], [{}], _schema(PRICE))
    (r,) = run.records[0].field_results
    assert (str(r.status), r.comparator) == ("omission", "numeric")
    assert (r.reason or "").startswith("anyOf/1 (integer)")


def test_no_branch_for_the_type_is_said() -> None:
    r = _one(True, True, _schema(PRICE))
    assert str(r.status) == "match" and "no anyOf branch takes boolean" in (r.reason or "")
    r = _one(True, False, _schema(PRICE))
    assert str(r.status) == "mismatch" and "no anyOf branch takes boolean" in (r.reason or "")


def test_branches_in_array_items_and_specialized_path_agree() -> None:
    schema = {"type": "object", "properties": {"vs": {"type": "array", "items": PRICE}}}
    run = evaluate([{"vs": [100, "2021-01-05"]}], [{"vs": [101, "2021-01-05"]}], schema)
    got = [(r.path, str(r.status), r.comparator, r.reason)
           for r in run.records[0].field_results]
    assert got == [("vs[0]", "match", "numeric", "anyOf/1 (integer)"),
                   ("vs[1]", "match", "date", "anyOf/0 (string)")]
    assert run.per_field["vs[]"].counts.matches == 2


def test_nullable_union_keeps_the_annotations_and_their_location() -> None:
    schema = _schema({"anyOf": [{"type": "string", "x-eval-compare": "date"},
                                {"type": "null"}]})
    r = _one("2021-01-05", "5 Jan 2021", schema)
    assert (str(r.status), r.comparator) == ("match", "date")
    bad = _schema({"anyOf": [{"type": "string", "x-eval-compare": "dat"}, {"type": "null"}]})
    (p,) = check_eval_schema(bad).problems
    assert (p.code, p.pointer) == ("unknown-comparator", "/properties/v/anyOf/0/x-eval-compare")


def test_branch_problems_are_located_in_the_branch() -> None:
    bad = _schema({"anyOf": [{"type": "string"},
                             {"type": "integer", "x-eval-compare": "numerc"}]})
    (p,) = check_eval_schema(bad).problems
    assert (p.code, p.pointer) == ("unknown-comparator", "/properties/v/anyOf/1/x-eval-compare")


def test_union_level_keys_reach_every_branch() -> None:
    schema = _schema({"anyOf": [{"type": "string", "x-eval-compare": "levenshtein"},
                                {"type": "integer", "x-eval-compare": "numeric"}],
                      "x-eval-threshold": 0.5})
    r = _one("abcdef", "abcdeX", schema)
    assert str(r.status) == "match"


def test_unannotated_mixed_union_stays_one_exact_leaf() -> None:
    root = parse_eval_schema(_schema({"anyOf": [{"type": "string"}, {"type": "integer"}]}))
    (v,) = root.children
    assert (v.comparator, v.branches) == ("exact", ())


def test_cli_eval_on_files(tmp_path: Path) -> None:
    from evalschema.cli.main import main

    (tmp_path / "s.json").write_text(json.dumps(_schema(PRICE)))
    (tmp_path / "g.jsonl").write_text(json.dumps({"v": 100}) + "\n")
    (tmp_path / "e.jsonl").write_text(json.dumps({"v": 101}) + "\n")
    assert main(["check", str(tmp_path / "s.json")]) == 0
    out = tmp_path / "r.json"
    assert main(["eval", str(tmp_path / "s.json"), "--gold", str(tmp_path / "g.jsonl"),
                 "--extracted", str(tmp_path / "e.jsonl"), "--format", "json",
                 "--output", str(out)]) == 0
    text = out.read_text()
    assert "anyOf/1 (integer)" in text


def test_annotate_annotates_branches_not_the_union() -> None:
    from evalschema.schema.infer import annotate_xeval

    schema = _schema({"anyOf": [{"type": "string", "x-eval-compare": "date"},
                                {"type": "integer"}, {"type": "null"}]})
    annotate_xeval(schema)
    v = schema["properties"]["v"]
    assert "x-eval-compare" not in v
    assert [a.get("x-eval-compare") for a in v["anyOf"]] == ["date", "numeric", None]
    assert check_eval_schema(schema).problems == ()


def test_arrays_in_branches_judge_items_by_branch() -> None:
    schema = _schema({"anyOf": [
        {"type": "array", "items": {"type": "string", "x-eval-compare": "date"}},
        {"type": "array", "items": {"type": "integer", "x-eval-compare": "numeric"}}]})
    run = evaluate([{"v": ["2021-01-05", 3]}], [{"v": ["Jan 5, 2021", 3]}], schema)
    assert [(r.path, str(r.status), r.comparator, r.reason)
            for r in run.records[0].field_results] == [
        ("v[0]", "match", "date", "anyOf/0/items (string)"),
        ("v[1]", "match", "numeric", "anyOf/1/items (integer)")]


def test_conflicting_keys_in_object_shapes_report_the_loser() -> None:
    schema = _schema({"anyOf": [
        {"type": "object", "properties": {"d": {"type": "string", "x-eval-compare": "date"}}},
        {"type": "object", "properties": {"d": {"type": "string", "x-eval-compare": "exact"}}},
    ]})
    problems = [(p.code, p.pointer) for p in check_eval_schema(schema).problems]
    assert problems == [("ignored-key", "/properties/v/anyOf/0/properties/d/x-eval-compare")]


def test_a_compare_on_the_union_compares_it_whole_and_reports_the_branch_keys() -> None:
    schema = _schema({**PRICE, "x-eval-compare": "exact"})
    r = _one(100, 101, schema)
    assert (str(r.status), r.comparator, r.reason) == ("mismatch", "exact", None)
    problems = [(p.code, p.pointer) for p in check_eval_schema(schema).problems]
    assert problems == [("ignored-key", "/properties/v/anyOf/0/x-eval-compare"),
                        ("ignored-key", "/properties/v/anyOf/1/x-eval-compare")]


#: extract-bench's resume skills: a flat list, or a map of lists.
SKILLS = {"anyOf": [
    {"type": "array", "items": {"type": "string"}, "x-eval-align": {"match_by": "set"}},
    {"type": "object", "additionalProperties": {
        "type": "array", "items": {"type": "string"}, "x-eval-align": {"match_by": "set"}}}]}


@pytest.mark.parametrize("field", ["v[]", "v{}[]"])
def test_a_field_inside_a_branch_can_be_selected(tmp_path: Path, field: str) -> None:
    """The table lists v[] and v{}[]; --field took neither ('no field 'v{}[]' in the
    schema (did you mean 'v{}[]'?)')."""
    from evalschema.cli.main import main

    gold = [{"v": ["a", "b"]}, {"v": {"Languages": ["Go", "C"]}}]
    ext = [{"v": ["a"]}, {"v": {"Languages": ["Go", "C"]}}]
    run = evaluate(gold, ext, _schema(SKILLS), fields=[field])
    assert run.per_field[field].counts.matches == (1 if field == "v[]" else 2)
    (tmp_path / "s.json").write_text(json.dumps(_schema(SKILLS)))
    (tmp_path / "g.jsonl").write_text("".join(json.dumps(g) + "\n" for g in gold))
    (tmp_path / "e.jsonl").write_text("".join(json.dumps(e) + "\n" for e in ext))
    assert main(["eval", str(tmp_path / "s.json"), "--gold", str(tmp_path / "g.jsonl"),
                 "--extracted", str(tmp_path / "e.jsonl"), "--field", field,
                 "--threshold", f"{field}=0.5"]) == 0


def test_gold_picks_the_branch_before_the_extracted_value() -> None:
    """Gold ``100`` is judged by the integer branch even when the extractor wrote a
    string: the extracted value's type chooses only when gold's takes no branch."""
    r = _one(100, "100", _schema(PRICE))
    assert (r.reason or "").startswith("anyOf/1 (integer)")


def test_null_against_null_under_a_union_is_a_match() -> None:
    assert str(_one(None, None, _schema(PRICE)).status) == "match"
