"""DataFrames in (evalschema.spark.inputs): each form of a record and of its id becomes
the same keyed rows, and the sides meet in a full outer join on the id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.distributed


def rows(df: Any) -> list[tuple[Any, ...]]:
    return sorted((tuple(r) for r in df.collect()), key=repr)


def test_a_json_string_column_is_kept_as_written_and_keyed_by_its_id(spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame(
        [("a", '{"id": "a", "total": 1}'), ("b", '{"id": "é", "total": 2.50}')],
        "doc string, record string")
    got = rows(keyed(df, "id", gold=True, column="record"))
    assert got == [('"a"', '{"id": "a", "total": 1}', None),
                   ('"é"', '{"id": "é", "total": 2.50}', None)]


def test_an_id_column_beside_the_record_is_the_key(spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame([(7, '{"total": 1}'), (8, "no json here")],
                               "id long, record string")
    got = rows(keyed(df, "id", gold=False, column="record"))
    assert got == [("7", '{"total": 1}', None), ("8", "no json here", None)]


def test_a_struct_column_and_a_whole_row_are_written_as_json(spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame([(1, ("x", 2.5, None))],
                               "n long, record struct<id:string, total:double, note:string>")
    assert rows(keyed(df, "id", gold=True, column="record")) == [
        ('"x"', '{"id":"x","total":2.5}', None)]
    flat = spark.createDataFrame([("x", 3, [1, 2])], "id string, total long, items array<long>")
    assert rows(keyed(flat, "id", gold=True)) == [
        ('"x"', '{"id":"x","total":3,"items":[1,2]}', None)]


def test_records_without_a_key_say_why(spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame([('{"total": 1}',), ("[1, 2]",), ('{"id": null}',),
                                ('{"id": "a",}',), (None,)], "value string")
    got = rows(keyed(df, "id", gold=True))
    assert got == [
        (None, "[1, 2]", "gold record is not an object"),
        (None, '{"id": "a",}', "line is not valid JSON: Expecting property name "
         "enclosed in double quotes"),
        (None, '{"id": null}', "record has no usable 'id'"),
        (None, '{"total": 1}', "record has no usable 'id'"),
        (None, None, "the record is null")]
    # Extracted text is rescued as a local run rescues it: the trailing comma goes.
    assert rows(keyed(df, "id", gold=False)) == [
        ('"a"', '{"id": "a",}', None),
        (None, "[1, 2]", "extracted record is array, not an object"),
        (None, '{"id": null}', "extracted record has no 'id'"),
        (None, '{"total": 1}', "extracted record has no 'id'"),
        (None, None, "the record is null")]


def test_paths_are_read_as_text_json_documents_split_and_parquet_typed(
        spark: Any, tmp_path: Path) -> None:
    from evalschema.spark.inputs import keyed, read_records

    jsonl = tmp_path / "gold.jsonl"
    jsonl.write_text('{"id": 1, "v": "1"}\n\n{"id": 2, "v": 1}\n', encoding="utf-8")
    assert rows(keyed(read_records(spark, str(jsonl), gold=True), "id", gold=True)) == [
        ("1", '{"id": 1, "v": "1"}', None), ("2", '{"id": 2, "v": 1}', None)]
    doc = tmp_path / "gold.json"
    doc.write_text(json.dumps({"records": [{"id": "a"}, {"id": "b", "v": [1]}]}),
                   encoding="utf-8")
    assert rows(keyed(read_records(spark, str(doc), gold=True), "id", gold=True)) == [
        ('"a"', '{"id": "a"}', None), ('"b"', '{"id": "b", "v": [1]}', None)]
    pq = str(tmp_path / "gold.parquet")
    spark.createDataFrame([("a", 1.5)], "id string, v double").write.parquet(pq)
    assert rows(keyed(read_records(spark, pq, gold=True), "id", gold=True)) == [
        ('"a"', '{"id":"a","v":1.5}', None)]


def test_the_sides_meet_in_a_full_outer_join_on_the_id(spark: Any) -> None:
    from evalschema.spark.inputs import joined, keyed

    gold = keyed(spark.createDataFrame([('{"id": 1}',), ('{"id": 2}',)], "value string"),
                 "id", gold=True)
    run0 = keyed(spark.createDataFrame([('{"id": 2, "x": 0}',), ('{"id": 3}',), ("oops",)],
                                       "value string"), "id", gold=False)
    run1 = keyed(spark.createDataFrame([('{"id": 1, "x": 1}',)], "value string"),
                 "id", gold=False)
    got = rows(joined(gold, [run0, run1], names=["extracted_0", "extracted_1"]))
    assert got == [("1", '{"id": 1}', None, '{"id": 1, "x": 1}'),
                   ("2", '{"id": 2}', '{"id": 2, "x": 0}', None),
                   ("3", None, '{"id": 3}', None)]
