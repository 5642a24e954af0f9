"""What the distributed engines' tests share: one local Spark for the whole session, and
a generated 100,000-record suite with its local run."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from evalschema.frames import field_results_table
from evalschema.io.records import load_json
from evalschema.results import RunResult
from evalschema.run.accumulator import RunAccumulator
from evalschema.run.evaluate import iter_evaluate
from evalschema.run.parallel import EvalSpec

REPO = Path(__file__).resolve().parents[3]
SCHEMA = REPO / "examples" / "invoices.eval.json"


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local Spark (``local[2]``, two shuffle partitions, no UI, quiet logs), started
    once per test session; skipped with the reason when Java or pyspark is absent (CI
    installs both: ``.ci/run``)."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        pytest.skip("pyspark is not installed (pip install 'evalschema[spark]')")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Java is not installed (Spark runs on it: apt-get install "
                    "default-jre-headless)")
    from evalschema.spark.session import spark_session

    session = spark_session("local[2]", shuffle_partitions=2)
    yield session
    session.stop()


@dataclass(frozen=True)
class Suite:
    """A generated suite on disk and its local run: the aggregates and the field-result
    rows (``frames.COLUMNS``), which every engine must give again."""

    gold: Path
    extracted: Path
    schema: Path
    run: RunResult
    field_rows: pa.Table


#: Records of the generated suite.
GENERATED = 100_000


def _generated(folder: Path) -> tuple[Path, Path]:
    """bench/cli_scale.py's suite (the bundled example's records under new ids, each
    block of 1,000 extracted records reversed), plus an unreadable extracted line and an
    extracted record no gold record has."""
    spec = importlib.util.spec_from_file_location("cli_scale", REPO / "bench" / "cli_scale.py")
    assert spec is not None and spec.loader is not None
    cli_scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cli_scale)
    gold, extracted, n, _ = cli_scale.write_pair(folder, records=GENERATED)
    assert n == GENERATED
    with extracted.open("a", encoding="utf-8") as f:
        f.write('Sorry, I cannot read this invoice.\n{"invoice_id": "INV-X", "total": 1}\n')
    return gold, extracted


@pytest.fixture(scope="session")
def generated_suite(tmp_path_factory: pytest.TempPathFactory) -> Suite:
    """The 100,000-record suite, written and run locally once per test session."""
    gold, extracted = _generated(tmp_path_factory.mktemp("generated"))
    evaluator = EvalSpec(load_json(SCHEMA), str(SCHEMA)).evaluator()
    acc = RunAccumulator(keep_records=False)
    rows = field_results_table(iter_evaluate(gold, extracted, evaluator, acc, stream=True))
    return Suite(gold, extracted, SCHEMA, acc.result(), rows)
