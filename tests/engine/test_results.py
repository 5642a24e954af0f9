"""The result types (``evalschema.results``): what each status counts for, the figures
(docs/metrics.md: precision, recall, F1, undefined as None), how records and values are
named to people, and the JSON every consumer reads. Figures are worked out by hand."""

from __future__ import annotations

import json
from typing import Any

import pytest

from evalschema import Counts, FieldAggregation, FieldResult, RecordResult, RunResult, Status
from evalschema.results import (
    ComparatorName,
    Coverage,
    Undefined,
    count_results,
    f1_score,
    leaf_status,
    mismatch_reason,
    pair_similarity,
    precision_recall_f1,
    record_label,
    show_value,
)

#: One of every status; the ones outside precision/recall carry a score and a weight that
#: would show in the sums if they were counted.
MIXED = (
    FieldResult("a", "a", Status.MATCH, 1.0, weight=2.0),
    FieldResult("b", "b", Status.MISMATCH, 0.5, weight=1.0),
    FieldResult("c", "c", Status.OMISSION, 0.0, weight=3.0),
    FieldResult("d", "d", Status.HALLUCINATION, 0.0, weight=1.0),
    FieldResult("e", "e", Status.SKIPPED, 1.0, weight=5.0),
    FieldResult("f", "f", Status.ERROR, 1.0, weight=7.0),
    FieldResult("g", "g", Status.PENDING, 1.0, weight=11.0),
    FieldResult("h", "h", Status.BATCH_ERROR, 1.0, weight=13.0),
)


def test_each_status_counts_once_and_only_judged_fields_carry_scores() -> None:
    """Omissions and hallucinations add weight but no score (they score 0); skipped,
    errors, pending and batch errors add neither."""
    c = count_results(MIXED)
    assert c == Counts(1, 1, 1, 1, 1, 1, 1, 1, score_sum=1.5, weight_sum=2.0 + 1.0 + 3.0 + 1.0,
                       weighted_score_sum=2.0 * 1.0 + 1.0 * 0.5)
    assert c.scored == 4
    assert count_results(list(MIXED)) == c and count_results(()) == Counts()
    # Two matches, a mismatch, an omission: P = 2.5/3, R = 2.5/4.
    two = count_results((MIXED[0], MIXED[0]._replace(weight=1.0), MIXED[1], MIXED[2]))
    assert two[:8] == (2, 1, 1, 0, 0, 0, 0, 0)
    assert two.score_sum == 2.5 and two.weight_sum == 7.0 and two.weighted_score_sum == 3.5


def test_every_status_is_counted_in_its_own_place() -> None:
    """A different number of each, interleaved: 2 matches (score 1, weight 1), 3 mismatches
    (0.5, weight 2), 4 omissions, 5 hallucinations, 6 skipped, 7 errors, 3 pending and
    2 batch errors. S = 2 + 1.5, weights 2·1 + 3·2 + 4 + 5 = 17, weighted 2 + 3·2·0.5 = 5."""
    kinds = [(Status.MATCH, 2, 1.0, 1.0), (Status.MISMATCH, 3, 0.5, 2.0),
             (Status.OMISSION, 4, 0.0, 1.0), (Status.HALLUCINATION, 5, 0.0, 1.0),
             (Status.SKIPPED, 6, 1.0, 1.0), (Status.ERROR, 7, 1.0, 1.0),
             (Status.PENDING, 3, 1.0, 1.0), (Status.BATCH_ERROR, 2, 1.0, 1.0)]
    queues = [[FieldResult("x", "x", st, sc, weight=w)] * n for st, n, sc, w in kinds]
    results = [q.pop() for _ in range(7) for q in reversed(queues) if q]
    assert len(results) == 32 and results[0].status is Status.BATCH_ERROR
    assert count_results(results) == Counts(2, 3, 4, 5, 6, 7, 3, 2, score_sum=3.5,
                                            weight_sum=17.0, weighted_score_sum=5.0)


