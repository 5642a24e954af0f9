"""``tally.fold``, the fast route to per-field and per-record counts, against its
definitions: the tally layout (``Counts``' fields) and ``results.count_results``.

``fold`` and the specialized scorers index tallies by literal slots for speed; these
tests pin the literals to the layout, and the sums to the definition's, bit for bit.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_properties import SETTINGS

from evalschema.results import Counts, FieldResult, Status, count_results
from evalschema.scoring.tally import (
    SCORE_SUM,
    SIZE,
    SLOT,
    WEIGHT_SUM,
    WEIGHTED_SCORE_SUM,
    fold,
    make_counts,
    unfold,
)

COUNT_OF = {Status.MATCH: "matches", Status.MISMATCH: "mismatches",
            Status.OMISSION: "omissions", Status.HALLUCINATION: "hallucinations",
            Status.SKIPPED: "skipped", Status.ERROR: "errors", Status.PENDING: "pending",
            Status.BATCH_ERROR: "batch_errors"}


def test_slots_are_the_fields_of_counts() -> None:
    assert {Counts._fields[SLOT[st]] for st in Status} == set(COUNT_OF.values())
    for status, name in COUNT_OF.items():
        assert Counts._fields[SLOT[status]] == name
    # The literals of fold and specialized: the scored statuses first, the judged ones
    # (with a score) first among them, then the three sums.
    assert [SLOT[s] for s in (Status.MATCH, Status.MISMATCH, Status.OMISSION,
                              Status.HALLUCINATION)] == [0, 1, 2, 3]
    assert (SCORE_SUM, WEIGHT_SUM, WEIGHTED_SCORE_SUM, SIZE) == (8, 9, 10, 11)


RESULTS = st.lists(st.builds(
    lambda st_, score, weight, f: FieldResult(f, f, st_, score, weight=weight),
    st.sampled_from(list(Status)), st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0, 2.0, 0.1]),
    st.sampled_from(["a", "b", "c[].d"])), max_size=30)


def _bits(values: Any) -> list[Any]:
    return [v.hex() if isinstance(v, float) else v for v in values]


@SETTINGS
@given(RESULTS, st.integers(0, 5))
def test_fold_is_count_results(results: list[FieldResult], start: int) -> None:
    """Per record and per field, folding gives what ``count_results`` gives: the same
    counts, and the same sums to the last bit (the same additions in the same order)."""
    start = min(start, len(results))
    per_field: dict[str, list[float]] = {}
    counts = [0] * 8
    sums = fold(results, start, per_field, counts, 0.0, 0.0, 0.0)
    tail = results[start:]
    assert _bits(make_counts(counts, *sums)) == _bits(count_results(tail))
    assert per_field.keys() == {r.field for r in tail}
    for name, tally in per_field.items():
        want = count_results([r for r in tail if r.field == name])
        assert _bits(tally) == _bits(float(v) for v in want)
    unfold(tail, per_field)
    assert per_field == {}


def test_unfold_keeps_what_earlier_records_brought() -> None:
    """Taking a failed record back out leaves the run as it was before it: a field that
    earlier records counted (even only as skipped or errors) stays, with their counts."""
    earlier = [FieldResult("a", "a", Status.SKIPPED, 0.0), FieldResult("b", "b", Status.ERROR, 0.0),
               FieldResult("c", "c", Status.MATCH, 1.0, weight=2.0)]
    failed = [FieldResult("a", "a", Status.MATCH, 1.0), FieldResult("b", "b", Status.MISMATCH, 0.5),
              FieldResult("c", "c", Status.OMISSION, 0.0), FieldResult("d", "d", Status.MATCH, 1.0)]
    per_field: dict[str, list[float]] = {}
    fold(earlier, 0, per_field, [0] * 8, 0.0, 0.0, 0.0)
    before = {k: list(t) for k, t in per_field.items()}
    fold(failed, 0, per_field, [0] * 8, 0.0, 0.0, 0.0)
    unfold(failed, per_field)
    assert per_field == before


def test_unfold_drops_a_field_whose_sums_kept_a_rounding_residue() -> None:
    """0.1 + 0.2 - 0.1 - 0.2 is not 0.0 in floats: a field is dropped once its counts are
    all back to zero, whatever its sums kept."""
    failed = [FieldResult("a", "a", Status.MISMATCH, 0.1), FieldResult("a", "a", Status.MISMATCH, 0.2)]
    per_field: dict[str, list[float]] = {}
    fold(failed, 0, per_field, [0] * 8, 0.0, 0.0, 0.0)
    assert per_field["a"][SCORE_SUM] == 0.1 + 0.2
    unfold(failed, per_field)
    assert per_field == {}


@SETTINGS
@given(RESULTS, RESULTS)
def test_unfold_takes_back_exactly_what_fold_put_in(earlier: list[FieldResult],
                                                     failed: list[FieldResult]) -> None:
    """Whatever the statuses and scores: the counts come back exactly and the sums up to
    rounding (only the scored statuses carry a weight, only the judged ones a score)."""
    earlier = [*earlier, *(FieldResult(f, f, Status.MATCH, 0.5, weight=2.0) for f in
                            ("a", "b", "c[].d"))]
    per_field: dict[str, list[float]] = {}
    fold(earlier, 0, per_field, [0] * 8, 0.0, 0.0, 0.0)
    before = {k: list(t) for k, t in per_field.items()}
    fold(failed, 0, per_field, [0] * 8, 0.0, 0.0, 0.0)
    unfold(failed, per_field)
    assert list(per_field) == list(before)
    for name, tally in per_field.items():
        assert tally[:8] == before[name][:8]
        assert tally[8:] == pytest.approx(before[name][8:], abs=1e-9)
