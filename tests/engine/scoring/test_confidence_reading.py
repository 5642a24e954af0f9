"""Confidences read from extracted records (scoring.confidence) through whole runs: which
values count and how, missing and invalid ones counted and located, confidence keys never
scored as hallucinations, and a run split in chunks calibrated as one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from evalschema import evaluate
from evalschema.calibration import ConfidenceProblem
from evalschema.results import RunResult, Status
from evalschema.run.parallel import EvalSpec, evaluate_files

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _schema(confidence: Any = "{key}_confidence") -> dict[str, Any]:
    return {
        "type": "object", "x-eval-id": "id", "x-eval-confidence": confidence,
        "properties": {
            "id": {"type": "string", "x-eval-confidence": False},
            "total": {"type": "number"},
            "vendor": {"type": "object", "properties": {"name": {"type": "string"}}},
            "items": {"type": "array", "items": {
                "type": "object", "properties": {"sku": {"type": "string"}}}},
        },
    }


GOLD = [
    {"id": "a", "total": 1, "vendor": {"name": "Acme"}, "items": [{"sku": "x"}]},
    {"id": "b", "total": 2, "vendor": {"name": "Beta"}},
    {"id": "c", "total": 3},
]
SIBLING = [
    {"id": "a", "total": 1, "total_confidence": 0.9, "vendor": {"name": "Acme",
     "name_confidence": 0.8}, "items": [{"sku": "y", "sku_confidence": 0.3}]},
    {"id": "b", "total": 5, "total_confidence": "0.2", "vendor": {"name": "Beta"}},
    {"id": "c", "total": 3, "total_confidence": 1, "vendor": {"name": "Cyan",
     "name_confidence": 0.4}},
]


def _parallel(extracted: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """SIBLING's confidences moved to a parallel object, ``/confidence/{path}``."""
    out = []
    for rec in extracted:
        conf: dict[str, Any] = {}
        data: dict[str, Any] = {}
        for k, v in rec.items():
            if k.endswith("_confidence"):
                conf[k.removesuffix("_confidence")] = v
            elif isinstance(v, dict):
                data[k] = {kk: vv for kk, vv in v.items() if not kk.endswith("_confidence")}
                conf[k] = {kk.removesuffix("_confidence"): vv for kk, vv in v.items()
                           if kk.endswith("_confidence")}
            elif isinstance(v, list):
                data[k] = [{kk: vv for kk, vv in x.items() if not kk.endswith("_confidence")}
                           for x in v]
                conf[k] = [{kk.removesuffix("_confidence"): vv for kk, vv in x.items()
                            if kk.endswith("_confidence")} for x in v]
            else:
                data[k] = v
        out.append({**data, "confidence": conf})
    return out


def _identity(results: Any) -> Any:
    return results  # a post-processor: the run takes the general walk, not the specialized


@pytest.fixture(params=["specialized", "walk"])
def post(request: pytest.FixtureRequest) -> Any:
    return None if request.param == "specialized" else _identity


@pytest.mark.parametrize(("confidence", "extracted"), [
    ("{key}_confidence", SIBLING), ("/confidence/{path}", _parallel(SIBLING))])