def test_counts_figures_by_hand() -> None:
    """S = 2.5 over 3 judged on both sides, 2 hallucinations, 1 omission:
    P = 2.5/5 = 0.5, R = 2.5/4 = 0.625, F1 = 2·0.5·0.625/1.125 = 5/9; weighted 3/4."""
    c = Counts(2, 1, 1, 2, 1, 1, 1, 1, score_sum=2.5, weight_sum=4.0, weighted_score_sum=3.0)
    assert c.metrics() == (0.5, 0.625, pytest.approx(5 / 9), 0.75)
    assert (c.precision, c.recall, c.weighted_score) == (0.5, 0.625, 0.75)
    assert c.f1 == pytest.approx(5 / 9)
    assert c.scored == 6
    assert Counts().metrics() == (None, None, None, None)
    # Only skipped and errors: nothing judged, every figure undefined.
    assert Counts(skipped=2, errors=1).metrics() == (None, None, None, None)


def test_counts_merge_adds_every_field_and_to_dict_names_them() -> None:
    a = Counts(1, 2, 3, 4, 5, 6, 7, 8, 0.5, 2.0, 0.25)
    b = Counts(10, 20, 30, 40, 50, 60, 70, 80, 1.0, 4.0, 1.0)
    assert a.merge(b) == Counts(11, 22, 33, 44, 55, 66, 77, 88, 1.5, 6.0, 1.25)
    # P = 1/(1+1+1) with one hallucination, R = 1/(1+1+1) with one omission: 1/3 each.
    c = Counts(1, 1, 1, 1, 2, 3, 4, 5, 1.0, 4.0, 1.0)
    doc = c.to_dict()
    assert doc == {
        "matches": 1, "mismatches": 1, "omissions": 1, "hallucinations": 1, "skipped": 2,
        "errors": 3, "pending": 4, "batch_errors": 5, "score_sum": 1.0,
        "precision": pytest.approx(1 / 3), "recall": pytest.approx(1 / 3),
        "f1": pytest.approx(1 / 3), "weighted_score": 0.25,
    }
    assert list(doc) == ["matches", "mismatches", "omissions", "hallucinations", "skipped",
                         "errors", "pending", "batch_errors", "score_sum", "precision",
                         "recall", "f1", "weighted_score"]
    assert json.loads(json.dumps(Counts().to_dict()))["f1"] is None


@pytest.mark.parametrize(("args", "expected"), [
    # S, judged on both sides, omissions, hallucinations -> P, R, F1
    ((1.5, 2, 1, 0), (0.75, 0.5, 0.6)),
    ((1.5, 2, 0, 1), (0.5, 0.75, 0.6)),
    ((2.0, 2, 0, 0), (1.0, 1.0, 1.0)),
    ((0.0, 2, 0, 0), (0.0, 0.0, 0.0)),
    ((0.0, 0, 2, 0), (None, 0.0, 0.0)),  # nothing extracted: missing output scores 0
    ((0.0, 0, 0, 3), (0.0, None, 0.0)),  # an invented field: 0, not left out
    ((0.0, 0, 0, 0), (None, None, None)),
    ((0.0, 0, 1, 1), (0.0, 0.0, 0.0)),
])
def test_precision_recall_f1_with_undefined_as_none(
        args: tuple[float, int, int, int], expected: tuple[Any, Any, Any]) -> None:
    got = precision_recall_f1(*args)
    assert got == pytest.approx(expected)
    assert [v is None for v in got] == [v is None for v in expected]


def test_f1_and_pair_similarity_by_hand() -> None:
    assert f1_score(0.5, 1.0) == pytest.approx(2 / 3)
    assert f1_score(0.0, 0.0) == 0.0 and f1_score(1.0, 0.0) == 0.0
    # Two empty elements are identical; only omissions or hallucinations share nothing.
    assert pair_similarity(0.0, 0, 0, 0) == 1.0
    assert pair_similarity(0.0, 0, 2, 0) == 0.0
    assert pair_similarity(0.0, 0, 0, 2) == 0.0
    assert pair_similarity(0.0, 0, 1, 1) == 0.0
    assert pair_similarity(1.5, 2, 1, 0) == pytest.approx(0.6)
    assert pair_similarity(1.0, 1, 0, 1) == pytest.approx(2 / 3)
    assert pair_similarity(2.0, 2, 0, 0) == 1.0
    assert Counts(1, 1, 1, 0, score_sum=1.5).pair_similarity() == pytest.approx(0.6)
    assert Counts(0, 1, 0, 1, score_sum=1.0).pair_similarity() == pytest.approx(2 / 3)


