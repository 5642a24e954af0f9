"""Spark (evalschema.spark) on a real local Spark: the same run as a local one, from
paths, JSON string columns and struct columns, with the field results as a DataFrame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from same_run import (
    GOLD,
    RUN_B,
    SCHEMA,
    assert_same,
    field_rows_in_order,
    lines,
    run_dict,
    sorted_field_rows,
    unindexed,
)

from evalschema.io.records import load_json
from evalschema.run.parallel import EvalSpec, evaluate_files

pytestmark = pytest.mark.distributed


def assert_local_run(got: Any, gold: Path, extracted: Path, schema: Path = SCHEMA, *,
                     records: bool = True) -> None:
    """``got`` is the local run's: its aggregates, and its records in any order."""
    local = evaluate_files(EvalSpec(load_json(schema), str(schema)), gold, extracted,
                           keep_records=True)
    mine, want = run_dict(got), run_dict(local.run)
    mine_records, want_records = (sorted(unindexed(d.pop("records")), key=json.dumps)
                                  for d in (mine, want))
    assert_same(mine, want)
    if records:
        assert_same(mine_records, want_records)


def test_the_bundled_example_from_paths_is_the_local_run(spark: Any) -> None:
    from evalschema.spark import evaluate

    out = evaluate(str(GOLD), str(RUN_B), SCHEMA, spark=spark, keep_records=True,
                   field_results=True)
    assert out.run.total_records == 240
    assert_local_run(out.run, GOLD, RUN_B)
    local = evaluate_files(EvalSpec(load_json(SCHEMA), str(SCHEMA)), GOLD, RUN_B,
                           keep_records=True).run.field_results_table()
    import pyarrow as pa

    got = pa.Table.from_pylist([r.asDict() for r in out.field_results.collect()])
    assert got.num_rows == local.num_rows
    assert sorted_field_rows(got) == sorted_field_rows(local)


def test_json_string_and_struct_columns_are_the_local_run(spark: Any) -> None:
    from evalschema.spark import evaluate

    # Gold as a struct column (typed by Spark's JSON reader: a quantity 4 becomes 4.0 in
    # the records' values, scored alike), extracted as JSON text (its unreadable lines
    # kept).
    gold = spark.read.json(str(GOLD)).selectExpr("invoice_id AS doc", "struct(*) AS record")
    extracted = spark.createDataFrame([(i, t) for i, t in enumerate(lines(RUN_B))],
                                      "n long, record string")
    out = evaluate(gold, extracted, SCHEMA, spark=spark, gold_column="record",
                   extracted_column="record")
    assert out.run.total_records == 240
    assert_local_run(out.run, GOLD, RUN_B, records=False)


def test_a_generated_100000_record_suite_is_the_local_run(
        spark: Any, suite_100k: tuple[Path, Path, Path], suite_100k_local: Any,
        tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    from evalschema.spark import evaluate

    schema, gold, extracted = suite_100k
    out = evaluate(str(gold), str(extracted), schema, spark=spark, field_results=True)
    assert out.run.total_records == suite_100k_local.run.total_records == 100_002
    assert_same(run_dict(out.run), run_dict(suite_100k_local.run))
    out.field_results.write.parquet(str(tmp_path / "fields"))
    got = field_rows_in_order(pq.read_table(tmp_path / "fields"))
    want = field_rows_in_order(suite_100k_local.field_rows)
    assert got.num_rows == want.num_rows
    assert got.cast(want.schema).equals(want)
