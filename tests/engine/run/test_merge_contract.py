"""Mergeable results as the contract (issue 15): a run's records split into any number
of parts, each scored into its own ``RunAccumulator`` (replicate tallies on) and merged
in any order, give the one-accumulator ``RunResult`` (counts exactly, sums and metrics
within 1e-12), the same replicate tallies and the same ``compare`` intervals; chunks
folded in record order give bit-identical tallies. A ``Digest`` keeps the same worst
records and problems in any merge order."""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalschema.io.extracted import NO_RECORD
from evalschema.results import FieldResult, RecordResult, RunResult, Status
from evalschema.run import accumulator
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.compare import compare_runs
from evalschema.run.parallel import Digest

SPEC = BootstrapSpec(40, 5)
STATUSES = [Status.MATCH, Status.MISMATCH, Status.OMISSION, Status.HALLUCINATION,
            Status.SKIPPED, Status.ERROR]

field_result = st.tuples(st.sampled_from(["a", "b", "c", "d[].x"]), st.sampled_from(STATUSES),
                         st.sampled_from([0.0, 0.25, 1 / 3, 0.7, 1.0]))
#: A record: (paired with a gold record, its results in run A, its results in run B).
record = st.tuples(st.booleans(),
                   st.lists(field_result, max_size=5), st.lists(field_result, max_size=5))


def _score(acc: RunAccumulator, i: int, paired: bool,
           results: list[tuple[str, Status, float]]) -> RecordResult:
    """Record i as the engine would add it: its field results tallied, then the record."""
    frs = [FieldResult(f"{name}#{k}", name, status,
                       score if status in (Status.MATCH, Status.MISMATCH) else 0.0,
                       weight=1.0 + i % 3, record_index=i)
           for k, (name, status, score) in enumerate(results)]
    rec = RecordResult(i, f"r{i}" if paired else f"extra{i}", tuple(frs), acc.tally(frs),
                       i if paired else None, i)
    acc.add(rec)
    return rec


def _run(records: list[Any], side: int, parts: list[list[int]] | None = None,
         order: list[int] | None = None, keep: bool = True) -> RunResult:
    """Run ``side`` (1: A, 2: B) of ``records`` in one accumulator, or in ``parts``
    (lists of record numbers) merged in ``order``."""
    groups = parts if parts is not None else [list(range(len(records)))]
    accs = []
    for group in groups:
        acc = RunAccumulator(keep_records=keep, replicates=SPEC)
        for i in group:
            _score(acc, i, records[i][0], records[i][side])
        accs.append(acc)
    picked = [accs[k] for k in (order or range(len(accs)))]
    merged = picked[0].copy()
    for acc in picked[1:]:
        merged = merged.merge(acc) if len(picked) % 2 else _updated(merged, acc)
    return merged.result()


def _updated(acc: RunAccumulator, other: RunAccumulator) -> RunAccumulator:
    acc.update(other)
    return acc


def _by_field(comparison: dict[str, Any]) -> dict[str, Any]:
    """A comparison's JSON with its fields keyed by name (their order is first seen, so
    it follows the merge order)."""
    return {**comparison, "fields": {f["field"]: f for f in comparison["fields"]}}


def _close(x: Any, y: Any, where: str = "") -> None:
    """Equal JSON-like values: ints and strings exactly, floats within 1e-12."""
    if isinstance(x, dict):
        assert x.keys() == y.keys(), where
        for k in x:
            _close(x[k], y[k], f"{where}/{k}")
    elif isinstance(x, list):
        assert len(x) == len(y), where
        for k, (a, b) in enumerate(zip(x, y, strict=True)):
            _close(a, b, f"{where}/{k}")
    elif isinstance(x, float) and not isinstance(y, bool):
        assert y == pytest.approx(x, rel=0, abs=1e-12), where
    else:
        assert (type(x), x) == (type(y), y), where


def _tallies_close(one: RunResult, other: RunResult) -> None:
    assert one.replicates is not None and other.replicates is not None
    a, b = one.replicates, other.replicates
    assert (a.gold_units, a.extra_units) == (b.gold_units, b.extra_units)
    assert sorted(a.fields) == sorted(b.fields)
    for x, y in zip(a.columns(sorted(a.fields)), b.columns(sorted(a.fields)), strict=True):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-12)


@st.composite
def split(draw: st.DrawFn) -> tuple[list[Any], list[list[int]], list[int]]:
    records = draw(st.lists(record, min_size=1, max_size=30))
    cuts = sorted(set(draw(st.lists(st.integers(1, len(records)), max_size=5))) - {len(records)})
    bounds = [0, *cuts, len(records)]
    parts = [list(range(a, b)) for a, b in itertools.pairwise(bounds)]
    order = draw(st.permutations(range(len(parts))))
    return records, parts, list(order)


