"""What the distributed tests share, each started or written once per test session (their
start-up is these tests' largest cost): one real Ray (2 CPUs, no dashboard), one local
Spark, and the generated 100,000-record suite with its local run."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
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


def bench_suite() -> ModuleType:
    """``bench/distributed_suite.py``, the benchmark's generator, loaded by path."""
    spec = importlib.util.spec_from_file_location("distributed_suite",
                                                  REPO / "bench" / "distributed_suite.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def ray_session() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="Ray is not installed: pip install "
                              "'evalschema[ray]' (CI installs it)")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    """A local Spark (``local[2]``, two shuffle partitions, no UI, quiet logs); skipped
    with the reason when Java or pyspark is absent (CI installs both: ``.ci/run``)."""
    pytest.importorskip("pyspark", reason="pyspark is not installed: pip install "
                        "'evalschema[spark]' (CI installs it)")
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        pytest.skip("Java is not installed (Spark runs on it: apt-get install "
                    "default-jre-headless; CI installs it)")
    from evalschema.spark.session import spark_session

    session = spark_session("local[2]", shuffle_partitions=2)
    yield session
    session.stop()


@pytest.fixture(scope="session")
def suite_100k(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(schema, gold, extracted): 100,000 gold records, generated once per session."""
    return bench_suite().write_suite(tmp_path_factory.mktemp("suite100k"), 100_000)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class LocalRun:
    """``suite_100k``'s local run: the aggregates and the field-result rows
    (``frames.COLUMNS``), which every engine must give again."""

    run: RunResult
    field_rows: pa.Table


@pytest.fixture(scope="session")
def suite_100k_local(suite_100k: tuple[Path, Path, Path]) -> LocalRun:
    """``suite_100k`` scored locally once per session (records streamed, not kept)."""
    schema, gold, extracted = suite_100k
    evaluator = EvalSpec(load_json(schema), str(schema)).evaluator()
    acc = RunAccumulator(keep_records=False)
    rows = field_results_table(iter_evaluate(gold, extracted, evaluator, acc, stream=True))
    return LocalRun(acc.result(), rows)
