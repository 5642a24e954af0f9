"""A run's mergeable sums (``evalschema.run.accumulator``): chunks folded in order give the
figures of one pass, to the last bit; a copy resumes independently."""

from __future__ import annotations

import pytest

from evalschema.results import Counts, FieldResult, RecordResult, Status
from evalschema.run.accumulator import RunAccumulator


def _record(acc: RunAccumulator, index: int, statuses: list[tuple[str, Status, float]]
            ) -> RecordResult:
    results = [FieldResult(path, path, st, score, weight=1.0 + index % 3, record_index=index)
               for path, st, score in statuses]
    rec = RecordResult(index, f"r{index}", tuple(results), acc.tally(results))
    acc.add(rec)
    return rec


RECORDS = [
    [("a", Status.MATCH, 1.0), ("b", Status.MISMATCH, 0.3), ("c", Status.OMISSION, 0.0)],
    [("a", Status.MISMATCH, 0.7), ("d", Status.HALLUCINATION, 0.0)],
    [("a", Status.MATCH, 1.0), ("b", Status.SKIPPED, 0.0), ("e", Status.ERROR, 0.0)],
    [("c", Status.MATCH, 0.9)],
]


def _chunks(sizes: list[int]) -> list[RunAccumulator]:
    out, k = [], 0
    for n in sizes:
        acc = RunAccumulator()
        for i in range(k, k + n):
            _record(acc, i, RECORDS[i])
        out.append(acc)
        k += n
    return out


def test_update_and_merge_fold_the_same_chunks_alike() -> None:
    """Bit for bit for the same chunks (which is why ``parallel`` chunks by a fixed size,
    never by the worker count); the same figures as one pass up to float rounding."""
    [whole] = _chunks([4])
    a, b, c = _chunks([1, 2, 1])
    merged = a.merge(b).merge(c)
    folded = RunAccumulator()
    for part in (a, b, c):
        folded.update(part)
    assert merged.result().to_dict() == folded.result().to_dict()
    assert merged.result().records == whole.result().records
    got, want = merged.result(), whole.result()
    assert got.per_field.keys() == want.per_field.keys()
    assert [a.counts[:8] for a in got.per_field.values()] == [
        a.counts[:8] for a in want.per_field.values()]
    assert got.mean_weighted_score == pytest.approx(want.mean_weighted_score, rel=1e-12)


def test_a_copy_resumes_bit_for_bit() -> None:
    """What the language server does after an edit: resume from a copy taken after the
    unchanged records, add the rest in order; every sum equals one pass exactly."""
    [whole] = _chunks([4])
    [start] = _chunks([2])
    resumed = start.copy()
    for i in (2, 3):
        _record(resumed, i, RECORDS[i])
    assert resumed.result().to_dict() == whole.result().to_dict()


def test_result_counts_per_field_as_integers() -> None:
    [whole] = _chunks([4])
    run = whole.result()
    counts = run.per_field["a"].counts
    assert counts[:8] == (2, 1, 0, 0, 0, 0, 0, 0)
    # Weights 1, 2 and 3 (records 0 to 2): sums carried in record order.
    assert counts[8:] == (1.0 + 0.7 + 1.0, 1.0 + 2.0 + 3.0, 1.0 * 1.0 + 2.0 * 0.7 + 3.0 * 1.0)
    assert all(type(v) is int for v in run.per_field["a"].counts[:8])
    assert [agg.field for agg in run.per_field.values()] == list(run.per_field)
    # Gold values judged: 3 matches (a twice, c), 2 mismatches (b, a), 1 omission (c).
    assert run.coverage.judged == 3 + 2 + 1
    assert run.total_records == 4 and run.totals.errors == 1


def test_an_unscored_record_is_listed_but_not_counted() -> None:
    acc = RunAccumulator()
    acc.add(RecordResult(0, None, (), Counts(), problem="unreadable"), counted=False)
    run = acc.result()
    assert len(run.records) == 1 and run.total_records == 0 and run.mean_f1 is None


def test_a_run_with_no_counted_record_has_every_mean_undefined() -> None:
    """No record scored: there is nothing to average, so each mean is undefined (None),
    never a perfect 1.0."""
    for acc in (RunAccumulator(), RunAccumulator().merge(RunAccumulator())):
        run = acc.result()
        assert (run.mean_precision, run.mean_recall, run.mean_f1,
                run.mean_weighted_score) == (None, None, None, None)
        assert (run.micro_precision, run.micro_recall, run.micro_f1) == (None, None, None)
        doc = run.to_dict()
        assert doc["mean_f1"] is None and doc["micro_f1"] is None


def _counts(m: int = 0, om: int = 0, ha: int = 0, sk: int = 0) -> Counts:
    return Counts(m, 0, om, ha, sk, 0, 0, 0, float(m), float(m + om + ha), float(m))


