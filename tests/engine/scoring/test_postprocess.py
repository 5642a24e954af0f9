"""Post-processors (``scoring.postprocess``): what they rewrite, and what they leave alone.

They run on a record's results after scoring: a wrong status here changes precision and
recall, and a wrong reason is what the user reads beside the field.
"""

from __future__ import annotations

from typing import Any

from evalschema.results import FieldResult, Status
from evalschema.scoring.postprocess import propagate_batch_errors, reclassify_nulls


def _r(status: Status, gold: Any, extracted: Any, score: float = 0.0,
       reason: str | None = None) -> FieldResult:
    return FieldResult("f", "f", status, score, "exact", reason, gold, extracted, "/f", "/f")


def _judged(results: list[FieldResult]) -> list[tuple[str, float, str | None]]:
    return [(str(r.status), r.score, r.reason) for r in results]


def test_reclassify_nulls_rewrites_judged_results_by_which_side_is_null() -> None:
    process = reclassify_nulls()
    got = process([_r(Status.MATCH, None, None, 1.0), _r(Status.MISMATCH, None, "x"),
                   _r(Status.MISMATCH, "x", None), _r(Status.MISMATCH, "x", "y", 0.5),
                   _r(Status.ERROR, "x", "y", 0.0, "comparator failed")])
    assert _judged(got) == [("skipped", 0.0, "absent on both sides"),
                            ("hallucination", 0.0, "gold is absent"),
                            ("omission", 0.0, "extracted is absent"),
                            ("mismatch", 0.5, None),
                            ("error", 0.0, "comparator failed")]
    # Only status, score and reason change: the values and pointers still locate the field.
    assert got[1]._replace(status=Status.MISMATCH, reason=None) == _r(Status.MISMATCH, None, "x")


def test_reclassify_nulls_can_count_both_absent_as_a_match() -> None:
    got = reclassify_nulls(both_absent_skip=False)([_r(Status.MISMATCH, None, None)])
    assert _judged(got) == [("match", 1.0, "absent on both sides")]


def test_reclassify_nulls_leaves_results_that_already_say_absent_or_skipped() -> None:
    """Omissions, hallucinations, skipped fields and failed batches keep their own
    status and reason, even when a side is null."""
    final = [_r(Status.OMISSION, "x", None, reason="missing from extracted"),
             _r(Status.HALLUCINATION, None, "x", reason="not in gold"),
             _r(Status.SKIPPED, None, None, reason="null on both sides (null counts as absent)"),
             _r(Status.BATCH_ERROR, None, "x", reason="judge failed")]
    assert reclassify_nulls()(final) == final
    assert reclassify_nulls(both_absent_skip=False)(final) == final


def test_absent_values_need_the_same_type_and_value() -> None:
    """``0`` listed: ``0`` is absent, ``False`` and ``0.0`` are not; a listed value that is
    not equal to itself (nan) is still absent when it is that very object."""
    nan = float("nan")
    process = reclassify_nulls(absent_values=[0, "", nan])
    got = process([_r(Status.MATCH, 0, 0, 1.0), _r(Status.MATCH, False, False, 1.0),
                   _r(Status.MISMATCH, 0.0, "", 0.0), _r(Status.MISMATCH, nan, 1, 0.0),
                   _r(Status.MISMATCH, None, None, 0.0)])
    assert _judged(got) == [("skipped", 0.0, "absent on both sides"),
                            ("match", 1.0, None),
                            ("omission", 0.0, "extracted is absent"),
                            ("hallucination", 0.0, "gold is absent"),
                            ("mismatch", 0.0, None)]  # None is not listed here


def test_reclassify_nulls_reads_the_values_compared_tells_it() -> None:
    def swapped(r: FieldResult) -> tuple[Any, Any]:
        return r.extracted, r.gold

    got = reclassify_nulls(compared=swapped)([_r(Status.MISMATCH, None, "x")])
    assert _judged(got) == [("omission", 0.0, "extracted is absent")]


def test_propagate_batch_errors_fails_the_pending_siblings_of_a_failed_batch() -> None:
    results = [_r(Status.MATCH, "x", "x", 1.0), _r(Status.PENDING, "a", "b"),
               _r(Status.BATCH_ERROR, "c", "d", reason="judge timed out"),
               _r(Status.MISMATCH, "x", "y")]
    got = propagate_batch_errors(results)
    assert _judged(got) == [("match", 1.0, None),
                            ("batch_error", 0.0, "another batch comparison of this record failed"),
                            ("batch_error", 0.0, "judge timed out"),
                            ("mismatch", 0.0, None)]


def test_propagate_batch_errors_leaves_a_record_without_failures_as_it_is() -> None:
    results = [_r(Status.PENDING, "a", "b"), _r(Status.MATCH, "x", "x", 1.0)]
    assert propagate_batch_errors(results) is results


def test_a_side_read_as_absent_takes_the_partial_score_away() -> None:
    """"N/A" listed as absent: a comparator's partial credit for "N/A" against a value
    (levenshtein's 0.6 for "N/A" and "N/A*") is no credit once that side counts as absent."""
    got = reclassify_nulls(absent_values=["N/A"])([
        _r(Status.MISMATCH, "N/A", "N/A*", 0.6), _r(Status.MISMATCH, "N/A*", "N/A", 0.6)])
    assert _judged(got) == [("hallucination", 0.0, "gold is absent"),
                            ("omission", 0.0, "extracted is absent")]


def test_an_absent_value_is_found_by_equality_not_identity() -> None:
    """Values read from JSON are new objects: "N/A" and 1000 in the data are absent when
    "N/A" and 1000 are listed, though they are not the listed objects themselves."""
    listed_na, listed_big = "N/A", 1000
    na, big = "".join(["N/", "A"]), int("1000")
    assert na is not listed_na and big is not listed_big
    process = reclassify_nulls(absent_values=[listed_na, listed_big])
    got = process([_r(Status.MISMATCH, na, "x"), _r(Status.MISMATCH, "x", big)])
    assert _judged(got) == [("hallucination", 0.0, "gold is absent"),
                            ("omission", 0.0, "extracted is absent")]
