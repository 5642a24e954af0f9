"""The terminal table's row selection (``select_fields``): --failing and --top."""

from __future__ import annotations

from evalschema.report.text import select_fields
from evalschema.results import Counts, FieldAggregation


def _fields(**scores: tuple[int, int]) -> dict[str, FieldAggregation]:
    """Fields by name from (matches, mismatches); each match scores 1."""
    return {k: FieldAggregation(k, Counts(matches=m, mismatches=mm, score_sum=float(m)))
            for k, (m, mm) in scores.items()}


def test_top_as_many_as_there_are_fields_hides_and_reorders_nothing() -> None:
    rows, note = select_fields(_fields(a=(1, 0), b=(0, 1), c=(1, 1)), sort=None, top=3)
    assert [a.field for a in rows] == ["a", "b", "c"] and note is None


def test_failing_keeps_a_field_whose_every_judgement_was_an_error() -> None:
    """Its F1 is undefined (nothing judged), yet it did not pass: --failing shows it."""
    fields = {**_fields(ok=(1, 0), bad=(0, 1)), "broken": FieldAggregation(
        "broken", Counts(errors=2))}
    rows, _ = select_fields(fields, failing=True)
    assert sorted(a.field for a in rows) == ["bad", "broken"]