@settings(max_examples=60, deadline=None)
@given(split())
def test_parts_merged_in_any_order_give_the_one_accumulator_result(
        case: tuple[list[Any], list[list[int]], list[int]]) -> None:
    records, parts, order = case
    one_a, one_b = _run(records, 1), _run(records, 2)
    got_a, got_b = _run(records, 1, parts, order), _run(records, 2, parts, order)
    for one, got in ((one_a, got_a), (one_b, got_b)):
        _close(one.to_dict(include_records=False), got.to_dict(include_records=False))
        assert sorted(got.records) == list(one.records)
        _tallies_close(one, got)
    c_one = _by_field(compare_runs([one_a, one_b], resamples=SPEC.resamples,
                                   seed=SPEC.seed).to_dict())
    _close(c_one, _by_field(compare_runs([got_a, got_b], resamples=SPEC.resamples,
                                         seed=SPEC.seed).to_dict()))
    # the same from the records alone (no tally), and from tallies alone (no records:
    # no flips then)
    bare = [dataclasses.replace(r, replicates=None) for r in (one_a, one_b)]
    _close(c_one, _by_field(compare_runs(bare, resamples=SPEC.resamples,
                                         seed=SPEC.seed).to_dict()))
    lean = [_run(records, side, parts, order, keep=False) for side in (1, 2)]
    c_lean = _by_field(compare_runs(lean, resamples=SPEC.resamples, seed=SPEC.seed).to_dict())
    assert c_lean.pop("flips") == []
    for f in c_lean["fields"].values():
        assert (f.pop("regressed"), f.pop("fixed")) == ([0], [0])
    for f in c_one["fields"].values():
        del f["regressed"], f["fixed"]
    del c_one["flips"]
    _close(c_one, c_lean)


@settings(max_examples=40, deadline=None)
@given(st.lists(record, min_size=1, max_size=30))
def test_chunks_folded_in_record_order_give_bit_identical_tallies(records: list[Any]) -> None:
    """As ``parallel`` folds its chunks (each chunk a whole batch of the tally), and as a
    run resumes from a copy."""
    with mock.patch.object(accumulator, "REPLICATE_BATCH", 3):
        one = _run(records, 1)
        chunks = [list(range(i, min(i + 3, len(records)))) for i in range(0, len(records), 3)]
        acc = RunAccumulator(replicates=SPEC)
        for chunk in chunks:
            part = RunAccumulator(replicates=SPEC)
            for i in chunk:
                _score(part, i, records[i][0], records[i][1])
            acc.update(part)
        got = acc.result()
        # resumed from a copy mid-batch (as the language server resumes a run)
        first = RunAccumulator(replicates=SPEC)
        half = len(records) // 2
        for i in range(half):
            _score(first, i, records[i][0], records[i][1])
        resumed = first.copy()
        for i in range(half, len(records)):
            _score(resumed, i, records[i][0], records[i][1])
        again = resumed.result()
    for other in (got, again):
        assert one.replicates is not None and other.replicates is not None
        assert list(one.replicates.fields) == list(other.replicates.fields)
        assert np.array_equal(one.replicates.observed, other.replicates.observed)
        assert np.array_equal(one.replicates.replicates, other.replicates.replicates)


def test_a_part_without_replicates_drops_them() -> None:
    acc = RunAccumulator(replicates=SPEC)
    _score(acc, 0, True, [("a", Status.MATCH, 1.0)])
    acc.update(RunAccumulator())
    assert acc.result().replicates is None


#: A record for a digest: (kind, F1-ish errors): kind 0 paired with errors, 1 a record
#: problem (no extracted record), 2 an unreadable extracted record.
digest_record = st.tuples(st.integers(0, 2), st.integers(0, 3), st.integers(0, 3))


def _digest_record(i: int, kind: int, right: int, wrong: int) -> tuple[RecordResult, Any, Any]:
    acc = RunAccumulator()
    frs = [FieldResult(f"f{k}", f"f{k}", Status.MATCH, 1.0) for k in range(right)]
    frs += [FieldResult(f"g{k}", f"g{k}", Status.MISMATCH, 0.0) for k in range(wrong)]
    if kind == 0:
        return RecordResult(i, f"r{i}", tuple(frs), acc.tally(frs), i, i), {"g": i}, {"e": i}
    if kind == 1:
        return (RecordResult(i, f"r{i}", (), acc.tally([]), i, None, problem="missing"),
                {"g": i}, NO_RECORD)
    return (RecordResult(i, None, (), acc.tally([]), None, i, problem="unreadable"),
            NO_RECORD, NO_RECORD)


@settings(max_examples=60, deadline=None)
@given(st.lists(digest_record, min_size=1, max_size=40), st.data())
def test_digests_merged_in_any_order_keep_the_same(records: list[Any], data: st.DataObject
                                                   ) -> None:
    made = [_digest_record(i, *r) for i, r in enumerate(records)]
    one = Digest(3, 2)
    for rec in made:
        one.add(*rec)
    n_parts = data.draw(st.integers(1, 4))
    where = data.draw(st.lists(st.integers(0, n_parts - 1), min_size=len(made),
                               max_size=len(made)))
    parts = [Digest(3, 2) for _ in range(n_parts)]
    for k, part in enumerate(parts):  # any subset, added in any order
        mine = [rec for rec, w in zip(made, where, strict=True) if w == k]
        for rec in data.draw(st.permutations(mine)):
            part.add(*rec)
    merged = Digest(3, 2)
    for k in data.draw(st.permutations(range(n_parts))):
        merged.update(parts[k])
    assert [w.record.index for w in merged.worst] == [w.record.index for w in one.worst]
    assert merged.problems == one.problems
    assert [w.record.index for w in merged.unreadable] == [w.record.index for w in one.unreadable]
    assert (merged.n_problems, merged.repaired) == (one.n_problems, one.repaired)