def test_macro_means_leave_out_undefined_records_and_say_how_many() -> None:
    """A record whose gold had nothing (recall undefined), one with nothing extracted
    (precision undefined) and one with everything skipped (all undefined): each mean is
    over the records that define it, and ``undefined`` counts the others."""
    recs = [_counts(m=1), _counts(ha=1), _counts(om=1), _counts(sk=2)]
    for split in (4, 1, 2):  # one accumulator, or chunks folded in order: the same figures
        accs = []
        for start in range(0, 4, split):
            acc = RunAccumulator()
            for i in range(start, min(start + split, 4)):
                acc.add(RecordResult(i, None, (), recs[i]))
            accs.append(acc)
        acc = accs[0]
        for other in accs[1:]:
            acc.update(other)
        run = acc.result()
        assert run.total_records == 4
        assert run.mean_precision == (1.0 + 0.0) / 2  # records 0 and 1
        assert run.mean_recall == (1.0 + 0.0) / 2  # records 0 and 2
        assert run.mean_f1 == (1.0 + 0.0 + 0.0) / 3  # all but the skipped one
        assert run.mean_weighted_score == (1.0 + 0.0 + 0.0) / 3  # nothing weighed in 3
        assert tuple(run.undefined) == (2, 2, 1, 1)
        assert run.to_dict(include_records=False)["undefined_records"] == {
            "precision": 2, "recall": 2, "f1": 1, "weighted_score": 1}
        assert acc.copy().result().undefined == run.undefined


def test_undefined_counts_are_per_figure() -> None:
    """Two records with nothing extracted leave precision undefined twice but recall
    never: each count belongs to its own figure."""
    acc = RunAccumulator()
    for i, rec in enumerate([_counts(m=1), _counts(om=1), _counts(om=2)]):
        acc.add(RecordResult(i, None, (), rec))
    run = acc.result()
    assert run.undefined.precision == 2 and run.undefined.recall == 0
    assert run.mean_precision == 1.0 and run.mean_recall == 1.0 / 3


def test_a_copy_resumes_independently() -> None:
    [acc] = _chunks([2])
    copy = acc.copy(records=False)
    assert copy.records == [] and copy.n == 2 and copy.per_field == acc.per_field
    _record(copy, 2, RECORDS[2])
    assert acc.n == 2 and acc.per_field["a"][0] == 1.0  # the original did not move
    kept = acc.copy()
    assert kept.records == acc.records and kept.records is not acc.records


def test_records_are_left_out_when_not_kept() -> None:
    acc = RunAccumulator(keep_records=False)
    _record(acc, 0, RECORDS[0])
    assert acc.records == [] and acc.result().total_records == 1


def test_merge_leaves_both_sides_as_they_were() -> None:
    """``merge`` makes a new accumulator: folding more into it, or into either side,
    moves nothing in the others."""
    a, b = _chunks([2, 2])
    before = (a.result().to_dict(), b.result().to_dict())
    merged = a.merge(b)
    assert merged.n == 4 and [r.index for r in merged.records] == [0, 1, 2, 3]
    assert merged.per_field["a"][:2] == [2.0, 1.0]  # "a": match, mismatch, match
    _record(merged, 4, [("a", Status.MATCH, 1.0)])
    _record(a, 4, [("c", Status.OMISSION, 0.0)])
    assert merged.per_field["a"][0] == 3.0 and merged.per_field["c"][:3] == [1.0, 0.0, 1.0]
    assert b.result().to_dict() == before[1]
    assert a.per_field["a"][:2] == [1.0, 1.0] and a.n == 3


def test_merge_keeps_records_only_when_both_sides_do() -> None:
    for keep in ((True, False), (False, True), (False, False)):
        a, b = RunAccumulator(keep_records=keep[0]), RunAccumulator(keep_records=keep[1])
        _record(a, 0, RECORDS[0])
        _record(b, 1, RECORDS[1])
        merged = a.merge(b)
        assert not merged.keep_records and merged.records == [], keep
        assert merged.result().total_records == 2
        _record(merged, 2, RECORDS[2])
        assert merged.records == []


def test_tally_returns_the_record_counts_and_adds_them_to_its_fields() -> None:
    """Weights 2, 1, 3: the weight sum counts the omission, the weighted score sum only
    what was judged on both sides (2·1 + 1·0.5); a skipped result adds nothing."""
    acc = RunAccumulator()
    results = [FieldResult("a", "a", Status.MATCH, 1.0, weight=2.0),
               FieldResult("b", "b", Status.MISMATCH, 0.5),
               FieldResult("c", "c", Status.OMISSION, 0.0, weight=3.0),
               FieldResult("a", "a", Status.SKIPPED, 0.0, weight=5.0)]
    counts = acc.tally(results)
    assert counts == Counts(1, 1, 1, 0, 1, 0, 0, 0, 1.5, 6.0, 2.5)
    assert type(counts) is Counts and counts.weighted_score == 2.5 / 6.0
    assert acc.per_field["a"] == [1, 0, 0, 0, 1, 0, 0, 0, 1.0, 2.0, 2.0]
    assert acc.tally(results[1:2]) == Counts(0, 1, score_sum=0.5, weight_sum=1.0,
                                             weighted_score_sum=0.5)
    assert acc.per_field["b"][:2] == [0, 2]


def test_off_schema_counts_add_up_by_key() -> None:
    """Gold keys outside the schema, counted per chunk: folding and merging add the counts
    of a key both chunks saw, and keep the keys only one saw."""
    a, b = RunAccumulator(), RunAccumulator()
    a.off_schema.update({"notes": 2, "vendor.fax": 1})
    b.off_schema.update({"notes": 3, "terms": 4})
    assert a.merge(b).off_schema == {"notes": 5, "vendor.fax": 1, "terms": 4}
    folded = RunAccumulator()
    folded.update(a)
    folded.update(b)
    assert folded.off_schema == {"notes": 5, "vendor.fax": 1, "terms": 4}
    assert a.off_schema == {"notes": 2, "vendor.fax": 1}  # merge left it as it was
