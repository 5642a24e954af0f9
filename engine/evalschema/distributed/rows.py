"""The rows both distributed engines build and hand to the core, and the keys they group on.

A row holds ``id`` (the pairing key as canonical JSON text; for a record without a usable
id, a key of its own, ``unkeyed_key``), ``gold`` (the gold record as JSON text, or null)
and one column per extracted run (``extracted`` for eval, ``extracted_0..k-1`` for
compare), each with its row tags. The engines read each input into a table of one
``record`` text column (``record_texts``) and key it (``SideKeyer``); Spark joins the
sides on ``id``, full outer, and Ray puts them together and hash-partitions them on
``id``. Either way every row of an id reaches one scoring call, which folds them back
into records (``scorer``). Keys come from the same readers as a local run: gold parsed
strictly, extracted rescued leniently (``read_extracted``)."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from evalschema.errors import InputError, Problem
from evalschema.frames import need
from evalschema.io.extracted import NO_RECORD, Read, read_extracted, usable_id
from evalschema.io.records import RawLine

#: The pairing key and the gold column of the joined rows.
ID, GOLD = "id", "gold"
#: The text column of one input, before keying.
RECORD = "record"
#: How the key of a record without a usable id starts (``unkeyed_key``).
UNKEYED = "\x00"


def tag_column(column: str) -> str:
    """The column of a side's row tags (``row_tags``), beside its text column."""
    return f"{column}_row"


def row_tags(n: int) -> list[str]:
    """One random tag per record read: a join repeats a record's row once for each record
    of the other sides with its id, and the core folds the repeats back by tag, never by
    text (two records of one side with the same id and the same text are two records,
    as in a local run)."""
    return [os.urandom(8).hex() for _ in range(n)]


def run_columns(runs: int) -> tuple[str, ...]:
    """The extracted columns: ``extracted`` for one run (eval), ``extracted_<k>`` for
    several (compare)."""
    if runs == 1:
        return ("extracted",)
    return tuple(f"extracted_{k}" for k in range(runs))


def key_text(rid: Any) -> str:
    """An id as canonical JSON text: the join key, equal for equal ids on both sides."""
    return json.dumps(rid, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def read_gold(text: str) -> Any:
    """A gold record's text parsed strictly, as a local run parses gold (``InputError``
    when it is not JSON)."""
    return RawLine(text, source="gold", line=None, strict=True).parse().value


def read_extracted_text(text: str) -> Read:
    """An extracted record's text read as a local run reads a line: rescued leniently."""
    return read_extracted(RawLine(text).parse())


def record_key(text: str | None, id_field: str, *, gold: bool) -> str | None:
    """The join key of one record's text, or None when it has no usable id (or cannot
    be read): such a record pairs with nothing and is scored (or refused) on its own."""
    if text is None:
        return None
    if gold:
        try:
            value = read_gold(text)
        except InputError:
            return None
    else:
        value = read_extracted_text(text)[0]
    if value is NO_RECORD or not isinstance(value, dict):
        return None
    rid = value.get(id_field)
    return key_text(rid) if usable_id(rid) else None


def unkeyed_key(column: str, text: str | None) -> str:
    """The join key of a record without a usable id: never a real id's (those are JSON
    text), never another side's (the column is in it), spread by a hash of the text.
    A join never matches null keys, and engines differ in how they keep them; this
    key keeps every such record, and the core scores each of them alone."""
    digest = hashlib.blake2b((text or "").encode("utf-8", "surrogatepass"),
                             digest_size=8).hexdigest()
    return f"{UNKEYED}{column}{UNKEYED}{digest}"


def is_keyed(key: str | None) -> bool:
    """Whether a joined row's key is a record's id (not ``unkeyed_key``'s)."""
    return key is not None and not key.startswith(UNKEYED)


def record_texts(table: Any) -> Any:
    """An input table as one ``record`` column of JSON text: a table of one text column
    (lines read as text, e.g. ``ray.data.read_text``'s ``text``) is taken as it is; any
    other row (Parquet, a struct, columns read from JSON) becomes the JSON text of its
    row. Arrow has no "absent": a key missing in one row of a column is null in it."""
    pa = need("pyarrow", "distributed runs")
    kind = table.schema.field(0).type if table.num_columns == 1 else None
    if kind is not None and (pa.types.is_string(kind) or pa.types.is_large_string(kind)):
        texts = table.column(0).cast(pa.string())
    else:
        texts = pa.array([json.dumps(row, ensure_ascii=False, default=str)
                          for row in table.to_pylist()], pa.string())
    return pa.table({RECORD: texts})


def side_columns(runs: int) -> tuple[str, ...]:
    """Every side's text column, gold first: the columns of the rows the core scores."""
    return (GOLD, *run_columns(runs))


class SideKeyer:
    """Keys one input's rows: a table with a ``record`` text column becomes ``id`` and
    ``column`` (the record text under its side's name) with its row tags; a record
    without a usable id gets an ``unkeyed_key``. With ``sides`` (``side_columns``), the
    row holds every side's columns, the others null, so that the sides' rows can be put
    together (a union) rather than joined. A callable, so an engine can map it over
    batches."""

    def __init__(self, id_field: str, column: str, sides: tuple[str, ...] = ()) -> None:
        self.id_field = id_field
        self.column = column
        self.sides = sides or (column,)

    def __call__(self, table: Any) -> Any:
        pa = need("pyarrow", "distributed runs")
        texts = record_texts(table).column(RECORD).to_pylist()
        gold = self.column == GOLD
        keys = [record_key(t, self.id_field, gold=gold) for t in texts]
        keys = [unkeyed_key(self.column, t) if k is None else k
                for k, t in zip(keys, texts, strict=True)]
        n = len(texts)
        columns = {ID: pa.array(keys, pa.string())}
        for side in self.sides:
            mine = side == self.column
            columns[side] = pa.array(texts, pa.string()) if mine else pa.nulls(n, pa.string())
            columns[tag_column(side)] = pa.array(row_tags(n), pa.string()) if mine else \
                pa.nulls(n, pa.string())
        return pa.table(columns)


def require_id(id_field: str | None, schema_source: str | None = None) -> str:
    """The pairing field of a distributed run: records are paired by a join on their id,
    never by position (partitions have no global order)."""
    if id_field is None:
        raise InputError([Problem(
            "needs-id", "a distributed run pairs records by id, and this schema names none",
            pointer="", source=schema_source or "schema",
            suggestion='add "x-eval-id": "<field>" at the schema\'s root, or pass --id-field')],
            "the run cannot be distributed")
    return id_field