def test_a_leaf_matches_when_its_score_reaches_the_threshold() -> None:
    assert leaf_status(0.9, 0.9) is Status.MATCH
    assert leaf_status(0.95, 0.9) is Status.MATCH
    assert leaf_status(0.8999, 0.9) is Status.MISMATCH
    assert Status.MATCH == "match" and str(Status.BATCH_ERROR) == "batch_error"


def test_values_are_shown_as_json_and_cut_at_the_limit() -> None:
    assert show_value(None) == "null"
    assert show_value("é") == '"é"'
    assert show_value([1, True]) == "[1, true]"
    assert show_value({1}) == '"{1}"'  # not JSON: its str()
    loop: list[Any] = []
    loop.append(loop)
    assert show_value(loop) == "[[...]]"  # circular: Python's spelling, not a crash
    assert show_value("abcdef", limit=5) == '"abc…'
    assert show_value("abc", limit=5) == '"abc"'


def test_a_mismatch_reason_shows_the_score_only_when_some_credit_was_earned() -> None:
    assert mismatch_reason(68.78, 687.8, "numeric, abs 0.01", 0.0) == (
        "687.8 ≠ gold 68.78 (numeric, abs 0.01)")
    assert mismatch_reason("Acme Corp", "Acme Crop", "levenshtein", 0.77777, 0.9) == (
        '"Acme Crop" ≠ gold "Acme Corp" (levenshtein; score 0.7778 < 0.9)')
    assert mismatch_reason("a", "b", "exact", 0.5) == '"b" ≠ gold "a" (exact; score 0.5 < 1)'


def test_a_field_result_explains_itself_and_serialises() -> None:
    named = ComparatorName("levenshtein", "levenshtein, threshold 0.9", 0.9)
    r = FieldResult("items[0].name", "items[].name", Status.MISMATCH, 0.5, named,
                    gold="ab", extracted="a", gold_pointer="/items/0/name",
                    extracted_pointer="/items/0/name", schema_pointer="/properties/items",
                    weight=2.0, record_index=3, record_id="INV-1")
    assert r.explanation == '"a" ≠ gold "ab" (levenshtein, threshold 0.9; score 0.5 < 0.9)'
    doc = r.to_dict()
    assert doc == {
        "path": "items[0].name", "field": "items[].name", "status": "mismatch", "score": 0.5,
        "comparator": "levenshtein", "reason": r.explanation, "gold": "ab", "extracted": "a",
        "gold_pointer": "/items/0/name", "extracted_pointer": "/items/0/name",
        "schema_pointer": "/properties/items", "weight": 2.0, "record_index": 3,
        "record_id": "INV-1",
    }
    assert type(doc["comparator"]) is str and type(doc["status"]) is str
    # A bare name: its label is the name, its threshold 1.
    assert ComparatorName("exact").label == "exact" and ComparatorName("exact").threshold == 1.0
    assert r._replace(comparator=ComparatorName("exact")).explanation == (
        '"a" ≠ gold "ab" (exact; score 0.5 < 1)')
    assert r._replace(comparator="exact").explanation == '"a" ≠ gold "ab" (exact; score 0.5 < 1)'
    assert r._replace(comparator=None, score=0.0).explanation == (
        '"a" ≠ gold "ab" (no comparator)')
    assert r._replace(comparator=None).to_dict()["comparator"] is None
    # A reason of the scorer's own wins; other statuses have only that.
    assert r._replace(reason="type mismatch").explanation == "type mismatch"
    assert r._replace(status=Status.MATCH).explanation is None
    assert r._replace(status=Status.OMISSION, reason="missing").explanation == "missing"
    plain = FieldResult("a", "a", Status.MATCH, 1.0)
    assert (plain.weight, plain.record_index, plain.schema_pointer, plain.record_id) == (
        1.0, 0, "", None)


