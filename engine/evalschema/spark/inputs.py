"""DataFrames in: gold and extracted records as Spark DataFrames, or paths Spark reads,
turned into the distributed core's rows (``id``, ``gold``, ``extracted``…) by a full
outer join on the record id.

A record comes as a JSON string column, a struct (or map) column, or the whole row, and
its id as a column of its own or the id field inside the record. Spark's JSON writer and
Python's ``json`` disagree on escapes and number forms, so the pairing key is made in
Python (one Arrow batch at a time), by the one rule the local run pairs with: gold read
strictly, extracted text rescued leniently (``io.extracted.read_extracted``), the id
written as canonical JSON text. Paths are read as text (JSONL by line, JSON whole), not
with Spark's JSON schema inference, which would turn ``1`` into ``"1"`` where a column
holds both and drop a record that is not JSON; Parquet is read as it is typed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from evalschema.distributed.rows import (
    GOLD,
    ID,
    RECORD,
    SideKeyer,
    key_text,
    read_extracted_text,
    read_gold,
    row_tags,
    tag_column,
    unkeyed_key,
)
from evalschema.errors import InputError, Problem
from evalschema.frames import need
from evalschema.io.extracted import usable_id
from evalschema.io.records import parse_records_text

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

#: The input column a typed id column is handed to Python in (``keyed``).
_ID_IN = "_evalschema_id"

#: A null field of a typed row is written as null, as Ray's reader writes it (a typed
#: table has no "absent": a key missing from one JSON record is null in its column).
_KEEP_NULLS = {"ignoreNullFields": "false"}

Tables = Callable[[Any], Any]


def tables_as_batches(fn: Tables, batches: Iterator[Any]
                      ) -> Iterator[Any]:
    """A function of Arrow tables as ``mapInArrow`` calls one: batches in, batches out."""
    pa = need("pyarrow", "Spark runs")

    for batch in batches:
        yield from fn(pa.Table.from_batches([batch])).to_batches()


def with_id(text: str | None, rid: Any, id_field: str, side: str) -> tuple[str, str | None]:
    """(key, record text) of a record whose id is a column of its own: the column's
    value is the key, and a record that lacks ``id_field`` gets it (the core reads the
    id from the gold record). A record that cannot be read pairs with nothing (a key of
    its own, ``unkeyed_key``), as a local run pairs an unreadable line."""
    import json

    if text is None or not usable_id(rid):
        return unkeyed_key(side, text), text
    value: Any
    if side == GOLD:
        try:
            value = read_gold(text)
        except InputError:
            return unkeyed_key(side, text), text
    else:
        value = read_extracted_text(text)[0]
    if not isinstance(value, dict):
        return unkeyed_key(side, text), text
    if id_field not in value:
        text = json.dumps({id_field: rid, **value}, ensure_ascii=False)
    return key_text(rid), text


class ColumnKeyer:
    """Keys rows whose id is a column beside the record (``with_id``)."""

    def __init__(self, id_field: str, column: str) -> None:
        self.id_field = id_field
        self.column = column

    def __call__(self, table: Any) -> Any:
        pa = need("pyarrow", "Spark runs")

        pairs = [with_id(t, rid, self.id_field, self.column) for t, rid in zip(
            table.column(RECORD).to_pylist(), table.column(_ID_IN).to_pylist(), strict=True)]
        return pa.table({ID: pa.array([k for k, _ in pairs], pa.string()),
                         self.column: pa.array([t for _, t in pairs], pa.string()),
                         tag_column(self.column): pa.array(row_tags(len(pairs)), pa.string())})


def _record_column(df: DataFrame, column: str | None) -> Any:
    """The record as JSON text: a string column as it is, a struct/map/array column or
    the whole row written by ``to_json`` (null fields kept: ``_KEEP_NULLS``)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    if column is None:
        fields = df.schema.fields
        if len(fields) == 1 and isinstance(fields[0].dataType, StringType):
            return F.col(fields[0].name)
        return F.to_json(F.struct(*[F.col(f"`{f.name}`") for f in fields]), _KEEP_NULLS)
    if column not in df.columns:
        raise InputError([Problem("no-such-column", f"the DataFrame has no column {column!r}",
                                  suggestion=f"its columns: {', '.join(df.columns)}")])
    if isinstance(df.schema[column].dataType, StringType):
        return F.col(f"`{column}`")
    return F.to_json(F.col(f"`{column}`"), _KEEP_NULLS)


def keyed(df: DataFrame, id_field: str, *, side: str, column: str | None = None
          ) -> DataFrame:
    """One side as (``id``, ``side``) rows: the pairing key (null when the record has
    none) and the record's JSON text under its side's name (``gold``, ``extracted``…).
    ``column`` names the record's column (a JSON string, or a struct/map written as
    JSON); without it the record is the whole row, or its one string column
    (``spark.read.text``). With ``column``, an ``id_field`` column beside it is the id;
    else the id is read from the record."""
    from pyspark.sql import functions as F

    record = _record_column(df, column).alias(RECORD)
    has_id = column is not None and id_field in df.columns and id_field != column
    keyer: Tables = ColumnKeyer(id_field, side) if has_id else SideKeyer(id_field, side)
    cols = [record, F.col(f"`{id_field}`").alias(_ID_IN)] if has_id else [record]
    return df.select(*cols).mapInArrow(partial(tables_as_batches, keyer),
                                       f"{ID} string, `{side}` string, "
                                       f"`{tag_column(side)}` string")


def _split_documents(batches: Iterator[Any], gold: bool
                     ) -> Iterator[Any]:
    """Whole JSON files (``wholetext``) to one row per record, as the local reader
    splits them (an array of records, an object holding one, or one record)."""
    import json

    pa = need("pyarrow", "Spark runs")

    for batch in batches:
        out: list[str | None] = []
        for text, source in zip(batch.column("value").to_pylist(),
                                batch.column("source").to_pylist(), strict=True):
            for raw in parse_records_text(text, source, strict=gold, jsonl=False):
                out.append(raw.value if raw.unparsed
                           else json.dumps(raw.value, ensure_ascii=False))
        yield pa.RecordBatch.from_arrays([pa.array(out, pa.string())], names=["value"])


def read_records(spark: SparkSession, path: str, *, gold: bool) -> DataFrame:
    """Records at ``path`` (a file or folder, local or object storage: ``s3a://``…):
    ``.parquet`` typed rows, ``.json`` whole documents, anything else JSON Lines (blank
    lines skipped). Gold JSON documents are read strictly: a broken one is an error."""
    from pyspark.sql import functions as F

    lower = path.rstrip("/").lower()
    if lower.endswith(".parquet"):
        return spark.read.parquet(path)
    if lower.endswith(".json"):
        whole = spark.read.text(path, wholetext=True).select(
            "value", F.input_file_name().alias("source"))
        return whole.mapInArrow(partial(_split_documents, gold=gold), "value string")
    lines = spark.read.text(path)
    return lines.where(F.trim(F.col("value")) != "")


def joined(gold: DataFrame, runs: Sequence[DataFrame]) -> DataFrame:
    """The core's rows: one per id (more where an id repeats on one side), ``gold`` and
    each run's record as JSON text or null, by a full outer join of keyed sides on
    ``id`` (a record without an id has a key of its own). Within a partition the rows
    come sorted by id, so the rows of one id arrive together (``scoring.whole_ids``)."""
    out = gold
    for run in runs:
        out = out.join(run, on=ID, how="full_outer")
    return out.sortWithinPartitions(ID)
