"""Runs on Spark: gold and extracted DataFrames (or paths) in, a local run's result out.

The sides are keyed in Python (``inputs.keyed``), joined on the id, full outer, by
Spark's shuffle; the joined rows are scored with ``mapInArrow`` by the core's
``PartitionScorer`` on the Python workers (``scoring``), and the partition states are
collected and merged on the driver in id order (``distributed.merge``), so the result
is the local run's (docs/distributed.md states the contract).
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from evalschema.distributed.merge import DistributedRun, merge_states
from evalschema.distributed.rows import GOLD, require_id, run_columns
from evalschema.distributed.scorer import spec_of
from evalschema.run.bootstrap import BootstrapSpec
from evalschema.run.parallel import PROBLEMS, WORST, EvalSpec
from evalschema.spark.inputs import joined, keyed, read_records
from evalschema.spark.scoring import (
    FIELD_SCHEMA,
    STATE_SCHEMA,
    field_partition,
    score_partition,
    scorer_key,
)
from evalschema.spark.session import spark_session

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession


@contextmanager
def _quiet() -> Iterator[None]:
    """pyspark warns on every Arrow map that it "does not yet fully support" pandas 3,
    which these maps do not use."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas",
                                FutureWarning)
        yield


def side(spark: SparkSession, source: Any, id_field: str, name: str,
         column: str | None) -> DataFrame:
    """One input keyed: a DataFrame as it is, a path read (``inputs.read_records``)."""
    if isinstance(source, str | PurePath):
        source = read_records(spark, str(source), gold=name == GOLD)
    return keyed(source, id_field, side=name, column=column)


def evaluate_runs(gold: Any, runs: Sequence[Any], schema: Any = None, *,
                  spec: EvalSpec | None = None, spark: SparkSession | None = None,
                  master: str | None = None, gold_column: str | None = None,
                  extracted_column: str | None = None, field_results: bool = False,
                  keep_records: bool = False, worst: int = WORST,
                  keep_problems: int = PROBLEMS, replicates: BootstrapSpec | None = None,
                  **spec_options: Any) -> list[DistributedRun]:
    """Score several extracted runs of one gold in one pass over the joined rows (as
    ``compare`` needs them): one ``DistributedRun`` per run, in order; with
    ``replicates`` each run keeps its bootstrap replicate sums (``compare``)."""
    started = time.perf_counter()
    if spec is None:
        spec = spec_of(schema, **spec_options)
    id_field = require_id(spec.evaluator().id_field, spec.base_uri)
    names = run_columns(len(runs))
    with _quiet():
        spark = spark or spark_session(master)
        # The judge's concurrency limit holds for the run: each task takes its share.
        key = scorer_key(spec.for_tasks(spark.sparkContext.defaultParallelism), len(runs),
                         keep_records=keep_records, worst=worst,
                         keep_problems=keep_problems, replicates=replicates)
        rows = joined(side(spark, gold, id_field, GOLD, gold_column),
                      [side(spark, run, id_field, name, extracted_column)
                       for run, name in zip(runs, names, strict=True)])
        states = rows.mapInArrow(partial(score_partition, key), STATE_SCHEMA)
        blobs = [r["state"] for r in states.select("state").collect()]
        frames = rows.mapInArrow(partial(field_partition, key), FIELD_SCHEMA) \
            if field_results else None
    merged = merge_states(blobs, len(runs), keep_records=keep_records, worst=worst,
                          keep_problems=keep_problems, replicates=replicates)
    workers = spark.sparkContext.defaultParallelism
    outcomes = merged.outcomes(time.perf_counter() - started, workers)
    return [DistributedRun(o, None if frames is None else
                           frames.where(f"run = {k}") if len(runs) > 1 else frames)
            for k, o in enumerate(outcomes)]


def evaluate(gold: Any, extracted: Any, schema: Any = None, *, id_field: str | None = None,
             spark: SparkSession | None = None, master: str | None = None,
             field_results: bool = False, keep_records: bool = False,
             **options: Any) -> DistributedRun:
    """Score ``extracted`` against ``gold`` on Spark: ``gold`` and ``extracted`` are
    DataFrames or paths (``inputs``); ``.run`` is the ``RunResult`` a local run gives
    (records kept only with ``keep_records``), ``.field_results`` a DataFrame of one row
    per field result (``frames.COLUMNS`` plus ``run``) when asked for. Records pair by
    ``x-eval-id`` or ``id_field``. Runs on ``spark`` (else the active session, else a new
    one on ``master``, ``local[*]`` by default)."""
    (out,) = evaluate_runs(gold, [extracted], schema, id_field=id_field, spark=spark,
                           master=master, field_results=field_results,
                           keep_records=keep_records, **options)
    return out
