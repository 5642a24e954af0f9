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

from evalschema.errors import InputError, Problem
from evalschema.io.extracted import NO_RECORD, no_id_problem, read_extracted, usable_id
from evalschema.io.records import parse_line, parse_records_text

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

#: The columns of a keyed side (``keyed``): the pairing key and the record's JSON text.
KEY, RECORD = "id", "record"
#: Where a keyed side says why its record has no key (unreadable, no usable id).
PROBLEM = "problem"
KEYED_SCHEMA = f"{KEY} string, {RECORD} string, {PROBLEM} string"
#: The input column a typed id column is handed to Python in (``keyed``).
_ID_IN = "_evalschema_id"


def id_text(record_id: Any) -> str:
    """An id as canonical JSON text: what the sides are joined on and the rows carry."""
    import json

    return json.dumps(record_id, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def key_record(text: str | None, id_field: str, *, gold: bool,
               given: Any = NO_RECORD) -> tuple[str | None, str | None, str | None]:
    """(key, record text, problem) of one record: the key is ``given`` (an id column's
    value) or the record's ``id_field``, as canonical JSON text; None with a problem
    when the record cannot be read or has no usable id."""
    if text is None:
        return None, None, "the record is null"
    record: Any
    stripped = text.strip()
    if gold:
        try:
            record = parse_line(stripped, None, 0, strict=True).value
        except InputError as exc:
            return None, text, exc.problems[0].message
        if not isinstance(record, dict) and given is NO_RECORD:
            return None, text, "gold record is not an object"
    else:
        record, _, problem = read_extracted(parse_line(stripped, None, 0, strict=False))
        if record is NO_RECORD and given is NO_RECORD:
            return None, text, problem
    rid = given if given is not NO_RECORD else record.get(id_field)
    if not usable_id(rid):
        return None, text, (f"record has no usable {id_field!r}" if gold
                            else no_id_problem(id_field))
    return id_text(rid), text, None


def _key_batches(batches: Iterator[pa.RecordBatch], id_field: str, gold: bool,
                 has_id: bool) -> Iterator[pa.RecordBatch]:
    import pyarrow as pa

    for batch in batches:
        texts = batch.column(RECORD).to_pylist()
        ids = batch.column(_ID_IN).to_pylist() if has_id else [NO_RECORD] * len(texts)
        rows = [key_record(t, id_field, gold=gold, given=g) for t, g in zip(texts, ids,
                                                                               strict=True)]
        cols = list(zip(*rows, strict=True)) if rows else [(), (), ()]
        yield pa.RecordBatch.from_arrays([pa.array(c, pa.string()) for c in cols],
                                         names=[KEY, RECORD, PROBLEM])


def _record_column(df: DataFrame, column: str | None) -> Any:
    """The record as JSON text: a string column as it is, a struct/map/array column or
    the whole row written by ``to_json`` (a null field is left out, as Spark writes it)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    if column is None:
        fields = df.schema.fields
        if len(fields) == 1 and isinstance(fields[0].dataType, StringType):
            return F.col(fields[0].name)
        return F.to_json(F.struct(*[F.col(f"`{f.name}`") for f in fields]))
    if column not in df.columns:
        raise InputError([Problem("no-such-column", f"the DataFrame has no column {column!r}",
                                  suggestion=f"its columns: {', '.join(df.columns)}")])
    if isinstance(df.schema[column].dataType, StringType):
        return F.col(f"`{column}`")
    return F.to_json(F.col(f"`{column}`"))


def keyed(df: DataFrame, id_field: str, *, gold: bool, column: str | None = None
          ) -> DataFrame:
    """One side as (``id``, ``record``, ``problem``) rows. ``column`` names the record's
    column (a JSON string, or a struct/map written as JSON); without it the record is the
    whole row, or its one string column (``spark.read.text``). With ``column``, an
    ``id_field`` column beside it is the id; else the id is read from the record."""
    from pyspark.sql import functions as F

    record = _record_column(df, column).alias(RECORD)
    has_id = column is not None and id_field in df.columns and id_field != column
    cols = [record, F.col(f"`{id_field}`").alias(_ID_IN)] if has_id else [record]
    key: Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]] = partial(
        _key_batches, id_field=id_field, gold=gold, has_id=has_id)
    return df.select(*cols).mapInArrow(key, KEYED_SCHEMA)


def _split_documents(batches: Iterator[pa.RecordBatch], gold: bool
                     ) -> Iterator[pa.RecordBatch]:
    """Whole JSON files (``wholetext``) to one row per record, as the local reader
    splits them (an array of records, an object holding one, or one record)."""
    import json

    import pyarrow as pa

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


def joined(gold: DataFrame, runs: Sequence[DataFrame], *, names: Sequence[str]) -> DataFrame:
    """The core's rows: one per id, ``gold`` and each run's record (``names``) as JSON
    text or null, by a full outer join of keyed sides on ``id``. Rows without a key
    (``problem`` set) are kept apart by ``unkeyed``."""
    from pyspark.sql import functions as F

    out = gold.where(F.col(KEY).isNotNull()).select(KEY, F.col(RECORD).alias("gold"))
    for run, name in zip(runs, names, strict=True):
        side = run.where(F.col(KEY).isNotNull()).select(KEY, F.col(RECORD).alias(name))
        out = out.join(side, on=KEY, how="full_outer")
    return out