def test_figures_per_field_and_no_confidence_key_is_a_hallucination(
        confidence: str, extracted: list[dict[str, Any]], post: Any) -> None:
    run = evaluate(GOLD, extracted, _schema(confidence), post_process=post)
    statuses = {(r.record_id, r.path): r.status for rec in run.records
                for r in rec.field_results}
    # only the schema's fields were judged: the confidences are not extra keys
    assert statuses == {
        ("a", "id"): Status.MATCH, ("a", "total"): Status.MATCH,
        ("a", "vendor.name"): Status.MATCH, ("a", "items[0].sku"): Status.MISMATCH,
        ("b", "id"): Status.MATCH, ("b", "total"): Status.MISMATCH,
        ("b", "vendor.name"): Status.MATCH,
        ("c", "id"): Status.MATCH, ("c", "total"): Status.MATCH,
        ("c", "vendor.name"): Status.HALLUCINATION,
    }
    assert run.total_hallucinations == 1
    cal = run.calibration((50,))
    assert cal is not None
    fields = {k: (f.values, f.correct, f.missing, f.invalid, f.auroc, f.brier)
              for k, f in cal.per_field.items()}
    assert fields == {
        # 0.9 and 1 right; "0.2" refused
        "total": (2, 2, 0, 1, None, pytest.approx(0.005)),
        # 0.8 right; Beta has none; 0.4 hallucinated (wrong)
        "vendor.name": (2, 1, 1, 0, 1.0, pytest.approx(0.1)),
        "items[].sku": (1, 0, 0, 0, None, pytest.approx(0.09)),
    }
    assert (cal.overall.values, cal.overall.correct, cal.overall.missing,
            cal.overall.invalid) == (5, 3, 1, 1)
    # wrong: 0.3, 0.4; right: 0.8, 0.9, 1 -> separable
    assert cal.overall.auroc == 1.0
    where = "/total_confidence" if confidence.startswith("{") else "/confidence/total"
    assert cal.per_field["total"].problems == (ConfidenceProblem(
        "invalid", "b", where, "a confidence must be a number in [0, 1], not string"),)
    where = "/vendor/name_confidence" if confidence.startswith("{") else \
        "/confidence/vendor/name"
    assert cal.per_field["vendor.name"].problems == (ConfidenceProblem(
        "missing", "b", where, "no confidence there"),)


def test_without_the_key_a_confidence_key_is_a_hallucination() -> None:
    schema = _schema()
    del schema["x-eval-confidence"]
    run = evaluate(GOLD, SIBLING, schema)
    invented = sorted(r.path for rec in run.records for r in rec.field_results
                      if r.status is Status.HALLUCINATION and r.reason == "not in the schema")
    assert invented == ["items[0].sku_confidence", "total_confidence", "total_confidence",
                        "total_confidence", "vendor.name_confidence",
                        "vendor.name_confidence"]
    assert run.calibration() is None
    assert "calibration" not in run.to_dict()


def test_an_invented_object_hides_its_confidence_keys_too() -> None:
    # gold has no vendor: the whole extracted vendor is hallucinated, its sibling
    # confidence key is not a field of its own
    run = evaluate([{"id": "a"}], [{"id": "a", "vendor": {"name": "X", "name_confidence": 0.7}}],
                   _schema())
    assert [(r.path, r.status) for r in run.records[0].field_results] == [
        ("id", Status.MATCH), ("vendor.name", Status.HALLUCINATION)]
    cal = run.calibration()
    assert cal is not None and cal.per_field["vendor.name"].values == 1


def test_omissions_and_errors_have_no_confidence() -> None:
    run = evaluate([{"id": "a", "total": 1}], [{"id": "a", "total_confidence": 0.5}],
                   _schema())
    assert [(r.path, r.status) for r in run.records[0].field_results] == [
        ("id", Status.MATCH), ("total", Status.OMISSION)]
    assert run.confidence == {}


def _as_json(run: RunResult) -> dict[str, Any]:
    out = run.to_dict(include_records=False)
    return json.loads(json.dumps(out))


def test_a_run_in_chunks_is_calibrated_as_one(tmp_path: Path) -> None:
    gold, ext = tmp_path / "g.jsonl", tmp_path / "e.jsonl"
    gold.write_text("".join(json.dumps({**GOLD[i % 3], "id": f"r{i}"}) + "\n"
                            for i in range(30)))
    ext.write_text("".join(json.dumps({**SIBLING[i % 3], "id": f"r{i}",
                                       "total_confidence": (i % 11) / 10}) + "\n"
                           for i in range(30)))
    spec = EvalSpec(_schema())
    whole = evaluate_files(spec, str(gold), str(ext), chunk_size=1000).run
    chunks = evaluate_files(spec, str(gold), str(ext), chunk_size=4).run
    assert whole.confidence == chunks.confidence
    assert _as_json(whole)["calibration"] == _as_json(chunks)["calibration"]
    assert _as_json(whole)["calibration"]["per_field"]["total"]["values"] == 30


