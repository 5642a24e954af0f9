"""The Python side of Spark's scoring (evalschema.spark.scoring) on plain Arrow batches, as
``mapInArrow`` hands them over: no id is cut between two batches, and a partition scored
in small batches is the local run."""

from __future__ import annotations

import itertools
from pathlib import Path

import pyarrow as pa
import pytest
from same_run import GOLD, RUN_B, SCHEMA, assert_same, joined, lines, run_dict

from evalschema.distributed.merge import merge_states
from evalschema.io.records import load_json
from evalschema.run.parallel import EvalSpec, evaluate_files
from evalschema.spark.scoring import score_partition, scorer_key, whole_ids, worker_scorer


def batches(ids: list[str], size: int) -> list[pa.RecordBatch]:
    table = pa.table({"id": ids, "n": list(range(len(ids)))})
    return table.to_batches(max_chunksize=size)


@pytest.mark.parametrize("size", [1, 2, 3, 100])
def test_the_rows_of_an_id_stay_together_whatever_the_batch_size(size: int) -> None:
    ids = ["a", "b", "b", "b", "c", "d", "d"]
    got = [t.column("id").to_pylist() for t in whole_ids(iter(batches(ids, size)))]
    assert [x for t in got for x in t] == ids
    for first, second in itertools.pairwise(got):
        assert first[-1] != second[0]


def test_batches_of_one_id_are_one_table() -> None:
    got = [t.column("n").to_pylist() for t in whole_ids(iter(batches(["a"] * 5, 2)))]
    assert got == [[0, 1, 2, 3, 4]]


def test_one_scorer_per_worker_and_spec() -> None:
    spec = EvalSpec(load_json(SCHEMA), str(SCHEMA))
    key = scorer_key(spec, 1, keep_records=False)
    assert worker_scorer(key) is worker_scorer(key)
    assert worker_scorer(scorer_key(spec, 2)) is not worker_scorer(key)


def test_a_partition_in_small_batches_with_a_repeated_id_is_the_local_run(
        tmp_path: Path) -> None:
    # model-b with its first record again at the end, with one more key: a duplicate
    # id, which must be seen even when its two rows reach the scorer in two batches (its
    # text sorts after the first's, so both runs pair the first).
    extracted = tmp_path / "extracted.jsonl"
    texts = lines(RUN_B)
    again = '{"notes": "again", ' + texts[0][1:]
    extracted.write_text("\n".join([*texts, again]) + "\n", encoding="utf-8")
    table = joined(lines(GOLD), [lines(extracted)], "invoice_id").sort_by("id") \
        .combine_chunks()
    spec = EvalSpec(load_json(SCHEMA), str(SCHEMA))
    key = scorer_key(spec, 1, keep_records=False)
    small, whole = ([b.column("state")[0].as_py() for b in score_partition(
        key, iter(table.to_batches(max_chunksize=size)))] for size in (1, table.num_rows))
    assert len(small) > 200 > len(whole)
    got = merge_states(small, 1).outcomes(0.0, 1)[0]
    want = evaluate_files(spec, GOLD, extracted)
    assert got.run.total_records == want.run.total_records == 241
    assert_same(run_dict(got.run), run_dict(want.run))
    assert_same(run_dict(merge_states(whole, 1).outcomes(0.0, 1)[0].run), run_dict(want.run))
