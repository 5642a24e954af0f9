"""DataFrames in (evalschema.spark.inputs): each form of a record and of its id becomes
the core's keyed rows, and the sides meet in a full outer join on the id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.distributed


def rows(df: Any) -> list[tuple[Any, ...]]:
    """The rows without their random row tags (checked to be one per record), a record
    without an id keyed ``<side>?`` (``rows.unkeyed_key``: the side and a hash of the
    text)."""
    from evalschema.distributed.rows import UNKEYED

    tags = [c for c in df.columns if c.endswith("_row")]
    for tag in tags:
        values = [r[0] for r in df.select(tag).collect() if r[0] is not None]
        assert len(set(values)) == len(values) and all(len(v) == 16 for v in values)
    got = [tuple(r) for r in df.select(*[c for c in df.columns if c not in tags]).collect()]
    return sorted(((f"{k.split(UNKEYED)[1]}?" if k.startswith(UNKEYED) else k, *rest)
                   for k, *rest in got), key=repr)


def test_a_json_string_column_is_kept_as_written_and_keyed_by_its_id(spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame(
        [("a", '{"id": "a", "total": 1}'), ("b", '{"id": "é", "total": 2.50}')],
        "doc string, record string")
    assert keyed(df, "id", side="gold", column="record").columns == ["id", "gold", "gold_row"]
    assert rows(keyed(df, "id", side="gold", column="record")) == [
        ('"a"', '{"id": "a", "total": 1}'), ('"é"', '{"id": "é", "total": 2.50}')]


def test_an_id_column_beside_the_record_is_the_key_and_joins_the_record(spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame([(7, '{"total": 1}'), (8, "no json here"),
                                (9, '```json\n{"id": 9}\n```'), (None, '{"total": 2}')],
                               "id long, record string")
    assert rows(keyed(df, "id", side="extracted", column="record")) == [
        ("7", '{"id": 7, "total": 1}'), ("9", '```json\n{"id": 9}\n```'),
        ("extracted?", "no json here"), ("extracted?", '{"total": 2}')]


def test_a_struct_column_and_a_whole_row_are_written_as_json_with_their_nulls(
        spark: Any) -> None:
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame([(1, ("x", 2.5, None))],
                               "n long, record struct<id:string, total:double, note:string>")
    assert rows(keyed(df, "id", side="gold", column="record")) == [
        ('"x"', '{"id":"x","total":2.5,"note":null}')]
    flat = spark.createDataFrame([("x", 3, [1, 2])], "id string, total long, items array<long>")
    assert rows(keyed(flat, "id", side="gold")) == [
        ('"x"', '{"id":"x","total":3,"items":[1,2]}')]


def test_a_missing_column_is_a_located_error(spark: Any) -> None:
    from evalschema.errors import InputError
    from evalschema.spark.inputs import keyed

    df = spark.createDataFrame([("x",)], "doc string")
    with pytest.raises(InputError) as caught:
        keyed(df, "id", side="gold", column="record")
    (problem,) = caught.value.problems
    assert (problem.code, problem.message, problem.suggestion) == (
        "no-such-column", "the DataFrame has no column 'record'", "its columns: doc")


def test_paths_are_read_as_text_json_documents_split_and_parquet_typed(
        spark: Any, tmp_path: Path) -> None:
    from evalschema.spark.inputs import keyed, read_records

    jsonl = tmp_path / "gold.jsonl"
    jsonl.write_text('{"id": 1, "v": "1"}\n\n{"id": 2, "v": 1}\n', encoding="utf-8")
    assert rows(keyed(read_records(spark, str(jsonl), gold=True), "id", side="gold")) == [
        ("1", '{"id": 1, "v": "1"}'), ("2", '{"id": 2, "v": 1}')]
    doc = tmp_path / "gold.json"
    doc.write_text(json.dumps({"records": [{"id": "a"}, {"id": "b", "v": [1]}]}),
                   encoding="utf-8")
    assert rows(keyed(read_records(spark, str(doc), gold=True), "id", side="gold")) == [
        ('"a"', '{"id": "a"}'), ('"b"', '{"id": "b", "v": [1]}')]
    pq = str(tmp_path / "gold.parquet")
    spark.createDataFrame([("a", 1.5)], "id string, v double").write.parquet(pq)
    assert rows(keyed(read_records(spark, pq, gold=True), "id", side="gold")) == [
        ('"a"', '{"id":"a","v":1.5}')]


def test_the_sides_meet_in_a_full_outer_join_on_the_id(spark: Any) -> None:
    from evalschema.spark.inputs import joined, keyed

    def side(texts: list[str], name: str) -> Any:
        return keyed(spark.createDataFrame([(t,) for t in texts], "value string"), "id",
                     side=name)

    got = joined(side(['{"id": 1}', '{"id": 2}'], "gold"),
                 [side(['{"id": 2, "x": 0}', '{"id": 3}', "oops"], "extracted_0"),
                  side(['{"id": 1, "x": 1}'], "extracted_1")])
    assert got.columns == ["id", "gold", "gold_row", "extracted_0", "extracted_0_row",
                           "extracted_1", "extracted_1_row"]
    assert rows(got) == [("1", '{"id": 1}', None, '{"id": 1, "x": 1}'),
                         ("2", '{"id": 2}', '{"id": 2, "x": 0}', None),
                         ("3", None, '{"id": 3}', None),
                         ("extracted_0?", None, "oops", None)]
