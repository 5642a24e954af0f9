"""Runs on Spark DataFrames (``pip install 'evalschema[spark]'``; docs/distributed.md):
``evaluate(gold_df, extracted_df, schema)``, the same result as a local run."""

from evalschema.spark.inputs import keyed, read_records
from evalschema.spark.runs import evaluate, evaluate_runs
from evalschema.spark.session import spark_session

__all__ = ["evaluate", "evaluate_runs", "keyed", "read_records", "spark_session"]
