"""What the distributed engines' tests share: one local Spark for the whole session."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import Any

import pytest


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