def test_the_bundled_example_has_no_calibration() -> None:
    run = evaluate(EXAMPLES / "invoices.gold.jsonl", EXAMPLES / "invoices.model-a.extracted.jsonl",
                   EXAMPLES / "invoices.eval.json")
    assert run.confidence == {}
    assert "calibration" not in run.to_dict(include_records=False)


@pytest.mark.parametrize("match_by", ["hungarian", "ordered"])
def test_aligned_items_pair_without_their_confidence_keys(match_by: str) -> None:
    """Hungarian alignment scores element pairs (pair_f1, vectorized): a confidence key in
    an element is not an extra key there either."""
    schema = _schema()
    schema["properties"]["items"]["x-eval-align"] = (
        {"match_by": "hungarian"} if match_by == "hungarian" else {"ordered": True})
    gold = [{"id": "a", "items": [{"sku": "x"}, {"sku": "y"}]}]
    ext = [{"id": "a", "items": [{"sku": "y", "sku_confidence": 0.6},
                                 {"sku": "x", "sku_confidence": 0.7}]}]
    run = evaluate(gold, ext, schema)
    got = [(r.path, r.status) for r in run.records[0].field_results]
    if match_by == "hungarian":
        assert got == [("id", Status.MATCH), ("items[0].sku", Status.MATCH),
                       ("items[1].sku", Status.MATCH)]
    else:
        assert got == [("id", Status.MATCH), ("items[0].sku", Status.MISMATCH),
                       ("items[1].sku", Status.MISMATCH)]
    cal = run.calibration()
    assert cal is not None and cal.per_field["items[].sku"].values == 2


def test_element_similarity_leaves_confidence_keys_out() -> None:
    """The F1 of an element pair that alignment maximises (the flat copy in pair_f1.py
    and the walked one) is 1.0 for equal elements, whatever their confidence keys."""
    from evalschema.schema.tree import parse_eval_schema
    from evalschema.scoring.pair_f1 import make_pair_f1
    from evalschema.scoring.walk import RecordScorer

    items = parse_eval_schema(_schema()).find("items[]")
    assert items is not None
    flat = make_pair_f1(items, True, lambda g, e: -1.0)
    walked = RecordScorer(items).pair_f1(items)
    pair = ({"sku": "x"}, {"sku": "x", "sku_confidence": 0.4})
    assert flat(*pair) == walked(*pair) == 1.0


@pytest.mark.parametrize("by", ["x-eval-id", "id_field"])
def test_the_record_id_takes_no_inherited_confidence(by: str) -> None:
    """Records are paired by their id, so it always matches: a template from above does
    not ask it for a confidence (it would only add a "missing" per record). A confidence
    written on the id field itself is read."""
    schema = _schema()
    del schema["properties"]["id"]["x-eval-confidence"]
    if by == "id_field":
        del schema["x-eval-id"]
    kwargs: dict[str, Any] = {"id_field": "id"} if by == "id_field" else {}
    extracted = [{"id": "a", "total": 1, "total_confidence": 0.9}]
    cal = evaluate(GOLD[:1], extracted, schema, **kwargs).calibration()
    # (vendor.name and items[0].sku are omissions: no extracted value, no confidence)
    assert cal is not None and sorted(cal.per_field) == ["total"]
    assert (cal.overall.values, cal.overall.missing) == (1, 0)
    schema["properties"]["id"]["x-eval-confidence"] = "id_confidence"
    cal = evaluate(GOLD[:1], [{**extracted[0], "id_confidence": 1}], schema,
                   **kwargs).calibration()
    assert cal is not None and cal.per_field["id"].values == 1