@pytest.mark.parametrize(("record_id", "name", "index", "label"), [
    ("INV-1", "file", 0, "INV-1"),
    (7, None, 0, "7"),
    (["é", 1], None, 0, '["é", 1]'),
    (None, "invoice-1", 4, "invoice-1"),
    (None, None, 0, "#1"),
    (None, None, 9, "#10"),
    ("", None, 2, ""),  # an empty id is still the id
])
def test_a_record_is_named_by_id_then_file_then_place(
        record_id: Any, name: str | None, index: int, label: str) -> None:
    assert record_label(record_id, name, index) == label


def test_a_record_result_serialises_its_figures_and_repair() -> None:
    counts = Counts(1, 1, 0, 1, score_sum=1.5, weight_sum=3.0, weighted_score_sum=1.5)
    field = FieldResult("a", "a", Status.MATCH, 1.0)
    rec = RecordResult(2, None, (field,), counts, gold_index=1, extracted_index=0,
                       repaired="truncated", problem=None, name="inv")
    # P = 1.5/3, R = 1.5/2, F1 = 2·0.5·0.75/1.25 = 0.6, weighted 1.5/3.
    assert (rec.precision, rec.recall, rec.weighted_score) == (0.5, 0.75, 0.5)
    assert rec.f1 == pytest.approx(0.6)
    assert rec.label == "inv"
    doc = rec.to_dict()
    assert doc == {
        "index": 2, "record_id": None, "gold_index": 1, "extracted_index": 0,
        "repaired": True, "repaired_reason": "truncated", "problem": None, "name": "inv",
        "label": "inv", "precision": 0.5, "recall": 0.75, "f1": pytest.approx(0.6),
        "weighted_score": 0.5, "counts": counts.to_dict(), "field_results": [field.to_dict()],
    }
    fenced = rec._replace(repaired=True, name=None, problem="unreadable").to_dict()
    assert (fenced["repaired"], fenced["repaired_reason"]) == (True, None)
    assert (fenced["label"], fenced["problem"]) == ("#3", "unreadable")
    plain = RecordResult(0, "r", (), Counts())
    assert (plain.gold_index, plain.extracted_index, plain.repaired, plain.problem,
            plain.name) == (None, None, False, None, None)
    assert plain.to_dict()["repaired"] is False and plain.to_dict()["repaired_reason"] is None


def test_a_field_aggregation_counts_every_result_and_spots_invented_keys() -> None:
    agg = FieldAggregation("x", Counts(2, 1, 1, 0, 1, 1, 1, 1, score_sum=2.5))
    assert agg.count == 8
    assert agg.mean_score == 2.5 / 4
    assert (agg.precision, agg.recall) == (2.5 / 3, 2.5 / 4)
    assert agg.f1 == pytest.approx(2 * (2.5 / 3) * (2.5 / 4) / (2.5 / 3 + 2.5 / 4))
    assert not agg.invented
    assert FieldAggregation("y", Counts(hallucinations=2)).invented
    for c in (Counts(1, 0, 0, 1), Counts(0, 1, 0, 1), Counts(0, 0, 1, 1), Counts()):
        assert not FieldAggregation("z", c).invented, c
    empty = FieldAggregation("e")
    assert empty.counts == Counts() and empty.count == 0 and empty.mean_score is None
    skipped = FieldAggregation("s", Counts(skipped=3))
    assert skipped.count == 3 and skipped.mean_score is None and skipped.f1 is None
    merged = agg.merge(FieldAggregation("x", Counts(matches=1, score_sum=1.0)))
    assert merged == FieldAggregation("x", Counts(3, 1, 1, 0, 1, 1, 1, 1, score_sum=3.5))
    doc = agg.to_dict()
    assert list(doc)[:3] == ["field", "count", "mean_score"]
    assert doc == {"field": "x", "count": 8, "mean_score": 0.625, **agg.counts.to_dict()}


