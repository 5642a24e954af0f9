"""Scoring the joined rows on Spark's Python workers with ``DataFrame.mapInArrow``.

Each partition's Arrow batches go to the core's ``PartitionScorer``, built once per
Python worker and kept at module level, keyed by the pickled spec (Spark reuses its
Python workers, so a worker parses the schema and imports the comparator modules once,
not once per partition). The joined rows come sorted by id within a partition
(``inputs.joined``); a batch's last id may go on in the next batch, so its rows are
carried over and every id is scored with all its rows (a repeated id is a duplicate).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from typing import Any

from evalschema.distributed.rows import ID
from evalschema.distributed.scorer import PartitionScorer
from evalschema.frames import COLUMNS, need

#: The Spark schema of the state rows (one per scored batch).
STATE_SCHEMA = "first_id string, records long, state binary"
_SPARK_TYPES = {"int64": "long", "string": "string", "float64": "double"}
#: The Spark schema of the field-result rows: ``frames.COLUMNS`` plus ``run``.
FIELD_SCHEMA = ", ".join([*(f"`{name}` {_SPARK_TYPES[kind]}" for name, kind in COLUMNS),
                          "run long"])

#: This worker's scorers, by pickled (spec, runs, options).
_scorers: dict[bytes, PartitionScorer] = {}


def scorer_key(spec: Any, runs: int, **options: Any) -> bytes:
    """What a worker builds its scorer from: sent once with the task, small (the
    schema's JSON, comparator module names, judge settings without keys)."""
    return pickle.dumps((spec, runs, options), pickle.HIGHEST_PROTOCOL)


def worker_scorer(key: bytes) -> PartitionScorer:
    scorer = _scorers.get(key)
    if scorer is None:
        spec, runs, options = pickle.loads(key)
        scorer = _scorers[key] = PartitionScorer(spec, runs, **options)
    return scorer


def whole_ids(batches: Iterator[Any]) -> Iterator[Any]:
    """Tables of a partition's rows (sorted by id) in which no id is cut in two: the
    rows of a batch's last id wait for the next batch."""
    pa = need("pyarrow", "Spark runs")

    carry: Any | None = None
    for batch in batches:
        table = pa.Table.from_batches([batch])
        if carry is not None:
            table = pa.concat_tables([carry, table])
        ids = table.column(ID).to_pylist()
        cut = len(ids)
        while cut > 0 and ids[cut - 1] == ids[-1]:
            cut -= 1
        if cut == 0:
            carry = table
            continue
        carry = table.slice(cut) if cut < len(ids) else None
        yield table.slice(0, cut)
    if carry is not None and carry.num_rows:
        yield carry


def score_partition(key: bytes, batches: Iterator[Any]
                    ) -> Iterator[Any]:
    """A partition's rows as state rows (``STATE_SCHEMA``)."""
    scorer = worker_scorer(key)
    for table in whole_ids(batches):
        yield from scorer(table).to_batches()


def field_partition(key: bytes, batches: Iterator[Any]
                    ) -> Iterator[Any]:
    """A partition's rows as field-result rows (``FIELD_SCHEMA``)."""
    scorer = worker_scorer(key)
    for table in whole_ids(batches):
        yield from scorer.field_rows(table).to_batches()
