"""Starting Spark for a run that was given a master URL rather than a session."""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from evalschema.distributed.extras import need_engine

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The master when none is given: this machine, one task slot per core.
LOCAL = "local[*]"


def local_master(cores: int | None = None) -> str:
    """``local[N]`` with N this machine's cores (``local[*]`` would count every core of
    the host, not those this process may use)."""
    if cores is None:
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
            else os.cpu_count() or 1
    return f"local[{max(1, cores)}]"


def spark_session(master: str | None = None, *, app: str = "evalschema",
                  shuffle_partitions: int | None = None) -> SparkSession:
    """The active session, or a new one on ``master`` (``local[*]``: capped to the cores
    this process may use) with the UI, the console progress bar and the INFO logs off.

    A local Spark starts its Python workers with ``PYSPARK_PYTHON`` (else ``python3`` on
    the PATH, perhaps without evalschema); it is set to this interpreter when unset. On a
    cluster the executors' Python is the cluster's (docs/distributed.md)."""
    sql = need_engine("pyspark.sql", "spark")
    master = master or LOCAL
    if master == LOCAL:
        master = local_master()
    if re.fullmatch(r"local(\[.*\])?", master):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = (sql.SparkSession.builder.master(master).appName(app)
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    if shuffle_partitions is not None:
        builder = builder.config("spark.sql.shuffle.partitions", str(shuffle_partitions))
    session: SparkSession = builder.getOrCreate()
    session.sparkContext.setLogLevel("ERROR")
    return session