def test_coverage_share_order_and_json() -> None:
    cov = Coverage.of(6, {"/b": 1, "/a": 1, "/c": 2})
    assert cov == Coverage(6, 4, (("/c", 2), ("/a", 1), ("/b", 1)))  # most, then by name
    assert cov.share == 0.6
    assert Coverage().share is None and Coverage(0, 3).share == 0.0
    assert cov.to_dict() == {
        "share": 0.6, "judged_values": 6, "off_schema_values": 4,
        "off_schema_keys": [{"pointer": "/c", "values": 2}, {"pointer": "/a", "values": 1},
                            {"pointer": "/b", "values": 1}]}
    assert Coverage(1204, 1966, (("/events", 1966),)).describe() == (
        "gold coverage 38.0% (1,204 of 3,170 values); not in the schema: /events (1,966)")
    assert Coverage(3, 0).describe() == "gold coverage 100.0% (3 of 3 values)"
    keys = tuple((f"/k{i}", 1) for i in range(6))
    assert Coverage(4, 6, keys).describe() == (
        "gold coverage 40.0% (4 of 10 values); not in the schema: /k0 (1), /k1 (1), /k2 (1), "
        "/k3 (1), /k4 (1), … 1 more")
    assert Coverage(4, 5, keys[:5]).describe() == (  # exactly `top` keys: nothing more
        "gold coverage 44.4% (4 of 9 values); not in the schema: /k0 (1), /k1 (1), /k2 (1), "
        "/k3 (1), /k4 (1)")
    assert Coverage().describe() == "gold coverage —: gold had no value"


def test_a_run_result_reports_totals_means_and_micro_figures() -> None:
    totals = Counts(3, 1, 2, 1, 4, 2, 1, 1, score_sum=3.5)
    run = RunResult(records=(), per_field={"a": FieldAggregation("a", totals)}, totals=totals,
                    mean_precision=0.25, mean_recall=0.5, mean_f1=None,
                    mean_weighted_score=0.75, total_records=2,
                    undefined=Undefined(1, 0, 1, 0))
    # Micro: P = 3.5/(4+1) = 0.7, R = 3.5/(4+2) = 7/12.
    assert (run.micro_precision, run.micro_recall) == (0.7, pytest.approx(7 / 12))
    assert run.micro_f1 == pytest.approx(2 * 0.7 * (7 / 12) / (0.7 + 7 / 12))
    assert run.total_fields == 3 + 1 + 2 + 1 + 2  # scored plus errors, not skipped/pending
    assert (run.total_matches, run.total_mismatches, run.total_omissions,
            run.total_hallucinations, run.total_errors, run.total_batch_errors) == (
        3, 1, 2, 1, 2, 1)
    doc = run.to_dict(include_records=False)
    assert "records" not in doc
    assert doc == {
        "total_records": 2, "total_fields": 9, "total_matches": 3, "total_mismatches": 1,
        "total_omissions": 2, "total_hallucinations": 1, "total_errors": 2,
        "total_batch_errors": 1, "mean_precision": 0.25, "mean_recall": 0.5, "mean_f1": None,
        "mean_weighted_score": 0.75, "micro_precision": 0.7,
        "micro_recall": pytest.approx(7 / 12), "micro_f1": pytest.approx(run.micro_f1),
        "undefined_records": {"precision": 1, "recall": 0, "f1": 1, "weighted_score": 0},
        "coverage": {"share": None, "judged_values": 0, "off_schema_values": 0,
                     "off_schema_keys": []},
        "per_field": {"a": FieldAggregation("a", totals).to_dict()},
    }
    rec = RecordResult(0, "r", (), Counts())
    with_records = RunResult((rec,), {}, Counts(), None, None, None, None, 1).to_dict()
    assert with_records["records"] == [rec.to_dict()]
    assert with_records["undefined_records"] == {
        "precision": 0, "recall": 0, "f1": 0, "weighted_score": 0}
