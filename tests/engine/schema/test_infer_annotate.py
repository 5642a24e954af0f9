"""infer and annotate choose the date comparator and key_field alignment from what the
schema and the gold say; annotate fills exactly what the scoring tree finds unannotated."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from evalschema import check_eval_schema, evaluate, parse_eval_schema
from evalschema.cli.main import main
from evalschema.schema.infer import annotate, annotate_xeval, date_kind, infer_schema, unique_key

REPO = Path(__file__).resolve().parents[3]
CREDIT = REPO / "tests" / "data" / "extract-bench" / "finance" / "credit_agreement"

ORDERS = [
    {"id": "a", "placed": "2024-03-01", "at": "2024-03-01T10:00:00Z", "paid": "14 Mar 2024",
     "lines": [{"sku": "X-1", "note": "red", "qty": 1}, {"sku": "X-2", "note": "red", "qty": 2}]},
    {"id": "b", "placed": "2024-04-02", "at": "2024-04-02T11:30:00+02:00", "paid": "Jan 2021",
     "lines": [{"sku": "X-2", "note": "blue", "qty": 5}]},
]


@pytest.mark.parametrize(("value", "kind"), [
    ("2024-03-01", "date"), ("2024-03-01T10:00:00Z", "date-time"),
    ("2015-04-30T22:00:00.000Z", "date-time"), ("14/03/2026", "partial"),
    ("January 2021", "partial"), ("Jan 2021", "partial"), ("2021-01", "partial"),
    ("March 14, 2026", "partial"), ("6 Apr 2025", "partial"),
    ("2021", None), ("hello", None), (2021, None), ("May the force", None)])
def test_date_kind(value: Any, kind: str | None) -> None:
    assert date_kind(value) == kind


def test_infer_chooses_date_and_key_field() -> None:
    schema = infer_schema(ORDERS)
    props = schema["properties"]
    assert props["placed"] == {"type": "string", "format": "date"}
    assert props["at"] == {"type": "string", "format": "date-time"}
    assert props["paid"] == {"type": "string", "x-eval-compare": "date"}
    assert props["id"] == {"type": "string"}
    assert props["lines"]["x-eval-align"] == {"match_by": "key_field", "key": "sku"}
    annotated = annotate_xeval(schema)
    assert annotated["properties"]["placed"]["x-eval-compare"] == "date"
    assert annotated["properties"]["at"]["x-eval-compare"] == "date"
    # the inferred schema scores its gold perfectly, and pairs lines by sku
    root = parse_eval_schema(annotated)
    swapped = json.loads(json.dumps(ORDERS))
    swapped[0]["lines"].reverse()
    swapped[0]["placed"] = "01/03/2024"
    run = evaluate(ORDERS, swapped, root)
    assert run.totals.mismatches == run.totals.omissions == run.totals.hallucinations == 0


def test_unique_key_needs_evidence_and_skips_dates_and_repeats() -> None:
    assert unique_key([[{"sku": "a"}, {"sku": "b"}]]) == "sku"
    assert unique_key([[{"sku": "a"}, {"sku": "a"}]]) is None
    assert unique_key([[{"sku": "a"}]]) is None  # one element: nothing to pair
    # a name that does not say it is a key needs two arrays as evidence
    assert unique_key([[{"colour": "red"}, {"colour": "blue"}]]) is None
    assert unique_key([[{"colour": "red"}, {"colour": "blue"}],
                       [{"colour": "red"}, {"colour": "green"}]]) == "colour"
    assert unique_key([[{"when": "2024-01-01"}, {"when": "2024-02-01"}],
                       [{"when": "2024-01-01"}, {"when": "2024-03-01"}]]) is None
    assert unique_key([[{"id": "1", "name": "a"}, {"id": "2", "name": "b"}]]) == "id"
    assert unique_key([["a", "b"]]) is None


def test_annotate_uses_format_and_gold() -> None:
    schema = {"type": "object", "properties": {
        "placed": {"type": "string", "format": "date"},
        "when": {"type": ["string", "null"], "format": "date-time"},
        "paid": {"type": "string"},
        "mine": {"type": "string", "x-eval-compare": "normalized"},
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "sku": {"type": "string"}, "qty": {"type": "integer"}}}}}}
    without = annotate(json.loads(json.dumps(schema)))
    props = without.schema["properties"]
    assert props["placed"]["x-eval-compare"] == props["when"]["x-eval-compare"] == "date"
    assert props["paid"]["x-eval-compare"] == "exact"
    assert "x-eval-align" not in props["lines"]
    result = annotate(schema, ORDERS)
    props = result.schema["properties"]
    assert props["paid"]["x-eval-compare"] == "date"
    assert props["mine"]["x-eval-compare"] == "normalized"  # the user's choice stays
    assert props["lines"]["x-eval-align"] == {"match_by": "key_field", "key": "sku"}
    notes = {(p.code, p.pointer) for p in result.problems}
    assert ("annotate-key-field", "/properties/lines/x-eval-align") in notes
    assert ("annotate-date", "/properties/paid/x-eval-compare") in notes
    assert ("annotate-date", "/properties/placed/format") in notes
    assert check_eval_schema(result.schema, defaults=False).problems == ()


def test_annotate_reaches_every_leaf_the_tree_judges() -> None:
    """Leaves the document walk cannot see (items: true, an array typed leaf) still get a
    comparator, so nothing is left for a schema that requires one on every leaf."""
    schema = {"type": "object", "properties": {
        "tags": {"type": "array", "items": {}},
        "odd": {"type": "string", "properties": {"x": {"type": "string"}}}}}
    before = [p.pointer for p in check_eval_schema(schema, defaults=False).problems
              if p.code == "missing-compare"]
    assert before
    result = annotate(schema)
    assert set(before) <= set(result.added)
    assert [p for p in result.problems if p.code == "missing-compare"] == []
    assert check_eval_schema(schema, defaults=False).problems == ()


# -- the CLI, on real files ----------------------------------------------------------------

def _run(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_infer_cli_on_gold_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gold = tmp_path / "orders.jsonl"
    gold.write_text("\n".join(json.dumps(r) for r in ORDERS), "utf-8")
    code, out, _ = _run(capsys, "infer", gold, "--id-field", "id")
    assert code == 0
    schema = json.loads(out)
    assert schema["properties"]["placed"]["x-eval-compare"] == "date"
    assert schema["properties"]["paid"]["x-eval-compare"] == "date"
    assert schema["properties"]["lines"]["x-eval-align"]["key"] == "sku"


def test_annotate_cli_with_real_gold(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = tmp_path / "credit_agreement-schema.json"
    shutil.copy(CREDIT / "credit_agreement-schema.json", schema)
    shutil.copytree(CREDIT / "gold", tmp_path / "gold")
    code, out, err = _run(capsys, "annotate", schema, "--gold", tmp_path / "gold")
    assert code == 0
    doc = json.loads(out)
    terms = doc["properties"]["terms"]["properties"]
    # string_semantic has no equivalent: the default was written, then gold made it date
    assert terms["agreement_date"]["x-eval-compare"] == "date"
    assert f"{schema}#/properties/terms/properties/agreement_date/x-eval-compare: info " \
        "annotate-date" in err
    assert all(line.startswith(str(schema)) for line in err.splitlines())


def test_annotate_check_fails_where_the_metric_refuses(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """An invalid schema is not "annotated": --check exits 2 with the problem, located."""
    schema = tmp_path / "s.eval.json"
    schema.write_text(json.dumps({"type": "object", "properties": {
        "a": {"type": "string", "x-eval-compare": "exakt"}}}), "utf-8")
    code, _, err = _run(capsys, "annotate", schema, "--check")
    assert code == 2
    assert f"{schema}#/properties/a/x-eval-compare: error unknown-comparator" in err
    gold = tmp_path / "g.jsonl"
    gold.write_text('{"a": "x"}\n', "utf-8")
    code, _, err = _run(capsys, "eval", schema, "--gold", gold, "--extracted", gold,
                        "--metric", "struct_extract_eval.evaluate")
    assert code == 2 and f"{schema}#/properties/a/x-eval-compare" in err
